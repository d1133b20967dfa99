"""Rule behaviour the other rule tests left open: each table here kills mutants that
``benchmarks/mutation.py rules`` found surviving (see docs/testing.md)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from helpers import DATA, TODAY, check

from sapper.rules._base import all_rules, get_rule

SETUP = "from setuptools import setup\n\nsetup({})\n"

Row = tuple[str, int | None, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _rows(files: dict[str, str], code: str) -> list[Row]:
    result = check(files)
    return [
        (f.code, f.line, f.fails, f.fails_enforced, f.warns)
        for f in result.findings
        if f.code == code
    ]


# --------------------------------------------------------------------------- PP001

REQUIRES_ONLY = '[project]\nrequires-python = ">=3.8"\n'
#: 61.2.0-67.8.0 ignore an invalid [project] table when something else names the project.
RELAXED = (">=61.0.0,<61.2.0", ">=68.0.0")
STRICT = (">=61.0.0",)


@pytest.mark.parametrize(
    ("files", "fails"),
    [
        pytest.param({}, STRICT, id="nothing-else"),
        pytest.param({"setup.py": SETUP.format('name="probe"')}, RELAXED, id="setup.py-name"),
        pytest.param({"setup.py": SETUP.format('version="1.0"')}, RELAXED, id="setup.py-version"),
        pytest.param(
            {"setup.py": SETUP.format('install_requires=["six"]')},
            RELAXED,
            id="setup.py-install_requires",
        ),
        pytest.param({"setup.py": SETUP.format('name=""')}, STRICT, id="setup.py-empty-name"),
        pytest.param(
            {"setup.py": SETUP.format('description="x"')}, STRICT, id="setup.py-other-keyword"
        ),
        pytest.param({"setup.cfg": "[metadata]\nname = probe\n"}, RELAXED, id="cfg-name"),
        pytest.param({"setup.cfg": "[metadata]\nversion = 1.0\n"}, RELAXED, id="cfg-version"),
        pytest.param(
            {"setup.cfg": "[options]\ninstall_requires = six\n"}, RELAXED, id="cfg-install_requires"
        ),
        pytest.param({"setup.cfg": "[metadata]\ndescription = x\n"}, STRICT, id="cfg-other-key"),
        pytest.param(
            {
                "pyproject.toml": REQUIRES_ONLY + "[tool.setuptools]\nzip-safe = false\n",
                "setup.py": SETUP.format('name="probe"'),
            },
            STRICT,
            id="tool-table-is-never-relaxed",
        ),
        pytest.param(
            {
                "pyproject.toml": '[project]\nname = "probe"\nversion = "1.0"\n'
                'requires-python = ">=3.8"\npython_requires = ">=3.8"\n',
                "setup.py": SETUP.format('name="probe"'),
            },
            RELAXED,
            id="exactly-the-popular-keys",
        ),
    ],
)
def test_pp001_relaxed_when_another_file_names_the_project(
    files: dict[str, str], fails: tuple[str, ...]
) -> None:
    rows = _rows({"pyproject.toml": REQUIRES_ONLY, **files}, "PP001")
    assert rows[0][2] == fails


# --------------------------------------------------------------------------- PP003

LICENSED = '[project]\nname = "probe"\nversion = "1.0"\nlicense = "MIT"\n'
DYNAMIC = LICENSED + 'dynamic = ["classifiers"]\n'
MIT = "License :: OSI Approved :: MIT License"


@pytest.mark.parametrize(
    ("files", "line", "classifier"),
    [
        pytest.param(
            {"pyproject.toml": LICENSED + f'classifiers = ["{MIT}"]\n'}, 5, MIT, id="static"
        ),
        pytest.param(
            {"pyproject.toml": LICENSED + f'classifiers = ["Framework :: X", "  {MIT} "]\n'},
            5,
            MIT,
            id="static-stripped",
        ),
        pytest.param(
            {"pyproject.toml": LICENSED + 'classifiers = [1, "License :: X"]\n'},
            5,
            "License :: X",
            id="non-strings-skipped",
        ),
        pytest.param(
            {"pyproject.toml": DYNAMIC, "setup.py": SETUP.format(f'classifiers=["{MIT}"]')},
            1,
            MIT,
            id="dynamic-setup.py-list",
        ),
        pytest.param(
            {"pyproject.toml": DYNAMIC, "setup.py": SETUP.format(f'classifiers=("{MIT}",)')},
            1,
            MIT,
            id="dynamic-setup.py-tuple",
        ),
        pytest.param(
            {"pyproject.toml": DYNAMIC, "setup.cfg": f"[metadata]\nclassifiers =\n    {MIT}\n"},
            1,
            MIT,
            id="dynamic-setup.cfg-classifiers",
        ),
        pytest.param(
            {"pyproject.toml": DYNAMIC, "setup.cfg": f"[metadata]\nclassifier =\n    {MIT}\n"},
            1,
            MIT,
            id="dynamic-setup.cfg-classifier-alias",
        ),
        pytest.param({"pyproject.toml": DYNAMIC}, None, None, id="dynamic-but-none-given"),
        pytest.param(
            {"pyproject.toml": LICENSED, "setup.py": SETUP.format(f'classifiers=["{MIT}"]')},
            None,
            None,
            id="setup.py-classifiers-not-dynamic-are-ignored",
        ),
        pytest.param(
            {
                "pyproject.toml": LICENSED.replace('"MIT"', '{text = "MIT"}')
                + f'classifiers = ["{MIT}"]\n'
            },
            None,
            None,
            id="license-table-is-not-an-expression",
        ),
    ],
)
def test_pp003_license_classifiers(
    files: dict[str, str], line: int | None, classifier: str | None
) -> None:
    result = check(files)
    found = [f for f in result.findings if f.code == "PP003"]
    if classifier is None:
        assert found == []
        return
    (finding,) = found
    assert (finding.line, finding.fails) == (line, (">=77.0.1",))
    assert f"classifiers still say {classifier!r}" in finding.message


# --------------------------------------------------------------------------- PP009

IMPORTS = "import {}\nfrom setuptools import setup\n\nsetup(name='probe', version='1.0')\n"


@pytest.mark.parametrize(
    ("module", "tree", "reported"),
    [
        pytest.param("helper", {"helper.py": ""}, False, id="top-level-module"),
        pytest.param("helper", {"src/helper.py": ""}, False, id="one-directory-down"),
        pytest.param("helper", {"a/b/helper.py": ""}, False, id="two-directories-down"),
        pytest.param("helper", {"a/b/c/helper.py": ""}, True, id="three-directories-down"),
        pytest.param("pkg", {"pkg/__init__.py": ""}, False, id="package"),
        pytest.param("x", {"x.y.py": ""}, True, id="only-the-last-suffix-is-dropped"),
        pytest.param("pkg", {"pkg.d/data.txt": ""}, True, id="directory-names-keep-their-dots"),
        pytest.param("helper", {}, True, id="nowhere"),
    ],
)
def test_pp009_modules_the_project_provides(
    module: str, tree: dict[str, str], *, reported: bool
) -> None:
    files = {"pyproject.toml": "[tool.black]\n", "setup.py": IMPORTS.format(module), **tree}
    assert bool(_rows(files, "PP009")) is reported


# --------------------------------------------------------------------------- LY001

TWO_PACKAGES = {"a/__init__.py": "", "b/__init__.py": ""}
NAMED = '[project]\nname = "probe"\nversion = "1.0"\n'


@pytest.mark.parametrize(
    ("config", "path"),
    [
        pytest.param(
            {"setup.py": SETUP.format('name="probe"'), "setup.cfg": "[metadata]\nname = probe\n"},
            "setup.py",
            id="setup.py-first",
        ),
        pytest.param(
            {"setup.cfg": "[metadata]\nname = probe\n", "pyproject.toml": NAMED},
            "setup.cfg",
            id="then-setup.cfg",
        ),
        pytest.param({"pyproject.toml": NAMED}, "pyproject.toml", id="then-pyproject.toml"),
    ],
)
def test_ly001_points_at_the_configuration(config: dict[str, str], path: str) -> None:
    result = check({**config, **TWO_PACKAGES})
    assert [f.path for f in result.findings if f.code == "LY001"] == [path]


# --------------------------------------------------------------------------- SP: where, what to do


@pytest.mark.parametrize(
    ("code", "line", "column", "fix"),
    [
        ("SP001", 2, 1, None),
        ("SP002", 3, 47, "remove the `use_2to3` argument"),
        ("SP003", 1, 1, None),
        ("SP004", 3, 55, "pass `install_requires` as a list (sorted(...) of the set)"),
        ("SP005", 3, 31, "use a PEP 440 version"),
        ("SP006", 3, 55, "write PEP 440/508 requirements"),
        ("SP007", 3, 50, "put a one-line summary in `description`"),
        ("SP008", 5, 35, "drop the `dry_run=` argument"),
        ("SP009", 2, 1, "import `bdist_wheel` from `setuptools.command.bdist_wheel`"),
        ("SP010", 6, 56, "derive the command from `setuptools.command.build_py.build_py`"),
    ],
)
def test_setup_py_findings_say_where_and_what_to_do(
    code: str, line: int, column: int, fix: str | None
) -> None:
    rule = get_rule(code)
    assert rule is not None
    found = [f for f in check(dict(rule.example)).findings if f.code == code]
    assert (found[0].path, found[0].line, found[0].column) == ("setup.py", line, column)
    if fix is None:
        assert found[0].fix is None
    else:
        assert found[0].fix is not None
        assert found[0].fix.startswith(fix)


# --------------------------------------------------------------------------- RQ001


@pytest.mark.parametrize(
    ("releases", "requirement", "chosen"),
    [
        pytest.param(["9.0", "10.0"], "plugin", "10.0", id="newest-by-version-not-by-text"),
        pytest.param(["6.0", "7.0rc1"], "plugin>=5", "6.0", id="no-pre-releases"),
        pytest.param(["6.0", "7.0"], "plugin<7", "6.0", id="specifier-applies"),
        pytest.param(["6.0"], "plugin>=7", None, id="nothing-allowed"),
    ],
)
def test_rq001_the_release_pip_would_install(
    releases: list[str], requirement: str, chosen: str | None
) -> None:
    from packaging.requirements import Requirement

    from sapper.rules.requires._shared import chosen as choose

    assert choose({v: {} for v in releases}, Requirement(requirement)) == chosen


BUILD = '[build-system]\nrequires = [{}]\nbuild-backend = "setuptools.build_meta"\n'
SCM_SETUP = "from setuptools import setup\nsetup(use_scm_version=True)\n"
PBR_SETUP = "import setuptools\nsetuptools.setup({}pbr=True)\n"
SCM_FIX = "allow setuptools-scm>=6.3 (it no longer imports pkg_resources)"
PBR_FIX = "allow pbr>=7 (it no longer imports pkg_resources)"


def _in_pyproject(requires: str) -> dict[str, str]:
    return {"pyproject.toml": BUILD.format(requires), "setup.py": SCM_SETUP}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            _in_pyproject('"setuptools", "setuptools_scm>=2,<6"'),
            [("pyproject.toml", None, "build-system.requires asks for `setuptools_scm>=2,<6`")],
            id="build-system-requires",
        ),
        pytest.param(
            {"setup.py": PBR_SETUP.format("setup_requires=['pbr<7'], ")},
            [("setup.py", 2, "setup_requires asks for `pbr<7`")],
            id="setup.py-list",
        ),
        pytest.param(
            {"setup.py": PBR_SETUP.format("setup_requires='pbr<7', ")},
            [("setup.py", 2, "setup_requires asks for `pbr<7`")],
            id="setup.py-string",
        ),
        pytest.param(
            {
                "setup.py": PBR_SETUP.format(""),
                "setup.cfg": "[options]\nsetup_requires =\n    pbr>=1.8,<6\n",
            },
            [("setup.cfg", 2, "[options] setup_requires asks for `pbr>=1.8,<6`")],
            id="setup.cfg-setup_requires",
        ),
        pytest.param(
            {
                "setup.py": PBR_SETUP.format(""),
                "setup.cfg": "[options]\ninstall_requires =\n    pbr>=1.8,<6\n",
            },
            [],
            id="setup.cfg-install_requires-is-not-a-build-requirement",
        ),
        pytest.param(
            _in_pyproject('"setuptools", "not valid!!", "setuptools_scm<6"'),
            [("pyproject.toml", None, "build-system.requires asks for `setuptools_scm<6`")],
            id="after-an-invalid-requirement",
        ),
        pytest.param(
            _in_pyproject('"setuptools_scm<6", "setuptools-scm<5"'),
            [("pyproject.toml", None, "build-system.requires asks for `setuptools_scm<6`")],
            id="one-finding-per-plugin",
        ),
        pytest.param(
            _in_pyproject('"setuptools_scm<6; python_version < \'3\'", "pbr<7"'),
            [("pyproject.toml", None, "build-system.requires asks for `pbr<7`")],
            id="after-a-false-marker",
        ),
        pytest.param(
            _in_pyproject('"setuptools-scm>=6.3", "pbr<7"'),
            [("pyproject.toml", None, "build-system.requires asks for `pbr<7`")],
            id="after-a-safe-pin",
        ),
        pytest.param(
            _in_pyproject('"setuptools-scm", "wheel<1", "pbr<7"'),
            [("pyproject.toml", None, "build-system.requires asks for `pbr<7`")],
            id="after-unpinned-and-other-packages",
        ),
    ],
)
def test_rq001_where_each_requirement_comes_from(
    files: dict[str, str], expected: list[tuple[str, int | None, str]]
) -> None:
    found = [f for f in check(files).findings if f.code == "RQ001"]
    assert len(found) == len(expected)
    for finding, (path, line, message) in zip(found, expected, strict=True):
        assert (finding.path, finding.line) == (path, line)
        assert finding.message.startswith(message)
        assert finding.message.endswith(
            "which imports `pkg_resources` when setuptools loads it: "
            "not every setuptools release ships it (ModuleNotFoundError)"
        )
        assert finding.fails == finding.fails_enforced == (">=82.0.0",)
        plugin_fix = SCM_FIX if "for `setuptools" in message else PBR_FIX
        assert finding.fix == f"{plugin_fix}, or pin `setuptools<82` in build-system.requires"


LY_SETUP = 'from setuptools import setup\n\nsetup(name="probe", version="1.0")\n'


@pytest.mark.parametrize(
    ("tree", "modules"),
    [
        pytest.param({"x.py": "", "y.py": ""}, ["x", "y"], id="two-modules"),
        pytest.param({"README.txt": "", "x.py": ""}, None, id="only-.py-files-are-modules"),
        pytest.param({"my-script.py": "", "x.py": ""}, None, id="not-an-identifier"),
        pytest.param(
            {"x.py": "", "conftest.py": "", "tasks.py": "", "_private.py": "", "SConstruct.py": ""},
            None,
            id="setuptools-default-excludes",
        ),
        pytest.param(
            {"a/__init__.py": "", "__pycache__/x.pyc": "", "ez_setup/__init__.py": ""},
            None,
            id="always-excluded-directories",
        ),
        pytest.param({"a/__init__.py": "", "a-stubs/__init__.pyi": ""}, None, id="stubs-dropped"),
    ],
)
def test_ly001_what_flat_layout_discovery_counts(
    tree: dict[str, str], modules: list[str] | None
) -> None:
    found = [f for f in check({"setup.py": LY_SETUP, **tree}).findings if f.code == "LY001"]
    if modules is None:
        assert found == []
        return
    (finding,) = found
    assert f"top-level modules {modules!r}" in finding.message
    assert finding.fails == (">=61.0.0",)


@pytest.mark.parametrize(
    ("keywords", "tree", "reported"),
    [
        pytest.param("", TWO_PACKAGES, True, id="discovery-runs"),
        pytest.param(', setup_requires=["pbr>=1.8"]', TWO_PACKAGES, False, id="pbr-hook"),
        pytest.param(', setup_requires=[" PBR"]', TWO_PACKAGES, False, id="pbr-any-case"),
        pytest.param(', setup_requires=("pbr",)', TWO_PACKAGES, False, id="pbr-in-a-tuple"),
        pytest.param(', setup_requires=["six"]', TWO_PACKAGES, True, id="other-setup-requires"),
        pytest.param(', setup_requires=[1, "six"]', TWO_PACKAGES, True, id="non-strings"),
        pytest.param("", {"a/b/x.txt": "", "c/d/y.txt": ""}, True, id="top-directory-counts"),
    ],
)
def test_ly001_discovery_skipped_by_pbr(
    keywords: str, tree: dict[str, str], *, reported: bool
) -> None:
    setup = 'from setuptools import setup\n\nsetup(name="probe", version="1.0"{})\n'
    result = check({"setup.py": setup.format(keywords), **tree})
    assert any(f.code == "LY001" for f in result.findings) is reported


# --------------------------------------------------------------------------- every rule's example

EXAMPLES = DATA / "golden" / "rule-examples.json"


def _gen_rules_doc() -> Any:
    """scripts/gen_rules_doc.py, which adds a new rule's entry to the golden file."""
    import importlib.util

    path = DATA.parent.parent / "scripts" / "gen_rules_doc.py"
    spec = importlib.util.spec_from_file_location("gen_rules_doc", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.EXAMPLES == EXAMPLES
    assert module.EXAMPLES_TODAY == TODAY
    return module


def _example_findings(code: str) -> list[dict[str, object]]:
    result: list[dict[str, object]] = _gen_rules_doc().example_findings(code)
    return result


@pytest.mark.parametrize("code", [r.code for r in all_rules()])
def test_rule_example_findings_golden(code: str) -> None:
    """Each rule's documented example: the findings' position, message, fix and version
    sets, compared with a reviewed golden file (``SAPPER_UPDATE_GOLDEN=1`` rewrites it)."""
    found = _example_findings(code)
    golden = json.loads(EXAMPLES.read_text()) if EXAMPLES.exists() else {}
    if os.environ.get("SAPPER_UPDATE_GOLDEN"):
        golden[code] = found
        EXAMPLES.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    assert found
    assert found == golden[code]


# --------------------------------------------------------------------------- SC008, SC011


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        ("file: LICENSE", "license_files = LICENSE"),
        ("file:LICENSE", "license_files = LICENSE"),
        ("file:  COPYING.txt ", "license_files = COPYING.txt"),
    ],
)
def test_sc008_fix_names_the_file(value: str, fix: str) -> None:
    found = _rows({"setup.cfg": f"[metadata]\nlicense = {value}\n"}, "SC008")
    assert found == [("SC008", 2, (">=40.7.0",), (">=40.7.0",), ())]
    (finding,) = list(check({"setup.cfg": f"[metadata]\nlicense = {value}\n"}).findings)
    assert finding.fix == fix


@pytest.mark.parametrize(
    ("cfg", "line"),
    [
        pytest.param("[metadata]\nversion = 1.0-SNAPSHOT\n", 2, id="invalid"),
        pytest.param(
            "[options]\nversion = x\n[metadata]\nname = a\nversion = 1.0-SNAPSHOT\n",
            5,
            id="after-other-sections-keys",
        ),
        pytest.param("[metadata]\nversion = file: VERSION\n", None, id="file-directive"),
        pytest.param("[metadata]\nversion = attr: pkg.__version__\n", None, id="attr-directive"),
        pytest.param("[metadata]\nversion = 1.0\n", None, id="valid"),
    ],
)
def test_sc011_metadata_version(cfg: str, line: int | None) -> None:
    found = _rows({"setup.cfg": cfg}, "SC011")
    assert found == ([("SC011", line, (">=66.0.0",), (">=66.0.0",), ())] if line else [])
