"""Run a scan: resolve the corpus, fetch and analyse every sdist, write the rows in batches.

Two engines share everything but the loop that hands work out:

* ``process`` (default): downloads run in a thread pool of ``connections`` threads (the
  connection limit), analysis in a pool of ``jobs`` processes (in the calling process when
  ``jobs`` is 1); this process is the store's only writer.
* ``dask``: batches of jobs go to a Dask cluster, whose workers download and analyse; the
  rows come back and are written here, one Parquet partition (or one transaction) per batch.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._exceptions import ScanInterrupted, TargetError, UsageError
from ..check import Options
from ..model import ErrorRecord
from ._threads import DaemonPool
from .analyse import (
    AnalyseOptions,
    analyse,
    downloaded,
    failed_row,
    fetch_and_analyse,
    fetch_or_row,
    read_local,
    sdist_file,
)
from .corpus import Item, Job, VersionPolicy, expand, resolve, top_list
from .store import SCHEMA_VERSION, Row, Store, open_store, utcnow

if TYPE_CHECKING:
    from ..pypi import Download, Index

__all__ = ["Progress", "ScanOptions", "ScanSummary", "scan"]

Engine = Literal["process", "dask"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanOptions:
    """How to run a scan."""

    #: The store: a ``.duckdb`` file, or a directory of Parquet partitions.
    db: Path = Path(".sapper/scan.duckdb")
    engine: Engine = "process"
    #: Worker processes of the process engine (0: one per CPU).
    jobs: int = 0
    #: Address of the Dask scheduler (``tcp://host:8786``).
    scheduler: str | None = None
    versions: VersionPolicy = field(default_factory=lambda: VersionPolicy(kind="newest"))
    index_url: str | None = None
    #: The download cache (shared with ``sapper check``); None: the default cache directory.
    cache_dir: Path | None = None
    #: Concurrent connections to the index.
    connections: int = 4
    #: Rows per transaction, and the longest time rows wait before being written.
    batch_size: int = 50
    batch_seconds: float = 2.0
    #: Scan again the sdists recorded with an error in an earlier run.
    retry_failed: bool = False
    #: Stop reading a tar archive once the files the rules read have been read.
    early_stop: bool = True
    #: Options of the analysis (``sapper check``'s).
    check: Options = field(default_factory=Options)
    #: Jobs per Dask task.
    dask_batch: int = 16
    #: Resolve and download the sdists into the cache, analyse nothing (a later scan, or
    #: Dask workers sharing the cache directory, analyse them from there).
    download_only: bool = False
    #: With ``download_only``: bytes the cache may hold (``--cache-max-size``); the sdists
    #: that would take it past this are left for a later run (None: no cap).
    download_cap: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress:
    """Where a scan is: ``resolve`` (reading project pages) or ``scan``.

    While resolving, ``done`` of ``total`` requirements are resolved. While scanning,
    ``done`` of ``total`` sdists are written (``skipped`` of them were already in the
    store); ``elapsed`` counts from the start of the scan phase, and ``rate_base`` of the
    ``done`` were written before it (failed resolutions), so that the rate
    ``(done - rate_base) / elapsed`` and an ETA exclude resolving.
    """

    phase: Literal["resolve", "scan"]
    done: int
    total: int
    failed: int
    skipped: int
    elapsed: float
    rate_base: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanSummary:
    db: Path
    #: sdists in the corpus, after resolution.
    total: int
    #: Already in the store from an earlier run.
    skipped: int
    #: Analysed (or failed) in this run.
    scanned: int
    #: Of ``scanned``, those recorded with an error and no verdict.
    failed: int
    fails: int
    builds: int
    unknown: int
    seconds: float
    top_list_date: str | None = None
    #: ``download_only``: sdists downloaded from the index and their bytes, those the cache
    #: held already, and those left for a later run by ``download_cap``.
    downloaded: int = 0
    downloaded_bytes: int = 0
    cached: int = 0
    deferred: int = 0


class _Counter:
    """Counts what was written, and reports progress at most every 0.1 s."""

    def __init__(self, phase: Literal["resolve", "scan"], total: int, report: _Report) -> None:
        self.phase: Literal["resolve", "scan"] = phase
        self.total = total
        self.done = 0
        self.failed = 0
        self.skipped = 0
        #: requirements resolved (or failed to resolve) so far
        self.resolved = 0
        self.outcomes: dict[str, int] = {"fails": 0, "builds": 0, "unknown": 0}
        self.start = time.monotonic()
        #: rows written before the scan phase began
        self.base = 0
        self._report = report
        self._last = 0.0

    def start_scan(self, total: int) -> None:
        """Enter the scan phase: the rate and ETA count from now."""
        self.phase = "scan"
        self.total = total
        self.base = self.done
        self.start = time.monotonic()

    def count(self, row: Row) -> None:
        self.done += 1
        outcome = row.sdist.get("outcome")
        if outcome is None:
            self.failed += 1
        else:
            self.outcomes[str(outcome)] = self.outcomes.get(str(outcome), 0) + 1

    def tick(self, *, force: bool = False) -> None:
        if self._report is None:
            return
        now = time.monotonic()
        if force or now - self._last >= 0.1:
            self._last = now
            resolving = self.phase == "resolve"
            self._report(
                Progress(
                    phase=self.phase,
                    done=self.resolved if resolving else self.done,
                    total=self.total,
                    failed=self.failed,
                    skipped=self.skipped,
                    elapsed=now - self.start,
                    rate_base=0 if resolving else self.base,
                )
            )


_Report = Callable[[Progress], None] | None


class _Batcher:
    """Collects rows and writes them in batches: every ``size`` rows or ``seconds``.

    A batch is written by a writer thread while the next one is collected (the store's
    commits wait on the disk, and DuckDB lets other threads run meanwhile); one batch at a
    time, in order. :meth:`finish` writes what is left and waits for it.
    """

    def __init__(self, store: Store, size: int, seconds: float, counter: _Counter) -> None:
        self.store = store
        self.size = max(1, size)
        self.seconds = seconds
        self.rows: list[Row] = []
        self.keys: set[str] = set()
        self.counter = counter
        self.since = time.monotonic()
        self._writer: DaemonPool | None = None
        self._pending: cf.Future[None] | None = None

    def add(self, row: Row) -> None:
        if row.key in self.keys:  # the same archive twice in one batch
            return
        self.keys.add(row.key)
        self.rows.append(row)
        self.counter.count(row)
        if len(self.rows) >= self.size:
            self.flush()

    def maybe_flush(self) -> None:
        if self.rows and time.monotonic() - self.since >= self.seconds:
            self.flush()

    def flush(self) -> None:
        """Hand the rows collected to the writer (once the batch before is written)."""
        if self.rows:
            self.wait()
            if self._writer is None:
                self._writer = DaemonPool(1, name="sapper-store")
            self._pending = self._writer.submit(self.store.write, self.rows)
        self.rows = []
        self.keys = set()
        self.since = time.monotonic()

    def wait(self) -> None:
        """Wait for the batch being written; raise what writing it raised."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def finish(self) -> None:
        """Write the rows collected and wait until every batch is written."""
        try:
            self.flush()
            self.wait()
        finally:
            if self._writer is not None:
                self._writer.shutdown(wait=False)
                self._writer = None


