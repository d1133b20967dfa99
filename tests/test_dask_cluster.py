"""``sapper scan --engine dask`` on a real cluster: ``dask scheduler`` and two ``dask worker``
processes started with Dask's own CLI on 127.0.0.1, one of them killed with SIGKILL while it
is in the middle of a task.

The sdists are served by a local index whose downloads the test can hold: once 2 x batch - 1
have been served (so one worker has finished a task, whose partition the test waits to see
stored), every further download waits, so that both workers are certainly in the middle of
a task when one is killed; the downloads are let go only after the kill. The
store must then hold every sdist exactly once (in the Parquet partitions themselves, not only
through the readers' last-partition-wins rule), with the rows of the process engine (``-j 1``).
Every wait is for an event, bounded by a timeout.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from archive_factory import file, make_tar, make_zip
from fake_index import FakeIndex, Reply, serve, sha256

from sapper.scan.store import open_results

pytest.importorskip("distributed")

BATCH = 3  # sdists per Dask task
PROJECTS = 12  # four tasks
#: Downloads let through before the gate holds the rest: 2 * BATCH - 1, so that by
#: pigeonhole one worker has finished a whole task while the other is still in one.
LET_THROUGH = 2 * BATCH - 1
WAIT = 180.0  # seconds: the bound on every wait, generous for a loaded machine


class GatedIndex(FakeIndex):
    """A fake index whose file downloads are held once ``LET_THROUGH`` have been served."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Condition()
        self.served = 0
        self.held = 0
        self.open = False

    def answer(self, path: str, headers: dict[str, str]) -> Reply:
        if path.startswith("/files/"):
            with self.gate:
                if self.served >= LET_THROUGH and not self.open:
                    self.held += 1
                    self.gate.notify_all()
                    self.gate.wait_for(lambda: self.open, timeout=WAIT)
                    self.held -= 1
                self.served += 1
        return super().answer(path, headers)

    def wait_held(self, count: int) -> None:
        with self.gate:
            if not self.gate.wait_for(lambda: self.held >= count, timeout=WAIT):
                msg = f"{self.held} downloads held after {WAIT} s, expected {count}"
                raise AssertionError(msg)

    def release(self) -> None:
        with self.gate:
            self.open = True
            self.gate.notify_all()


