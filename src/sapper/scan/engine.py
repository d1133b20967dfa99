"""Run a scan: resolve the corpus, fetch and analyse every sdist, write the rows in batches.

Two engines share everything but the loop that hands work out:

* ``process`` (default): downloads run in a thread pool of ``connections`` threads (the
  connection limit), analysis in a pool of ``jobs`` processes (in the calling process when
  ``jobs`` is 1); this process is the store's only writer.
* ``dask``: batches of jobs go to a Dask cluster, whose workers download and analyse; the
  rows come back and are written here, one Parquet partition (or one transaction) per batch
  (:mod:`sapper.scan._dask`).

Downloads are a stage of their own: they run ahead of the analysis by at most ``prefetch``
sdists (and ``prefetch_bytes``), or alone with ``download_only``
(:mod:`sapper.scan.download`). Each stage is timed (:mod:`sapper.scan.stages`).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._defaults import DEFAULT_STORE
from .._exceptions import SapperError, ScanInterrupted, TargetError, UsageError
from ..check import Options
from ..model import ErrorRecord
from . import _pool
from ._dask import SchedulerLost, run_dask
from ._threads import DaemonPool
from .analyse import AnalyseOptions, analyse, failed_row, fetch_or_row, read_local, sdist_file
from .corpus import Item, Job, VersionPolicy, expand, resolve, top_list
from .download import Downloads, download_only
from .stages import StageClock, StageReport
from .store import SCHEMA_VERSION, Row, Store, open_store, utcnow

if TYPE_CHECKING:
    from ..pypi import Index

__all__ = ["Progress", "ScanOptions", "ScanSummary", "scan"]

Engine = Literal["process", "dask"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanOptions:
    """How to run a scan."""

    #: The store: a ``.duckdb`` file, or a directory of Parquet partitions.
    db: Path = DEFAULT_STORE
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
    #: that would take it past this first evict sdists the store holds as analysed, and are
    #: left for a later run if that is not enough (None: no cap).
    download_cap: int | None = None
    #: The process engine's downloads run ahead of the analysis by at most this many sdists
    #: (0: twice the workers plus twice the connections) ...
    prefetch: int = 0
    #: ... and this many bytes (by the sizes the index lists; None: no cap). The files wait
    #: in the cache, so this bounds the disk that downloads not yet analysed take.
    prefetch_bytes: int | None = None


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
    #: ``fails``/``builds`` not decided: built by another backend (``other_backend``), or
    #: a setuptools project whose verdict is unknown (what ``setup()`` gets could not be
    #: read statically, or no setuptools release matches its requirements).
    unknown: int
    seconds: float
    top_list_date: str | None = None
    #: ``download_only``: sdists downloaded from the index and their bytes, those the cache
    #: held already, and those left for a later run by ``download_cap``.
    downloaded: int = 0
    downloaded_bytes: int = 0
    cached: int = 0
    deferred: int = 0
    #: Of ``unknown``: built by another backend than setuptools (sapper models setuptools).
    other_backend: int = 0
    #: ``download_only`` with ``download_cap``: analysed sdists evicted from the cache.
    evicted: int = 0
    evicted_bytes: int = 0
    #: What each stage did, and what bound the run.
    stages: StageReport | None = None


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
        #: of the "unknown" outcomes, sdists built by another backend
        self.other_backend = 0
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
            if outcome == "unknown" and row.other_backend:
                self.other_backend += 1

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

    def __init__(
        self, store: Store, size: int, seconds: float, counter: _Counter, clock: StageClock
    ) -> None:
        self.store = store
        self.clock = clock
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
            self._pending = self._writer.submit(self._write, self.rows)
        self.rows = []
        self.keys = set()
        self.since = time.monotonic()

    def _write(self, rows: list[Row]) -> None:
        start = time.monotonic()
        self.store.write(rows)
        self.clock.add(busy=time.monotonic() - start)

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

    :raises UsageError: for bad sources or options.
    :raises StoreError: for a store that cannot be opened.
    :raises SapperError: when the Dask scheduler cannot be reached or is lost.
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
    warm = _pool.WarmPool(workers) if options.engine == "process" and workers > 1 else None
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
        clocks = _Clocks(options, workers)
        store_start = _store_bytes(store.path)
        batcher = _Batcher(store, options.batch_size, options.batch_seconds, counter, clocks.store)
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
        downloads = Downloads()
        try:
            if options.download_only:
                download_only(
                    jobs,
                    index=index,
                    options=options,
                    done=done,
                    batcher=batcher,
                    counter=counter,
                    stats=downloads,
                    clock=clocks.download,
                )
            elif options.engine == "dask":
                run_dask(
                    jobs,
                    done=done,
                    analyse_options=analyse_options,
                    options=options,
                    batcher=batcher,
                    counter=counter,
                    client=client,
                    clock=clocks.analysis,
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
                    clocks=clocks,
                    warm=warm,
                )
        except KeyboardInterrupt:
            batcher.finish()
            raise _interrupted(store, counter) from None
        except SchedulerLost as exc:
            batcher.finish()
            lost = _interrupted(store, counter)
            held = f"{lost.stored} sdists" if lost.stored is not None else "the results are"
            msg = (
                f"--scheduler {options.scheduler}: the Dask scheduler was lost mid-scan ({exc}); "
                f"{held} stored in {store.path} ({lost.written} written by this run); start "
                "the scheduler again (and its workers) and run the same command to resume, what "
                "is stored is skipped"
            )
            raise SapperError(msg) from None  # could not analyse (3)
        finally:
            batcher.finish()
            counter.tick(force=True)
        scan_wall = time.monotonic() - counter.start
    # once the store is closed (DuckDB writes its log into the file then)
    clocks.store.bytes = max(0, _store_bytes(store.path) - store_start)
    return ScanSummary(
        db=options.db,
        total=counter.total,
        skipped=counter.skipped,
        scanned=counter.done,
        failed=counter.failed,
        fails=counter.outcomes.get("fails", 0),
        builds=counter.outcomes.get("builds", 0),
        unknown=counter.outcomes.get("unknown", 0),
        other_backend=counter.other_backend,
        seconds=time.monotonic() - start,
        top_list_date=top_list().date if top else None,
        downloaded=downloads.downloaded,
        downloaded_bytes=downloads.bytes,
        cached=downloads.cached,
        deferred=downloads.deferred,
        evicted=downloads.evicted,
        evicted_bytes=downloads.evicted_bytes,
        stages=clocks.report(scan_wall, download_only=options.download_only),
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


class _Clocks:
    """The clock of each stage of one scan."""

    def __init__(self, options: ScanOptions, workers: int) -> None:
        self.download = StageClock("download", "network", options.connections)
        self.analysis = StageClock("analysis", "cpu", workers)
        self.store = StageClock("store", "disk", 1)

    def report(self, wall: float, *, download_only: bool) -> StageReport:
        clocks = [self.download] if download_only else [self.download, self.analysis]
        return StageReport(wall=wall, stages=tuple(c.stage() for c in [*clocks, self.store]))


def _analysed(clock: StageClock, row: Row, started: float) -> None:
    """Count ``row``'s analysis (timed in the worker) in the analysis stage."""
    seconds = row.sdist.get("seconds")
    size = row.sdist.get("size")
    clock.add(
        busy=float(seconds) if isinstance(seconds, int | float) else 0.0,
        nbytes=size if isinstance(size, int) else 0,
        started=started,
    )