def scan(
    sources: Sequence[str],
    *,
    top: int | None = None,
    options: ScanOptions | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    client: Any = None,
) -> ScanSummary:
    """Scan the sdists ``sources`` and ``top`` name (see :func:`~sapper.scan.corpus.expand`).

    Sdists already in the store are skipped; each one analysed is written to it. A failed
    download or a bad archive is recorded as a row with an error. ``client`` is a
    ``distributed.Client`` for the Dask engine (by default one connects to
    ``options.scheduler``).

    :raises UsageError: for bad sources or options, or a store that cannot be opened.
    """
    from .._version import __version__
    from ..pypi import DEFAULT_INDEX_URL, Index, default_cache_dir
    from ..versions import catalogue

    options = options or ScanOptions()
    if options.engine == "dask" and client is None and not options.scheduler:
        msg = "--engine dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.1:8786)"
        raise UsageError(msg)
    items = list(expand(sources, top=top))
    if not items:
        msg = "nothing to scan: give sdists, directories, list files, requirements or --top N"
        raise UsageError(msg)
    start = time.monotonic()
    workers = _workers(options)
    # the worker processes start now (forked from this process, or from the fork server by
    # a thread), so that they are ready once the store is open and the corpus resolved
    warm = _WarmPool(workers) if options.engine == "process" and workers > 1 else None
    index = Index(
        options.index_url or DEFAULT_INDEX_URL,
        cache_dir=options.cache_dir or default_cache_dir(),
    )
    with contextlib.ExitStack() as stack:
        if warm is not None:
            stack.callback(warm.discard)
        store = stack.enter_context(open_store(options.db))
        now = utcnow()
        meta = store.meta()
        store.set_meta(
            {
                "schema_version": SCHEMA_VERSION,
                "sapper_version": __version__,
                "newest_setuptools": catalogue().newest,
                "top_list_date": top_list().date if top else meta.get("top_list_date"),
                "created_at": meta.get("created_at") or now,
                "last_run_at": now,
                "engine": options.engine,
            }
        )
        done = store.done_keys()
        if options.retry_failed:
            done -= store.failed_keys()
        requirements = sum(1 for item in items if item.kind == "requirement")
        counter = _Counter("resolve", requirements, on_progress)
        counter.tick(force=True)
        batcher = _Batcher(store, options.batch_size, options.batch_seconds, counter)
        try:
            jobs = _resolve_all(
                items, index=index, options=options, done=done, batcher=batcher, counter=counter
            )
        except KeyboardInterrupt:
            batcher.finish()
            raise _interrupted(store, counter) from None
        batcher.flush()
        counter.start_scan(counter.done + len(jobs) + counter.skipped)
        counter.tick(force=True)
        analyse_options = AnalyseOptions(
            check=options.check,
            early_stop=options.early_stop,
            index_url=options.index_url,
            cache_dir=options.cache_dir if options.engine == "dask" else index.cache_dir,
        )
        downloads = _Downloads()
        try:
            if options.download_only:
                _download_only(
                    jobs,
                    index=index,
                    options=options,
                    done=done,
                    batcher=batcher,
                    counter=counter,
                    stats=downloads,
                )
            elif options.engine == "dask":
                _run_dask(
                    jobs,
                    done=done,
                    analyse_options=analyse_options,
                    options=options,
                    batcher=batcher,
                    counter=counter,
                    client=client,
                )
            else:
                _run_local(
                    jobs,
                    done=done,
                    index=index,
                    analyse_options=analyse_options,
                    options=options,
                    batcher=batcher,
                    counter=counter,
                    warm=warm,
                )
        except KeyboardInterrupt:
            batcher.finish()
            raise _interrupted(store, counter) from None
        except _SchedulerLost as exc:
            batcher.finish()
            lost = _interrupted(store, counter)
            held = f"{lost.stored} sdists" if lost.stored is not None else "the results are"
            msg = (
                f"--scheduler {options.scheduler}: the Dask scheduler was lost mid-scan ({exc}); "
                f"{held} stored in {store.path} ({lost.written} written by this run); start "
                "the scheduler again (and its workers) and run the same command to resume, what "
                "is stored is skipped"
            )
            raise UsageError(msg) from None
        finally:
            batcher.finish()
            counter.tick(force=True)
    return ScanSummary(
        db=options.db,
        total=counter.total,
        skipped=counter.skipped,
        scanned=counter.done,
        failed=counter.failed,
        fails=counter.outcomes.get("fails", 0),
        builds=counter.outcomes.get("builds", 0),
        unknown=counter.outcomes.get("unknown", 0),
        seconds=time.monotonic() - start,
        top_list_date=top_list().date if top else None,
        downloaded=downloads.downloaded,
        downloaded_bytes=downloads.bytes,
        cached=downloads.cached,
        deferred=downloads.deferred,
    )


