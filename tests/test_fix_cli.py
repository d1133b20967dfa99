"""``sapper fix`` on the command line: writing, --diff, sdists with -o, exit codes."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from sapper.cli import main

CFG = "[metadata]\nname = x\n# keep me\nauthor-email = a@b\n"
FIXED = "[metadata]\nname = x\n# keep me\nauthor_email = a@b\n"


def _tree(tmp_path: Path, cfg: str = CFG) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "setup.cfg").write_text(cfg)
    (root / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    return root


def _sdist(tmp_path: Path) -> Path:
    path = tmp_path / "x-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for name, data in (
            ("x-1.0/PKG-INFO", b"Metadata-Version: 1.1\nName: x\nVersion: 1.0\n"),
            ("x-1.0/setup.cfg", CFG.encode()),
        ):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1_500_000_000, 0o644
            tf.addfile(info, io.BytesIO(data))
    return path


def test_directory_fixed_in_place_then_nothing(tmp_path, capsys) -> None:
    root = _tree(tmp_path)
    assert main(["fix", str(root)]) == 1
    assert (root / "setup.cfg").read_text() == FIXED
    out = capsys.readouterr()
    assert "SC001 fixed: `author-email` -> `author_email`" in out.out
    assert "rewrote 1 of 1 target(s): 1 fixed" in out.err
    assert main(["fix", str(root)]) == 0


def test_diff_writes_nothing(tmp_path, capsys) -> None:
    root = _tree(tmp_path)
    assert main(["fix", "--diff", str(root)]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        "--- a/setup.cfg",
        "+++ b/setup.cfg",
        "@@ -1,4 +1,4 @@",
        " [metadata]",
        " name = x",
        " # keep me",
        "-author-email = a@b",
        "+author_email = a@b",
    ]
    assert "SC001 fixed" in out.err
    assert (root / "setup.cfg").read_text() == CFG


def test_select_ignore(tmp_path) -> None:
    root = _tree(tmp_path)
    assert main(["fix", "--ignore", "SC001", str(root)]) == 0
    assert main(["fix", "--select", "SP", str(root)]) == 0
    assert (root / "setup.cfg").read_text() == CFG


def test_unsafe_needs_the_flag(tmp_path, capsys) -> None:
    root = _tree(tmp_path, "[metadata]\nrequires-dist = foo\n")
    (root / "setup.py").unlink()
    assert main(["fix", str(root)]) == 0
    assert "unsafe (needs --unsafe-fixes)" in capsys.readouterr().out
    assert main(["fix", "--unsafe-fixes", str(root)]) == 1
    assert (root / "setup.cfg").read_text() == (
        "[metadata]\n\n[options]\ninstall_requires =\n    foo\n"
    )


def test_sdist_needs_output_dir(tmp_path, capsys) -> None:
    sdist = _sdist(tmp_path)
    assert main(["fix", str(sdist)]) == 2
    assert "pass -o DIR" in capsys.readouterr().err
    assert main(["fix", "-o", str(tmp_path), str(sdist)]) == 2
    assert "would overwrite the original" in capsys.readouterr().err


def test_sdist_written_to_output_dir(tmp_path, capsys) -> None:
    sdist = _sdist(tmp_path)
    out_dir = tmp_path / "out"
    assert main(["fix", "-o", str(out_dir), str(sdist)]) == 1
    with tarfile.open(out_dir / sdist.name) as tf:
        member = tf.extractfile("x-1.0/setup.cfg")
        assert member is not None
        assert member.read().decode() == FIXED
    assert main(["fix", "--diff", str(out_dir / sdist.name)]) == 0
    assert main(["fix", "--diff", str(sdist)]) == 1
    assert "+++ b/x-1.0/setup.cfg" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["fix", "no/such/dir"], 2),
        (["fix", "-o", "out", "."], 2),
    ],
)
def test_usage_errors(tmp_path, monkeypatch, argv: list[str], code: int) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == code


def test_damaged_sdist_is_a_target_error(tmp_path, capsys) -> None:
    bad = tmp_path / "x-1.0.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really gzip")
    assert main(["fix", "--diff", str(bad)]) == 3
    assert "x-1.0.tar.gz" in capsys.readouterr().err


def test_pre_commit_hooks_file_runs_fix() -> None:
    hooks = (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    assert "entry: sapper fix" in hooks


def test_sdist_whose_setup_cfg_is_a_link_is_a_target_error(tmp_path, capsys) -> None:
    path = tmp_path / "x-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for name, data in (("x-1.0/PKG-INFO", b"Name: x\n"), ("x-1.0/real.cfg", CFG.encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("x-1.0/setup.cfg")
        link.type, link.linkname = tarfile.SYMTYPE, "real.cfg"
        tf.addfile(link)
    assert main(["fix", "-o", str(tmp_path / "out"), str(path)]) == 3
    assert "not a regular member" in capsys.readouterr().err


def test_fix_edits_only_what_check_reports(tmp_path) -> None:
    """build-system.requires caps setuptools below 70: `check` reports neither the overdue
    `universal` nor the test command (still there before 72), so `fix` leaves both."""
    from helpers import project

    from sapper.check import Options, check_files
    from sapper.fix import fix_files

    files = project(
        {
            "pyproject.toml": '[build-system]\nrequires = ["setuptools<70"]\n'
            'build-backend = "setuptools.build_meta"\n',
            "setup.cfg": "[metadata]\nname = x\n\n[bdist_wheel]\nuniversal = 1\n",
            "setup.py": "from setuptools import setup\nfrom setuptools.command.test import test\n"
            'setup(cmdclass={"test": test})\n',
        }
    )
    assert check_files(files, target="t", kind="directory", options=Options()).findings == ()
    result = fix_files(files, unsafe_fixes=True)
    assert result.files == {}
    assert result.edits == ()
