"""A scan's life: progress while resolving, Ctrl-C, and ``kill -9`` leaving no process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_index import FakeIndex, make_sdist, serve, sha256
from helpers import (
    TODAY,
    catches_ctrl_c,
    ctrl_c_command,
    descendants,
    ignores_ctrl_c,
    running,
)

from sapper.check import Options
from sapper.scan import Progress, ScanOptions, scan
from sapper.scan._threads import DaemonPool
from sapper.scan.store import open_results

CHECK = Options(today=TODAY)
SLOW = "/files/slow-1.0.tar.gz"
#: How long the download of SLOW hangs, and the guard that stops a hung test: no assertion
#: is on a duration; the process tests wait for signs (a request, a signal mask, an exit).
HANG = 600
GUARD = 120


def _add(index: FakeIndex, name: str, version: str = "1.0") -> None:
    path, data = index.add_file(f"{name}-{version}.tar.gz", make_sdist(name, version))
    index.json_projects.setdefault(name, []).append(
        {"filename": f"{name}-{version}.tar.gz", "url": path, "hashes": {"sha256": sha256(data)}}
    )


def test_progress_moves_while_resolving(tmp_path: Path) -> None:
    index = FakeIndex()
    for name in ("p1", "p2", "p3", "p4"):
        _add(index, name)
    seen: list[Progress] = []
    with serve(index) as url:
        options = ScanOptions(
            db=tmp_path / "s.duckdb",
            jobs=1,
            connections=1,
            index_url=url,
            cache_dir=tmp_path / "cache",
            check=CHECK,
        )
        # one progress report per resolved project (reports are at most every 0.1 s)
        index.delays = {f"/simple/{n}/": 0.15 for n in ("p1", "p2", "p3", "p4", "nosuch")}
        scan(["p1", "p2", "p3", "p4", "nosuch"], options=options, on_progress=seen.append)
    resolving = [(p.done, p.total) for p in seen if p.phase == "resolve"]
    assert resolving[0] == (0, 5)
    assert resolving[-1] == (5, 5)
    assert len(set(resolving)) >= 4  # it moved, one project at a time
    scanning = [p for p in seen if p.phase == "scan"]
    # the failed resolution (nosuch) was written while resolving: not part of the rate
    assert {p.rate_base for p in scanning} == {1}
    assert (scanning[-1].done, scanning[-1].total) == (5, 5)
    # the scan phase's clock starts after resolving (which took over 0.75 s)
    resolve_seconds = [p.elapsed for p in seen if p.phase == "resolve"][-1]
    assert resolve_seconds >= 0.75
    assert scanning[0].elapsed < resolve_seconds


def test_daemon_pool() -> None:
    pool = DaemonPool(2, name="t")
    gate = threading.Event()
    futures = [pool.submit(gate.wait, 10) for _ in range(4)]
    time.sleep(0.1)
    assert sum(f.running() for f in futures) == 2
    pool.shutdown(wait=False, cancel_futures=True)
    assert [f.cancelled() for f in futures[2:]] == [True, True]
    gate.set()
    assert [f.result() for f in futures[:2]] == [True, True]
    with pytest.raises(RuntimeError):
        pool.submit(print)
    failing = DaemonPool(1)
    future = failing.submit(int, "x")
    with pytest.raises(ValueError, match="invalid literal"):
        future.result()
    failing.shutdown(wait=True)
    assert all(t.daemon for t in pool._threads)


# --------------------------------------------------------------------------- processes


@pytest.fixture
def hanging_scan(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], list[int]]]:
    """A ``sapper scan -j 2`` whose workers are up, stuck on a download that hangs."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc")
    index = FakeIndex()
    local = tmp_path / "local-1.0.tar.gz"
    local.write_bytes(make_sdist("local", "1.0"))
    _add(index, "slow")
    index.delays[SLOW] = HANG
    with serve(index) as url:
        command = [
            *(sys.executable, "-m", "sapper", "scan", str(local), "slow", "-j", "2"),
            *("--db", str(tmp_path / "s.duckdb"), "--cache-dir", str(tmp_path / "cache")),
            *("--index-url", url, "--progress", "never"),
        ]
        env = {**os.environ, "PYTHONFAULTHANDLER": "1"}  # SIGABRT dumps every thread's stack
        proc = subprocess.Popen(
            ctrl_c_command(command), stderr=subprocess.PIPE, start_new_session=True, env=env
        )
        try:
            deadline = time.monotonic() + GUARD
            tree: list[int] = []
            # the workers are up (forked from the scan; or a worker, the fork server and
            # the resource tracker where the scan cannot fork) and have left Ctrl-C to the
            # scan, and the download of slow hangs: real signs, however loaded the machine
            while time.monotonic() < deadline:
                tree = descendants(proc.pid)
                if (
                    len(tree) >= 2
                    and catches_ctrl_c(proc.pid)
                    and all(ignores_ctrl_c(pid) for pid in tree)
                    and SLOW in index.paths_requested()
                ):
                    break
                time.sleep(0.1)
            else:
                pytest.fail(f"the scan did not reach the hanging download: {tree}")
            yield proc, tree
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for pid in descendants(proc.pid):
                os.kill(pid, signal.SIGKILL)


def test_kill_9_leaves_no_process(
    hanging_scan: tuple[subprocess.Popen[bytes], list[int]],
) -> None:
    proc, tree = hanging_scan
    names = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in tree}
    assert len(tree) >= 2  # the two workers (and a fork server, where there is one)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + GUARD
    while (left := [p for p in tree if running(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], [names[p] for p in left]


def test_ctrl_c_says_what_is_stored(
    hanging_scan: tuple[subprocess.Popen[bytes], list[int]],
) -> None:
    proc, tree = hanging_scan
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    try:  # GUARD < HANG: stopping at all shows it did not wait for the hanging download
        _, stderr = proc.communicate(timeout=GUARD)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # where is it stuck? (PYTHONFAULTHANDLER)
        _, stderr = proc.communicate(timeout=GUARD)
        pytest.fail(f"the scan did not stop on Ctrl-C: {stderr.decode()}")
    assert proc.returncode == 130
    text = stderr.decode()
    assert "Traceback" not in text
    match = re.search(
        r"interrupted: (\d+) sdists stored in (\S+) \((\d+) written by this run\)", text
    )
    assert match, text
    assert "; run the same command again to resume, what is stored is skipped" in text
    con = open_results(match.group(2))
    try:
        ((count,),) = con.execute("SELECT count(*) FROM sdists").fetchall()
    finally:
        con.close()
    # a fresh store: what is stored is what this run wrote (the local sdist, if analysed)
    assert int(match.group(1)) == int(match.group(3)) == count <= 1
    deadline = time.monotonic() + GUARD
    while [p for p in tree if running(p)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in tree if running(p)] == []