def _interrupted(store: Store, counter: _Counter) -> ScanInterrupted:
    try:
        stored = len(store.done_keys())
    except Exception:  # the count is a courtesy; the interruption is what matters
        stored = None
    return ScanInterrupted(db=store.path, stored=stored, written=counter.done)


def _resolve_all(
    items: list[Item],
    *,
    index: Index,
    options: ScanOptions,
    done: set[str],
    batcher: _Batcher,
    counter: _Counter,
) -> list[Job]:
    """Jobs of every item, in order; failed resolutions become rows right away."""
    results: list[list[Job]] = [[] for _ in items]
    pending: dict[cf.Future[list[Job]], int] = {}
    pool = DaemonPool(options.connections, name="sapper-resolve")
    try:
        for position, item in enumerate(items):
            if item.kind == "path":
                results[position] = [Job(target=item.text, path=item.text)]
            elif f"req:{item.text}" in done:
                counter.skipped += 1
                counter.resolved += 1
            else:
                future = pool.submit(resolve, index, item.text, options.versions)
                pending[future] = position
        for future in cf.as_completed(pending):
            position = pending[future]
            try:
                results[position] = future.result()
            except TargetError as exc:
                job = Job(target=items[position].text)
                batcher.add(failed_row(job, ErrorRecord(type=exc.kind, message=str(exc))))
            counter.resolved += 1
            counter.tick()
            batcher.maybe_flush()
    finally:
        # on an interruption, do not wait for the queued resolutions
        pool.shutdown(wait=False, cancel_futures=True)
    jobs: list[Job] = []
    keys: set[str] = set()
    for group in results:
        for job in group:
            key = job.sha256 or (f"path:{job.path}" if job.path else f"url:{job.url}")
            if key not in keys:
                keys.add(key)
                jobs.append(job)
    return jobs


