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


def _signal_mask(pid: int, field: str) -> int:
    """A signal mask of process ``pid`` (``SigCgt``: handled, ``SigIgn``: ignored)."""
    import re

    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    match = re.search(rf"^{field}:\s*([0-9a-f]+)$", status, re.M)
    return int(match.group(1), 16) if match else 0


def catches_ctrl_c(pid: int) -> bool:
    """Whether process ``pid`` has a handler for SIGINT (Python's KeyboardInterrupt)."""
    import signal

    return bool(_signal_mask(pid, "SigCgt") & (1 << (signal.SIGINT - 1)))


def ignores_ctrl_c(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT (a worker after its initializer)."""
    import signal

    return bool(_signal_mask(pid, "SigIgn") & (1 << (signal.SIGINT - 1)))


def descendants(root: int) -> list[int]:
    """Every process below ``root``, read from /proc."""
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            kids.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def running(pid: int) -> bool:
    """Alive and not a zombie (a zombie waits to be reaped, it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
