"""SP901 on a file setup.py surely reads that the sdist does not ship (delta-spark 4.4.1
reads `version.sbt`): FileNotFoundError on every wheel build, with every setuptools; a read
that may not run, a path sapper cannot know, or a file that may be made first, never."""

from __future__ import annotations

import pytest
from helpers import check

HEAD = (
    "import io, os, sys, codecs, subprocess\nfrom pathlib import Path\n"
    "from setuptools import setup\n"
)
SETUP = 'setup(name="probe", version="1.0")\n'
SDIST = {"PKG-INFO": "Metadata-Version: 2.1\nName: probe\nVersion: 1.0\n", "README.md": "x\n"}
DELTA = (
    "def get_version_from_sbt():\n"
    '    with open("version.sbt") as fp:\n'
    "        version = fp.read().strip()\n"
    "    return version.split('\"')[1]\n\n"
    "VERSION = get_version_from_sbt()\n"
)
HERE = "HERE = os.path.dirname(os.path.abspath(__file__))\n"

#: (id, setup.py body after HEAD, other files, (line of the read, the missing file) or None)
CASES: list[tuple[str, str, dict[str, str], tuple[int, str] | None]] = [
    ("delta-spark", DELTA + SETUP, {}, (5, "version.sbt")),
    ("with-header", 'with open("VERSION") as f:\n    v = f.read()\n' + SETUP, {}, (4, "VERSION")),
    ("assigned-read", 'v = open("VERSION").read()\n' + SETUP, {}, (4, "VERSION")),
    ("io-open", 'v = io.open("VERSION", "r", encoding="utf-8").read()\n', {}, (4, "VERSION")),
    ("codecs-open", 'v = codecs.open("VERSION", "rb").read()\n', {}, (4, "VERSION")),
    ("path-read-text", 'v = Path("VERSION").read_text()\n', {}, (4, "VERSION")),
    ("path-read-bytes", 'v = Path("VERSION").read_bytes()\n', {}, (4, "VERSION")),
    ("path-open", 'with Path("VERSION").open() as f:\n    pass\n', {}, (4, "VERSION")),
    ("dirname-file", HERE + 'v = open(os.path.join(HERE, "VERSION")).read()\n', {}, (5, "VERSION")),
    (
        "path-file-parent",
        'v = (Path(__file__).parent / "VERSION").read_text()\n',
        {},
        (4, "VERSION"),
    ),
    (
        "for-iterable",
        'for line in open("requirements.txt"):\n    pass\n',
        {},
        (4, "requirements.txt"),
    ),
    ("dot-slash", 'v = open("./VERSION").read()\n', {}, (4, "VERSION")),
    ("case-differs", 'v = open("version").read()\n', {"VERSION": "1\n"}, (4, "version")),
    (
        "call-argument",
        SETUP[:-2] + ', long_description=open("README.rst").read())\n',
        {},
        (4, "README.rst"),
    ),
    ("dunder-main", 'if __name__ == "__main__":\n    open("VERSION").read()\n', {}, (5, "VERSION")),
    (
        "imported-module",
        "import info\n" + SETUP,
        {"info.py": 'V = open("VERSION").read()\n'},
        (1, "VERSION"),
    ),
    (
        "module-name-in-function",
        HERE + 'def v():\n    return open(os.path.join(HERE, "VERSION")).read()\n\nV = v()\n',
        {},
        (6, "VERSION"),
    ),
    # never reported
    (
        "parameter-shadows-module-name",
        'n = "VERSION"\ndef r(n):\n    return open(n).read()\n\nV = r("OTHER")\n' + SETUP,
        {},
        None,
    ),
    ("file-shipped", DELTA + SETUP, {"version.sbt": 'version := "1.0"\n'}, None),
    ("dot-slash-shipped", 'v = open("./VERSION").read()\n' + SETUP, {"VERSION": "1\n"}, None),
    ("shipped-below", 'v = open("pkg/../VERSION").read()\n' + SETUP, {"VERSION": "1\n"}, None),
    (
        "under-try",
        'try:\n    v = open("VERSION").read()\nexcept OSError:\n    v = "0"\n' + SETUP,
        {},
        None,
    ),
    (
        "under-try-any-handler",
        'try:\n    v = open("VERSION").read()\nexcept Exception:\n    v = "0"\n',
        {},
        None,
    ),
    (
        "if-exists",
        'if os.path.exists("VERSION"):\n    v = open("VERSION").read()\n' + SETUP,
        {},
        None,
    ),
    (
        "if-isfile",
        'if os.path.isfile("VERSION"):\n    v = open("VERSION").read()\n' + SETUP,
        {},
        None,
    ),
    ("undecided", 'if len(sys.argv) > 5:\n    v = open("VERSION").read()\n' + SETUP, {}, None),
    ("function-not-called", 'def v():\n    return open("VERSION").read()\n\n' + SETUP, {}, None),
    ("write-mode", 'with open("VERSION", "w") as f:\n    f.write("1")\n' + SETUP, {}, None),
    ("append-mode", 'with open("log.txt", "a+") as f:\n    pass\n' + SETUP, {}, None),
    ("written-first", 'open("gen.txt", "w").write("1")\nv = open("gen.txt").read()\n', {}, None),
    ("subprocess-first", 'subprocess.check_call(["make"])\nv = open("gen.txt").read()\n', {}, None),
    ("chdir-first", 'os.chdir("python")\nv = open("VERSION").read()\n', {}, None),
    ("unknown-path", "v = open(sys.argv[0]).read()\n" + SETUP, {}, None),
    ("unknown-mode", 'm = sys.argv[0]\nv = open("VERSION", m)\n' + SETUP, {}, None),
    ("absolute", 'v = open("/etc/VERSION").read()\n' + SETUP, {}, None),
    ("outside-root", 'v = open("../version.sbt").read()\n' + SETUP, {}, None),
    ("directory", 'v = open("pkg")\n' + SETUP, {"pkg/__init__.py": ""}, None),
    ("git-dir", 'v = open(".git/HEAD").read()\n' + SETUP, {}, None),
    ("short-circuit", 'v = os.environ.get("V") or open("VERSION").read()\n' + SETUP, {}, None),
    ("if-expression", 'v = open("V").read() if os.path.exists("V") else ""\n' + SETUP, {}, None),
    ("comprehension", 'v = [open(p).read() for p in ["VERSION"]]\n' + SETUP, {}, None),
    (
        "with-body",
        'with open("README.md") as f:\n    v = open("VERSION").read()\n' + SETUP,
        {},
        None,
    ),
    (
        "zip-member",
        'import zipfile\nv = zipfile.ZipFile("README.md").open("VERSION")\n' + SETUP,
        {},
        None,
    ),
    (
        "module-below-root",
        "import pkg\n" + SETUP,
        {"pkg/__init__.py": 'V = open("VERSION").read()\n'},
        None,
    ),
    (
        "after-exit",
        'if len(sys.argv) > 5:\n    sys.exit(0)\nv = open("VERSION").read()\n',
        {},
        None,
    ),
]


