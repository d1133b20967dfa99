"""SC013 against real setuptools: `version = attr:` of a submodule whose package imports a
module the build lacks fails before 61.0.0 (the package is imported) and builds from 61.0.0
on; the real email-validator 2.4.0 sdist, and minimal trees on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .agree import disagreements
from .harness import require_runnable

pytestmark = [pytest.mark.oracle, pytest.mark.network]

VERSIONS = ("60.10.0", "61.0.0")
CFG = (
    "[metadata]\nname = pkg\nversion = attr: pkg.version.__version__\n\n[options]\npackages = pkg\n"
)
TREES = {
    "package-imports-missing": "from .helpers import x\n",
    # the submodule is imported first: the fallback import finds it in sys.modules
    "submodule-imported-first": "from .version import __version__\nfrom .helpers import x\n",
    "type-checking-only": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
    "    import absent_runtime_dependency\n",
}


def _agree(tree: Path) -> list[str]:
    return disagreements(tree, VERSIONS)


@pytest.mark.parametrize("name", list(TREES))
def test_attr_of_a_submodule_matches_setuptools(tmp_path: Path, name: str) -> None:
    require_runnable(VERSIONS)
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    (tmp_path / "setup.cfg").write_text(CFG)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(TREES[name])
    (tmp_path / "pkg" / "helpers.py").write_text("import absent_runtime_dependency\nx = 1\n")
    (tmp_path / "pkg" / "version.py").write_text('__version__ = "1.0"\n')
    mismatches = _agree(tmp_path)
    assert not mismatches, "\n".join(mismatches)


def test_email_validator_sdist_matches_setuptools(tmp_path: Path) -> None:
    import io
    import tarfile

    from sapper.pypi import Index

    require_runnable(VERSIONS)
    download = Index(cache_dir=None).fetch("email-validator==2.4.0")
    with tarfile.open(fileobj=io.BytesIO(download.data)) as archive:
        archive.extractall(tmp_path, filter="data")
    tree = tmp_path / "email_validator-2.4.0"
    mismatches = _agree(tree)
    assert not mismatches, "\n".join(mismatches)
    result = check_target(str(tree), Options(setuptools="60.10.0"))
    assert result.verdict is not None
    assert result.verdict.because == ("SC013",)
