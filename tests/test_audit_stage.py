"""What the sandboxed resolver reads (sapper.audit._stage): a requirements file, its
includes and the local projects it names, copied and rewritten to name the copies."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sapper.audit._stage import drop_named_lines, drop_vcs_lines, stage_requirements


def _project(path: Path, name: str = "loc") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "setup.py").write_text(f"from setuptools import setup\nsetup(name={name!r})\n")
    return path


def _staged_lines(staged: Path) -> list[str]:
    return staged.read_text().splitlines()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("-e .", "-e {copy}"),
        ("-e .[dev,test]", "-e {copy}[dev,test]"),
        ("--editable=.", "--editable={copy}"),
        (".", "{copy}"),
        ("./ ; python_version >= '3'", "{copy} ; python_version >= '3'"),
        ("loc @ file:{root}", "loc @ {uri}"),
        ("file:.#egg=loc", "{uri}"),
        # not local: left as they are
        ("requests>=2", "requests>=2"),
        ("pkg @ https://host/pkg-1.0.tar.gz", "pkg @ https://host/pkg-1.0.tar.gz"),
        ("-e git+https://host/x.git#egg=x", "-e git+https://host/x.git#egg=x"),
        ("-e git+git@host:org/x.git#egg=x", "-e git+git@host:org/x.git#egg=x"),
        ("--index-url https://host/simple", "--index-url https://host/simple"),
    ],
)
def test_a_local_line_names_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, expected: str
) -> None:
    root = _project(tmp_path / "proj")
    req = root / "requirements.txt"
    req.write_text(line.replace("{root}", str(root)) + "\n")
    monkeypatch.chdir(root)
    stage = tmp_path / "stage"
    staged = stage_requirements(req, stage)
    copy = stage / root.relative_to(root.anchor)
    want = expected.format(copy=copy, uri=copy.as_uri(), root=root)
    assert _staged_lines(staged.requirements) == [want]
    assert staged.notes == []
    if "{copy}" in expected or "{uri}" in expected:
        assert (copy / "setup.py").is_file()


def test_a_path_is_read_against_the_current_directory_as_pip_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-e .` in requirements/dev.txt, run from the project: the project, not requirements/."""
    root = _project(tmp_path / "proj")
    req = root / "requirements" / "dev.txt"
    req.parent.mkdir()
    req.write_text("-e .\n-r base.txt\n")
    (req.parent / "base.txt").write_text("-e ./sub\n")
    _project(root / "sub", "sub")
    monkeypatch.chdir(root)
    stage = tmp_path / "stage"
    staged = stage_requirements(req, stage)
    copy = stage / root.relative_to(root.anchor)
    assert _staged_lines(staged.requirements) == [f"-e {copy}", "-r base.txt"]
    # the include was staged (and rewritten) too, after the project's copy
    assert _staged_lines(copy / "requirements" / "base.txt") == [f"-e {copy / 'sub'}"]


def test_a_copy_leaves_out_environments_and_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "proj")
    for junk in (".venv/lib/big.py", "node_modules/x/index.js", "pkg/__pycache__/m.pyc"):
        (root / junk).parent.mkdir(parents=True, exist_ok=True)
        (root / junk).write_text("x")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "build" / "lib").mkdir(parents=True)  # a package may be named `build`
    (root / "requirements.txt").write_text("-e .\n")
    monkeypatch.chdir(root)
    stage = tmp_path / "stage"
    stage_requirements(root / "requirements.txt", stage)
    copy = stage / root.relative_to(root.anchor)
    assert (copy / "pkg" / "__init__.py").is_file()
    assert (copy / "build" / "lib").is_dir()
    assert not (copy / ".venv").exists()
    assert not (copy / "node_modules").exists()
    assert not (copy / "pkg" / "__pycache__").exists()


