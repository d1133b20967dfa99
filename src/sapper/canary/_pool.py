"""The canary's local worker processes, and how they stop on Ctrl-C.

A terminal's Ctrl-C reaches the whole process group: the canary and its workers. The
workers ignore it (no ``KeyboardInterrupt`` traceback from each of them); the canary, on
its ``KeyboardInterrupt``, cancels the targets not started and ends the workers with
SIGTERM, which each turns into :class:`SystemExit`: the build in flight is ended (the
sandbox's ``finally`` kills its process group; bubblewrap also dies with its parent) and
the target's temporary directory removed, without a traceback, and without waiting for the
builds to finish. What was stored stays; a rerun resumes.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

__all__ = ["in_dask", "in_processes"]

J = TypeVar("J")
R = TypeVar("R")

#: How long the canary waits for a worker to end after SIGTERM before SIGKILL (seconds).
_GRACE = 10.0


def in_processes(fn: Callable[[J], R], jobs: Sequence[J], workers: int) -> Iterator[R]:
    """``fn(job)`` for each job in ``workers`` processes, yielded as each finishes.

    Closed early (an exception in the consumer, Ctrl-C), it abandons what is left: the
    queued jobs are cancelled and the workers ended at once.
    """
    pool = cf.ProcessPoolExecutor(workers, initializer=_worker_init)
    finished = False
    try:
        futures = [pool.submit(_call, fn, job) for job in jobs]
        for future in cf.as_completed(futures):
            yield future.result()
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            _abandon(pool)


def _abandon(pool: cf.ProcessPoolExecutor) -> None:
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(_GRACE)
        if process.is_alive():  # pragma: no cover - a cleanup stuck for the whole grace
            process.kill()
            process.join()


#: In a worker: whether it runs a job, and whether it was told to stop.
_state = {"busy": False, "stopping": False}


def _worker_init() -> None:
    """In each worker: leave Ctrl-C to the canary, and stop on SIGTERM (:func:`_stop`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop)


def _call(fn: Callable[[J], R], job: J) -> R:
    """``fn(job)`` in a worker; once told to stop, the worker ends instead of starting
    another of the jobs already queued to it."""
    if _state["stopping"]:
        os._exit(1)
    _state["busy"] = True
    try:
        return fn(job)
    finally:
        _state["busy"] = False
        if _state["stopping"]:  # the job unwound (its build ended, its files removed)
            os._exit(1)


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM in a worker: unwind the job in flight (``SystemExit`` runs its ``finally``
    blocks, so the build is ended and its files removed), or end at once when idle.

    Only the first counts: the pool sends another when it sees a worker end, and a second
    ``SystemExit`` in the middle of the cleanup would leave the build's files behind."""
    if _state["stopping"]:
        return
    _state["stopping"] = True
    if _state["busy"]:
        raise SystemExit(128 + signum)
    os._exit(1)


def in_dask(fn: Callable[[J], R], jobs: Sequence[J], scheduler: str | None) -> Iterator[R]:
    """``fn(job)`` for each job on the Dask cluster of ``scheduler``, as each finishes.

    :raises UsageError: without the dask extra, or without a scheduler.
    """
    from .._exceptions import UsageError

    try:
        from distributed import Client, as_completed
    except ImportError as exc:
        msg = "--engine dask needs the dask extra: pip install 'sapper[dask]'"
        raise UsageError(msg) from exc
    if not scheduler:
        msg = "--engine dask needs --scheduler ADDRESS (tcp://host:8786)"
        raise UsageError(msg)
    client = Client(scheduler)  # type: ignore[no-untyped-call]
    try:
        futures = client.map(fn, jobs, pure=False)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            yield future.result()
    finally:
        with contextlib.suppress(Exception):
            client.close()  # type: ignore[no-untyped-call]
