"""Reading the inputs of `sapper audit`: real files written by pip, uv and Poetry, and
requirements files read the way pip reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper._exceptions import UsageError
from sapper.audit.inputs import FormatControl, detect_format, read_input

DATA = Path(__file__).parent / "data" / "audit"

# (file, format, {name: (version, kind, number of files or None, has an sdist)})
# The files were written by pip 26.3 (`pip install --dry-run --report`, `pip lock`),
# uv 0.13.9 (`uv lock`) and Poetry 2.5.1 (`poetry lock`) for the same four requirements.
REAL_FILES = [
    (
        "pip-report.json",
        "pip-report",
        {
            "stringcase": ("1.2.0", 1, True),
            "six": ("1.17.0", 1, False),
            "cffi": ("2.1.1", 1, False),
            "pycparser": ("3.12", 1, False),
        },
    ),
    (
        "pylock.toml",
        "pylock",
        {
            "stringcase": ("1.2.0", 1, True),
            "cryptography": ("44.0.2", 1, False),
            "pyyaml": ("6.0.2", 1, False),
        },
    ),
    (
        "uv.lock",
        "uv.lock",
        {"stringcase": ("1.2.0", 1, True), "six": ("1.17.0", 2, True)},
    ),
    (
        "poetry.lock",
        "poetry.lock",
        {"stringcase": ("1.2.0", 1, True), "six": ("1.17.0", 2, True)},
    ),
]


@pytest.mark.parametrize(("filename", "fmt", "expected"), REAL_FILES)
def test_real_files(filename: str, fmt: str, expected: dict[str, tuple[str, int, bool]]) -> None:
    inputs = read_input(DATA / filename)
    assert inputs.format == fmt
    by_name = {e.key: e for e in inputs.entries}
    for name, (version, nfiles, has_sdist) in expected.items():
        entry = by_name[name]
        assert entry.version == version
        assert entry.kind == "registry"
        assert entry.files is not None
        assert len(entry.files) == nfiles
        assert any(not f.is_wheel for f in entry.files) == has_sdist
        assert all(f.sha256 and len(f.sha256) == 64 for f in entry.files)


def test_uv_lock_marks_the_project_itself_virtual() -> None:
    inputs = read_input(DATA / "uv.lock")
    demo = next(e for e in inputs.entries if e.name == "demo-app")
    assert demo.kind == "virtual"
    assert any("demo-app" in n for n in inputs.notes)


def test_poetry_lock_keeps_markers_and_filenames_without_urls() -> None:
    inputs = read_input(DATA / "poetry.lock")
    cffi = next(e for e in inputs.entries if e.name == "cffi")
    assert cffi.marker == 'platform_python_implementation != "PyPy"'
    assert cffi.files is not None
    assert all(f.url is None for f in cffi.files)
    assert len(cffi.files) > 40  # every wheel Poetry locked, for every platform


def test_pip_report_urls_and_hashes() -> None:
    inputs = read_input(DATA / "pip-report.json")
    stringcase = inputs.entries[0]
    assert stringcase.files is not None
    (sdist,) = stringcase.files
    assert sdist.filename == "stringcase-1.2.0.tar.gz"
    assert sdist.sha256 == "48a06980661908efe8d9d34eab2b6c13aefa2163b3ced26972902e3bdfd87008"
    assert sdist.url is not None and sdist.url.startswith("https://files.pythonhosted.org/")


POETRY_1_1 = """\
[[package]]
name = "six"
version = "1.16.0"
description = "Python 2 and 3 compatibility utilities"
category = "main"
optional = false
python-versions = ">=2.7, !=3.0.*, !=3.1.*, !=3.2.*"

[metadata]
lock-version = "1.1"
python-versions = "^3.8"
content-hash = "0123456789abcdef"

