"""Tables of project trees and the LY findings sapper must report for them."""

from __future__ import annotations

import pytest
from helpers import check

SETUP = 'from setuptools import setup\n\nsetup(name="probe", version="1.0"{})\n'
NAME = '[project]\nname = "probe"\nversion = "1.0"\n'

Row = tuple[str, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _ly(files: dict[str, str]) -> list[Row]:
    result = check(files)
    return [
        (f.code, f.path, f.fails, f.fails_enforced, f.warns)
        for f in result.findings
        if f.code.startswith("LY")
    ]


FLAT = ("LY001", "setup.py", (">=61.0.0",), (">=61.0.0",), ())


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"setup.py": SETUP.format(""), "a/__init__.py": "", "b/__init__.py": ""},
            [FLAT],
            id="two-packages",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "a/x.txt": "", "b/y.txt": ""},
            [FLAT],
            id="directories-without-init-count",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "a.py": "", "b.py": ""}, [FLAT], id="two-modules"
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "a/__init__.py": "", "b.py": "", "c.py": ""},
            [],
            id="one-package-wins-over-modules",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(""),
                "a/__init__.py": "",
                "tests/t.py": "",
                "docs/conf.py": "",
                "examples/e.py": "",
                "conftest.py": "",
                "noxfile.py": "",
                "_private/x.py": "",
                "a-stubs/__init__.pyi": "",
                "my.data/x": "",
                "2fast/x": "",
            },
            [],
            id="reserved-hidden-stub-dotted-and-non-identifier-names",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "a/__init__.py": "", "htmlcov/index.html": ""},
            [("LY001", "setup.py", (">=61.0.0,<67.5.1",), (">=61.0.0,<67.5.1",), ())],
            id="htmlcov-reserved-since-67.5.1",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "a/__init__.py": "", "debian/rules": ""},
            [("LY001", "setup.py", (">=61.0.0,<68.1.0",), (">=61.0.0,<68.1.0",), ())],
            id="debian-reserved-since-68.1.0",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(", packages=['a']"),
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="packages-given",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(", py_modules=[]"),
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="empty-py-modules-given",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(", packages=None"),
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [FLAT],
            id="packages-none-is-unset",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(", ext_modules=[]"),
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="ext-modules-skip-discovery",
        ),
        pytest.param(
            {
                "setup.py": "from setuptools import setup\n\nsetup(ext_modules=[])\n",
                "pyproject.toml": NAME,
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [FLAT],
            id="ext-modules-do-not-skip-with-project-table",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(", configuration=cfg"),
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [("LY001", "setup.py", ("==61.0.0",), ("==61.0.0",), ())],
            id="numpy-configuration-skips-from-61.1.0",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(""),
                "setup.cfg": "[options]\npackages = find:\n",
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="setup-cfg-packages",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + '\n[tool.setuptools]\npackages = ["a"]\n',
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="pyproject-packages",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [("LY001", "pyproject.toml", (">=61.0.0",), (">=61.0.0",), ())],
            id="pyproject-only",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "src/a/__init__.py": "", "b/__init__.py": ""},
            [],
            id="src-layout",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(", package_dir={'': 'lib'}"),
                "lib/a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="package-dir",
        ),
        pytest.param(
            {
                "setup.py": "import setuptools\nsetuptools.setup(pbr=True)\n",
                "setup.cfg": "[metadata]\nname = a\n",
                "a/__init__.py": "",
                "releasenotes/notes/x.yaml": "",
            },
            [],
            id="pbr-lists-packages-itself",
        ),
        pytest.param(
            {
                "setup.py": "from setuptools import setup\nsetup(**load())\n",
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [],
            id="opaque-kwargs-not-guessed",
        ),
        pytest.param(
            {
                "setup.py": "from setuptools import setup\ndef main():\n    setup()\nmain()\n",
                "a/__init__.py": "",
                "b/__init__.py": "",
            },
            [("LY001", "setup.py", (">=61.0.0",), (">=61.0.0",), ())],
            id="setup-inside-function-followed",
        ),
    ],
)
def test_flat_layout(files: dict[str, str], expected: list[Row]) -> None:
    assert _ly(files) == expected


