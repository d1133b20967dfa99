"""SP003-SP009 and SC008-SC012 against real setuptools: minimal projects built through the
PEP 517 hooks pip calls, at the last version that builds, the first that fails and the
newest (and at both ends of every failing window)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .agree import disagreements
from .harness import reason_mismatch, require_runnable, run_hooks
from .reasons import REASONS, reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]


def _setup(head: str = "", kw: str = "", tail: str = "") -> str:
    return (
        f"from setuptools import setup\n{head}\n"
        f'setup(name="probe", version="1.0", py_modules=[]{kw})\n{tail}'
    )


def _cfg(body: str) -> dict[str, str]:
    return {
        "setup.py": "from setuptools import setup\nsetup()\n",
        "setup.cfg": "[metadata]\nname = probe\nversion = 1.0\n\n[options]\npy_modules =\n" + body,
    }


# (id, files, versions, enforce)
CASES: list[tuple[str, dict[str, str], tuple[str, ...], bool]] = [
    (
        "SP003-feature",
        {"setup.py": _setup("from setuptools import Feature")},
        ("45.3.0", "46.0.0", "84.2.1"),
        False,
    ),
    (
        "SP003-convert-path",
        {"setup.py": _setup("from setuptools import convert_path")},
        ("60.10.0", "61.0.0", "61.1.0", "69.5.1", "70.0.0"),
        False,
    ),
    (
        "SP003-get-script-args",
        {"setup.py": _setup("from setuptools.command.easy_install import get_script_args")},
        ("67.8.0", "68.0.0", "84.2.1"),
        False,
    ),
    (
        "SP003-pkg-resources-packaging",
        {"setup.py": _setup("from pkg_resources import packaging")},
        ("69.5.1", "70.0.0", "70.3.0", "71.0.0"),
        False,
    ),
    # a name the module does not define yet: setuptools.errors ships since 42.0.0, its
    # distutils error aliases since 59.0.1 (fonttools 4.68.0, markupsafe 3.0.4)
    (
        "SP003-errors-not-yet",
        {"setup.py": _setup("from setuptools.errors import SetupError")},
        ("57.5.0", "58.5.3", "59.0.1", "84.2.1"),
        False,
    ),
    (
        "SP003-errors-attribute-not-yet",
        {"setup.py": _setup("import setuptools.errors\nE = setuptools.errors.CCompilerError")},
        ("58.5.3", "59.0.1"),
        False,
    ),
    (
        "SP003-test-overdue",
        {"setup.py": _setup("from setuptools.command.test import test")},
        ("71.1.0", "72.1.0", "84.2.1"),
        True,
    ),
    (
        "SP003-test-class-base",
        {
            "setup.py": _setup(
                "import setuptools.command.test\n\n"
                "class Test(setuptools.command.test.test):\n    pass\n"
            )
        },
        ("71.1.0", "72.1.0", "84.2.1"),
        True,
    ),
    # setuptools' own distutils, the default since 60.0.0, has no 2to3 helpers; before,
    # the standard library's did (docutils 0.10 imports them)
    (
        "SP003-distutils-2to3",
        {"setup.py": _setup("from distutils.command.build_py import build_py_2to3")},
        ("59.8.0", "60.0.0", "84.2.1"),
        False,
    ),
    (
        "SP003-distutils-util-2to3",
        {"setup.py": _setup("from distutils.util import run_2to3")},
        ("59.8.0", "60.0.0"),
        False,
    ),
    (
        "SP001-msvccompiler",
        {"setup.py": _setup("import distutils.msvccompiler")},
        ("64.0.3", "65.0.0", "65.0.2", "73.0.1", "74.0.0"),
        False,
    ),
    (
        "SP001-sandbox",
        {"setup.py": _setup("from setuptools.sandbox import run_setup")},
        ("79.0.1", "80.0.0"),
        False,
    ),
    (
        "SP001-distutils-upload",
        {"setup.py": _setup("from distutils.command.upload import upload")},
        ("74.1.3", "75.0.0"),
        False,
    ),
    (
        "SP001-bdist-wininst",
        {"setup.py": _setup("from distutils.command.bdist_wininst import bdist_wininst")},
        ("64.0.3", "65.0.0"),
        False,
    ),
    (
        "SP001-upload-docs",
        {"setup.py": _setup("from setuptools.command.upload_docs import upload_docs")},
        ("74.1.3", "75.0.0"),
        False,
    ),
    (
        "SP001-package-index",
        {"setup.py": _setup("from setuptools.package_index import PackageIndex")},
        ("80.2.0", "80.3.0", "84.2.1"),
        False,
    ),
    (
        "SP003-dep-util-newer-group",
        {"setup.py": _setup("from setuptools.dep_util import newer_group")},
        ("68.2.2", "69.0.0", "69.0.1", "69.5.1"),
        False,
    ),
    (
        "SP001-dep-util",
        {"setup.py": _setup("from setuptools.dep_util import newer_group")},
        ("69.5.1", "70.0.0"),
        False,
    ),
    (
        "SP001-own-package",
        {
            "setup.py": "from setuptools import setup\nfrom mypkg import __version__\n"
            'setup(name="probe", version=__version__, packages=["mypkg"])\n',
            "mypkg/__init__.py": "import pkg_resources\n__version__ = '1.0'\n",
        },
        ("81.0.0", "82.0.0"),
        False,
    ),
    (
        "SP004-set",
        {"setup.py": _setup(kw=', install_requires={"six"}')},
        ("54.1.2", "84.2.1"),
        False,
    ),
    (
        "SP004-dict",
        {"setup.py": _setup(kw=', install_requires={"six": None}')},
        ("75.2.0", "75.3.0"),
        False,
    ),
    (
        "SP005-version",
        {"setup.py": _setup().replace('version="1.0"', 'version="1.0.0-SNAPSHOT"')},
        ("65.7.0", "66.0.0", "84.2.1"),
        False,
    ),
    (
        "SP006-requirement-file",
        {
            "setup.py": _setup(
                "import os\nhere = os.path.dirname(__file__)\n"
                "reqs = open(os.path.join(here, 'requirements.txt')).read().splitlines()",
                kw=", install_requires=reqs",
            ),
            "requirements.txt": "# pinned\nsix\npytz>=2012f\n",
        },
        ("54.1.2", "66.1.1", "67.0.0", "84.2.1"),
        False,
    ),
    (
        "SP006-python-requires",
        {"setup.py": _setup(kw=', python_requires=">=3.6.*"')},
        ("66.1.1", "67.0.0", "84.2.1"),
        False,
    ),
    (
        "SP007-description",
        {"setup.py": _setup(kw=', description="one\\ntwo"')},
        ("51.2.0", "51.3.0", "51.3.3", "59.0.1", "59.3.0", "59.4.0"),
        False,
    ),
    (
        "SP008-dry-run",
        {"setup.py": _setup('from distutils.dir_util import mkpath\nmkpath("b", dry_run=0)')},
        ("80.9.0", "81.0.0", "84.2.1"),
        False,
    ),
    (
        "SP009-wheel",
        {"setup.py": _setup("from wheel.bdist_wheel import bdist_wheel")},
        ("70.0.0", "70.1.0", "70.3.0", "71.0.0"),
        False,
    ),
    (
        "SC008-license-file",
        {
            "setup.py": "from setuptools import setup\nsetup()\n",
            "setup.cfg": "[metadata]\nname = probe\nversion = 1.0\nlicense = file: LICENSE\n",
            "LICENSE": "MIT\n",
        },
        ("54.1.2", "84.2.1"),
        False,
    ),
    (
        "SC009-universal",
        {**_cfg(""), "setup.cfg": _cfg("")["setup.cfg"] + "\n[bdist_wheel]\nuniversal = 1\n"},
        ("75.0.0", "75.1.0", "84.2.1"),
        True,
    ),
    (
        "SC009-pyproject-tool-distutils",
        {
            "setup.py": "from setuptools import setup\nsetup()\n",
            "pyproject.toml": '[project]\nname = "probe"\nversion = "1.0"\n\n'
            "[tool.setuptools]\npy-modules = []\n\n"
            "[tool.distutils.bdist_wheel]\nuniversal = true\n",
        },
        ("75.0.0", "75.1.0", "84.2.1"),
        True,
    ),
    (
        "SC009-pyproject-project-table-only",
        {
            "setup.py": "from setuptools import setup\nsetup(py_modules=[])\n",
            "pyproject.toml": '[project]\nname = "probe"\nversion = "1.0"\n\n'
            "[tool.distutils.bdist_wheel]\nuniversal = true\n",
        },
        ("75.0.0", "75.1.0", "84.2.1"),
        True,
    ),
    (
        "SC009-pyproject-tool-distutils-not-read",
        {
            "setup.py": _setup(),
            "pyproject.toml": "[tool.distutils.bdist_wheel]\nuniversal = true\n",
        },
        ("75.1.0", "84.2.1"),
        True,
    ),
    (
        # nodeenv 1.11.0 (the enforce-mode ecosystem check's unexplained regression)
        "SC009-setup-options",
        {"setup.py": _setup(kw=", options={'bdist_wheel': {'universal': True}}")},
        ("75.0.0", "75.1.0", "84.2.1"),
        True,
    ),
    (
        "SC009-wheel-section",
        {**_cfg(""), "setup.cfg": _cfg("")["setup.cfg"] + "\n[wheel]\nuniversal = 1\n"},
        ("75.0.0", "75.1.0", "84.2.1"),
        True,
    ),
    (
        "SC010-one-line-marker",
        _cfg("install_requires = six; python_version<'3.8'\n"),
        ("54.1.2", "84.2.1"),
        False,
    ),
    (
        "SC010-requirement",
        _cfg("install_requires =\n    pytz>=2012f\n"),
        ("54.1.2", "84.2.1"),
        False,
    ),
    (
        "SC010-file-directive",
        {**_cfg("install_requires = file: requirements.txt\n"), "requirements.txt": "six\n"},
        ("62.5.0", "62.6.0"),
        False,
    ),
    (
        # setuptools returns setup_requires to the frontend unparsed in every release; pip
        # and uv then refuse 'file: requirements.txt' as a requirement
        "SC010-setup-requires-file-directive",
        {**_cfg("setup_requires = file: requirements.txt\n"), "requirements.txt": "six\n"},
        ("62.5.0", "62.6.0", "84.2.1"),
        False,
    ),
    (
        "SC010-python-requires",
        _cfg("python_requires = >=3.6.*\n"),
        ("66.1.1", "67.0.0"),
        False,
    ),
    (
        "SC011-version",
        {
            "setup.py": "from setuptools import setup\nsetup()\n",
            "setup.cfg": "[metadata]\nname = probe\nversion = 1.0-SNAPSHOT\n",
        },
        ("65.7.0", "66.0.0"),
        False,
    ),
    (
        "SC012-description",
        {
            "setup.py": "from setuptools import setup\nsetup()\n",
            "setup.cfg": "[metadata]\nname = probe\nversion = 1.0\ndescription = one\n  two\n",
        },
        ("51.2.0", "51.3.0", "59.3.0", "59.4.0"),
        False,
    ),
]


@pytest.mark.parametrize(("name", "files", "versions", "enforce"), CASES, ids=[c[0] for c in CASES])
def test_rule_matches_setuptools(
    tmp_path: Path, name: str, files: dict[str, str], versions: tuple[str, ...], enforce: bool
) -> None:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    code = name.partition("-")[0]
    require_runnable(versions)

    def one(version: str) -> str | None:
        real = run_hooks(version, tmp_path, enforce=enforce)
        result = check_target(
            str(tmp_path), Options(setuptools=version, enforce_deprecations=enforce)
        )
        assert result.verdict is not None
        if real.outcome == "fails" and code not in result.verdict.because:
            return f"{version}: fails, but not because of {code}: {result.verdict.because}"
        # Only the case's own rule may explain the failure.
        return reason_mismatch(
            real,
            result.verdict.outcome,
            reasons_for([code]),
            because=result.verdict.because,
            label=version,
        )

    with ThreadPoolExecutor(2) as pool:
        mismatches = [m for m in pool.map(one, versions) if m]
    assert not mismatches, "\n".join(mismatches)


#: What 58.5.0-58.5.2 raise for a distutils build_py with include_package_data.
SP010 = REASONS["SP010"]


def test_distutils_build_py_window(tmp_path: Path) -> None:
    """SP010 (ST20): only 58.5.0-58.5.2 fail; the window is checked from both sides."""
    (tmp_path / "setup.py").write_text(
        "from distutils.command.build_py import build_py\nfrom setuptools import setup\n"
        'setup(name="probe", version="1.0", packages=["pkg"], include_package_data=True,\n'
        '      cmdclass={"build_py": build_py})\n'
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    versions = ("58.4.0", "58.5.0", "58.5.2", "58.5.3")
    require_runnable(versions)
    mismatches = disagreements(tmp_path, versions, reasons=SP010)
    assert not mismatches, "\n".join(mismatches)
