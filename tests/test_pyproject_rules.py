"""Tables of pyproject.toml inputs (with setup.py/setup.cfg where they matter) and the PP
findings sapper must report, with the setuptools versions they fail, fail under
SETUPTOOLS_ENFORCE_DEPRECATION=1, or warn in."""

from __future__ import annotations

import datetime as dt

import pytest
from helpers import check, project

from sapper.check import Options, check_files
from sapper.model import Reference
from sapper.rules.pyproject._shared import _ref
from sapper.rules.pyproject.pp001 import _type_problem

NAME = '[project]\nname = "probe"\nversion = "1.0"\n'
SETUP = "from setuptools import setup\n\nsetup({})\n"

#: Failing versions when 61.2.0-67.8.0 ignore the invalid table.
RELAXED = (">=61.0.0,<61.2.0", ">=68.0.0")

Row = tuple[str, int | None, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _pp(files: dict[str, str], **options: object) -> list[Row]:
    result = check(files, **options)
    return [
        (f.code, f.line, f.fails, f.fails_enforced, f.warns)
        for f in result.findings
        if f.code.startswith("PP")
    ]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({"pyproject.toml": NAME}, [], id="valid"),
        pytest.param(
            {"pyproject.toml": "[tool.black]\nline-length = 100\n"}, [], id="no-project-table"
        ),
        pytest.param({"pyproject.toml": "[project]\n"}, [], id="empty-project-table-ignored"),
        pytest.param(
            {"pyproject.toml": '[project]\nrequires-python = ">=3.8"\n'},
            [
                ("PP001", 1, (">=61.0.0",), (">=61.0.0",), ()),
                ("PP001", 1, (">=61.2.0",), (">=61.2.0",), ()),
            ],
            id="requires-python-only-nothing-else-configures",
        ),
        pytest.param(
            {
                "pyproject.toml": '[project]\nrequires-python = ">=3.8"\n',
                "setup.py": SETUP.format('name="probe", version="1.0"'),
            },
            [
                ("PP001", 1, RELAXED, RELAXED, ()),
                ("PP001", 1, (">=68.0.0",), (">=68.0.0",), ()),
            ],
            id="requires-python-only-relaxed-61.2-67.8",
        ),
        pytest.param(
            {
                "pyproject.toml": '[project]\nrequires-python = ">=3.8"\n',
                "setup.cfg": "[metadata]\nname = probe\nversion = 1.0\n",
            },
            [
                ("PP001", 1, RELAXED, RELAXED, ()),
                ("PP001", 1, (">=68.0.0",), (">=68.0.0",), ()),
            ],
            id="relaxed-by-setup-cfg",
        ),
        pytest.param(
            {
                "pyproject.toml": '[project]\nrequires-python = ">=3.8"\n\n[tool.setuptools]\n'
                "zip-safe = false\n",
                "setup.py": SETUP.format('name="probe", version="1.0"'),
            },
            [
                ("PP001", 1, (">=61.0.0",), (">=61.0.0",), ()),
                ("PP001", 1, (">=61.2.0",), (">=61.2.0",), ()),
            ],
            id="tool-table-means-no-relaxation",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'homepage = "https://example.org"\n'},
            [("PP001", 4, (">=61.0.0",), (">=61.0.0",), ())],
            id="unknown-key",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'license-files = ["LICENSE"]\n', "LICENSE": "MIT\n"},
            [("PP001", 4, (">=61.0.0,<77.0.1",), (">=61.0.0,<77.0.1",), ())],
            id="license-files-needs-77.0.1",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'import-names = ["probe"]\n'},
            [
                ("PP001", 4, (">=61.0.0,<82.0.1",), (">=61.0.0,<82.0.1",), ()),
                ("PP010", 4, (">=82.0.1",), (">=82.0.1",), ()),
            ],
            id="import-names-unknown-then-not-implemented",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'dynamic = ["import-namespaces"]\n'},
            [
                ("PP001", 4, (">=61.0.0,<82.0.1",), (">=61.0.0,<82.0.1",), ()),
                # 61.0.0-61.1.1 also want [tool.setuptools.dynamic] to fill it
                ("PP001", 4, (">=61.0.0,<61.2.0",), (">=61.0.0,<61.2.0",), ()),
                ("PP010", 4, (">=82.0.1",), (">=82.0.1",), ()),
            ],
            id="import-namespaces-dynamic-not-implemented",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'dynamic = ["version"]\n'},
            [("PP001", 3, (">=61.0.0",), (">=61.0.0",), ())],
            id="static-and-dynamic",
        ),
        pytest.param(
            {"pyproject.toml": '[project]\nname = "probe"\ndynamic = ["version"]\n'},
            [],
            id="dynamic-version-is-fine",
        ),
        pytest.param(
            {"pyproject.toml": '[project]\nname = "probe"\nversion = "1.0-SNAPSHOT"\n'},
            [("PP001", 3, (">=61.0.0",), (">=61.0.0",), ())],
            id="version-not-pep440",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'authors = ["Jane <jane@example.org>"]\n'},
            [("PP001", 4, (">=61.0.0",), (">=61.0.0",), ())],
            id="authors-not-tables",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'dynamic = ["description", "dependencies"]\n'},
            [
                ("PP001", 4, (">=61.0.0,<61.2.0",), (">=61.0.0,<61.2.0",), ()),
                ("PP001", 4, (">=61.0.0",), (">=61.0.0",), ()),
            ],
            id="dynamic-nothing-fills",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME.replace('version = "1.0"\n', "")
                + 'dynamic = ["version", "description"]\n',
                "setup.py": SETUP.format('description="d"'),
            },
            [("PP001", 3, (">=61.0.0,<61.2.0",), (">=61.0.0,<61.2.0",), ())],
            id="dynamic-filled-by-setup-py-needs-61.2",
        ),
        pytest.param(
            {
                "pyproject.toml": '[project]\nname = "probe"\ndynamic = ["version", '
                '"description"]\n\n[tool.setuptools.dynamic]\ndescription = {file = "D.txt"}\n',
                "D.txt": "d\n",
            },
            [],
            id="dynamic-filled-by-tool-table",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'license = "MIT"\n'},
            [("PP002", 4, (">=61.0.0,<77.0.1",), (">=61.0.0,<77.0.1",), ())],
            id="license-expression",
        ),
        pytest.param(
            {"pyproject.toml": NAME + 'license = "MIT License"\n'},
            [("PP002", 4, (">=61.0.0",), (">=61.0.0",), ())],
            id="license-not-spdx",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME
                + 'license = "MIT"\nclassifiers = ["License :: OSI Approved :: MIT License"]\n'
            },
            [
                ("PP002", 4, (">=61.0.0,<77.0.1",), (">=61.0.0,<77.0.1",), ()),
                ("PP003", 5, (">=77.0.1",), (">=77.0.1",), ()),
            ],
            id="expression-and-classifier-fail-everywhere",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + 'license = "MIT"\ndynamic = ["classifiers"]\n',
                "setup.cfg": "[metadata]\nclassifiers =\n"
                "    License :: OSI Approved :: MIT License\n",
            },
            [
                # 61.0.0-61.1.1 fill dynamic fields only from [tool.setuptools.dynamic].
                ("PP001", 5, (">=61.0.0,<61.2.0",), (">=61.0.0,<61.2.0",), ()),
                ("PP002", 4, (">=61.0.0,<77.0.1",), (">=61.0.0,<77.0.1",), ()),
                ("PP003", 1, (">=77.0.1",), (">=77.0.1",), ()),
            ],
            id="classifier-from-setup-cfg",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME
                + 'license = {text = "MIT"}\nclassifiers = ["License :: OSI Approved"]\n'
            },
            [("PP004", 4, (), (">=77.0.1,<80.10.2",), (">=77.0.1",))],
            id="license-table-classifiers-only-warn",
        ),
        pytest.param(
            {
                "pyproject.toml": "[tool.setuptools]\npy-modules = []\n",
                "setup.py": SETUP.format('name="probe", version="1.0"'),
            },
            [("PP001", 1, (">=61.0.0",), (">=61.0.0",), ())],
            id="tool-table-without-project",
        ),
        pytest.param(
            {"pyproject.toml": NAME + '\n[tool.setuptools]\nnamespace-packages = ["ns"]\n'},
            [("PP005", 6, (">=69.0.0",), (">=67.7.0",), (">=62.3.0,<69.0.0",))],
            id="namespace-packages",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + '\n[tool.setuptools]\nlicense-files = ["LICENSE"]\n',
                "LICENSE": "MIT\n",
            },
            [("PP006", 6, (), (">=77.0.1,<80.10.2",), (">=77.0.1",))],
            id="tool-license-files",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + 'license-files = ["LICENSE"]\n\n[tool.setuptools]\n'
                'license-files = ["LICENSE"]\n',
                "LICENSE": "MIT\n",
            },
            [
                ("PP001", 4, (">=61.0.0,<77.0.1",), (">=61.0.0,<77.0.1",), ()),
                ("PP006", 7, (">=77.0.1",), (">=77.0.1",), ()),
            ],
            id="both-license-files",
        ),
        pytest.param(
            {"pyproject.toml": NAME + "\n[tool.setuptools]\ninclude_package_data = true\n"},
            [("PP007", 6, (">=61.0.0",), (">=61.0.0",), ())],
            id="tool-underscore-key",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + "\n[tool.setuptools]\npy-modules = []\n"
                'ext-modules = [{name = "probe", sources = ["probe.c"]}]\n'
            },
            [("PP007", 7, (">=61.0.0,<74.1.0",), (">=61.0.0,<74.1.0",), ())],
            id="ext-modules-needs-74.1",
        ),
        pytest.param(
            {
                "pyproject.toml": '[project]\nname = "probe"\nversion = "1.0"\n'
                'dynamic = ["dependencies"]\n\n[tool.setuptools.dynamic]\n'
                'dependencies = {file = "requirements.in"}\n',
                "requirements.in": "six\n",
            },
            [("PP007", 6, (">=61.0.0,<62.6.0",), (">=61.0.0,<62.6.0",), ())],
            id="dynamic-dependencies-needs-62.6",
        ),
        pytest.param(
            {"pyproject.toml": NAME + '\n[tool.setuptools]\npackages = "find"\n'},
            [("PP007", 6, (">=61.0.0",), (">=61.0.0",), ())],
            id="packages-string",
        ),
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": SETUP.format('install_requires=["six"]')},
            [("PP008", 3, (), (">=67.7.0,<69.0.0",), (">=61.2.0",))],
            id="missing-dynamic-setup-py",
        ),
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": SETUP.format('long_description="x"')},
            [("PP008", 3, (">=69.0.0",), (">=67.7.0",), (">=61.2.0",))],
            id="missing-dynamic-readme-crashes",
        ),
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": SETUP.format('license="MIT"')},
            [("PP008", 3, (">=69.0.0,<77.0.1",), (">=67.7.0,<77.0.1",), (">=61.2.0",))],
            id="missing-dynamic-license-crashes-until-77",
        ),
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": SETUP.format('author="A"')},
            [("PP008", 3, (), (">=67.7.0,<69.0.0",), (">=61.2.0",))],
            id="missing-dynamic-author-kept",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + 'dynamic = ["scripts"]\n',
                "setup.py": SETUP.format('entry_points={"console_scripts": [f"{x}=m:f"]}'),
            },
            [],
            id="entry-point-groups-read-from-the-syntax-tree",
        ),
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": SETUP.format("entry_points=load()")},
            [],
            id="unreadable-entry-points-not-guessed",
        ),
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": SETUP.format("install_requires=[]")},
            [],
            id="empty-value-is-not-supplied",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    p = probe:main\n",
            },
            [("PP008", None, (), (">=67.7.0,<69.0.0",), (">=61.2.0",))],
            id="missing-dynamic-setup-cfg-scripts",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME + 'dynamic = ["dependencies"]\n',
                "setup.py": SETUP.format('install_requires=["six"]'),
            },
            [("PP001", 4, (">=61.0.0,<61.2.0",), (">=61.0.0,<61.2.0",), ())],
            id="listed-in-dynamic-is-kept",
        ),
    ],
)
def test_pyproject_findings(files: dict[str, str], expected: list[Row]) -> None:
    assert _pp(files) == expected