CFG = "[metadata]\nname = probe\nversion = 1.0\nlicense_files = {}\n"
ABS = ("LY002", "setup.cfg", (">=77.0.1",), (">=77.0.1",), ())
#: Invalid characters / no match: due 2026-02-20 (77.0.1), 2026-03-20 (77.0.3-80.10.1),
#: 2027-02-18 (80.10.2+): all but the last have passed on the tests' fixed date.
PENDING = ("LY002", "setup.cfg", (), (">=77.0.1,<80.10.2",), (">=77.0.1",))


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({"setup.cfg": CFG.format("LICENSE"), "LICENSE": ""}, [], id="matches"),
        pytest.param(
            {"setup.cfg": CFG.format("LICEN[CS]E*, AUTHORS"), "LICENSE.txt": "", "AUTHORS": ""},
            [],
            id="comma-list-and-glob",
        ),
        pytest.param(
            {"setup.cfg": CFG.format("\n    licenses/**/*.txt"), "licenses/a/b.txt": ""},
            [],
            id="recursive-glob",
        ),
        pytest.param(
            {"setup.cfg": CFG.format("licenses"), "licenses/a.txt": ""},
            [],
            id="directory-match-counts-as-found",
        ),
        pytest.param({"setup.cfg": CFG.format("/LICENSE"), "LICENSE": ""}, [ABS], id="absolute"),
        pytest.param(
            {"setup.cfg": CFG.format("C:\\LICENSE"), "LICENSE": ""},
            [("LY002", "setup.cfg", (">=77.0.1",), (">=77.0.1",), ())],
            id="drive-letter",
        ),
        pytest.param(
            {"setup.cfg": CFG.format("../LICENSE")},
            [
                ("LY002", "setup.cfg", ("==77.0.1",), (">=77.0.1,<80.10.2",), (">=77.0.3",)),
                PENDING,
            ],
            id="dotdot",
        ),
        pytest.param({"setup.cfg": CFG.format("COPYING")}, [PENDING], id="no-match"),
        pytest.param(
            {"setup.cfg": CFG.format(".LICENSE*"), ".LICENSE": ""}, [], id="hidden-explicit"
        ),
        pytest.param(
            {"setup.cfg": CFG.format("*.txt"), ".hidden.txt": ""}, [PENDING], id="star-no-hidden"
        ),
        pytest.param(
            {"setup.cfg": CFG.format("\n    LICENSE{.txt}"), "LICENSE": ""},
            [PENDING],
            id="brace-is-invalid-and-matches-nothing",
        ),
        pytest.param(
            {"setup.cfg": "[metadata]\nlicense_file = COPYING.txt\n", "COPYING.txt": ""},
            [],
            id="license-file-singular",
        ),
        pytest.param(
            {"setup.py": SETUP.format(", license_files=['/LICENSE']"), "LICENSE": ""},
            [("LY002", "setup.py", (">=77.0.1",), (">=77.0.1",), ())],
            id="setup-py",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + 'license-files = ["/LICENSE"]\n',
                "LICENSE": "",
            },
            [("LY002", "pyproject.toml", (">=77.0.1",), (">=77.0.1",), ())],
            id="pyproject",
        ),
    ],
)
def test_license_patterns(files: dict[str, str], expected: list[Row]) -> None:
    assert _ly(files) == expected


def test_packages_set_before_a_setup_cfg_error_still_count() -> None:
    """setup.cfg's options read before an interpolation error still tell discovery what
    the packages are (no LY001 next to the SC006 error)."""
    from helpers import check

    result = check(
        {
            "setup.py": "from setuptools import setup\nsetup()\n",
            "setup.cfg": "[options]\npackages = alpha\n\n[metadata]\ndescription = 100% sure\n",
            "alpha/__init__.py": "",
            "beta/__init__.py": "",
        }
    )
    assert [f.code for f in result.findings] == ["SC006"]


TWO = {"a/__init__.py": "", "b/__init__.py": ""}


