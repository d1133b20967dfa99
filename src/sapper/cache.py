"""The download cache: what it holds, and cleaning it (all, by age, or down to a size).

The cache (``$SAPPER_CACHE_DIR``, ``--cache-dir``, else the user cache directory) holds one
folder per kind: ``sdists/`` (verified archives, content-addressed by sha256),
``resolve/`` (resolutions of exact pins) and whatever else the index client keeps. A
file's *last use* is its access or modification time, whichever is later (reading a
cached sdist refreshes its access time on the usual ``relatime`` mounts, at least daily),
so a size cap evicts the least recently used downloads first. Removing a file the cache
still lists is always safe: sapper downloads it again, verified, when needed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CacheInfo", "CleanResult", "KindInfo", "clean", "enforce_max_size", "info"]

#: The kind whose files a size cap evicts (downloads); the others are small.
DOWNLOADS = "sdists"


@dataclass(frozen=True, slots=True, kw_only=True)
class KindInfo:
    kind: str
    files: int
    bytes: int
    #: Last use of the least recently used file (epoch seconds), None when empty.
    oldest: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheInfo:
    location: Path
    exists: bool
    kinds: tuple[KindInfo, ...] = ()

    @property
    def files(self) -> int:
        return sum(k.files for k in self.kinds)

    @property
    def bytes(self) -> int:
        return sum(k.bytes for k in self.kinds)


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanResult:
    removed_files: int
    removed_bytes: int
    kept_bytes: int
    dry_run: bool = False


@dataclass(frozen=True, slots=True)
class _Entry:
    path: Path
    kind: str
    size: int
    used: float


def _walk(root: Path) -> Iterator[_Entry]:
    if not root.is_dir():
        return
    for top in sorted(root.iterdir()):
        if top.is_symlink():
            continue
        if top.is_file():
            st = top.stat()
            yield _Entry(top, "other", st.st_size, max(st.st_atime, st.st_mtime))
            continue
        if not top.is_dir():
            continue
        for folder, dirs, names in os.walk(top, followlinks=False):
            dirs.sort()
            for name in sorted(names):
                path = Path(folder, name)
                try:
                    st = path.lstat()
                except OSError:  # removed meanwhile
                    continue
                if not path.is_symlink():
                    yield _Entry(path, top.name, st.st_size, max(st.st_atime, st.st_mtime))


def info(cache_dir: Path) -> CacheInfo:
    """Files, bytes and the oldest last use per kind (top-level folder) of the cache."""
    totals: dict[str, list[float]] = {}
    for entry in _walk(cache_dir):
        row = totals.setdefault(entry.kind, [0, 0, entry.used])
        row[0] += 1
        row[1] += entry.size
        row[2] = min(row[2], entry.used)
    kinds = tuple(
        KindInfo(kind=k, files=int(v[0]), bytes=int(v[1]), oldest=v[2])
        for k, v in sorted(totals.items())
    )
    return CacheInfo(location=cache_dir, exists=cache_dir.is_dir(), kinds=kinds)


def _remove(entries: list[_Entry], root: Path, *, dry_run: bool) -> tuple[int, int]:
    files = size = 0
    for entry in entries:
        if not dry_run:
            try:
                entry.path.unlink()
            except FileNotFoundError:
                continue
            _prune_empty(entry.path.parent, root)
        files += 1
        size += entry.size
    return files, size


def _prune_empty(folder: Path, root: Path) -> None:
    root = root.resolve()
    while folder.resolve() != root and root in folder.resolve().parents:
        try:
            folder.rmdir()
        except OSError:  # not empty, or gone
            return
        folder = folder.parent


def clean(
    cache_dir: Path,
    *,
    older_than_days: float | None = None,
    kinds: tuple[str, ...] = (),
    dry_run: bool = False,
    now: float | None = None,
) -> CleanResult:
    """Remove every file of the cache, or those not used for ``older_than_days`` days, of
    the given ``kinds`` (all when empty). ``dry_run`` only counts."""
    now = time.time() if now is None else now
    entries = list(_walk(cache_dir))
    chosen = [
        e
        for e in entries
        if (not kinds or e.kind in kinds)
        and (older_than_days is None or now - e.used > older_than_days * 86400)
    ]
    files, size = _remove(chosen, cache_dir, dry_run=dry_run)
    total = sum(e.size for e in entries)
    return CleanResult(
        removed_files=files, removed_bytes=size, kept_bytes=total - size, dry_run=dry_run
    )


def enforce_max_size(cache_dir: Path, max_bytes: int, *, dry_run: bool = False) -> CleanResult:
    """Evict the least recently used downloaded sdists until the cache holds at most
    ``max_bytes``, if it can. Other kinds are kept: resolutions are small, index pages come in
    pairs (headers and body) that must go together, and build environments (``build/``) are
    trees whose files are useless one by one; ``kept_bytes`` above ``max_bytes`` says so."""
    entries = list(_walk(cache_dir))
    total = sum(e.size for e in entries)
    excess = total - max_bytes
    victims: list[_Entry] = []
    if excess > 0:
        for entry in sorted(
            (e for e in entries if e.kind == DOWNLOADS), key=lambda e: (e.used, str(e.path))
        ):
            if excess <= 0:
                break
            victims.append(entry)
            excess -= entry.size
    files, size = _remove(victims, cache_dir, dry_run=dry_run)
    return CleanResult(
        removed_files=files, removed_bytes=size, kept_bytes=total - size, dry_run=dry_run
    )