def _store_bytes(path: Path) -> int:
    """The bytes the store takes on disk (a file, or a directory of partitions)."""
    try:
        if path.is_dir():
            return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        return path.stat().st_size if path.exists() else 0
    except OSError:
        return 0


def _workers(options: ScanOptions) -> int:
    """Worker processes of the process engine (``jobs``; 0: one per CPU)."""
    return options.jobs or os.cpu_count() or 1


def _fetch(
    job: Job, index: Index, done: set[str], clock: StageClock
) -> tuple[Job, bytes | Path] | Row | None:
    """Runs in a download thread: the archive of ``job`` (its file, or its bytes when there
    is no cache), its failure row, or None if done. A download from the index is timed."""

    def get(job: Job) -> tuple[Job, bytes | Path]:
        if job.path is not None:
            return read_local(job)
        start = time.monotonic()
        download = index.download(sdist_file(job))
        if not download.from_cache:
            clock.add(busy=time.monotonic() - start, nbytes=download.size)
        return job, download.path if download.path is not None else download.data

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
    clocks: _Clocks,
    warm: _pool.WarmPool | None = None,
) -> None:
    workers = _workers(options)
    queue = deque(jobs)
    # (job, archive); the archive is None when the worker reads the local file itself
    ready: deque[tuple[Job, bytes | Path | None]] = deque()
    # download future -> its job
    fetching: dict[cf.Future[tuple[Job, bytes | Path] | Row | None], Job] = {}
    # sdists in flight when a worker died: each is tried again alone, to find the culprit
    suspects: deque[tuple[Job, bytes | Path | None]] = deque()
    # future -> (job, archive, attempt, the pool it runs in)
    analysing: dict[cf.Future[Row], tuple[Job, bytes | Path | None, int, object]] = {}
    started_at: dict[cf.Future[Row], float] = {}

    io_limit = max(1, options.connections) * 2
    cpu_limit = workers * 2
    # downloads run ahead of the analysis by at most `prefetch` sdists and `prefetch_bytes`
    prefetch = options.prefetch or cpu_limit + io_limit
    ahead_bytes = 0
    pool: cf.ProcessPoolExecutor | _pool.Inline
    if workers == 1:
        pool = _pool.Inline()
    else:
        started = warm.take() if warm is not None else None
        pool = started if started is not None else _pool.process_pool(workers)
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
            pool = _pool.process_pool(workers)

    def room() -> bool:
        """Whether one more download may start (one always may when none is ahead)."""
        ahead = len(fetching) + len(ready)
        if ahead == 0:
            return True
        under = options.prefetch_bytes is None or ahead_bytes < options.prefetch_bytes
        return ahead < prefetch and under

    def submit(job: Job, data: bytes | Path | None, attempt: int) -> None:
        nonlocal ahead_bytes
        if attempt == 0:
            ahead_bytes -= job.size or 0
        for _ in range(2):
            current = pool
            try:
                if data is None:
                    future = current.submit(_pool.read_and_analyse, analyse, job, analyse_options)
                else:
                    future = current.submit(analyse, job, data, analyse_options)
            except cf.process.BrokenProcessPool:
                renew(current)
                continue
            analysing[future] = (job, data, attempt, current)
            started_at[future] = time.monotonic()
            return
        message = f"{job.filename or job.target}: no worker process could be started for it"
        batcher.add(failed_row(job, ErrorRecord(type="crash", message=message)))

    try:
        while queue or ready or fetching or analysing or suspects:
            while queue and len(fetching) < io_limit and room():
                job = queue.popleft()
                if job.sha256 and job.sha256 in done:
                    counter.skipped += 1
                    continue
                ahead_bytes += job.size or 0
                if direct and job.path is not None:
                    ready.append((job, None))
                else:
                    fetching[io_pool.submit(_fetch, job, index, done, clocks.download)] = job
                clocks.download.ahead(len(fetching) + len(ready))
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
                    fetched = fetching.pop(future)
                    got = future.result()
                    if got is None or isinstance(got, Row):  # nothing to analyse
                        ahead_bytes -= fetched.size or 0
                    if got is None:
                        counter.skipped += 1
                    elif isinstance(got, Row):
                        batcher.add(got)
                    else:
                        ready.append(got)
                    continue
                job, data, attempt, owner = analysing.pop(future)
                begun = started_at.pop(future)
                try:
                    row = future.result()
                    batcher.add(row)
                    _analysed(clocks.analysis, row, begun)
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