@dataclass(slots=True)
class _Downloads:
    downloaded: int = 0
    bytes: int = 0
    cached: int = 0
    deferred: int = 0


def _download_only(
    jobs: list[Job],
    *,
    index: Index,
    options: ScanOptions,
    done: set[str],
    batcher: _Batcher,
    counter: _Counter,
    stats: _Downloads,
) -> None:
    """Download the sdists of ``jobs`` into the cache (``--download-only``); a failed
    download becomes a row, as in a scan. With ``download_cap``, an sdist that would take the
    cache past it is left for a later run, by the size the index lists (an sdist already in
    the cache needs no room)."""
    room: int | None = None
    if options.download_cap is not None and index.cache_dir is not None:
        from ..cache import info

        room = options.download_cap - info(index.cache_dir).bytes  # as the cap counts
    queue = deque(job for job in jobs if job.path is None)  # a local file: nothing to do
    pool = DaemonPool(options.connections, name="sapper-download")
    # future -> (job, whether it holds room under the cap)
    running: dict[cf.Future[Download | Row], tuple[Job, bool]] = {}

    def get(job: Job) -> Download | Row:
        try:
            return index.download(sdist_file(job))
        except (TargetError, OSError) as exc:
            kind = exc.kind if isinstance(exc, TargetError) else "fetch"
            return failed_row(job, ErrorRecord(type=kind, message=str(exc)))

    try:
        while queue or running:
            while queue and len(running) < options.connections:
                job = queue.popleft()
                if job.sha256 and job.sha256 in done:
                    counter.skipped += 1
                    continue
                reserved = room is not None and not _in_cache(index, job)
                if room is not None and reserved:
                    if (job.size or 0) > room:
                        stats.deferred += 1
                        continue
                    room -= job.size or 0
                running[pool.submit(get, job)] = (job, reserved)
            if not running:
                continue
            finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                job, reserved = running.pop(future)
                got = future.result()
                if room is not None and reserved and (isinstance(got, Row) or got.from_cache):
                    room += job.size or 0  # nothing written (or counted already)
                if isinstance(got, Row):
                    batcher.add(got)
                elif got.from_cache:
                    stats.cached += 1
                else:
                    stats.downloaded += 1
                    stats.bytes += got.size
            batcher.maybe_flush()
            counter.tick()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _in_cache(index: Index, job: Job) -> bool:
    """Whether the cache holds ``job``'s sdist (under ``sdists/<sha[:2]>/<sha>/``, where
    :meth:`Index.download` keeps it)."""
    if index.cache_dir is None or not job.sha256:
        return False
    folder = index.cache_dir / "sdists" / job.sha256[:2] / job.sha256
    return folder.is_dir() and any(folder.iterdir())


