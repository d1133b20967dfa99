"""Fixture sdists and cached setuptools wheels for the audit and wheelhouse tests."""

from __future__ import annotations

import fcntl
import gzip
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

CACHE = Path(os.environ.get("SAPPER_ORACLE_CACHE", Path.home() / ".cache" / "sapper-tests"))
#: setuptools releases the offline tests install from a --find-links directory: the newest
#: (84.2.1, no pkg_resources) and the last one with pkg_resources (81.0.0).
SETUPTOOLS = ("84.2.1", "81.0.0")

PKG_RESOURCES_SETUP = (
    "import pkg_resources\n"
    "from setuptools import setup\n"
    "setup(name={name!r}, version={version!r}, py_modules=[{module!r}])\n"
)


def make_sdist(directory: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """Write a deterministic ``name-version.tar.gz`` with PKG-INFO and ``files``."""
    members = {"PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", **files}
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w") as tar,
    ):
        for member, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{name}-{version}/{member}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path = directory / f"{name}-{version}.tar.gz"
    path.write_bytes(raw.getvalue())
    return path


def pkg_resources_sdist(directory: Path, name: str = "bomb", version: str = "1.0") -> Path:
    """A legacy sdist whose setup.py imports pkg_resources: fails from setuptools 82."""
    module = name.replace("-", "_")
    setup = PKG_RESOURCES_SETUP.format(name=name, version=version, module=module)
    return make_sdist(directory, name, version, {"setup.py": setup, f"{module}.py": "X = 1\n"})


def needs_new_sdist(directory: Path, name: str = "needsnew", version: str = "1.0") -> Path:
    """A pyproject sdist that requires setuptools>=82: builds only with new setuptools."""
    module = name.replace("-", "_")
    pyproject = (
        "[build-system]\nrequires = ['setuptools>=82']\n"
        "build-backend = 'setuptools.build_meta'\n\n"
        f"[project]\nname = {name!r}\nversion = {version!r}\n"
    )
    return make_sdist(
        directory, name, version, {"pyproject.toml": pyproject, f"{module}.py": "Y = 2\n"}
    )


def cached_wheel(requirement: str, pattern: str) -> Path:
    """The wheel of ``requirement`` (``setuptools==72.0.0``), downloaded from PyPI once into
    the test cache; ``pattern`` globs its file name there."""
    where = CACHE / "audit-wheels"
    where.mkdir(parents=True, exist_ok=True)
    with (where / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(where.glob(pattern))
        if not found:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "-q",
                    "--no-deps",
                    "--only-binary",
                    ":all:",
                    requirement,
                    "-d",
                    str(where),
                ],
                check=True,
                env=clean_env(),
            )
            found = sorted(where.glob(pattern))
        return found[0]


def setuptools_wheels() -> list[Path]:
    """The wheels of :data:`SETUPTOOLS`, downloaded from PyPI once into the test cache."""
    return [
        cached_wheel(f"setuptools=={v}", f"setuptools-{v}-py3-none-any.whl") for v in SETUPTOOLS
    ]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for real pip/uv runs: no pip configuration, no PIP_*/UV_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env