def test_due_date_passing_turns_license_table_overdue() -> None:
    """The 2027-02-18 due date of 80.10.2+ is 'pending' today and 'overdue' after it."""
    files = {"pyproject.toml": NAME + 'license = {text = "MIT"}\n'}
    before = check(files).findings[0]
    after = check_files(
        project(files),
        target="t",
        kind="directory",
        options=Options(today=dt.date(2027, 3, 1)),
    ).findings[0]
    assert before.fails_enforced == (">=77.0.1,<80.10.2",)
    assert after.fails_enforced == (">=77.0.1",)
    assert (before.status, after.status) == ("deprecated", "overdue")
    assert before.due_date == after.due_date == "2027-02-18"


def test_capped_build_fails_with_license_expression() -> None:
    """The forward direction: `setuptools<77` in build-system.requires gets 76.1.0."""
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools<77"]\n'
        'build-backend = "setuptools.build_meta"\n\n' + NAME + 'license = "MIT"\n'
    }
    result = check(files)
    assert result.verdict is not None
    assert (result.verdict.setuptools, result.verdict.outcome) == ("76.1.0", "fails")
    assert result.verdict.because == ("PP002",)
    uncapped = check({"pyproject.toml": NAME + 'license = "MIT"\n'})
    assert uncapped.verdict is not None and uncapped.verdict.outcome == "builds"


