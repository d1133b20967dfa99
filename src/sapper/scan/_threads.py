"""A thread pool whose threads do not hold the process up when it is interrupted.

``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits, so
after Ctrl-C a scan would wait for every download in flight (up to the network timeout,
times the retries). Its threads here are daemons: once the pool is shut down without
waiting, an exit does not wait for them. What they were doing is safe to abandon: the cache
is written through temporary files renamed into place.
"""

from __future__ import annotations

import concurrent.futures as cf
import queue
import threading
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DaemonPool"]

T = TypeVar("T")

_Task = tuple["cf.Future[Any]", "Callable[..., Any]", tuple[Any, ...]]


class DaemonPool:
    """``submit`` and ``shutdown`` of an executor, run by up to ``workers`` daemon threads."""

    def __init__(self, workers: int, *, name: str = "sapper") -> None:
        self._workers = max(1, workers)
        self._name = name
        self._queue: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False
        self._idle = 0

    def submit(self, fn: Callable[..., T], /, *args: Any) -> cf.Future[T]:
        future: cf.Future[T] = cf.Future()
        with self._lock:
            if self._closed:
                msg = "cannot submit to a pool that is shut down"
                raise RuntimeError(msg)
            self._queue.put((future, fn, args))
            if self._idle == 0 and len(self._threads) < self._workers:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._idle = max(0, self._idle - 1)
        return future

    def _work(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            future, fn, args = task
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args)
                except BaseException as exc:  # handed to whoever waits on the future
                    future.set_exception(exc)
                else:
                    future.set_result(result)
                del future, fn, args, task
            with self._lock:
                self._idle += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        task = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if task is not None:
                        task[0].cancel()
            for _ in self._threads:
                self._queue.put(None)
            threads = list(self._threads)
        if wait:
            for thread in threads:
                thread.join()
