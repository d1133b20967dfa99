"""The worker processes of the process engine: started ahead (forked while the scan has one
thread, else from a fork server), dying with the scan, and an inline stand-in for ``-j 1``."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .analyse import AnalyseOptions, fetch_or_row, read_local
from .corpus import Job
from .store import Row

__all__ = ["Inline", "WarmPool", "forked_pool", "process_pool", "read_and_analyse"]


class Inline:
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


class WarmPool:
    """A process pool whose workers are started now, while the caller goes on.

    On Linux, while this process has a single thread (at the start of a scan: before the
    store, the downloads or the writer start any), the workers are forked from it at once,
    with the rule modules, the catalogue and the top list loaded here first: they are
    ready to analyse while this process still opens the store. Otherwise a thread starts a
    pool whose workers fork from a fork server (which imports all that first), submitting
    one empty task a worker so that they all start now rather than at the first real task.
    """

    def __init__(self, workers: int) -> None:
        self._pool: cf.ProcessPoolExecutor | None = forked_pool(workers)
        self._thread: threading.Thread | None = None
        if self._pool is None:
            self._thread = threading.Thread(
                target=self._start, args=(workers,), name="sapper-warm", daemon=True
            )
            self._thread.start()

    def _start(self, workers: int) -> None:
        with contextlib.suppress(Exception):  # the first real task starts them otherwise
            pool = process_pool(workers)
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


def forked_pool(workers: int) -> cf.ProcessPoolExecutor | None:
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


def read_and_analyse(
    analyse_fn: Callable[[Job, bytes | Path, AnalyseOptions], Row],
    job: Job,
    options: AnalyseOptions,
) -> Row:
    """Runs in a worker process: read (and hash) the local file of ``job``, then analyse it
    with ``analyse_fn``; a file that cannot be read gives its failure row, as in
    :func:`sapper.scan.engine._fetch`."""
    got = fetch_or_row(job, read_local)
    return got if isinstance(got, Row) else analyse_fn(*got, options)


def process_pool(workers: int) -> cf.ProcessPoolExecutor:
    import multiprocessing

    # not fork: by now the download and writer threads may hold locks (the first pool of a
    # scan is forked while it has one thread: forked_pool); the fork server imports the
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
