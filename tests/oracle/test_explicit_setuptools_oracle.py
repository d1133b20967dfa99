"""``--setuptools X`` outside ``build-system.requires`` against the real tools: real
setuptools X, run without isolation (the hooks of exactly that release, as a distribution's
packager builds with the system's setuptools), fails as sapper's verdict says; real pip,
with build isolation, installs what the requirements allow and builds, as the verdict's
"an isolated build never gets X" says."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .agree import comparisons
from .harness import pip_wheel, require_runnable

pytestmark = [pytest.mark.oracle, pytest.mark.network]

PKG_RESOURCES = {
    "setup.py": "import pkg_resources\nfrom setuptools import setup\n"
    'setup(name="probe", version="1.0", py_modules=[])\n',
    "pyproject.toml": '[build-system]\nrequires = ["setuptools<72"]\n'
    'build-backend = "setuptools.build_meta"\n',
}
LICENSE = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=77.0.1"]\n'
    'build-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "probe"\nversion = "1.0"\nlicense = "MIT"\n',
    "probe.py": "",
}

CASES = [
    # (name, files, version outside the requirements, version inside them)
    ("pkg-resources-above-the-pin", PKG_RESOURCES, "82.0.0", "71.1.0"),
    ("license-string-below-the-floor", LICENSE, "75.0.0", "84.2.1"),
]


@pytest.mark.parametrize(("name", "files", "outside", "inside"), CASES, ids=[c[0] for c in CASES])
def test_a_build_without_isolation_fails_as_the_verdict_says(
    tmp_path: Path, name: str, files: dict[str, str], outside: str, inside: str
) -> None:
    require_runnable((outside, inside))
    for path, text in files.items():
        (tmp_path / path).write_text(text)
    seen = comparisons(tmp_path, (outside, inside), backend="build_meta")
    mismatches = [c.problem for c in seen if c.problem]
    assert not mismatches, "\n".join(mismatches)
    for c in seen:
        assert c.result.verdict is not None
        assert (c.result.verdict.excluded_by is not None) == (c.version == outside)
    outside_verdict = check_target(str(tmp_path), Options(setuptools=outside)).verdict
    assert outside_verdict is not None
    assert outside_verdict.outcome == "fails"
    assert f"an isolated build never gets {outside}" in outside_verdict.reason


def test_an_isolated_build_never_gets_the_version(tmp_path: Path) -> None:
    """pip's isolated build of the pinned project installs setuptools<72 and builds; the
    default verdict (no --setuptools) agrees."""
    project = tmp_path / "probe"
    project.mkdir()
    for path, text in PKG_RESOURCES.items():
        (project / path).write_text(text)
    proc = pip_wheel(project, tmp_path / "dist")
    assert proc.returncode == 0, proc.stderr[-1500:]
    result = check_target(str(project), Options())
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.excluded_by) == ("builds", None)
    assert result.verdict.setuptools.startswith("71.")


#: What pip's in-process hook runner does with ``backend-path``: put its entries first on
#: sys.path, import the backend, call the metadata hooks; then say which setuptools ran.
_OWN_TREE_HOOKS = """
import sys, tempfile
sys.path[:0] = [sys.argv[1]]
from setuptools import build_meta
build_meta.get_requires_for_build_wheel()
build_meta.prepare_metadata_for_build_wheel(tempfile.mkdtemp())
import setuptools
print(setuptools.__version__)
"""


@pytest.mark.parametrize("installed", ["71.1.0", "72.0.0"])
def test_setuptools_own_sdist_builds_with_itself(tmp_path: Path, installed: str) -> None:
    """setuptools 84.2.1's sdist (``backend-path = ["."]``, ``project.license = "MIT"``)
    in an environment holding setuptools 71.1.0 or 72.0.0, which reject that license
    string: the hooks import the tree's own setuptools and build, as sapper says."""
    import io
    import subprocess
    import tarfile

    from sapper.pypi import Index

    from .harness import setuptools_python

    download = Index(cache_dir=None).fetch("setuptools==84.2.1")
    with tarfile.open(fileobj=io.BytesIO(download.data)) as archive:
        archive.extractall(tmp_path, filter="data")
    tree = tmp_path / "setuptools-84.2.1"
    python = setuptools_python(installed)
    real = subprocess.run(
        [str(python), "-c", _OWN_TREE_HOOKS, str(tree)],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert real.returncode == 0, real.stderr[-2000:]
    assert real.stdout.split()[-1] == "84.2.1"  # the tree's, not the installed one
    result = check_target(str(tree), Options(setuptools=installed))
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.setuptools) == ("builds", "84.2.1")