def _workers(options: ScanOptions) -> int:
    """Worker processes of the process engine (``jobs``; 0: one per CPU)."""
    return options.jobs or os.cpu_count() or 1


class _Inline:
    """An executor that runs each task when it is submitted (``-j 1``)."""

    def submit(self, fn: Callable[..., Row], /, *args: Any) -> cf.Future[Row]:
        future: cf.Future[Row] = cf.Future()
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # pragma: no cover - analyse() does not raise
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


def _fetch(job: Job, index: Index, done: set[str]) -> tuple[Job, bytes | Path] | Row | None:
    """Runs in a download thread: the archive of ``job`` (its file, or its bytes when there
    is no cache), its failure row, or None if done."""

    def get(job: Job) -> tuple[Job, bytes | Path]:
        if job.path is not None:
            return read_local(job)
        return job, downloaded(index, job)

    got = fetch_or_row(job, get)
    if isinstance(got, Row) or got[0].path is None:
        return got
    return None if got[0].sha256 in done else got


def _run_local(
    jobs: list[Job],
    *,
    done: set[str],
    index: Index,
    analyse_options: AnalyseOptions,
    options: ScanOptions,
    batcher: _Batcher,
    counter: _Counter,
    warm: _WarmPool | None = None,
) -> None:
    workers = _workers(options)
    queue = deque(jobs)
    # (job, archive); the archive is None when the worker reads the local file itself
    ready: deque[tuple[Job, bytes | Path | None]] = deque()
    fetching: set[cf.Future[tuple[Job, bytes | Path] | Row | None]] = set()
    # sdists in flight when a worker died: each is tried again alone, to find the culprit
    suspects: deque[tuple[Job, bytes | Path | None]] = deque()
    # future -> (job, archive, attempt, the pool it runs in)
    analysing: dict[cf.Future[Row], tuple[Job, bytes | Path | None, int, object]] = {}
    io_limit = max(1, options.connections) * 2
    cpu_limit = workers * 2
    pool: cf.ProcessPoolExecutor | _Inline
    if workers == 1:
        pool = _Inline()
    else:
        started = warm.take() if warm is not None else None
        pool = started if started is not None else _process_pool(workers)
    io_pool = DaemonPool(options.connections, name="sapper-download")
    # worker processes hash local files themselves, unless the store holds earlier results:
    # then this process hashes each file first (streaming), so as not to send the ones
    # already done; either way a worker reads the file from its path, never its bytes
    direct = workers > 1 and not done

    def renew(broken: object) -> None:
        """Replace the pool once a worker died (which breaks the whole pool)."""
        nonlocal pool
        if broken is pool and isinstance(pool, cf.ProcessPoolExecutor):
            pool.shutdown(wait=False, cancel_futures=True)
            pool = _process_pool(workers)

    def submit(job: Job, data: bytes | Path | None, attempt: int) -> None:
        for _ in range(2):
            current = pool
            try:
                if data is None:
                    future = current.submit(_read_and_analyse, analyse, job, analyse_options)
                else:
                    future = current.submit(analyse, job, data, analyse_options)
            except cf.process.BrokenProcessPool:
                renew(current)
                continue
            analysing[future] = (job, data, attempt, current)
            return
        message = f"{job.filename or job.target}: no worker process could be started for it"
        batcher.add(failed_row(job, ErrorRecord(type="crash", message=message)))

    try:
        while queue or ready or fetching or analysing or suspects:
            while queue and len(fetching) < io_limit and len(ready) < cpu_limit:
                job = queue.popleft()
                if job.sha256 and job.sha256 in done:
                    counter.skipped += 1
                    continue
                if direct and job.path is not None:
                    ready.append((job, None))
                    continue
                fetching.add(io_pool.submit(_fetch, job, index, done))
            if suspects:
                if not analysing:
                    submit(*suspects.popleft(), 1)
            else:
                while ready and len(analysing) < cpu_limit:
                    submit(*ready.popleft(), 0)
            waiting: set[cf.Future[Any]] = set(fetching) | set(analysing)
            if not waiting:
                continue
            finished, _ = cf.wait(
                waiting, timeout=options.batch_seconds, return_when=cf.FIRST_COMPLETED
            )
            for future in finished:
                if future in fetching:
                    fetching.discard(future)
                    got = future.result()
                    if got is None:
                        counter.skipped += 1
                    elif isinstance(got, Row):
                        batcher.add(got)
                    else:
                        ready.append(got)
                    continue
                job, data, attempt, owner = analysing.pop(future)
                try:
                    batcher.add(future.result())
                except (cf.process.BrokenProcessPool, cf.CancelledError):
                    # a worker died (out of memory, a crash), which breaks the whole pool:
                    # start a new one (once), and try each sdist that was in flight again
                    renew(owner)
                    if attempt == 0:
                        suspects.append((job, data))
                    else:
                        message = (
                            f"{job.filename or job.target}: the worker process analysing it "
                            "died (out of memory or a crash), twice; it was tried alone the "
                            "second time"
                        )
                        batcher.add(failed_row(job, ErrorRecord(type="crash", message=message)))
            batcher.maybe_flush()
            counter.tick()
    except BaseException:
        # interrupted: wait neither for downloads in flight nor for queued analyses
        io_pool.shutdown(wait=False, cancel_futures=True)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    io_pool.shutdown(wait=True, cancel_futures=True)
    pool.shutdown(wait=True, cancel_futures=True)


