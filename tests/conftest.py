"""Every test sees the same validator cache, whatever the machine's own cache holds.

``sapper check`` judges pyproject.toml with setuptools' own validators when they are in the
cache (``sapper cache warm``), and with PP001/PP007's own checks otherwise. So that no result
depends on what this machine happened to download, the session starts with an empty
``$SAPPER_VALIDATOR_CACHE`` (inherited by the CLI subprocesses). The tests of the validator
path ask for a warmed one with the ``real_validators`` fixture: it downloads (once, into
``$SAPPER_ORACLE_CACHE/validators``, default ``~/.cache/sapper-tests/validators``) the wheel
of one release per distinct validator with ``sapper cache warm``'s code, and points
``$SAPPER_VALIDATOR_CACHE`` there for the test.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_configure() -> None:
    if "SAPPER_VALIDATOR_CACHE" not in os.environ:
        os.environ["SAPPER_VALIDATOR_CACHE"] = tempfile.mkdtemp(prefix="sapper-no-validators-")


@pytest.fixture(scope="session")
def warmed_validators() -> Path:
    from sapper.facts.validator import warm
    from sapper.pypi import DEFAULT_INDEX_URL, Index
    from sapper.versions import catalogue

    root = Path(os.environ.get("SAPPER_ORACLE_CACHE", Path.home() / ".cache" / "sapper-tests"))
    where = root / "validators"
    warm(Index(DEFAULT_INDEX_URL, cache_dir=where), sorted(catalogue().between("61.0.0")))
    return where


@pytest.fixture
def real_validators(warmed_validators: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SAPPER_VALIDATOR_CACHE", str(warmed_validators))
    yield warmed_validators