def test_other_backend_is_not_checked() -> None:
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["flit_core"]\n'
        'build-backend = "flit_core.buildapi"\n\n[project]\nname = "probe"\nlicense = "MIT"\n'
    }
    assert _pp(files) == []


def test_opaque_setup_py_assumes_relaxation() -> None:
    """``setup(**kwargs)``: sapper cannot see whether name is set, so it assumes the
    lenient 61.2.0-67.8.0 path rather than reporting a failure there."""
    files = {
        "pyproject.toml": '[project]\nrequires-python = ">=3.8"\n',
        "setup.py": "from setuptools import setup\nkw = load()\nsetup(**kw)\n",
    }
    fails = {f.fails for f in check(files).findings if f.code == "PP001"}
    assert fails == {(">=61.0.0,<61.2.0", ">=68.0.0"), (">=68.0.0",)}


NUMPY_SETUP = "import numpy\nfrom setuptools import setup\nsetup()\n"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"pyproject.toml": "[tool.black]\n", "setup.py": NUMPY_SETUP},
            [("PP009", 1, (">=0",), (">=0",), ())],
            id="tool-only-pyproject",
        ),
        pytest.param(
            {"pyproject.toml": "[build-system]\nbuild-backend = 'x'\n", "setup.py": NUMPY_SETUP},
            [],
            id="other-backend-without-requires-is-not-setuptools",
        ),
        pytest.param(
            {
                "pyproject.toml": "[build-system]\nrequires = ['setuptools', 'numpy']\n",
                "setup.py": NUMPY_SETUP,
            },
            [],
            id="declared",
        ),
        pytest.param({"setup.py": NUMPY_SETUP}, [], id="no-pyproject-is-frontend-dependent"),
        pytest.param(
            {
                "pyproject.toml": "[tool.black]\n\n[build-system]\nbuild-backend = "
                '"setuptools.build_meta"\n',
                "setup.py": "from setuptools import setup\nsetup()\n",
            },
            [("PP009", 3, (">=0",), (">=0",), ())],
            id="table-without-requires-and-no-import",
        ),
        pytest.param(
            {"pyproject.toml": "[build-system]\n", "setup.cfg": "[metadata]\nname = x\n"},
            [("PP009", 1, (">=0",), (">=0",), ())],
            id="empty-table-without-setup-py",
        ),
        pytest.param(
            {"pyproject.toml": "[build-system]\n", "setup.py": NUMPY_SETUP},
            [("PP009", 1, (">=0",), (">=0",), ())],
            id="table-without-requires-and-an-import-is-one-finding",
        ),
        pytest.param(
            {
                "pyproject.toml": "[build-system]\nrequires = []\n",
                "setup.py": "from setuptools import setup\nsetup()\n",
            },
            [("PP009", 2, (">=0",), (">=0",), ())],
            id="empty-requires-legacy-backend-has-no-setuptools",
        ),
        pytest.param(
            {
                "pyproject.toml": "[build-system]\nbuild-backend = "
                '"setuptools.build_meta"\nrequires = [\n]\n',
                "setup.py": NUMPY_SETUP,
            },
            [("PP009", 3, (">=0",), (">=0",), ())],
            id="empty-requires-setuptools-backend-one-finding",
        ),
        pytest.param(
            {
                "pyproject.toml": '[build-system]\nrequires = "setuptools"\n',
                "setup.py": "from setuptools import setup\nsetup()\n",
            },
            [("PP009", 2, (">=0",), (">=0",), ())],
            id="requires-a-string",
        ),
        pytest.param(
            {
                "pyproject.toml": '[build-system]\n\nrequires = ["setuptools", 3]\n',
                "setup.py": NUMPY_SETUP,
            },
            [("PP009", 3, (">=0",), (">=0",), ())],
            id="requires-holding-a-number",
        ),
        pytest.param(
            {
                "pyproject.toml": "[build-system]\nrequires = []\nbuild-backend = "
                '"backend"\nbackend-path = ["_build"]\n',
                "setup.py": "from setuptools import setup\nsetup()\n",
            },
            [],
            id="empty-requires-in-tree-backend",
        ),
        pytest.param(
            {"pyproject.toml": "[tool.black]\n", "setup.py": "from setuptools import setup\n"},
            [],
            id="no-table-and-no-import",
        ),
        pytest.param(
            {
                "pyproject.toml": "[tool.black]\n",
                "setup.py": "import os, sys\nimport versioneer\nimport mypkg.about\n"
                "from setuptools import setup\nsetup()\n",
                "versioneer.py": "",
                "src/mypkg/about.py": "",
            },
            [],
            id="stdlib-and-local-modules",
        ),
        pytest.param(
            {
                "pyproject.toml": "[tool.black]\n",
                "setup.py": "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n",
            },
            [],
            id="guarded",
        ),
    ],
)
def test_without_build_system(files: dict[str, str], expected: list[Row]) -> None:
    assert [r for r in _pp(files) if r[0] == "PP009"] == expected


def test_conditional_import_is_not_reported() -> None:
    files = {
        "pyproject.toml": "[tool.black]\n",
        "setup.py": "import sys\nif 'py2exe' in sys.argv:\n    import py2exe\n",
    }
    assert [r for r in _pp(files) if r[0] == "PP009"] == []


# What supplies a field outside pyproject.toml (rules/pyproject/_shared.py), as PP008 names
# it: the file, the line of the keyword and the words of the message.

ENTRY_POINTS_SETUP = (
    "from setuptools import setup\n"
    "\n"
    "setup(\n"
    '    name="probe",\n'
    '    entry_points={"console_scripts": ["a=m:f"], "gui_scripts": ["b=m:g"], "x.y": ["c=m:h"]},\n'
    '    extras_require={"test": ["pytest"]},\n'
    ")\n"
)


