"""SC013: `version = attr:` of a submodule, whose package imports what the build lacks:
setuptools before 61.0.0 imports the package (issue 21: email-validator 2.4.0)."""

from __future__ import annotations

import pytest
from helpers import check

CFG = "[metadata]\nname = pkg\nversion = attr: {attr}\n\n[options]\npackages = pkg\n{options}"
SETUP = "from setuptools import setup\nsetup()\n"
VERSION = '__version__ = "1.0"\n'


def _tree(attr: str, init: str, options: str = "", **more: str) -> dict[str, str]:
    root = "src/" if "=src" in options else ""
    return {
        "setup.py": SETUP,
        "setup.cfg": CFG.format(attr=attr, options=options),
        f"{root}pkg/__init__.py": init,
        f"{root}pkg/version.py": VERSION,
        **{f"{root}{path.replace('__', '/')}.py": text for path, text in more.items()},
    }


@pytest.mark.parametrize(
    ("files", "where"),
    [
        pytest.param(_tree("pkg.version.__version__", "import idna\n"), "pkg/__init__.py:1",
                     id="package-imports-a-runtime-dependency"),
        # through a relative import of the package (email-validator's shape)
        pytest.param(_tree("pkg.version.__version__", "from .syntax import x\n",
                           pkg__syntax="import sys\nimport idna\nx = 1\n"),
                     "pkg/syntax.py:2", id="two-modules-away"),
        pytest.param(_tree("pkg.version.__version__", "import idna\n",
                           options="package_dir =\n    =src\n"),
                     "src/pkg/__init__.py:1", id="src-layout"),
    ],
)  # fmt: skip
def test_attr_of_a_submodule_whose_package_imports_a_missing_module(
    files: dict[str, str], where: str
) -> None:
    found = [f for f in check(files, setuptools="60.10.0").findings if f.code == "SC013"]
    assert [(f.path, f.line, f.fails) for f in found] == [("setup.cfg", 3, ("<61.0.0",))]
    assert f"{where} imports `idna`" in found[0].message
    assert check(files, setuptools="60.10.0").verdict.outcome == "fails"  # type: ignore[union-attr]
    assert check(files, setuptools="61.0.0").verdict.outcome == "builds"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "files",
    [
        # the attribute of the package itself: no parent package to import
        pytest.param(_tree("pkg.__version__", "import idna\n__version__ = '1'\n"), id="top"),
        # the package imports only the standard library and itself
        pytest.param(_tree("pkg.version.__version__", "import os\nfrom . import version\n"),
                     id="stdlib-only"),
        # the submodule is imported before the missing module: setuptools' fallback import
        # finds it in sys.modules (msal 1.39.0, jupyter-client 7.0.2 build with 57.5.0)
        pytest.param(_tree("pkg.version.__version__", "from .version import __version__\n"
                           "import idna\n"), id="submodule-imported-first"),
        pytest.param(_tree("pkg.version.__version__", "from . import version\nimport idna\n"),
                     id="submodule-imported-first-from-dot"),
        # a build requirement provides it
        pytest.param({**_tree("pkg.version.__version__", "import idna\n"),
                      "pyproject.toml": '[build-system]\nrequires = ["setuptools", "idna"]\n'},
                     id="build-requirement"),
        # another build requirement may bring it as a dependency: jupyterlab-server 2.7.2
        # requires jupyter_server, which brings traitlets, which its package imports (its
        # build with 57.5.0 was ok)
        pytest.param({**_tree("pkg.version.__version__", "import idna\n"),
                      "pyproject.toml": '[build-system]\nrequires = ["setuptools", "requests"]\n'},
                     id="a-dependency-of-a-build-requirement"),
        # guarded, or for type checkers only
        pytest.param(_tree("pkg.version.__version__",
                           "try:\n    import idna\nexcept ImportError:\n    idna = None\n"),
                     id="guarded"),
        pytest.param(_tree("pkg.version.__version__",
                           "from typing import TYPE_CHECKING\n"
                           "if TYPE_CHECKING:\n    import idna\n"),
                     id="type-checking"),
    ],
)  # fmt: skip
def test_attr_that_imports_nothing_missing(files: dict[str, str]) -> None:
    assert not [f for f in check(files, setuptools="60.10.0").findings if f.code == "SC013"]