@pytest.mark.parametrize(
    ("files", "reported"),
    [
        pytest.param({"setup.py": SETUP.format(", pbr=True"), **TWO}, False, id="pbr-true"),
        # setuptools calls a setup keyword's hook only for a value that is not None
        pytest.param({"setup.py": SETUP.format(", pbr=None"), **TWO}, True, id="pbr-none"),
        pytest.param(
            {"setup.py": SETUP.format(""), "setup.cfg": "[files]\npackages = a\n", **TWO},
            False,
            id="setup-cfg-files-section-is-pbr",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "setup.cfg": "[pbr]\nskip_authors = 1\n", **TWO},
            False,
            id="setup-cfg-pbr-section",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "setup.cfg": "[options]\npy_modules = a\n", **TWO},
            False,
            id="setup-cfg-py-modules",
        ),
        pytest.param(
            {
                "setup.py": SETUP.format(""),
                "setup.cfg": "[options]\npackage_dir =\n    =.\n",
                **TWO,
            },
            False,
            id="setup-cfg-package-dir",
        ),
        pytest.param(
            {"pyproject.toml": NAME + '\n[tool.setuptools]\npy-modules = ["a"]\n', **TWO},
            False,
            id="tool-py-modules",
        ),
        pytest.param(
            {"pyproject.toml": NAME + '\n[tool.setuptools.package-dir]\n"" = "."\n', **TWO},
            False,
            id="tool-package-dir",
        ),
        pytest.param(
            {"pyproject.toml": NAME + "\n[tool.setuptools]\nzip-safe = false\n", **TWO},
            True,
            id="tool-table-without-a-listing",
        ),
        pytest.param(
            {"setup.py": SETUP.format(""), "a.py": "", "LICENSE": "", "README.md": ""},
            False,
            id="files-not-ending-in-py-are-not-modules",
        ),
    ],
)
def test_flat_layout_discovery_skipped(files: dict[str, str], *, reported: bool) -> None:
    assert any(code == "LY001" for code, *_ in _ly(files)) is reported


NO_MATCH = "matches no file; setuptools >= 77.0.1 warns and the warning is meant to become an error"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "setup.cfg": "[metadata]\nname = probe\nlicense_files =\n    LICENSE\n    NOTICE\n",
                "LICENSE": "",
                "NOTICE": "",
            },
            [],
            id="setup-cfg-one-pattern-a-line",
        ),
        pytest.param(
            {
                "setup.cfg": "[metadata]\nname = probe\nlicense_file = COPYING, LICENSE\n",
                "COPYING": "",
                "LICENSE": "",
            },
            [
                (
                    "setup.cfg",
                    3,
                    "license pattern 'COPYING, LICENSE' (`license_file` in setup.cfg) contains "
                    "characters that are not valid in a glob pattern and " + NO_MATCH,
                )
            ],
            id="setup-cfg-license-file-is-one-pattern",
        ),
        pytest.param(
            {"setup.py": SETUP.format(",\n    license_file='COPYING'"), "LICENSE": ""},
            [("setup.py", 4, f"license pattern 'COPYING' (setup(license_file=...)) {NO_MATCH}")],
            id="setup-py-license-file-string",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'license-files = ["COPYING"]\n', "LICENSE": ""},
            [
                (
                    "pyproject.toml",
                    4,
                    f"license pattern 'COPYING' (`project.license-files`) {NO_MATCH}",
                )
            ],
            id="project-license-files",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + '\n[tool.setuptools]\nlicense-files = ["COPYING"]\n',
                "LICENSE": "",
            },
            [
                (
                    "pyproject.toml",
                    6,
                    f"license pattern 'COPYING' (`tool.setuptools.license-files`) {NO_MATCH}",
                )
            ],
            id="tool-license-files",
        ),
        pytest.param(
            {
                "setup.cfg": "[metadata]\nname = probe\nlicense_files = **/LICENSE, **/COPYING\n",
                "LICENSE": "",
            },
            [
                (
                    "setup.cfg",
                    3,
                    f"license pattern '**/COPYING' (`license_files` in setup.cfg) {NO_MATCH}",
                )
            ],
            id="double-star-matches-the-root-too",
        ),
    ],
)
def test_license_pattern_sources(
    files: dict[str, str], expected: list[tuple[str, int | None, str]]
) -> None:
    """Where each pattern comes from: the file, the line and the words of the message."""
    found = [(f.path, f.line, f.message) for f in check(files).findings if f.code == "LY002"]
    assert found == expected


def _no_match(pattern: str, where: str = "`license_files` in setup.cfg") -> tuple[str, str]:
    return ("setup.cfg", f"license pattern {pattern!r} ({where}) {NO_MATCH}")