def _supplied(files: dict[str, str]) -> list[tuple[str, int | None, str]]:
    """(path, line, what the message says supplies which field) of each PP008 finding."""
    return sorted(
        (f.path, f.line, f.message.split(", which pyproject.toml")[0])
        for f in check(files).findings
        if f.code == "PP008"
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"pyproject.toml": NAME, "setup.py": ENTRY_POINTS_SETUP},
            [
                ("setup.py", 5, "setup(entry_points=...) supplies `entry-points`"),
                ("setup.py", 5, "setup(entry_points=...) supplies `gui-scripts`"),
                ("setup.py", 5, "setup(entry_points=...) supplies `scripts`"),
                ("setup.py", 6, "setup(extras_require=...) supplies `optional-dependencies`"),
            ],
            id="setup-py-literal-groups",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "setup.py": "from setuptools import setup\n\nS = load()\n"
                "setup(extras_require=E,\n      entry_points={'gui_scripts': S})\n",
            },
            [
                ("setup.py", 4, "setup(extras_require=...) supplies `optional-dependencies`"),
                ("setup.py", 5, "setup(entry_points=...) supplies `gui-scripts`"),
            ],
            id="setup-py-groups-from-the-syntax-tree",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "setup.py": "from setuptools import setup\n\nS = load()\n"
                "setup(entry_points={'console_scripts': S, 1: S})\n",
            },
            [],
            id="setup-py-group-not-a-string-not-guessed",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "setup.py": SETUP.format("entry_points={}, extras_require={}"),
            },
            [],
            id="setup-py-empty-values",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "setup.cfg": "[metadata]\nsummary = x\n\n[options.entry_points]\n"
                "console_scripts =\n    a = m:f\ngui_scripts =\n    b = m:g\nx.y =\n    c = m:h\n"
                "\n[options.extras_require]\ntest = pytest\n",
            },
            [
                ("setup.cfg", None, "[options.entry_points] in setup.cfg supplies `entry-points`"),
                ("setup.cfg", None, "[options.entry_points] in setup.cfg supplies `gui-scripts`"),
                ("setup.cfg", None, "[options.entry_points] in setup.cfg supplies `scripts`"),
                (
                    "setup.cfg",
                    None,
                    "[options.extras_require] in setup.cfg supplies `optional-dependencies`",
                ),
                ("setup.cfg", None, "`summary` in [metadata] of setup.cfg supplies `description`"),
            ],
            id="setup-cfg-sections",
        ),
        pytest.param(
            {
                "pyproject.toml": NAME,
                "setup.py": SETUP.format('entry_points={"console_scripts": ["a=m:f"]}'),
                "setup.cfg": "[options.entry_points]\ngui_scripts =\n    b = m:g\n",
            },
            [
                ("setup.cfg", None, "[options.entry_points] in setup.cfg supplies `gui-scripts`"),
                ("setup.py", 3, "setup(entry_points=...) supplies `scripts`"),
            ],
            id="setup-py-and-setup-cfg",
        ),
    ],
)
def test_supplied_fields(
    files: dict[str, str], expected: list[tuple[str, int | None, str]]
) -> None:
    assert _supplied(files) == expected


def test_changelog_reference() -> None:
    """The references of the PP rules (built at import, so a mutant of ``_ref`` is only
    seen by a test that calls it): setuptools' changelog anchors read ``#v61-2-0``."""
    assert _ref("61.2.0", "subgroup of invalid files ignored") == Reference(
        title="setuptools 61.2.0 changelog: subgroup of invalid files ignored",
        url="https://setuptools.pypa.io/en/latest/history.html#v61-2-0",
    )


STRINGS = "must be an array of strings"
TABLE = "must be a table of strings"
PEOPLE = 'must be an array of tables such as {name = "..."}'
README = "must be a file name or a table with one of `file` or `text`"
LICENSE_TABLE = "as a table must have exactly one of `file` or `text`"


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("name", "probe", None),
        ("name", 1, "`project.name` must be a string"),
        ("name", "a b", "`project.name` 'a b' is not a valid project name (PEP 508)"),
        ("version", "1.0", None),
        ("version", 1, "`project.version` must be a string"),
        ("version", "x.y", "`project.version` 'x.y' is not a PEP 440 version"),
        ("description", "text", None),
        ("description", 1, "`project.description` must be a string"),
        ("requires-python", ">=3.8", None),
        ("requires-python", 3, "`project.requires-python` must be a string"),
        ("keywords", ["a"], None),
        ("keywords", ["a", 1], f"`project.keywords` {STRINGS}"),
        ("keywords", "ab", f"`project.keywords` {STRINGS}"),
        ("classifiers", "x", f"`project.classifiers` {STRINGS}"),
        ("dependencies", "six", f"`project.dependencies` {STRINGS}"),
        ("dynamic", "readme", f"`project.dynamic` {STRINGS}"),
        ("authors", [{"name": "A"}], None),
        ("authors", ["A"], f"`project.authors` {PEOPLE}"),
        ("maintainers", {"name": "A"}, f"`project.maintainers` {PEOPLE}"),
        ("urls", {"home": "https://example.org"}, None),
        ("urls", {"home": 1}, f"`project.urls` {TABLE}"),
        ("urls", ["https://example.org"], f"`project.urls` {TABLE}"),
        ("scripts", {"a": 1}, f"`project.scripts` {TABLE}"),
        ("gui-scripts", {"a": 1}, f"`project.gui-scripts` {TABLE}"),
        ("optional-dependencies", {"test": ["pytest"]}, None),
        (
            "optional-dependencies",
            {"test": "pytest"},
            "`project.optional-dependencies` must be a table of arrays of strings",
        ),
        (
            "optional-dependencies",
            ["pytest"],
            "`project.optional-dependencies` must be a table of arrays of strings",
        ),
        ("entry-points", {"g": {"a": "m:f"}}, None),
        (
            "entry-points",
            {"g": {"a": 1}},
            "`project.entry-points` must be a table of tables of strings",
        ),
        (
            "entry-points",
            {"g": "m:f"},
            "`project.entry-points` must be a table of tables of strings",
        ),
        ("entry-points", "m:f", "`project.entry-points` must be a table of tables of strings"),
        ("readme", "README.md", None),
        ("readme", {"file": "README.md"}, None),
        ("readme", {"text": "x"}, None),
        ("readme", {"file": "README.md", "text": "x"}, f"`project.readme` {README}"),
        ("readme", {}, f"`project.readme` {README}"),
        ("readme", 1, f"`project.readme` {README}"),
        ("license", {"file": "LICENSE"}, None),
        ("license", {"file": "LICENSE", "text": "x"}, f"`project.license` {LICENSE_TABLE}"),
        ("license", {}, f"`project.license` {LICENSE_TABLE}"),
        ("license-files", ["LICENSE"], None),
        ("license-files", {}, "`project.license-files` must be an array of glob patterns"),
        ("license-files", "LICENSE", "`project.license-files` must be an array of glob patterns"),
        ("import-names", 1, None),
    ],
)
def test_type_problem(key: str, value: object, problem: str | None) -> None:
    """The type checks of the vendored ``validate-pyproject`` schema, key by key."""
    assert _type_problem(key, value) == problem


