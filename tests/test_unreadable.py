"""Unreadable inputs are verdicts, not silence: a setup.py that does not compile on the
build's Python (SP900), a pyproject.toml that is not TOML (PP900), and, when the rule that
says so is left out, a verdict of "unknown", never "builds"."""

from __future__ import annotations

import sys

import pytest
from helpers import check

from sapper.facts.setup_py import syntax_problem

HERE = (sys.version_info.major, sys.version_info.minor)
NEWER = (HERE[0], HERE[1] + 1)
SETUP = 'from setuptools import setup\n{body}\nsetup(name="probe", version="1.0")\n'
PY2 = SETUP.format(body='print "building"')


@pytest.mark.parametrize(
    ("body", "python", "expected"),
    [
        pytest.param('print "x"', None, (2, True), id="python-2-print"),
        pytest.param("exec 'x = 1'", None, (2, True), id="python-2-exec"),
        pytest.param(
            "try:\n    pass\nexcept Exception, e:\n    pass", None, (4, True), id="py2-except"
        ),
        pytest.param("x = 0777", None, (2, True), id="python-2-octal"),
        pytest.param("if (n := 1):\n    pass", (3, 7), (2, True), id="walrus-on-3.7"),
        pytest.param("if (n := 1):\n    pass", (3, 8), None, id="walrus-on-3.8"),
        pytest.param(
            "match 1:\n    case 1:\n        pass", (3, 9), (None, True), id="match-on-3.9"
        ),
        pytest.param("match 1:\n    case 1:\n        pass", (3, 10), None, id="match-on-3.10"),
        pytest.param('print "x"', NEWER, (2, False), id="newer-python-may-read-it"),
        pytest.param('print "x"', (2, 7), (2, False), id="python-2-not-modelled"),
        pytest.param("print('x')", (2, 7), None, id="python-2-parses"),
        pytest.param("x = 1\0", None, (None, True), id="null-byte"),
        pytest.param("print('x')", None, None, id="fine"),
    ],
)
def test_syntax_problem(
    body: str, python: tuple[int, int] | None, expected: tuple[int | None, bool] | None
) -> None:
    found = syntax_problem(SETUP.format(body=body).encode(), python)
    if expected is None:
        assert found is None
        return
    assert found is not None
    line, certain = expected
    # (ast reports a `match` the grammar lacks after its block: its line is not checked)
    assert (found.line if line is not None or "match" not in body else None, found.certain) == (
        line,
        certain,
    )
    target = python or HERE
    assert found.python == f"{target[0]}.{target[1]}"
    assert found.message


def test_python_2_setup_py_fails_with_every_setuptools() -> None:
    result = check({"setup.py": PY2 + "# use_2to3=True\n"})
    assert [(f.code, f.line, f.column, f.fails) for f in result.findings] == [
        ("SP900", 2, 1, (">=0",))
    ]
    finding = result.findings[0]
    here = f"{HERE[0]}.{HERE[1]}"
    assert f"does not compile on Python {here} (line 2: SyntaxError: Missing parentheses" in (
        finding.message
    )
    assert f"fails with every setuptools on Python {here}" in finding.message
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.because) == ("fails", ("SP900",))


@pytest.mark.parametrize(
    ("python", "outcome", "because"),
    [
        pytest.param("3.7", "fails", ("SP900",), id="3.7-lacks-walrus"),
        pytest.param("3.8", "builds", (), id="3.8-reads-it"),
    ],
)
def test_the_python_of_the_verdict_decides(
    python: str, outcome: str, because: tuple[str, ...]
) -> None:
    files = {"setup.py": SETUP.format(body="if (n := 1):\n    pass")}
    result = check(files, python=python, setuptools="68.0.0")
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.because) == (outcome, because)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        pytest.param(
            {"ignore": ("SP900",)}, "so the setup.py rules could not read it", id="left-out"
        ),
        pytest.param(
            {"python": f"{NEWER[0]}.{NEWER[1]}"}, "may read it: run sapper on Python", id="newer"
        ),
    ],
)
def test_setup_py_no_rule_can_read_is_unknown(options: dict[str, object], says: str) -> None:
    """SP001 would see `import pkg_resources` (fails from 82.0.0) if it could read the file;
    it cannot, so the verdict is unknown, not "builds"."""
    result = check({"setup.py": "import pkg_resources\n" + PY2}, **options)
    assert result.findings == ()
    assert result.verdict is not None
    assert result.verdict.outcome == "unknown"
    assert "setup.py does not compile (line 3: Missing parentheses" in result.verdict.reason
    assert says in result.verdict.reason


def test_suppressed_sp900_leaves_the_verdict_unknown() -> None:
    source = PY2.replace('print "building"', 'print "building"  # sapper: ignore[SP900]')
    result = check({"setup.py": source}, suppressions=True)
    assert result.verdict is not None
    assert result.verdict.outcome == "unknown"
    assert "finding suppressed" in result.verdict.reason


@pytest.mark.parametrize(
    ("text", "line", "column", "says"),
    [
        pytest.param(b"[tool.black]\nline-length =\n", 2, 14, "Invalid value", id="no-value"),
        pytest.param(b"[a]\nx = 1\n[a]\n", 3, 3, "twice", id="table-twice"),
        pytest.param(b"name = 'x'\nname = 'y'\n", 2, 11, "overwrite", id="key-twice"),
        pytest.param(b"[tool.x]\nauthor = 'Jos\xe9'\n", 2, 14, "not valid UTF-8", id="latin-1"),
    ],
)
def test_invalid_pyproject_fails(text: bytes, line: int, column: int, says: str) -> None:
    setup = SETUP.format(body="")
    result = check({"pyproject.toml": text, "setup.py": setup})
    assert [(f.code, f.line, f.column, f.fails) for f in result.findings] == [
        ("PP900", line, column, (">=0",))
    ]
    assert says in result.findings[0].message
    assert result.errors == ()  # the finding says it; no second report as an error record
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.because) == ("fails", ("PP900",))


