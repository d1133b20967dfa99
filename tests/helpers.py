from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sapper.check import Options, check_files
from sapper.model import TargetResult
from sapper.sources import ProjectFiles

DATA = Path(__file__).parent / "data"
#: A fixed "today" so that overdue/pending statuses in golden files never drift.
TODAY = dt.date(2026, 12, 3)


def project(files: dict[str, str | bytes]) -> ProjectFiles:
    raw = {k: v.encode() if isinstance(v, str) else v for k, v in files.items()}
    return ProjectFiles(label="test", root="", files=raw, names=tuple(sorted(raw)))


def check(files: dict[str, str | bytes], **options: object) -> TargetResult:
    opts = Options(today=TODAY, **options)  # type: ignore[arg-type]
    return check_files(project(files), target="test", kind="directory", options=opts)


@pytest.fixture
def data_dir() -> Path:
    return DATA