def _pp001(files: dict[str, str]) -> list[tuple[int | None, tuple[str, ...], str]]:
    return [(f.line, f.fails, f.message) for f in check(files).findings if f.code == "PP001"]


NOTHING = (
    "nothing supplies it (no [tool.setuptools.dynamic] entry, setup.py keyword or setup.cfg option)"
)


def test_dynamic_scripts_are_not_required() -> None:
    """61.0.0+ expand `scripts`/`gui-scripts` only with `entry-points`: listed alone they
    need nothing; a field after them in the list is still checked."""
    files = {"pyproject.toml": NAME + 'dynamic = ["gui-scripts", "readme", "scripts"]\n'}
    assert _pp001(files) == [
        (4, (">=61.0.0",), f"`readme` is listed in `project.dynamic` but {NOTHING}")
    ]


def test_dynamic_filled_outside_the_dynamic_table() -> None:
    files = {
        "pyproject.toml": NAME + 'dynamic = ["readme"]\n',
        "setup.py": SETUP.format('long_description="x"'),
    }
    assert _pp001(files) == [
        (
            4,
            (">=61.0.0,<61.2.0",),
            "`readme` is listed in `project.dynamic` but [tool.setuptools.dynamic] does not "
            "fill it, which setuptools 61.0.0-61.1.1 require",
        )
    ]


def test_name_listed_in_dynamic() -> None:
    files = {"pyproject.toml": '[project]\nversion = "1.0"\ndynamic = ["name"]\n'}
    found = [(f.line, f.message, f.fix) for f in check(files).findings if f.code == "PP001"]
    assert found == [
        (
            1,
            "[project] has no `name`; setuptools' validation stops with \"`project` must "
            "contain ['name'] properties\"",
            'add `name = "..."` to [project] (it cannot be dynamic)',
        ),
        (
            3,
            "`name` is listed in `project.dynamic`, which PEP 621 forbids",
            "remove `name` from `dynamic` and set it in [project]",
        ),
    ]


Said = tuple[int | None, tuple[str, ...], str, str | None]


def _said(files: dict[str, str], code: str) -> list[Said]:
    """(line, failing versions, message, fix) of each finding of ``code``."""
    return [(f.line, f.fails, f.message, f.fix) for f in check(files).findings if f.code == code]


def _unknown(key: str) -> str:
    return (
        f'[tool.setuptools] has the unknown key `{key}`: "`tool.setuptools` must not '
        f"contain {{'{key}'}} properties\""
    )


PACKAGES = "`tool.setuptools.packages` must be a list of names or a `{find = {...}}` table"
PACKAGES_FIX = 'write `packages = ["pkg"]` or a [tool.setuptools.packages.find] table'


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        pytest.param(
            "[tool.setuptools]\nfoo = 1\nzip_safe = false\next_modules = []\n",
            [
                (6, (">=61.0.0",), _unknown("foo"), "remove `foo`"),
                (7, (">=61.0.0",), _unknown("zip_safe"), "write `zip-safe`"),
                (8, (">=61.0.0",), _unknown("ext_modules"), "write `ext-modules`"),
            ],
            id="unknown-keys",
        ),
        pytest.param(
            "[tool.setuptools]\next-modules = []\nfoo = 1\n",
            [
                (
                    6,
                    (">=61.0.0,<74.1.0",),
                    "`tool.setuptools.ext-modules` is only known to setuptools >= 74.1.0",
                    "require `setuptools>=74.1.0` in build-system.requires",
                ),
                (7, (">=61.0.0",), _unknown("foo"), "remove `foo`"),
            ],
            id="later-key",
        ),
        pytest.param(
            '[tool.setuptools]\npackages = ["a", 1]\n',
            [(6, (">=61.0.0",), PACKAGES, PACKAGES_FIX)],
            id="packages-not-all-names",
        ),
        pytest.param(
            "[tool.setuptools]\npackages = {find = {}, where = 1}\n",
            [(6, (">=61.0.0",), PACKAGES, PACKAGES_FIX)],
            id="packages-table-with-more-than-find",
        ),
        pytest.param(
            "[tool.setuptools]\nzip-safe = false\nfoo = 1\n",
            [(7, (">=61.0.0",), _unknown("foo"), "remove `foo`")],
            id="unknown-key-after-a-known-one",
        ),
        pytest.param("[tool.setuptools]\npackages = {find = {}}\n", [], id="packages-find"),
        pytest.param('[tool.setuptools]\npackages = ["a"]\n', [], id="packages-names"),
        pytest.param(
            '[tool.setuptools.dynamic]\nversion = {attr = "a.v"}\nbar = {attr = "x"}\n'
            'dependencies = {file = "r.txt"}\n',
            [
                (
                    5,
                    (">=61.0.0",),
                    "`tool.setuptools.dynamic` has the unknown key `bar`",
                    "remove `bar`",
                ),
                (
                    5,
                    (">=61.0.0,<62.6.0",),
                    "`tool.setuptools.dynamic.dependencies` is only known to setuptools >= 62.6.0",
                    "require `setuptools>=62.6.0` in build-system.requires",
                ),
            ],
            id="dynamic-keys",
        ),
    ],
)
def test_tool_table_messages(tool: str, expected: list[Said]) -> None:
    assert _said({"pyproject.toml": NAME + "\n" + tool}, "PP007") == expected


def _later(label: str, since: str, where: str) -> str:
    return (
        f"{label} is only accepted by setuptools >= {since}: "
        f'"invalid pyproject.toml config: `tool.setuptools.{where}`"'
    )


def _never(label: str, where: str) -> str:
    return (
        f"{label} is rejected by setuptools' schema: "
        f'"invalid pyproject.toml config: `tool.setuptools.{where}`"'
    )


def _require(since: str) -> str:
    return f"require `setuptools>={since}` in build-system.requires"