def test_invalid_pyproject_left_out_is_unknown() -> None:
    result = check({"pyproject.toml": "[tool.black]\nline-length =\n"}, ignore=("PP900",))
    assert result.findings == ()
    assert [e.type for e in result.errors] == ["pyproject"]
    assert result.verdict is not None
    assert result.verdict.outcome == "unknown"
    assert result.verdict.reason.startswith("pyproject.toml is not valid TOML: Invalid value")


def test_unreadable_setup_cfg_left_out_is_unknown() -> None:
    files = {"setup.cfg": "[metadata]\nname = a\n[metadata]\nversion = 1\n"}
    assert check(files).verdict.because == ("SC005",)  # type: ignore[union-attr]
    result = check(files, ignore=("SC005",))
    assert result.verdict is not None
    assert result.verdict.outcome == "unknown"
    assert "configparser cannot read setup.cfg as setuptools 84.2.1" in result.verdict.reason


@pytest.mark.parametrize(
    ("text", "setuptools", "outcome"),
    [
        # setuptools skips the install-* directory options in a virtual environment (as the
        # isolated build is): the bad interpolation is never read
        pytest.param(
            "[metadata]\nname = a\n[install]\ninstall-lib = %(nope)s\n",
            "84.2.1",
            "builds",
            id="skipped-in-a-venv",
        ),
        # a `coding:` comment naming no codec stops only 40.7.0-40.9.0 (SC003)
        pytest.param("# coding: nope\n[metadata]\nname = a\n", "40.8.0", "unknown", id="codec"),
        pytest.param("# coding: nope\n[metadata]\nname = a\n", "41.0.0", "builds", id="utf8"),
    ],
)
def test_unreadable_setup_cfg_is_judged_per_release(
    text: str, setuptools: str, outcome: str
) -> None:
    result = check({"setup.cfg": text}, ignore=("SC",), setuptools=setuptools)
    assert result.verdict is not None
    assert result.verdict.outcome == outcome, result.verdict.reason


def test_readable_files_keep_their_verdict() -> None:
    result = check(
        {
            "setup.py": SETUP.format(body="print('x')"),
            "pyproject.toml": "[tool.black]\nline-length = 100\n",
            "setup.cfg": "[metadata]\nname = probe\n",
        },
        ignore=("SP900", "PP900", "SC"),
    )
    assert result.verdict is not None
    assert result.verdict.outcome == "builds"


IMPORTS_PKG = (
    "from setuptools import setup\nfrom pkg import __version__\n"
    'setup(name="pkg", version=__version__, packages=["pkg"])\n'
)
PY2_MODULE = '__version__ = "1.0"\nprint "imported"\n'


@pytest.mark.parametrize(
    ("files", "where"),
    [
        pytest.param({"pkg/__init__.py": PY2_MODULE}, "pkg/__init__.py:2", id="package"),
        # two modules away: pkg/__init__.py imports pkg.helpers
        pytest.param(
            {
                "pkg/__init__.py": '__version__ = "1.0"\nfrom pkg import helpers\n',
                "pkg/helpers.py": "x = 1\nexec 'y = 2'\n",
            },
            "pkg/helpers.py:2",
            id="two-away",
        ),
        # a relative import of a module that does not compile
        pytest.param(
            {
                "pkg/__init__.py": '__version__ = "1.0"\nfrom . import helpers\n',
                "pkg/helpers.py": "MODE = 0755\n",
            },
            "pkg/helpers.py:1",
            id="relative",
        ),
    ],
)
def test_a_project_module_setup_py_imports_does_not_compile(
    files: dict[str, str], where: str
) -> None:
    result = check({"setup.py": IMPORTS_PKG, **files})
    found = [f for f in result.findings if f.code == "SP900"]
    assert [(f.path, f.line, f.fails) for f in found] == [("setup.py", 2, (">=0",))]
    assert f"setup.py imports `pkg`, and {where} does not compile on Python" in found[0].message
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.because) == ("fails", ("SP900",))


@pytest.mark.parametrize(
    ("setup", "files"),
    [
        # build_meta does not put setup.py's directory on sys.path: the import is not of the
        # project's module (it fails otherwise, not with a SyntaxError from the tree)
        pytest.param(
            IMPORTS_PKG,
            {
                "pkg/__init__.py": PY2_MODULE,
                "pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n'
                'build-backend = "setuptools.build_meta"\n',
            },
            id="build-meta",
        ),
        # the import runs on Python 2 only
        pytest.param(
            "import sys\nfrom setuptools import setup\nif sys.version_info < (3,):\n"
            "    import pkg\nsetup(name='pkg', version='1.0', packages=['pkg'])\n",
            {"pkg/__init__.py": PY2_MODULE},
            id="python-2-branch",
        ),
        # a module setup.py does not import
        pytest.param(SETUP.format(body=""), {"pkg/__init__.py": PY2_MODULE}, id="not-imported"),
    ],
)
def test_project_modules_not_run_are_not_compiled(setup: str, files: dict[str, str]) -> None:
    result = check({"setup.py": setup, **files})
    assert not [f for f in result.findings if f.code == "SP900"]