def _sdist(name: str, number: int) -> tuple[str, bytes]:
    """A small sdist whose verdict depends on ``number``: builds, fails (a setup.cfg not
    in UTF-8), a zip, or a damaged archive."""
    version = "1.0"
    root = f"{name}-{version}"
    info = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    kind = number % 4
    if kind == 2:
        data = make_zip([file(f"{root}/PKG-INFO", info), file(f"{root}/setup.cfg", "[metadata]\n")])
        return f"{root}.zip", data
    cfg = f"[metadata]\nname = {name}\n".encode()
    if kind == 1:  # not UTF-8, which setuptools refuses: fails
        cfg += "author = Jos\xe9\n".encode("latin-1")
    data = make_tar(
        [
            file(f"{root}/PKG-INFO", info),
            file(f"{root}/setup.cfg", cfg),
            file(f"{root}/setup.py", "from setuptools import setup\nsetup()\n"),
        ]
    )
    if kind == 3:
        data = data[: len(data) // 2]  # truncated: a row with an archive error
    return f"{root}.tar.gz", data


def _index() -> GatedIndex:
    index = GatedIndex()
    for number in range(PROJECTS):
        name = f"proj{number:02d}"
        filename, data = _sdist(name, number)
        path, _ = index.add_file(filename, data)
        index.json_projects[name] = [
            {"filename": filename, "url": path, "hashes": {"sha256": sha256(data)}}
        ]
    return index


def _wait_for(what: str, ready: Callable[[], bool], *, process: subprocess.Popen[str]) -> None:
    """Poll ``ready`` (an event: a file written, a count reached) until it holds, failing at
    once should ``process`` end first."""
    deadline = time.monotonic() + WAIT
    while not ready():
        if process.poll() is not None:
            msg = f"{what}: the process ended first (exit {process.returncode})"
            raise AssertionError(msg)
        if time.monotonic() > deadline:
            msg = f"{what}: not after {WAIT} s"
            raise AssertionError(msg)
        time.sleep(0.05)


def _address(scheduler_file: Path) -> str:
    """The scheduler's address once it has written its file whole, else ``""``."""
    try:
        return str(json.loads(scheduler_file.read_text())["address"])
    except (OSError, ValueError, KeyError):
        return ""


def _spawn(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """Start a process in its own session (so that its children are killed with it)."""
    with log.open("w") as out:
        return subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True, text=True
        )


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@contextlib.contextmanager
def _cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[str]]]]:
    """``dask scheduler`` and two ``dask worker`` (one thread each, with their nanny), each
    worker with its own download cache; yield the scheduler's address and the processes
    (the scheduler first)."""
    tmp_path.mkdir(exist_ok=True)
    env = dict(os.environ)
    scheduler_file = tmp_path / "scheduler.json"
    bin_dir = Path(sys.executable).parent
    processes: list[subprocess.Popen[str]] = []
    try:
        scheduler = _spawn(
            [
                str(bin_dir / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
            ],
            tmp_path / "scheduler.log",
            env,
        )
        processes.append(scheduler)
        _wait_for("the scheduler file", lambda: bool(_address(scheduler_file)), process=scheduler)
        for number in range(2):
            worker_env = {**env, "SAPPER_CACHE_DIR": str(tmp_path / f"worker{number}-cache")}
            worker = _spawn(
                [
                    str(bin_dir / "dask"),
                    "worker",
                    "--scheduler-file",
                    str(scheduler_file),
                    "--host",
                    "127.0.0.1",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--local-directory",
                    str(tmp_path / f"worker{number}"),
                ],
                tmp_path / f"worker{number}.log",
                worker_env,
            )
            processes.append(worker)
        from distributed import Client

        with Client(scheduler_file=str(scheduler_file), timeout=f"{WAIT}s") as client:
            client.wait_for_workers(2, timeout=WAIT)
        address = _address(scheduler_file)
        yield address, processes
    finally:
        for process in reversed(processes):
            _stop(process)


def _sapper(*args: str) -> list[str]:
    return [sys.executable, "-m", "sapper", "scan", *args]


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    con = open_results(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _partition_keys(db: Path) -> list[str]:
    """Every key in every ``sdists`` partition, duplicates kept."""
    import duckdb

    parts = str(db / "sdists" / "part-*.parquet")
    con = duckdb.connect()
    try:
        found = con.execute(f"SELECT key FROM read_parquet('{parts}')").fetchall()
        return [key for (key,) in found]
    finally:
        con.close()


def test_a_worker_killed_mid_scan_loses_and_duplicates_no_sdist(tmp_path: Path) -> None:
    index = _index()
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"proj{number:02d}\n" for number in range(PROJECTS)))
    env = dict(os.environ)
    dask_db = tmp_path / "dask-results"
    with serve(index) as url, _cluster(tmp_path) as (address, processes):
        common = ["--index-url", url, "--progress", "never"]
        scan = _spawn(
            [
                *_sapper(str(corpus)),
                *common,
                "--cache-dir",
                str(tmp_path / "client-cache"),
                "--engine",
                "dask",
                "--scheduler",
                address,
                "--dask-batch",
                str(BATCH),
                "--db",
                str(dask_db),
            ],
            tmp_path / "scan.log",
            env,
        )
        try:
            # a first task stored, and both workers in the middle of one
            _wait_for(
                "a first partition",
                lambda: any((dask_db / "sdists").glob("part-*.parquet")),
                process=scan,
            )
            index.wait_held(2)
            os.killpg(processes[1].pid, signal.SIGKILL)  # a worker and its nanny
            processes[1].wait(timeout=WAIT)
            index.release()
            scan.wait(timeout=WAIT)
        finally:
            index.release()
            _stop(scan)
        log = (tmp_path / "scan.log").read_text()
        assert scan.returncode == 0, log
        # the killed worker's task was done again: one of its sdists was downloaded twice
        downloads = [path for path in index.paths_requested() if path.startswith("/files/")]
        assert len(downloads) > len(set(downloads)) == PROJECTS
        local_db = tmp_path / "local.duckdb"
        local = subprocess.run(
            [*_sapper(str(corpus)), *common, "-j", "1", "--db", str(local_db)],
            env=env,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
        assert local.returncode == 0, local.stderr
    keys = _partition_keys(dask_db)
    assert len(keys) == len(set(keys)) == PROJECTS
    sql = (
        "SELECT key, project, outcome, outcome_enforced, fails, fails_enforced, error_type, "
        "result FROM sdists ORDER BY key"
    )
    expected = _rows(local_db, sql)
    assert {row[2] for row in expected} == {"builds", "fails", None}  # a varied corpus
    assert _rows(dask_db, sql) == expected
    findings = "SELECT key, code, path, line, fails FROM findings ORDER BY key, code, line"
    assert _rows(dask_db, findings) == _rows(local_db, findings)


def test_a_lost_scheduler_stops_the_scan_and_a_rerun_resumes(tmp_path: Path) -> None:
    index = _index()
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"proj{number:02d}\n" for number in range(PROJECTS)))
    dask_db = tmp_path / "dask-results"
    with serve(index) as url:
        common = [str(corpus), "--index-url", url, "--progress", "never", "--db", str(dask_db)]
        common += ["--engine", "dask", "--dask-batch", str(BATCH)]
        with _cluster(tmp_path / "first") as (address, processes):
            scan = _spawn(
                _sapper(*common, "--scheduler", address), tmp_path / "scan.log", dict(os.environ)
            )
            try:
                _wait_for(
                    "a first partition",
                    lambda: any((dask_db / "sdists").glob("part-*.parquet")),
                    process=scan,
                )
                index.wait_held(2)
                os.killpg(processes[0].pid, signal.SIGKILL)  # the scheduler
                scan.wait(timeout=WAIT)
            finally:
                index.release()
                _stop(scan)
        log = (tmp_path / "scan.log").read_text()
        assert scan.returncode == 3, log  # could not analyse
        # sapper's last word (before it, Dask's client logs its attempts to reconnect)
        last = log.rstrip().splitlines()[-1]
        assert last.startswith("sapper: error: --scheduler tcp://127.0.0.1:"), log
        assert "the Dask scheduler was lost mid-scan" in last, log
        stored = set(_partition_keys(dask_db))
        assert 0 < len(stored) < PROJECTS
        assert re.search(rf"{len(stored)} sdists stored in .*run the same command to resume", last)
        # a new cluster, the same command: the rest, and only the rest
        with _cluster(tmp_path / "second") as (address, _):
            rerun = subprocess.run(
                _sapper(*common, "--scheduler", address),
                capture_output=True,
                text=True,
                timeout=WAIT,
                check=False,
            )
        assert rerun.returncode == 0, rerun.stderr
    keys = _partition_keys(dask_db)
    assert len(keys) == len(set(keys)) == PROJECTS