# Boundaries measured with real setuptools 61.0.0..84.2.1 (bisected; the oracle test
# test_pyproject_oracle.py::pp007-names-* builds each one).
_PKG = '`tool.setuptools.packages` name "{}"'
_DATA = '`tool.setuptools.package-data` key "{}"'
_EXCL = '`tool.setuptools.exclude-package-data` key "{}"'
_DIR = '`tool.setuptools.package-dir` key "{}"'


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        pytest.param(
            "[tool.setuptools]\n"
            'packages = ["x-stubs", "x-stubs.sub", "my-pkg", "a.b-stubs", "ok.b"]\n',
            [
                (
                    6,
                    (">=61.0.0,<67.1.0",),
                    _later(_PKG.format("x-stubs"), "67.1.0", "packages"),
                    _require("67.1.0"),
                ),
                (
                    6,
                    (">=61.0.0,<67.1.0",),
                    _later(_PKG.format("x-stubs.sub"), "67.1.0", "packages"),
                    _require("67.1.0"),
                ),
                (
                    6,
                    (">=61.0.0,<73.0.0",),
                    _later(_PKG.format("my-pkg"), "73.0.0", "packages"),
                    _require("73.0.0"),
                ),
                (
                    6,
                    (">=61.0.0",),
                    _never(_PKG.format("a.b-stubs"), "packages"),
                    "rename `a.b-stubs` to an importable name",
                ),
            ],
            id="packages",
        ),
        pytest.param(
            '[tool.setuptools.package-data]\n"x-stubs" = ["*.pyi"]\n"my-pkg" = ["*.txt"]\n'
            '"a.b" = ["*.txt"]\n"*" = ["*.txt"]\n"" = ["*.txt"]\n',
            [
                (
                    6,
                    (">=61.0.0,<82.0.1",),
                    _later(_DATA.format("x-stubs"), "82.0.1", "package-data"),
                    _require("82.0.1"),
                ),
                (
                    7,
                    (">=61.0.0,<82.0.1",),
                    _later(_DATA.format("my-pkg"), "82.0.1", "package-data"),
                    _require("82.0.1"),
                ),
                (
                    10,
                    (">=61.0.0",),
                    _never(_DATA.format(""), "package-data"),
                    'use `"*"` for all packages',
                ),
            ],
            id="package-data-keys",
        ),
        pytest.param(
            "[tool.setuptools]\npackages = ['requests-stubs']\n\n"
            "[tool.setuptools.package-data]\n'requests-stubs' = ['*.pyi']\n",
            [
                (
                    6,
                    (">=61.0.0,<67.1.0",),
                    _later(_PKG.format("requests-stubs"), "67.1.0", "packages"),
                    _require("67.1.0"),
                ),
                (
                    9,
                    (">=61.0.0,<82.0.1",),
                    _later(_DATA.format("requests-stubs"), "82.0.1", "package-data"),
                    _require("82.0.1"),
                ),
            ],
            id="types-requests-single-quoted",
        ),
        pytest.param(
            '[tool.setuptools]\nexclude-package-data = {"x-stubs" = ["*.c"], "a.b" = ["*.c"],'
            ' "" = ["*.c"]}\n',
            [
                (
                    6,
                    (">=61.0.0,<82.0.1",),
                    _later(_EXCL.format("x-stubs"), "82.0.1", "exclude-package-data"),
                    _require("82.0.1"),
                ),
                (
                    6,
                    (">=61.0.0",),
                    _never(_EXCL.format(""), "exclude-package-data"),
                    'use `"*"` for all packages',
                ),
            ],
            id="exclude-package-data-inline",
        ),
        pytest.param(
            '[tool.setuptools.package-dir]\n"" = "src"\n"a.b" = "lib"\n"x-stubs" = "stubs"\n'
            '"my-pkg" = "lib2"\n',
            [
                (
                    8,
                    (">=61.0.0,<67.1.0",),
                    _later(_DIR.format("x-stubs"), "67.1.0", "package-dir"),
                    _require("67.1.0"),
                ),
                (
                    9,
                    (">=61.0.0,<73.0.0",),
                    _later(_DIR.format("my-pkg"), "73.0.0", "package-dir"),
                    _require("73.0.0"),
                ),
            ],
            id="package-dir-keys",
        ),
        pytest.param(
            '[tool.setuptools]\npy-modules = ["ok", "my-mod", "x-stubs"]\n'
            'namespace-packages = ["my-pkg", "x-stubs"]\n',
            [
                (
                    6,
                    (">=61.0.0,<73.0.0",),
                    _later('`tool.setuptools.py-modules` name "my-mod"', "73.0.0", "py-modules[1]"),
                    _require("73.0.0"),
                ),
                (
                    6,
                    (">=61.0.0",),
                    _never('`tool.setuptools.py-modules` name "x-stubs"', "py-modules[2]"),
                    "list `x-stubs` in `packages` (stub-only packages are packages)",
                ),
                (
                    7,
                    (">=61.0.0,<73.0.0",),
                    _later(
                        '`tool.setuptools.namespace-packages` name "my-pkg"',
                        "73.0.0",
                        "namespace-packages[0]",
                    ),
                    _require("73.0.0"),
                ),
                (
                    7,
                    (">=61.0.0",),
                    _never(
                        '`tool.setuptools.namespace-packages` name "x-stubs"',
                        "namespace-packages[1]",
                    ),
                    "list `x-stubs` in `packages` (stub-only packages are packages)",
                ),
            ],
            id="py-modules-and-namespace-packages",
        ),
        pytest.param(
            '[tool.setuptools]\npackages = ["ok"]\npy-modules = ["ok_mod"]\n\n'
            '[tool.setuptools.package-data]\n"*" = ["*.txt"]\n"ok.sub" = ["*.txt"]\n',
            [],
            id="importable-names",
        ),
    ],
)
def test_tool_names(tool: str, expected: list[Said]) -> None:
    assert _said({"pyproject.toml": NAME + "\n" + tool}, "PP007") == expected


@pytest.mark.parametrize(
    ("setuptools", "fails"),
    [("67.0.0", True), ("67.1.0", True), ("82.0.0", True), ("82.0.1", False)],
)
def test_stub_package_data_verdict(setuptools: str, fails: bool) -> None:
    """The canary's types-requests false negative: stub package data fails before 82.0.1."""
    files = {
        "pyproject.toml": NAME + "\n[tool.setuptools]\npackages = ['requests-stubs']\n\n"
        "[tool.setuptools.package-data]\n'requests-stubs' = ['*.pyi']\n",
        "requests-stubs/__init__.pyi": "",
    }
    result = check(files, setuptools=setuptools)
    assert result.verdict is not None
    assert (result.verdict.outcome == "fails") is fails


def test_tool_license_files_messages() -> None:
    tool = '\n[tool.setuptools]\nlicense-files = ["LICENSE"]\n'
    (finding,) = [f for f in check({"pyproject.toml": NAME + tool}).findings if f.code == "PP006"]
    assert finding.due_date == "2027-02-18"  # 80.10.2+, the newest release's
    assert _said({"pyproject.toml": NAME + tool}, "PP006") == [
        (
            6,
            (),
            "`tool.setuptools.license-files` is deprecated in favour of `project.license-files` "
            "since setuptools 77.0.1",
            "move `license-files` to [project] and require `setuptools>=77.0.1`",
        )
    ]
    both = NAME + 'license-files = ["LICENSE"]\n' + tool
    assert _said({"pyproject.toml": both}, "PP006") == [
        (
            7,
            (">=77.0.1",),
            "`license-files` is set in both [project] and [tool.setuptools]; setuptools >= "
            "77.0.1 stops with \"'project.license-files' is defined already\"",
            "remove `license-files` from [tool.setuptools]",
        )
    ]


