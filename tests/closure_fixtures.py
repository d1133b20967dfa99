"""Fixtures for the closure, verify and wheelhouse tests: wheels that require other
distributions, so that a requirements file can list only the top of a tree."""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path

from tests.audit_fixtures import cached_wheel, pkg_resources_sdist, setuptools_wheels


def wheel(
    directory: Path,
    name: str,
    version: str,
    requires: Sequence[str] = (),
    *,
    module: str = "",
    source: str = "Z = 3\n",
) -> Path:
    """A minimal valid pure wheel whose METADATA lists ``requires`` as Requires-Dist, with
    one module (``module``, default the name) holding ``source``."""
    dist = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    files = {
        f"{module or name.replace('-', '_')}.py": source.encode(),
        f"{dist}/METADATA": metadata.encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = (
        "".join(
            f"{path},sha256={hashlib.sha256(data).hexdigest()},{len(data)}\n"
            for path, data in files.items()
        )
        + f"{dist}/RECORD,,\n"
    )
    path = directory / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for member, data in files.items():
            zf.writestr(member, data)
        zf.writestr(f"{dist}/RECORD", record)
    return path


def tree_index(directory: Path) -> Path:
    """A local index directory (for ``--no-index --find-links``): ``top`` 1.0 (a wheel)
    requires ``bomb``, an sdist whose setup.py imports pkg_resources (fails with the
    newest setuptools); with the setuptools wheels a build environment needs."""
    directory.mkdir(parents=True, exist_ok=True)
    wheel(directory, "top", "1.0", ["bomb>=1.0"])
    pkg_resources_sdist(directory)
    for file in setuptools_wheels():
        shutil.copy(file, directory)
    return directory


def wheel_wheel() -> Path:
    """The ``wheel`` wheel that pip before 24 installs into a legacy build environment,
    downloaded from PyPI once into the test cache."""
    return cached_wheel("wheel==0.45.1", "wheel-0.45.1-*.whl")


def local_project(directory: Path) -> Path:
    """A local project ``mine`` 0.1 (pyproject.toml, setuptools>=61) that depends on
    ``top`` of :func:`tree_index`: its tree, for `-e .` and `sapper audit .`."""
    directory.mkdir(parents=True)
    (directory / "pyproject.toml").write_text(
        "[build-system]\nrequires = ['setuptools>=61']\nbuild-backend = 'setuptools.build_meta'\n"
        "[project]\nname = 'mine'\nversion = '0.1'\ndependencies = ['top']\n"
    )
    (directory / "mine.py").write_text("X = 1\n")
    return directory