class _WarmPool:
    """A process pool whose workers are started now, while the caller goes on.

    On Linux, while this process has a single thread (at the start of a scan: before the
    store, the downloads or the writer start any), the workers are forked from it at once,
    with the rule modules, the catalogue and the top list loaded here first: they are
    ready to analyse while this process still opens the store. Otherwise a thread starts a
    pool whose workers fork from a fork server (which imports all that first), submitting
    one empty task a worker so that they all start now rather than at the first real task.
    """

    def __init__(self, workers: int) -> None:
        self._pool: cf.ProcessPoolExecutor | None = _forked_pool(workers)
        self._thread: threading.Thread | None = None
        if self._pool is None:
            self._thread = threading.Thread(
                target=self._start, args=(workers,), name="sapper-warm", daemon=True
            )
            self._thread.start()

    def _start(self, workers: int) -> None:
        with contextlib.suppress(Exception):  # the first real task starts them otherwise
            pool = _process_pool(workers)
            self._pool = pool
            cf.wait([pool.submit(os.getpid) for _ in range(workers)])

    def _join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def take(self) -> cf.ProcessPoolExecutor | None:
        """The pool, once its workers are started (None if it could not be started)."""
        self._join()
        pool, self._pool = self._pool, None
        return pool

    def discard(self) -> None:
        """Shut the pool down if :meth:`take` was never called (the scan ended first)."""
        self._join()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _forked_pool(workers: int) -> cf.ProcessPoolExecutor | None:
    """A pool of ``workers`` processes forked from this one now, or None where forking is
    not safe: not Linux (macOS frameworks break in a forked child), or another thread is
    running (it may hold a lock the children would inherit held)."""
    import multiprocessing
    import sys

    if sys.platform != "linux" or threading.active_count() != 1:
        return None
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover
        return None
    from . import _warm  # noqa: F401  # loaded once, here, for every worker

    pool = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )
    try:
        # with fork, the first task launches every worker, from this thread, before the
        # pool starts its own management thread
        pool.submit(os.getpid)
    except Exception:  # no fork now (out of processes): the fork server later
        pool.shutdown(wait=False, cancel_futures=True)
        return None
    return pool


def _read_and_analyse(
    analyse_fn: Callable[[Job, bytes | Path, AnalyseOptions], Row],
    job: Job,
    options: AnalyseOptions,
) -> Row:
    """Runs in a worker process: read (and hash) the local file of ``job``, then analyse it
    with ``analyse_fn``; a file that cannot be read gives its failure row, as in
    :func:`_fetch`."""
    got = fetch_or_row(job, read_local)
    return got if isinstance(got, Row) else analyse_fn(*got, options)