def _missing(field: str, keyword: str, what: str) -> str:
    return (
        f"setup({keyword}=...) supplies `{field}`, which pyproject.toml neither sets in "
        f"[project] nor lists in `project.dynamic`: {what}"
    )


def test_missing_dynamic_messages() -> None:
    """What each release line does with a field that [project] leaves out."""
    keywords = (
        'long_description="x", license="MIT", author="A", keywords=["k"], '
        'extras_require={"t": ["x"]}'
    )
    files = {"pyproject.toml": NAME, "setup.py": SETUP.format(keywords)}
    kept = "setuptools >= 69.0.0 warns that it is ignored (the value is still used)"
    dropped = "setuptools >= 69.0.0 silently drops it from the built metadata"
    license_crash = "setuptools >= 69.0.0 crashes on it (KeyError: 'text') and the newest "
    extras_crash = "setuptools >= 69.0.0 crashes on it (TypeError: 'list' object is not a "
    readme_crash = (
        "setuptools >= 69.0.0 crashes on it (AttributeError: 'NoneType' object has no "
        "attribute 'get')"
    )
    assert [(f[1], f[2], f[3]) for f in _said(files, "PP008")] == [
        (
            (),
            _missing("authors", "author", kept),
            'add "authors" to `dynamic` in [project], or move the value to [project]',
        ),
        (
            (),
            _missing("keywords", "keywords", dropped),
            'add "keywords" to `dynamic` in [project], or move the value to [project]',
        ),
        (
            (">=69.0.0,<77.0.1",),
            _missing("license", "license", license_crash + "release drops it (dropped)"),
            'add "license" to `dynamic` in [project], or move the value to [project]',
        ),
        (
            (">=69.0.0,<69.1.0",),
            _missing(
                "optional-dependencies",
                "extras_require",
                extras_crash + "mapping) and the newest release drops it (dropped)",
            ),
            'add "optional-dependencies" to `dynamic` in [project], or move the value to [project]',
        ),
        (
            (">=69.0.0",),
            _missing("readme", "long_description", readme_crash),
            'add "readme" to `dynamic` in [project], or move the value to [project]',
        ),
    ]


def test_keys_outside_pep_621() -> None:
    """Unknown keys, keys only newer releases know, and the fields after them."""
    table = NAME + 'foo = 1\nlicense-files = ["LICENSE"]\nimport-names = ["a"]\ndescription = 1\n'
    files = {"pyproject.toml": table, "LICENSE": ""}
    assert _said(files, "PP001") == [
        (
            4,
            (">=61.0.0",),
            '[project] has the key `foo`, which is not a PEP 621 field: "`project` must not '
            "contain {'foo'} properties\"",
            "remove `foo` (or move it to [tool.<your tool>])",
        ),
        (
            5,
            (">=61.0.0,<77.0.1",),
            '`license-files` in [project] is only known to setuptools >= 77.0.1: "`project` '
            "must not contain {'license-files'} properties\"",
            "require `setuptools>=77.0.1` in build-system.requires",
        ),
        (
            6,
            (">=61.0.0,<82.0.1",),
            '`import-names` in [project] is only known to setuptools >= 82.0.1: "`project` '
            "must not contain {'import-names'} properties\"",
            "require `setuptools>=82.0.1` in build-system.requires",
        ),
        (7, (">=61.0.0",), "`project.description` must be a string", "fix the value's type"),
    ]


def test_relaxed_messages() -> None:
    files = {
        "pyproject.toml": '[project]\nrequires-python = ">=3.8"\n',
        "setup.py": SETUP.format('name="probe", version="1.0"'),
    }
    note = " (61.2.0-67.8.0 ignored the whole [project] table with a warning instead)"
    assert [(f[1], f[2]) for f in _said(files, "PP001")] == [
        (
            (">=61.0.0,<61.2.0", ">=68.0.0"),
            "[project] has no `name`; setuptools' validation stops with \"`project` must "
            "contain ['name'] properties\"" + note,
        ),
        (
            (">=68.0.0",),
            "[project] has no `version` and does not list it in `dynamic`; setuptools stops "
            "with \"`project` must contain ['version'] properties\"" + note,
        ),
    ]


def test_dynamic_items() -> None:
    """Items that are not fields, `name`, and items that are not strings (reported as a
    type problem; a number or a list among them once crashed the check)."""
    table = (
        NAME + 'dynamic = ["foo", "name", 1, ["x"], "readme"]\n'
        '[tool.setuptools.dynamic]\nreadme = {file = "README"}\n'
    )
    files = {"pyproject.toml": table, "setup.py": SETUP.format('author="A"')}
    assert _said(files, "PP001") == [
        (
            4,
            (">=61.0.0",),
            "`name` is listed in `project.dynamic`, which PEP 621 forbids",
            "remove `name` from `dynamic` and set it in [project]",
        ),
        (
            2,
            (">=61.0.0",),
            "`name` is set in [project] and listed in `project.dynamic` too",
            "either remove `name` from `dynamic` or drop the static value",
        ),
        (4, (">=61.0.0",), "`project.dynamic` must be an array of strings", "fix the value's type"),
        (
            4,
            (">=61.0.0",),
            "`project.dynamic` lists `foo`, which is not a [project] field",
            "remove `foo` from `dynamic`",
        ),
    ]
    assert [f[2].split(",")[0] for f in _said(files, "PP008")] == [
        "setup(author=...) supplies `authors`"
    ]


def test_missing_dynamic_after_a_declared_field() -> None:
    files = {
        "pyproject.toml": NAME + 'dynamic = ["authors"]\n',
        "setup.py": SETUP.format('author="A", keywords=["k"]'),
    }
    assert [f[2].split(",")[0] for f in _said(files, "PP008")] == [
        "setup(keywords=...) supplies `keywords`"
    ]


def test_fields_after_a_license_string_are_checked() -> None:
    files = {"pyproject.toml": NAME + 'license = "MIT"\ndescription = 1\n'}
    assert _said(files, "PP001") == [
        (5, (">=61.0.0",), "`project.description` must be a string", "fix the value's type")
    ]


# Behaviour that the surviving mutants of 2026-12-04 showed untested (docs/testing.md).