def test_a_failed_task_becomes_crash_rows_and_the_scan_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task that fails as a whole gives a ``crash`` row for each of its sdists (as when Dask
    raises ``KilledWorker``, once a task has taken down as many workers as it allows); the
    other tasks are stored as usual."""
    import distributed

    from sapper.check import Options
    from sapper.scan import ScanOptions, _dask, scan

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(4):
        filename, data = _sdist(f"proj{number}", 0)
        (corpus / filename).write_bytes(data)
    real = _dask.fetch_and_analyse

    def crashing(job: Any, options: Any) -> Any:
        if "proj1" in (job.path or ""):
            msg = "the analysis broke"
            raise RuntimeError(msg)
        return real(job, options)

    monkeypatch.setattr(_dask, "fetch_and_analyse", crashing)
    db = tmp_path / "results"
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        summary = scan(
            [str(corpus)],
            options=ScanOptions(db=db, engine="dask", dask_batch=2, check=Options()),
            client=client,
        )
    assert summary.scanned == 4
    rows = _rows(db, "SELECT filename, outcome, error_type, error_message FROM sdists")
    by_name = {row[0]: row[1:] for row in rows}
    assert by_name["proj2-1.0.tar.gz"][:2] == by_name["proj3-1.0.tar.gz"][:2] == ("builds", None)
    for name in ("proj0-1.0.tar.gz", "proj1-1.0.tar.gz"):  # one task
        outcome, error_type, message = by_name[name]
        assert (outcome, error_type) == (None, "crash")
        assert message.startswith(f"{name}: the Dask task analysing it, with 1 other sdists")
        assert "(RuntimeError: the analysis broke)" in message
