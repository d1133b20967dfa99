"""PP rules against real setuptools: minimal pyproject.toml projects built through the PEP 517
hooks pip calls, at each rule's boundary versions (the last that builds, the first that
fails, the newest), with and without SETUPTOOLS_ENFORCE_DEPRECATION=1."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .agree import comparisons, disagreements, write_tree
from .harness import pip_wheel, require_runnable

# sapper judges [project] and [tool.setuptools] with each release's own validator (warmed
# once, tests/conftest.py): what the real validator says at each boundary is the truth
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.network,
    pytest.mark.usefixtures("real_validators"),
]

NAME = '[project]\nname = "probe"\nversion = "1.0"\n'
SETUP = "from setuptools import setup\n\nsetup({})\n"


def compare(
    root: Path, files: dict[str, str], versions: tuple[str, ...], *, enforce: bool = False
) -> list[str]:
    """Mismatches between sapper's verdict and real setuptools at each version, reasons
    included: a failure must be one a rule of the verdict's ``because`` declares."""
    require_runnable(versions)
    return disagreements(write_tree(root, files), versions, enforce=enforce)


CASES = [
    # PP001: [project] with only requires-python; setup.py names the project. 61.2.0-67.8.0
    # ignore the table with a warning, 68.0.0 ends the grace period.
    (
        "pp001-requires-python-only",
        {
            "pyproject.toml": '[project]\nrequires-python = ">=3.8"\n',
            "setup.py": SETUP.format('name="probe", version="1.0", py_modules=[]'),
        },
        ("60.10.0", "61.0.0", "67.7.0", "68.0.0", "84.2.1"),
        False,
    ),
    (
        "pp001-unknown-key",
        {"pyproject.toml": NAME + 'homepage = "https://example.org"\n'},
        ("60.10.0", "61.0.0", "84.2.1"),
        False,
    ),
    (
        "pp001-license-files-before-77",
        {"pyproject.toml": NAME + 'license-files = ["LICENSE"]\n', "LICENSE": "MIT\n"},
        ("61.0.0", "76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    (
        "pp001-static-and-dynamic",
        {"pyproject.toml": NAME + 'dynamic = ["version"]\n'},
        ("60.10.0", "61.0.0", "84.2.1"),
        False,
    ),
    # PP002: a license expression string is a schema error before 77.0.1.
    (
        "pp002-license-expression",
        {"pyproject.toml": NAME + 'license = "MIT"\n'},
        ("60.10.0", "61.0.0", "76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    (
        "pp002-invalid-spdx",
        {"pyproject.toml": NAME + 'license = "MIT License"\n'},
        ("76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    # PP003: expression + License classifier.
    (
        "pp003-classifier-conflict",
        {
            "pyproject.toml": NAME
            + 'license = "MIT"\nclassifiers = ["License :: OSI Approved :: MIT License"]\n'
        },
        ("76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    # PP004: license table; due 2026-02-18 in 77.0.1-80.10.1, 2027-02-18 from 80.10.2.
    (
        "pp004-license-table",
        {"pyproject.toml": NAME + 'license = {text = "MIT"}\n'},
        ("76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    (
        "pp004-license-table-enforced",
        {"pyproject.toml": NAME + 'license = {text = "MIT"}\n'},
        ("76.1.0", "77.0.1", "80.10.1", "80.10.2", "84.2.1"),
        True,
    ),
    # PP005: tool.setuptools.namespace-packages.
    (
        "pp005-namespace-packages",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\nnamespace-packages = ["ns"]\n'
            'packages = ["ns", "ns.sub"]\n',
            "ns/__init__.py": "__import__('pkg_resources').declare_namespace(__name__)\n",
            "ns/sub/__init__.py": "",
        },
        ("68.2.2", "69.0.0", "84.2.1"),
        False,
    ),
    (
        "pp005-namespace-packages-enforced",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\nnamespace-packages = ["ns"]\n'
            'packages = ["ns", "ns.sub"]\n',
            "ns/__init__.py": "__import__('pkg_resources').declare_namespace(__name__)\n",
            "ns/sub/__init__.py": "",
        },
        ("67.6.1", "67.7.0", "68.2.2"),
        True,
    ),
    # PP006: tool.setuptools.license-files alone (deprecated) and next to project's.
    (
        "pp006-tool-license-files-enforced",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\nlicense-files = ["LICENSE"]\n',
            "LICENSE": "MIT\n",
        },
        ("76.1.0", "77.0.1", "80.10.1", "80.10.2", "84.2.1"),
        True,
    ),
    (
        "pp006-both-license-files",
        {
            "pyproject.toml": NAME + 'license-files = ["LICENSE"]\n\n[tool.setuptools]\n'
            'license-files = ["LICENSE"]\n',
            "LICENSE": "MIT\n",
        },
        ("76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    # PP007: [tool.setuptools] schema.
    (
        "pp007-underscore-key",
        {"pyproject.toml": NAME + "\n[tool.setuptools]\ninclude_package_data = true\n"},
        ("60.10.0", "61.0.0", "84.2.1"),
        False,
    ),
    (
        "pp007-ext-modules-before-74.1",
        {
            "pyproject.toml": NAME + "\n[tool.setuptools]\n"
            'py-modules = []\next-modules = [{name = "probe", sources = ["probe.c"]}]\n',
            "probe.c": "",
        },
        ("74.0.0", "74.1.0", "84.2.1"),
        False,
    ),
    # PP007: names the schema rejects, at each boundary measured with real setuptools
    # (the last release that rejects, the first that accepts): stub package names in
    # `packages`/`package-dir` from 67.1.0, dashed names there and in py-modules /
    # namespace-packages from 73.0.0, stub and dashed package-data keys from 82.0.1. Each
    # named package or module exists, so only the name can fail.
    (
        "pp007-names-stub-package",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\npackages = ["x-stubs"]\n',
            "x-stubs/__init__.pyi": "",
        },
        ("67.0.0", "67.1.0"),
        False,
    ),
    (
        "pp007-names-stub-package-dir",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\npackages = ["x"]\n\n'
            '[tool.setuptools.package-dir]\n"x-stubs" = "stubs"\n',
            "x/__init__.py": "",
        },
        ("67.0.0", "67.1.0"),
        False,
    ),
    (
        "pp007-names-dashed-package",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\npackages = ["my-pkg"]\n\n'
            '[tool.setuptools.package-dir]\n"my-pkg" = "my-pkg"\n',
            "my-pkg/__init__.py": "",
        },
        ("72.2.0", "73.0.0"),
        False,
    ),
    (
        "pp007-names-dashed-py-module",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\npy-modules = ["my-mod"]\n',
            "my-mod.py": "",
        },
        ("72.2.0", "73.0.0"),
        False,
    ),
    (
        "pp007-names-dashed-namespace-package",
        {
            "pyproject.toml": NAME + "\n[tool.setuptools]\npy-modules = []\n"
            'namespace-packages = ["my-pkg"]\n',
        },
        ("72.2.0", "73.0.0"),
        False,
    ),
    (
        "pp007-names-stub-package-data",
        {
            "pyproject.toml": NAME + "\n[tool.setuptools]\npackages = ['requests-stubs']\n\n"
            "[tool.setuptools.package-data]\n'requests-stubs' = ['*.pyi']\n",
            "requests-stubs/__init__.pyi": "",
        },
        ("82.0.0", "82.0.1"),
        False,
    ),
    (
        "pp007-names-dashed-exclude-package-data",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\npackages = ["my-pkg"]\n\n'
            '[tool.setuptools.exclude-package-data]\n"my-pkg" = ["*.c"]\n',
            "my-pkg/__init__.py": "",
        },
        ("82.0.0", "82.0.1"),
        False,
    ),
    (
        "pp007-names-empty-package-data-key",
        {
            "pyproject.toml": NAME + "\n[tool.setuptools]\npy-modules = []\n\n"
            '[tool.setuptools.package-data]\n"" = ["*.txt"]\n',
        },
        ("61.0.0", "84.2.1"),
        False,
    ),
    (
        "pp007-names-stub-py-module",
        {
            "pyproject.toml": NAME + '\n[tool.setuptools]\npy-modules = ["x-stubs"]\n',
            "x-stubs.py": "",
        },
        ("84.2.1",),
        False,
    ),
    # PP008: setup.py install_requires not in project.dynamic: warning with a due date
    # (2023-10-30) in 67.7.0-68.2.2, silently dropped since 69.0.0.
    (
        "pp008-missing-dynamic-enforced",
        {
            "pyproject.toml": NAME,
            "setup.py": SETUP.format('py_modules=[], install_requires=["six"]'),
        },
        ("67.6.1", "67.7.0", "68.2.2", "69.0.0", "84.2.1"),
        True,
    ),
    # PP008: some fields crash the build instead of being dropped.
    (
        "pp008-long-description-crashes",
        {"pyproject.toml": NAME, "setup.py": SETUP.format('py_modules=[], long_description="x"')},
        ("68.2.2", "69.0.0", "84.2.1"),
        False,
    ),
    (
        "pp008-python-requires-crashes",
        {
            "pyproject.toml": NAME,
            "setup.py": SETUP.format('py_modules=[], python_requires=">=3.7"'),
        },
        ("68.2.2", "69.0.0", "84.2.1"),
        False,
    ),
    (
        "pp008-license-crashes-until-77",
        {"pyproject.toml": NAME, "setup.py": SETUP.format('py_modules=[], license="MIT"')},
        ("68.2.2", "69.0.0", "76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    (
        "pp008-extras-crash-in-69.0",
        {
            "pyproject.toml": NAME,
            "setup.py": SETUP.format('py_modules=[], extras_require={"x": ["six"]}'),
        },
        ("68.2.2", "69.0.0", "69.0.3", "69.1.0", "84.2.1"),
        False,
    ),
    # Dynamic fields nothing fills (PP001): 61.0.0-61.1.1 need [tool.setuptools.dynamic].
    (
        "pp001-dynamic-from-setup-py",
        {
            "pyproject.toml": NAME + 'dynamic = ["dependencies"]\n',
            "setup.py": SETUP.format('py_modules=[], install_requires=["six"]'),
        },
        ("61.0.0", "61.2.0", "84.2.1"),
        False,
    ),
    (
        "pp001-dynamic-unfilled-dependencies-ok",
        {"pyproject.toml": NAME + 'dynamic = ["dependencies", "urls"]\n'},
        ("61.1.1", "61.2.0", "84.2.1"),
        False,
    ),
    (
        "pp001-dynamic-unfilled",
        {"pyproject.toml": NAME + 'dynamic = ["description", "dependencies"]\n'},
        ("60.10.0", "61.2.0", "84.2.1"),
        False,
    ),
    # Controls: valid projects build everywhere, also under enforcement.
    ("control-empty-project", {"pyproject.toml": "[project]\n"}, ("61.0.0", "84.2.1"), False),
    (
        "control-valid",
        {
            "pyproject.toml": NAME + 'dynamic = ["dependencies"]\n',
            "setup.py": SETUP.format('py_modules=[], install_requires=["six"]'),
        },
        ("61.2.0", "67.7.0", "77.0.1", "84.2.1"),
        True,
    ),
]


@pytest.mark.parametrize(("name", "files", "versions", "enforce"), CASES, ids=[c[0] for c in CASES])
def test_pyproject_matches_setuptools(
    tmp_path: Path, name: str, files: dict[str, str], versions: tuple[str, ...], enforce: bool
) -> None:
    mismatches = compare(tmp_path, files, versions, enforce=enforce)
    assert not mismatches, "\n".join(mismatches)


#: PP009: setup.py imports a third-party module (six). With a tool-only pyproject.toml the
#: isolated build environment holds setuptools alone and the import fails; the control
#: declares six in build-system.requires, gets it installed next to setuptools, and builds:
#: the same setup.py, so the failure is the missing requirement and nothing else.
PP009_SETUP = "import six\n" + SETUP.format('name="probe", version="1.0", py_modules=[]')
PP009_CASES = [
    ("pp009-third-party-import", "[tool.black]\nline-length = 100\n", ()),
    (
        "control-pp009-requirement-declared",
        '[build-system]\nrequires = ["setuptools", "six"]\n'
        'build-backend = "setuptools.build_meta"\n',
        ("six==1.17.0",),
    ),
]


@pytest.mark.parametrize(
    ("name", "pyproject", "requires"), PP009_CASES, ids=[c[0] for c in PP009_CASES]
)
def test_third_party_import_matches_setuptools(
    tmp_path: Path, name: str, pyproject: str, requires: tuple[str, ...]
) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject)
    (tmp_path / "setup.py").write_text(PP009_SETUP)
    versions = ("60.10.0", "84.2.1")
    require_runnable(versions)
    seen = comparisons(tmp_path, versions, requires=requires)
    mismatches = [c.problem for c in seen if c.problem]
    assert not mismatches, "\n".join(mismatches)
    if requires:  # the control really builds (a verdict of "builds" agreed with a build)
        assert seen[-1].real.outcome == "builds"


def test_missing_dynamic_is_dropped_silently(tmp_path: Path) -> None:
    """PP008's claim: the build succeeds, but 69.0.0+ leave setup.py's install_requires out
    of the metadata (61.2.0-68.2.2 keep it with a warning)."""
    from .harness import metadata_text

    (tmp_path / "pyproject.toml").write_text(NAME)
    (tmp_path / "setup.py").write_text(SETUP.format('py_modules=[], install_requires=["six"]'))
    versions = ("68.2.2", "69.0.0", "84.2.1")
    with ThreadPoolExecutor(max_workers=2) as pool:
        real = list(pool.map(lambda v: metadata_text(v, tmp_path), versions))
    kept = {
        v: "Requires-Dist: six" in (text or "") for v, (text, _) in zip(versions, real, strict=True)
    }
    assert [error for _, error in real] == [None, None, None]
    result = check_target(str(tmp_path), Options(setuptools="84.2.1"))
    finding = next(f for f in result.findings if f.code == "PP008")
    assert "69.0.0" in finding.message
    assert kept == {"68.2.2": True, "69.0.0": False, "84.2.1": False}


#: PP009's other cases: a [build-system] table without `requires`, which pip refuses before
#: it installs anything or runs setup.py (which imports nothing here), and an empty
#: `requires`, with which pip's isolated environment has no setuptools; the control is the
#: same tree with `requires`, which pip builds.
PP009_TABLE_CASES = [
    ("pp009-table-without-requires", '[build-system]\nbuild-backend = "setuptools.build_meta"\n'),
    ("pp009-empty-requires-legacy", "[build-system]\nrequires = []\n"),
    (
        "pp009-empty-requires-setuptools-backend",
        '[build-system]\nrequires = []\nbuild-backend = "setuptools.build_meta"\n',
    ),
    ("pp009-requires-a-string", '[build-system]\nrequires = "setuptools"\n'),
    (
        "control-pp009-table-with-requires",
        '[build-system]\nrequires = ["setuptools>=40.8.0"]\n'
        'build-backend = "setuptools.build_meta"\n',
    ),
]


@pytest.mark.parametrize(
    ("name", "pyproject"), PP009_TABLE_CASES, ids=[c[0] for c in PP009_TABLE_CASES]
)
def test_table_without_requires_matches_pip(tmp_path: Path, name: str, pyproject: str) -> None:
    project = tmp_path / "probe"
    project.mkdir()
    (project / "pyproject.toml").write_text(pyproject)
    (project / "setup.py").write_text(SETUP.format('name="probe", version="1.0", py_modules=[]'))
    proc = pip_wheel(project, tmp_path / "dist")
    refused = "The [build-system] table is missing the mandatory `requires` key"
    result = check_target(str(project), Options())
    assert result.verdict is not None
    if name.startswith("control"):
        assert proc.returncode == 0, proc.stderr[-1500:]
        assert list((tmp_path / "dist").glob("probe-1.0-*.whl"))
        assert (result.verdict.outcome, result.verdict.because) == ("builds", ())
    else:
        assert proc.returncode != 0
        if "empty-requires" in name:
            refused = "No module named 'setuptools'"
        elif "requires-a-string" in name:
            refused = "It is not a list of strings"
        assert refused in proc.stderr, proc.stderr[-1500:]
        assert (result.verdict.outcome, result.verdict.because) == ("fails", ("PP009",))