def test_invalid_license_expression_says_why() -> None:
    """setuptools >= 77.0.1 checks `project.license` with packaging's
    ``canonicalize_license_expression`` (the SPDX format of its vendored schema): the
    finding quotes packaging's reason; before 77.0.1 the schema takes no string at all."""
    files = {"pyproject.toml": NAME + 'license = "MIT License"\n'}
    assert _said(files, "PP002") == [
        (
            4,
            (">=61.0.0",),
            "`project.license = 'MIT License'` is not a valid SPDX license expression "
            "(Invalid license expression: 'MIT License'); setuptools >= 77.0.1 rejects it and "
            "older releases accept no string at all",
            'write an SPDX expression such as `license = "MIT"`, or '
            '`license = {text = "..."}` for setuptools < 77',
        )
    ]


def test_license_classifier_with_dotted_project_keys() -> None:
    """`project.license = ...` written as dotted keys (no [project] header) and the
    classifiers from setup.cfg: the finding points at the license line."""
    pyproject = (
        'project.name = "probe"\nproject.version = "1.0"\nproject.license = "MIT"\n'
        'project.dynamic = ["classifiers"]\n'
    )
    files = {
        "pyproject.toml": pyproject,
        "setup.cfg": "[metadata]\nclassifiers =\n    License :: OSI Approved :: MIT License\n",
    }
    assert [(line, fails) for line, fails, _, _ in _said(files, "PP003")] == [(3, (">=77.0.1",))]


@pytest.mark.parametrize(
    ("table", "fix"),
    [
        pytest.param(
            '{file = "COPYING"}',
            "license-files = ['COPYING'] and an SPDX `license` string",
            id="file",
        ),
        pytest.param(
            '{text = "MIT"}', 'license = "<SPDX expression>" (with setuptools>=77.0.1)', id="text"
        ),
    ],
)
def test_license_table_fix(table: str, fix: str) -> None:
    """setuptools >= 77.0.1 warns: "Please use a simple string containing a SPDX expression
    for `project.license`. You can also use `project.license-files`"; a `file` table names
    the file for `license-files`."""
    files = {"pyproject.toml": NAME + f"license = {table}\n", "COPYING": "MIT\n"}
    assert [f[3] for f in _said(files, "PP004")] == [fix]


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        pytest.param(
            'namespace_packages = ["ns"]\n',
            [("PP007", 6, (">=61.0.0",), (">=61.0.0",), ())],
            id="underscore-is-a-schema-error-everywhere",
        ),
        pytest.param(
            'namespace_packages = ["ns"]\nnamespace-packages = ["ns"]\n',
            [
                ("PP005", 7, (">=69.0.0",), (">=67.7.0",), (">=62.3.0,<69.0.0",)),
                ("PP007", 6, (">=61.0.0",), (">=61.0.0",), ()),
            ],
            id="both-spellings",
        ),
    ],
)
def test_namespace_packages_spellings(tool: str, expected: list[Row]) -> None:
    """setuptools stops on `namespace_packages` at validation in every release from 61.0.0
    (61.0.0, 68.2.2 and 84.2.1 tried: "`tool.setuptools` must not contain
    {'namespace_packages'} properties"), before any deprecation warning or
    RemovedConfigError. `namespace-packages` next to it is still removed in 69.0.0."""
    assert _pp({"pyproject.toml": NAME + "\n[tool.setuptools]\n" + tool}) == expected


@pytest.mark.parametrize(
    ("setup", "reported"),
    [
        pytest.param("import os\nimport numpy\n", [(2, "numpy")], id="after-a-stdlib-import"),
        pytest.param(
            "import numpy\nimport numpy.linalg\nfrom numpy import f\nimport six\n",
            [(1, "numpy"), (4, "six")],
            id="one-finding-per-module",
        ),
        pytest.param(
            "from __future__ import annotations\nimport wheel\nfrom wheel.bdist_wheel import b\n",
            [],
            id="wheel-is-in-pip-s-fallback",
        ),
    ],
)
def test_without_build_system_imports(setup: str, reported: list[tuple[int, str]]) -> None:
    """pip's fallback environment holds setuptools>=40.8.0 and wheel (pip 23.2.1); every
    other top-level third-party module fails, each reported once at its first import."""
    files = {"pyproject.toml": "[tool.black]\n", "setup.py": setup}
    found = [(line, message.split("`")[1]) for line, _, message, _ in _said(files, "PP009")]
    assert found == reported


def test_without_build_system_messages() -> None:
    """No [build-system]: pip's fallback environment lacks the module. A [build-system] table
    without `requires`: pip refuses the project ("The [build-system] table is missing the
    mandatory `requires` key", pip 23.2.1), uv and build too, whatever setup.py does
    (tests/oracle/test_pyproject_oracle.py runs pip)."""
    setup = "import numpy\nfrom setuptools import setup\nsetup()\n"
    fix = (
        'add [build-system] with requires = ["setuptools", "<the distribution that provides '
        'numpy>"] and build-backend = "setuptools.build_meta"'
    )
    no_table = {"pyproject.toml": "[tool.black]\n", "setup.py": setup}
    assert _said(no_table, "PP009") == [
        (
            1,
            (">=0",),
            "setup.py imports `numpy` at module level and pyproject.toml has no [build-system] "
            "table: pip builds in an isolated environment holding only setuptools (and wheel), "
            "so `import numpy` fails with ModuleNotFoundError whatever the setuptools version",
            fix,
        )
    ]
    no_requires = {
        "pyproject.toml": "[tool.black]\n[ build-system ]  # PEP 518\n"
        'build-backend = "setuptools.build_meta"\n',
        "setup.py": setup + "import six\nimport os\n",
    }
    refused = (
        'pyproject.toml has a [build-system] table without `requires`, which pip ("The '
        '[build-system] table is missing the mandatory `requires` key"), uv ("missing field '
        '`requires`") and build ("`requires` is a required property") refuse before any '
        "setuptools runs, whatever the setuptools version"
    )
    # one finding, at the table's header; the imports are named in its fix
    assert [(f.path, f.line) for f in check(no_requires).findings if f.code == "PP009"] == [
        ("pyproject.toml", 2)
    ]
    assert _said(no_requires, "PP009") == [
        (
            2,
            (">=0",),
            refused,
            'add requires = ["setuptools>=40.8.0", "<the distribution that provides numpy>", '
            '"<the distribution that provides six>"] to [build-system]',
        )
    ]
    no_imports = {"pyproject.toml": "[build-system]\n", "setup.cfg": "[metadata]\n"}
    assert _said(no_imports, "PP009") == [
        (1, (">=0",), refused, 'add requires = ["setuptools>=40.8.0"] to [build-system]')
    ]
