"""The Dask engine: batches of jobs go to a cluster, whose workers fetch and analyse them;
the rows come back and are written by the scan, one Parquet partition (or one transaction)
per batch."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import SapperError, UsageError
from ..model import ErrorRecord
from .analyse import AnalyseOptions, failed_row, fetch_and_analyse, read_local
from .corpus import Job
from .store import Row

if TYPE_CHECKING:
    from .engine import ScanOptions, _Batcher, _Counter
    from .stages import StageClock

__all__ = ["SchedulerLost", "run_dask"]


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


class SchedulerLost(Exception):  # a signal for scan(), which words it
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


def run_dask(
    jobs: list[Job],
    *,
    done: set[str],
    analyse_options: AnalyseOptions,
    options: ScanOptions,
    batcher: _Batcher,
    counter: _Counter,
    client: Any,
    clock: StageClock,
) -> None:
    """Run the jobs on the cluster; ``clock`` counts the analyses (the workers' downloads
    are inside their tasks, not timed apart) over the cluster's threads."""
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
            raise SapperError(msg) from exc  # could not analyse (3)
    try:
        with contextlib.suppress(Exception):  # the slots count only for the report
            clock.slots = max(1, sum(client.nthreads().values()))
        started = time.monotonic()
        futures = {
            client.submit(_dask_task, batch, analyse_options, pure=False): batch
            for batch in _batches(todo, max(1, options.dask_batch))
        }
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            try:
                rows: list[Row] = future.result()
            except cf.CancelledError as exc:  # the scheduler is gone: so are all the tasks
                raise SchedulerLost(str(exc).splitlines()[0]) from None
            except Exception as exc:  # the task failed: its rows say why
                # (KilledWorker: the task was running on every worker that died while
                # running it, as many as Dask allows: an sdist that takes its worker down)
                rows = [_task_failed(job, futures[future], exc) for job in futures[future]]
            for row in rows:
                batcher.add(row)
                seconds, size = row.sdist.get("seconds"), row.sdist.get("size")
                clock.add(
                    busy=float(seconds) if isinstance(seconds, int | float) else 0.0,
                    nbytes=size if isinstance(size, int) else 0,
                    started=started,
                )
            batcher.flush()  # one partition (or transaction) per task
            counter.tick()
            future.release()
    finally:
        if own:
            client.close()
