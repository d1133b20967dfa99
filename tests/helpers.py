from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sapper.check import Options, check_files
from sapper.inputs.sources import ProjectFiles
from sapper.model import TargetResult

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


def ctrl_c_command(argv: list[str]) -> list[str]:
    """``argv`` run with Ctrl-C at its default disposition, as in a terminal: a process
    inherits an ignored SIGINT (from a test runner's worker, a background job) and Python
    then installs no handler, so a test of Ctrl-C would wait for nothing."""
    import sys

    reset = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )
    return [sys.executable, "-c", reset, *argv]


def catches_ctrl_c(pid: int) -> bool:
    """Whether process ``pid`` has a handler for SIGINT (Python's KeyboardInterrupt)."""
    import re
    import signal

    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    match = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.M)
    return bool(match) and bool(int(match.group(1), 16) & (1 << (signal.SIGINT - 1)))
