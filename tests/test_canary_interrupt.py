"""Ctrl-C in ``sapper canary``: it stops at once, without a traceback from any worker, says
how many sdists are stored and that a rerun resumes, exits 130, and leaves no build behind.

The signal is sent after a real sign of progress (the progress line of the first stored
target), while the other worker is held by a build that sleeps until its timeout.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from canary_support import BUILD_CACHE, require_sandbox, sdist
from helpers import catches_ctrl_c, ctrl_c_command, descendants, running

from sapper.canary import CanaryStore

#: A guard against a hang, not a measure: far above what any of these steps takes.
PATIENCE = 300.0


def test_ctrl_c_stops_cleanly_and_says_what_is_stored(tmp_path: Path) -> None:
    require_sandbox()
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc")
    corpus = tmp_path / "corpus"
    sdist("fail-both", corpus)
    sdist("escape-sleep", corpus)  # its setup.py sleeps until the timeout
    db = tmp_path / "c.duckdb"
    work = tmp_path / "work"
    work.mkdir()
    cmd = [
        *(sys.executable, "-m", "sapper", "canary", str(corpus)),
        *("--baseline", "77.0.3", "--candidate", "78.0.1", "-j", "2", "--timeout", "3600"),
        *("--db", str(db), "--cache-dir", str(BUILD_CACHE), "--progress", "always"),
        *("--work-dir", str(work)),
    ]
    proc = subprocess.Popen(
        ctrl_c_command(cmd),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr is not None
    seen = b""
    tree: set[int] = set()
    try:
        deadline = time.monotonic() + PATIENCE
        while b"built 1/2" not in seen and time.monotonic() < deadline:
            tree |= set(descendants(proc.pid))
            ready, _, _ = select.select([proc.stderr], [], [], 0.2)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        assert b"built 1/2" in seen, seen[-2000:]
        assert catches_ctrl_c(proc.pid), "the canary's process does not handle SIGINT"
        tree |= set(descendants(proc.pid))  # the workers, and the sleeping build's sandbox
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
        try:
            _, rest = proc.communicate(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            pytest.fail("the canary did not stop on Ctrl-C")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = (seen + rest).decode(errors="replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    assert "KeyboardInterrupt" not in text
    match = re.search(
        r"interrupted: (\d+) sdists stored in (\S+) \((\d+) written by this run\)", text
    )
    assert match, text
    assert "run the same command again to resume, what is stored is skipped" in text
    assert (match.group(1), match.group(2), match.group(3)) == ("1", str(db), "1")
    with CanaryStore(db, read_only=True) as store:
        (run,) = store.runs()
        assert [r.target for r in store.rows(run["run_id"])] == [
            str(corpus / "fail-both-1.0.tar.gz")
        ]
    # nothing left running: no worker, no sandbox of the sleeping build
    deadline = time.monotonic() + 30
    while [p for p in tree if running(p)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [p for p in tree if running(p)] == []
    assert len(tree) >= 3  # two workers and the build's sandbox at least were seen
    # the interrupted build's temporary directory is gone too
    assert sorted(p.name for p in work.iterdir()) == []
