"""Shared pieces of the build and canary tests: the cached builder and fixture sdists.

The wheelhouse and build environments live in ``$SAPPER_ORACLE_CACHE/canary`` (default
``~/.cache/sapper-tests/canary``), filled from PyPI on first use and then reused offline by
every test session (creation is locked, so xdist workers share it).
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from sapper.build import Builder, Limits, check_sandbox

DATA = Path(__file__).parent / "data" / "canary"
CACHE = Path(os.environ.get("SAPPER_ORACLE_CACHE", Path.home() / ".cache" / "sapper-tests"))
BUILD_CACHE = CACHE / "canary"


def require_sandbox() -> None:
    """Skip without bubblewrap, unless ``SAPPER_REQUIRE_SANDBOX=1`` (CI): then fail."""
    from sapper import SapperError

    try:
        check_sandbox()
    except SapperError as exc:
        if os.environ.get("SAPPER_REQUIRE_SANDBOX") == "1":
            raise
        pytest.skip(f"no sandbox: {exc}")


def builder(**limits: float) -> Builder:
    return Builder(cache_dir=BUILD_CACHE, limits=Limits(**limits))  # type: ignore[arg-type]


def sdist(name: str, dest: Path) -> Path:
    """``tests/data/canary/NAME`` packed as ``dest/NAME-1.0.tar.gz``."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = dest / f"{name}-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DATA / name, arcname=f"{name}-1.0")
    return archive