def _process_pool(workers: int) -> cf.ProcessPoolExecutor:
    import multiprocessing

    # not fork: by now the download and writer threads may hold locks (the first pool of a
    # scan is forked while it has one thread: _forked_pool); the fork server imports the
    # analysis and rule modules and reads the catalogue once, and each worker forks from it
    # with them loaded
    context: multiprocessing.context.BaseContext
    if "forkserver" in multiprocessing.get_all_start_methods():
        server = multiprocessing.get_context("forkserver")
        server.set_forkserver_preload(["sapper.scan._warm"])
        context = server
    else:  # pragma: no cover - Windows
        context = multiprocessing.get_context("spawn")
    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )


def _worker_init(parent: int) -> None:
    """In each worker: leave Ctrl-C to the parent, and die with it.

    A worker's parent process is the fork server (or the scan itself, when forked from it);
    if the scan is killed (``kill -9``), nothing tells its workers. A thread waits on the
    scan's process (a pidfd where Linux has them, else a poll once a second) and ends the
    worker when it is gone, so no worker outlives the scan.
    """
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(pid: int) -> None:
    import select

    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        while _alive(pid):
            time.sleep(1.0)
    else:
        select.select([fd], [], [])
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _batches(jobs: Iterable[Job], size: int) -> Iterator[list[Job]]:
    batch: list[Job] = []
    for job in jobs:
        batch.append(job)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _dask_task(jobs: list[Job], options: AnalyseOptions) -> list[Row]:
    """One Dask task: fetch and analyse a batch of jobs on a worker."""
    return [fetch_and_analyse(job, options) for job in jobs]


class _SchedulerLost(Exception):  # a signal for scan(), which words it
    """The Dask scheduler was lost mid-scan."""


def _task_failed(job: Job, batch: list[Job], exc: Exception) -> Row:
    """The row of ``job`` when the Dask task of its ``batch`` failed as a whole."""
    name = type(exc).__name__
    label = job.filename or (Path(job.path).name if job.path else job.target)
    message = (
        f"{label}: the Dask task analysing it, with {len(batch) - 1} other "
        f"sdists, failed ({name}: {str(exc).splitlines()[0] if str(exc) else name}); run "
        "again with --retry-failed (and a smaller --dask-batch to find the culprit)"
    )
    return failed_row(job, ErrorRecord(type="crash", message=message))


def _run_dask(
    jobs: list[Job],
    *,
    done: set[str],
    analyse_options: AnalyseOptions,
    options: ScanOptions,
    batcher: _Batcher,
    counter: _Counter,
    client: Any,
) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:
        msg = "--engine dask needs Dask: pip install 'sapper[dask]'"
        raise UsageError(msg) from exc
    todo: list[Job] = []
    for job in jobs:
        hashed = job
        if job.path is not None:  # hashed here, so that done files are not sent
            with contextlib.suppress(OSError):
                hashed, _ = read_local(job)
        if hashed.sha256 and hashed.sha256 in done:
            counter.skipped += 1
        else:
            todo.append(hashed)
    own = client is None
    if own:
        try:
            client = Client(options.scheduler, timeout="30s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as exc:
            msg = f"--scheduler {options.scheduler}: cannot reach the Dask scheduler ({exc})"
            raise UsageError(msg) from exc
    try:
        futures = {
            client.submit(_dask_task, batch, analyse_options, pure=False): batch
            for batch in _batches(todo, max(1, options.dask_batch))
        }
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            try:
                rows: list[Row] = future.result()
            except cf.CancelledError as exc:  # the scheduler is gone: so are all the tasks
                raise _SchedulerLost(str(exc).splitlines()[0]) from None
            except Exception as exc:  # the task failed: its rows say why
                # (KilledWorker: the task was running on every worker that died while
                # running it, as many as Dask allows: an sdist that takes its worker down)
                rows = [_task_failed(job, futures[future], exc) for job in futures[future]]
            for row in rows:
                batcher.add(row)
            batcher.flush()  # one partition (or transaction) per task
            counter.tick()
            future.release()
    finally:
        if own:
            client.close()