[metadata.files]
six = [
    {file = "six-1.16.0-py2.py3-none-any.whl", hash = "sha256:AAA"},
    {file = "six-1.16.0.tar.gz", hash = "sha256:BBB"},
    {file = "six-1.15.0.tar.gz", hash = "sha256:CCC"},
]
"""
for _letter in "ABC":
    POETRY_1_1 = POETRY_1_1.replace(_letter * 3, _letter.lower() * 64)

#: Every content sapper reads, by what it is: the real files of tests/data/audit, a Poetry
#: 1.1 lock (files in [metadata.files]), and a requirements file.
CONTENTS = {
    "pip-report": (DATA / "pip-report.json").read_text(),
    "pylock": (DATA / "pylock.toml").read_text(),
    "uv.lock": (DATA / "uv.lock").read_text(),
    "poetry.lock": (DATA / "poetry.lock").read_text(),
    "poetry-1.1": POETRY_1_1,
    "requirements": (DATA / "requirements.txt").read_text(),
}
FORMAT_OF = {"poetry-1.1": "poetry.lock"}
#: Names people save these under, including each other's.
NAMES = [
    "requirements.txt",
    "deps.txt",
    "poetry.lock",
    "uv.lock",
    "pylock.toml",
    "pylock.dev.toml",
    "report.json",
    "constraints.in",
    "lockfile",
    "x.toml",
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("content", sorted(CONTENTS))
def test_format_by_content_whatever_the_name(tmp_path: Path, content: str, name: str) -> None:
    path = tmp_path / name
    path.write_text(CONTENTS[content])
    expected = FORMAT_OF.get(content, content)
    assert detect_format(path, path.read_bytes()) == expected
    inputs = read_input(path)
    assert inputs.format == expected
    canonical = tmp_path / "canonical" / "the-file"
    canonical.parent.mkdir()
    canonical.write_text(CONTENTS[content])
    same = read_input(canonical)
    assert [(e.name, e.version, e.files) for e in inputs.entries] == [
        (e.name, e.version, e.files) for e in same.entries
    ]
    assert inputs.entries and not [n for n in inputs.notes if "would accept" in n]


def test_poetry_1_1_lock_takes_its_files_from_metadata() -> None:
    from sapper.audit._locks import read_poetry_lock
    from sapper.audit.inputs import _toml

    inputs = read_poetry_lock(Path("poetry.lock"), _toml(Path("poetry.lock"), POETRY_1_1))
    (six,) = inputs.entries
    assert six.version == "1.16.0"
    assert six.files is not None
    # the 1.15.0 sdist listed under the same name is another version's file
    assert [f.filename for f in six.files] == [
        "six-1.16.0-py2.py3-none-any.whl",
        "six-1.16.0.tar.gz",
    ]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        # a damaged lock keeps its name's reader, which says what is wrong
        ("uv.lock", "version = 1\n[package\n", "invalid TOML"),
        ("poetry.lock", "", "no \\[\\[package\\]\\] array"),
        ("report.json", "{not json", "not JSON"),
        ("deps.txt", "{not json", "not JSON"),
        # TOML that is no lock
        ("deps.lock", "[project]\nname = 'x'\n", "a pyproject.toml, not a lock"),
        ("deps.toml", "[something]\nkey = 1\n", "not a lock sapper reads"),
        ("Pipfile", '[[source]]\nurl = "x"\n[packages]\nsix = "*"\n', "a Pipfile"),
        ("Pipfile.lock", '{"_meta": {}, "default": {}, "develop": {}}', "a Pipfile.lock"),
        # not one line pip would accept (pip stops at the first)
        ("deps.txt", "<html>\n<body>hello</body>\n", "deps.txt:1: not a requirement"),
    ],
)
def test_what_no_reader_takes(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(UsageError, match=message):
        read_input(tmp_path / name)


def test_constraints_files_as_pips_c(tmp_path: Path) -> None:
    from sapper.audit.inputs import read_inputs

    (tmp_path / "req.txt").write_text("six\nidna>=2\n")
    (tmp_path / "upper.txt").write_text("idna<3\nsix==1.16.0\n")
    (reqs,) = read_inputs([tmp_path / "req.txt"], constraints=[tmp_path / "upper.txt"])
    assert [e.name for e in reqs.entries] == ["six", "idna"]  # constraints install nothing
    assert [(c.name, c.specifier) for c in reqs.constraints] == [
        ("idna", "<3"),
        ("six", "==1.16.0"),
    ]
    lock = tmp_path / "uv.lock"
    lock.write_text((DATA / "uv.lock").read_text())
    with pytest.raises(UsageError, match="-c constrains the versions a requirements file"):
        read_inputs([lock], constraints=[tmp_path / "upper.txt"])


def test_several_requirements_files_read_as_pip_reads_several_r(tmp_path: Path) -> None:
    from sapper.audit.inputs import read_inputs

    (tmp_path / "a.txt").write_text("six==1.17.0\n-c cons.txt\n")
    (tmp_path / "cons.txt").write_text("idna<4\n")
    (tmp_path / "b.txt").write_text("idna\n--only-binary :all:\n")
    lock = tmp_path / "deps.lock"
    lock.write_text((DATA / "uv.lock").read_text())
    sets = read_inputs([tmp_path / "a.txt", lock, tmp_path / "b.txt"])
    assert [s.format for s in sets] == ["requirements", "uv.lock"]
    reqs, uv = sets
    assert [e.name for e in reqs.entries] == ["six", "idna"]
    assert [c.name for c in reqs.constraints] == ["idna"]  # a's -c applies to b's idna
    assert not reqs.format_control.allows_sdists("six")  # b's option applies to a's six
    assert reqs.path == f"{tmp_path / 'a.txt'}, {tmp_path / 'b.txt'}"
    assert uv.path == str(lock)


def test_requirements_as_pip_reads_them(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.txt").write_text("attrs>=23  # a comment\n-c ../cons.txt\n")
    (tmp_path / "cons.txt").write_text("attrs<25\nidna==3.7\n")
    (tmp_path / "requirements.txt").write_text(
        "# top comment\n"
        "-r sub/base.txt\n"
        "six==1.17.0 \\\n"
        "    --hash=sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274\n"
        "stringcase==${STRINGCASE_VERSION}\n"
        "pywin32==306; sys_platform == 'win32'\n"
        "--only-binary=:all:\n"
        "--no-binary stringcase\n"
        "-e ./local-project\n"
        "git+https://github.com/pypa/sampleproject#egg=sampleproject\n"
        "--pre\n"
        "--extra-index-url https://example.org/simple\n"
        "--frobnicate\n"
    )
    inputs = read_input(tmp_path / "requirements.txt", environ={"STRINGCASE_VERSION": "1.2.0"})
    assert inputs.format == "requirements"
    names = [(e.name, e.kind) for e in inputs.entries]
    assert names == [
        ("attrs", "registry"),
        ("six", "registry"),
        ("stringcase", "registry"),
        ("pywin32", "registry"),
        ("./local-project", "editable"),
        ("git+https://github.com/pypa/sampleproject#egg=sampleproject", "vcs"),
    ]
    attrs, six, stringcase, pywin32 = inputs.entries[:4]
    assert attrs.specifier == ">=23" and attrs.version is None
    assert attrs.origin.endswith("base.txt:1")
    assert six.version == "1.17.0"
    assert six.hashes == (
        "sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274",
    )
    assert stringcase.version == "1.2.0"
    assert pywin32.marker == 'sys_platform == "win32"'
    assert [(c.name, c.specifier) for c in inputs.constraints] == [
        ("attrs", "<25"),
        ("idna", "==3.7"),
    ]
    assert inputs.pre
    assert inputs.extra_index_urls == ("https://example.org/simple",)
    control = inputs.format_control
    assert not control.allows_sdists("six")
    assert control.allows_sdists("stringcase")
    assert not control.allows_wheels("stringcase")
    assert any("--frobnicate" in n for n in inputs.notes)


def test_a_line_too_long_for_a_file_name_is_no_path(tmp_path: Path) -> None:
    # pip tries each line as a path; a 300-character line must not crash that test
    long_line = "dev = [" + ", ".join(f'"pkg{i} (>=1)"' for i in range(30)) + "]"
    (tmp_path / "requirements.txt").write_text(f"six==1.17.0\n{long_line}\n")
    inputs = read_input(tmp_path / "requirements.txt")
    assert [e.name for e in inputs.entries] == ["six"]
    assert any("requirements.txt:2: not a requirement" in n for n in inputs.notes)


def test_requirements_cycle_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("-r b.txt\nsix\n")
    (tmp_path / "b.txt").write_text("-r a.txt\nidna\n")
    inputs = read_input(tmp_path / "a.txt")
    assert [e.name for e in inputs.entries] == ["idna", "six"]


@pytest.mark.parametrize(
    ("steps", "wheels", "sdists"),
    [
        # (option, value) applied in order, as pip applies them; then what "pkg" may use
        ([], True, True),
        ([("no_binary", ":all:")], False, True),
        ([("only_binary", ":all:")], True, False),
        ([("only_binary", ":all:"), ("no_binary", "pkg")], False, True),
        ([("no_binary", ":all:"), ("only_binary", "pkg")], True, False),
        ([("no_binary", ":all:"), ("no_binary", ":none:")], True, True),
        ([("no_binary", "pkg"), ("only_binary", "PKG")], True, False),
        ([("only_binary", "other")], True, True),
    ],
)
def test_format_control(steps: list[tuple[str, str]], wheels: bool, sdists: bool) -> None:
    control = FormatControl()
    for option, value in steps:
        control = control.updated(option, value)  # type: ignore[arg-type]
    assert control.allows_wheels("pkg") == wheels
    assert control.allows_sdists("pkg") == sdists


@pytest.mark.parametrize(
    ("filename", "text", "message"),
    [
        ("missing.txt", None, "no such file"),
        ("pylock.toml", 'lock-version = "2.0"\n', "lock-version '2.0'"),
        ("deps.txt", 'lock-version = "2.0"\npackages = []\n', "lock-version '2.0'"),
        ("report.json", '{"version": "1"}', "no 'install' list"),
        ("report.json", '{"version": "2", "install": []}', "pip report version '2'"),
    ],
)
def test_unusable_inputs(tmp_path: Path, filename: str, text: str | None, message: str) -> None:
    if text is not None:
        (tmp_path / filename).write_text(text)
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace("'", "'")):
        read_input(tmp_path / filename)