@pytest.mark.parametrize(
    ("body", "files", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_missing_file(body: str, files: dict[str, str], expected: tuple[int, str] | None) -> None:
    tree = {"setup.py": HEAD + body, **SDIST, **files}
    result = check(tree, setuptools="84.2.1")
    findings = [f for f in result.findings if f.code == "SP901"]
    assert result.verdict is not None
    if expected is None:
        assert findings == [], findings[0].message
        return
    line, missing = expected
    assert len(findings) == 1, result.findings
    message = findings[0].message
    where = "info.py" if "info.py" in files else "setup.py"
    assert f"reads `{missing}` ({where}:{line})" in message
    assert f"No such file or directory: '{missing}'" in message
    assert result.verdict.outcome == "fails"
    assert result.verdict.because == ("SP901",)
    old = check(tree, setuptools="58.0.4")
    assert old.verdict is not None and old.verdict.outcome == "fails"


def test_directory_without_pkg_info_is_not_judged() -> None:
    """A checkout may lack files its VCS ignores: only an sdist (PKG-INFO) is judged."""
    tree = {"setup.py": HEAD + DELTA + SETUP, "README.md": "x\n"}
    assert not [f for f in check(tree).findings if f.code == "SP901"]
    assert [f.line for f in check({**tree, **SDIST}).findings if f.code == "SP901"] == [9]
