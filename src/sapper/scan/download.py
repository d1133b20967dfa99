"""``sapper scan --download-only``: the download stage alone, into the cache, resumable,
within a size cap that evicts what the store says is analysed."""

from __future__ import annotations

import concurrent.futures as cf
import shutil
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import TargetError
from ..model import ErrorRecord
from ._threads import DaemonPool
from .analyse import failed_row, sdist_file
from .corpus import Job
from .store import Row

if TYPE_CHECKING:
    from ..pypi import Download, Index
    from .engine import ScanOptions, _Batcher, _Counter
    from .stages import StageClock

__all__ = ["Downloads", "download_only", "in_cache"]


@dataclass(slots=True)
class Downloads:
    """What ``--download-only`` did."""

    downloaded: int = 0
    bytes: int = 0
    cached: int = 0
    deferred: int = 0
    #: Analysed sdists removed from the cache to make room under the cap, and their bytes.
    evicted: int = 0
    evicted_bytes: int = 0


def download_only(
    jobs: list[Job],
    *,
    index: Index,
    options: ScanOptions,
    done: set[str],
    batcher: _Batcher,
    counter: _Counter,
    stats: Downloads,
    clock: StageClock,
) -> None:
    """Download the sdists of ``jobs`` into the cache; a failed download becomes a row, as
    in a scan. With ``download_cap``, an sdist that would take the cache past it first
    evicts sdists the store holds as analysed (``done``), the least recently used first;
    if that is not enough room, it is left for a later run (by the size the index lists;
    an sdist already in the cache needs no room)."""
    room: int | None = None
    evictable: Evictable | None = None
    if options.download_cap is not None and index.cache_dir is not None:
        from ..cache import info

        room = options.download_cap - info(index.cache_dir).bytes  # as the cap counts
        evictable = Evictable(index.cache_dir, done)
    queue = deque(job for job in jobs if job.path is None)  # a local file: nothing to do
    pool = DaemonPool(options.connections, name="sapper-download")
    # future -> (job, whether it holds room under the cap)
    running: dict[cf.Future[Download | Row], tuple[Job, bool]] = {}

    def get(job: Job) -> Download | Row:
        start = time.monotonic()
        try:
            got = index.download(sdist_file(job))
        except (TargetError, OSError) as exc:
            kind = exc.kind if isinstance(exc, TargetError) else "fetch"
            return failed_row(job, ErrorRecord(type=kind, message=str(exc)))
        if not got.from_cache:
            clock.add(busy=time.monotonic() - start, nbytes=got.size)
        return got

    try:
        while queue or running:
            while queue and len(running) < options.connections:
                job = queue.popleft()
                if job.sha256 and job.sha256 in done:
                    counter.skipped += 1
                    continue
                reserved = room is not None and not in_cache(index, job)
                if room is not None and reserved:
                    need = job.size or 0
                    if need > room and evictable is not None:
                        freed, count = evictable.evict(need - room)
                        room += freed
                        stats.evicted += count
                        stats.evicted_bytes += freed
                    if need > room:
                        stats.deferred += 1
                        continue
                    room -= need
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


class Evictable:
    """The cached sdists the store holds as analysed, least recently used first; listed
    once, when room is first needed."""

    def __init__(self, cache_dir: Path, done: set[str]) -> None:
        self.root = cache_dir / "sdists"
        self.done = done
        self._folders: deque[tuple[Path, int]] | None = None

    def _list(self) -> deque[tuple[Path, int]]:
        found: list[tuple[float, Path, int]] = []
        if self.root.is_dir():
            for prefix in self.root.iterdir():
                if not prefix.is_dir():
                    continue
                for folder in prefix.iterdir():
                    if folder.name not in self.done or not folder.is_dir():
                        continue
                    files = [f.stat() for f in folder.iterdir() if f.is_file()]
                    used = max((s.st_atime for s in files), default=0.0)
                    found.append((used, folder, sum(s.st_size for s in files)))
        found.sort(key=lambda entry: (entry[0], entry[1].name))
        return deque((folder, size) for _, folder, size in found)

    def evict(self, need: int) -> tuple[int, int]:
        """Remove analysed sdists until ``need`` bytes are freed; nothing when all of them
        would not free that much. The bytes freed and the sdists removed."""
        if self._folders is None:
            self._folders = self._list()
        if sum(size for _, size in self._folders) < need:
            return 0, 0
        freed = count = 0
        while freed < need and self._folders:
            folder, size = self._folders.popleft()
            shutil.rmtree(folder, ignore_errors=True)
            freed += size
            count += 1
        return freed, count


def in_cache(index: Index, job: Job) -> bool:
    """Whether the cache holds ``job``'s sdist (under ``sdists/<sha[:2]>/<sha>/``, where
    :meth:`Index.download` keeps it)."""
    if index.cache_dir is None or not job.sha256:
        return False
    folder = index.cache_dir / "sdists" / job.sha256[:2] / job.sha256
    return folder.is_dir() and any(folder.iterdir())