@pytest.mark.parametrize(
    ("build_file", "repository", "bound"),
    [
        # setuptools-scm reads the version from the repository: bound read-only, not copied
        ("pyproject.toml", ".", True),
        # a monorepo: the repository sits above the project
        ("pyproject.toml", "..", True),
        # a project whose build reads no repository: not shown to the sandbox's hooks
        ("setup.py", ".", False),
    ],
)
def test_the_repository_is_bound_when_a_version_plugin_reads_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    build_file: str,
    repository: str,
    bound: bool,
) -> None:
    repo = tmp_path / "repo"
    root = _project(repo / "proj")
    if build_file == "pyproject.toml":
        (root / "pyproject.toml").write_text(
            "[build-system]\nrequires = ['setuptools>=64', 'setuptools-scm>=8']\n"
        )
    git_at = (root / repository).resolve()
    subprocess.run(["git", "init", "-q", str(git_at)], check=True)
    (root / "requirements.txt").write_text("-e .\n")
    monkeypatch.chdir(root)
    stage = tmp_path / "stage"
    staged = stage_requirements(root / "requirements.txt", stage)
    link = stage / git_at.relative_to(git_at.anchor) / ".git"
    assert staged.readonly == ([git_at / ".git"] if bound else [])
    assert link.is_symlink() == bound
    if bound:
        assert link.resolve() == git_at / ".git"


def test_a_missing_or_oversized_project_is_left_out_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "proj")
    (root / "big.bin").write_bytes(b"\0" * 4096)
    (root / "requirements.txt").write_text("six\n./nosuch\n-e .\n")
    monkeypatch.chdir(root)
    monkeypatch.setattr("sapper.audit._stage.MAX_LOCAL_BYTES", 1024)
    staged = stage_requirements(root / "requirements.txt", tmp_path / "stage")
    assert _staged_lines(staged.requirements) == ["six", "# ./nosuch", "# -e ."]
    assert staged.dropped == ["./nosuch", "-e ."]
    assert "names no local project here" in staged.notes[0]
    assert "over" in staged.notes[1] and "dependencies are not resolved" in staged.notes[1]


def test_vcs_lines_are_dropped_only_when_pip_could_not_fetch(tmp_path: Path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text("six\n-e git+https://host/a.git#egg=a\nb @ git+https://host/b.git\n")
    staged = stage_requirements(req, tmp_path / "stage")
    assert drop_vcs_lines(staged, "ERROR: No matching distribution found for six") == []
    output = (
        "ERROR: Failed to build 'a' when git clone --filter=blob:none --quiet https://host/a.git"
    )
    assert drop_vcs_lines(staged, output) == [
        "-e git+https://host/a.git#egg=a",
        "b @ git+https://host/b.git",
    ]
    assert _staged_lines(staged.requirements) == [
        "six",
        "# -e git+https://host/a.git#egg=a",
        "# b @ git+https://host/b.git",
    ]


def test_the_lines_of_a_distribution_are_dropped_by_its_normalised_name(tmp_path: Path) -> None:
    """With the --hash lines a pip-compile file continues it on: left alone, pip would read
    them as a line of options and refuse the file."""
    req = tmp_path / "requirements.txt"
    req.write_text(
        "-r base.txt\nPsycopg2==2.4.6 \\\n    --hash=sha256:00 \\\n    --hash=sha256:11\n"
        "psycopg2-binary\nsix\n"
    )
    (tmp_path / "base.txt").write_text("psycopg2[extra]>=2 ; python_version > '3'\n")
    staged = stage_requirements(req, tmp_path / "stage")
    assert drop_named_lines(staged, "nosuch") == []
    assert drop_named_lines(staged, "PSYCOPG2") == [
        "psycopg2[extra]>=2 ; python_version > '3'",
        "Psycopg2==2.4.6",
    ]
    assert _staged_lines(staged.requirements)[1:] == [
        "# Psycopg2==2.4.6 \\",
        "#     --hash=sha256:00 \\",
        "#     --hash=sha256:11",
        "psycopg2-binary",
        "six",
    ]