@pytest.mark.parametrize(
    ("patterns", "expected"),
    [
        pytest.param("licenses/extra", [], id="directory-two-levels-down"),
        pytest.param("licenses/extra/COPYING", [], id="exact-nested-file"),
        pytest.param(
            "licenses/COPYING", [_no_match("licenses/COPYING")], id="name-in-the-wrong-directory"
        ),
        pytest.param("licenses//extra, ./LICENSE", [], id="empty-and-dot-segments"),
        # glob(".", recursive=True) == ["."]: setuptools finds something, so does not warn
        pytest.param(".", [], id="dot-finds-the-root"),
        pytest.param("**/NOTICE", [_no_match("**/NOTICE")], id="double-star-skips-hidden"),
        pytest.param(
            "LICENSE, LICENSE, COPYING", [_no_match("COPYING")], id="duplicate-reported-once"
        ),
        pytest.param("COPYING, COPYING", [_no_match("COPYING")], id="duplicate-no-match"),
        pytest.param(
            "/LICENSE, COPYING",
            [
                (
                    "setup.cfg",
                    "license pattern '/LICENSE' (`license_files` in setup.cfg) is absolute; "
                    "setuptools >= 77.0.1 stops with \"Pattern '/LICENSE' should be relative "
                    "and must not start with '/'\"",
                ),
                _no_match("COPYING"),
            ],
            id="after-an-absolute-pattern",
        ),
    ],
)
def test_license_pattern_matching(patterns: str, expected: list[tuple[str, str]]) -> None:
    """What ``glob(pattern, recursive=True)`` finds, checked against Python's glob."""
    files = {
        "setup.cfg": CFG.format(patterns),
        "LICENSE": "",
        "licenses/extra/COPYING": "",
        ".hidden/NOTICE": "",
    }
    found = [(f.path, f.message) for f in check(files).findings if f.code == "LY002"]
    assert found == expected


def test_license_pattern_findings_in_full() -> None:
    """Message, line, fix and due date of each kind of LY002 finding."""
    files = {"setup.cfg": CFG.format("../LICENSE, LICENSE{1}"), "LICENSE{1}": ""}
    found = [
        (f.path, f.line, f.message, f.fix, f.due_date)
        for f in check(files).findings
        if f.code == "LY002"
    ]
    label = "license pattern {!r} (`license_files` in setup.cfg)"
    fix = "fix the pattern so that it matches the license files the sdist ships"
    assert found == [
        (
            "setup.cfg",
            4,
            label.format("../LICENSE") + " contains '..'; setuptools 77.0.1 stopped with "
            "\"cannot contain '..'\" and later releases warn",
            "copy the license file into the project and name it without '..'",
            "2027-02-18",
        ),
        ("setup.cfg", 4, label.format("../LICENSE") + " " + NO_MATCH, fix, "2027-02-18"),
        (
            "setup.cfg",
            4,
            label.format("LICENSE{1}") + " contains characters that are not valid in a glob "
            "pattern; setuptools >= 77.0.1 warns and the warning is meant to become an error",
            fix,
            "2027-02-18",
        ),
    ]


def test_flat_layout_failing_only_where_discovery_is_skipped() -> None:
    """`htmlcov` is a package for 61.0.x (reserved from 67.5.1), so only 67.5.1+ would see
    two modules, and `configuration=` skips discovery from 61.1.0: no release fails."""
    setup = 'from setuptools import setup\n\nsetup(name="probe", version="1.0"{})\n'
    tree = {"htmlcov/x.py": "", "a.py": "", "b.py": ""}
    assert _ly({"setup.py": setup.format(", configuration=cfg"), **tree}) == []
    assert _ly({"setup.py": setup.format(""), **tree}) == [
        ("LY001", "setup.py", (">=67.5.1",), (">=67.5.1",), ())
    ]


def test_empty_license_pattern() -> None:
    """``glob("")`` finds nothing, and "" is no valid pattern: setuptools warns twice."""
    files = {"pyproject.toml": NAME + 'license-files = [""]\n', "LICENSE": ""}
    found = [f.message for f in check(files).findings if f.code == "LY002"]
    assert found == [
        "license pattern '' (`project.license-files`) contains characters that are not valid "
        "in a glob pattern and " + NO_MATCH
    ]
