"""Which setuptools releases are analysed, and their wheels.

The release list comes from the index's simple API and the wheels are downloaded through
:class:`sapper.pypi.Index`, the same code ``sapper check`` uses: every wheel is checked
against the sha256 the index publishes, and kept in a content-addressed cache
(``$SAPPER_DEV_CACHE/index``, default ``~/.cache/sapper-dev/index``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from sapper._exceptions import FetchError
from sapper.pypi import Index, ReleaseFile

from ._base import MIN_VERSION, USER_AGENT, ExtractionError

PROJECT = "setuptools"


@dataclass(frozen=True)
class Release:
    version: str
    date: str
    yanked: bool
    yanked_reason: str | None
    requires_python: str | None
    wheel: ReleaseFile


def select_releases(files: Iterable[ReleaseFile]) -> list[Release]:
    """Releases >= MIN_VERSION, ascending, each with its py3 wheel.

    A release's date is the day its first file was uploaded; it is yanked when any of its
    files is (with the first reason given, in sorted order).
    """
    by_version: dict[Version, list[ReleaseFile]] = {}
    for file in files:
        if file.kind == "other":
            continue
        try:
            version = Version(file.version)
        except InvalidVersion:
            continue
        if version >= MIN_VERSION:
            by_version.setdefault(version, []).append(file)
    out: list[Release] = []
    for version in sorted(by_version):
        group = by_version[version]
        wheels = [
            f
            for f in group
            if f.kind == "wheel"
            and all(t.abi == "none" and t.platform == "any" for t in f.tags)
            and any(t.interpreter == "py3" for t in f.tags)
        ]
        if len(wheels) != 1:
            raise ExtractionError(
                f"setuptools {version}: expected one py3 wheel, found {len(wheels)}"
            )
        wheel = wheels[0]
        times = [f.upload_time for f in group if f.upload_time]
        if not times:
            raise ExtractionError(f"setuptools {version}: the index gives no upload time")
        reasons = {f.yanked_reason for f in group if f.yanked}
        out.append(
            Release(
                version=wheel.version,
                date=min(times)[:10],
                yanked=any(f.yanked for f in group),
                yanked_reason=(sorted(r for r in reasons if r) or [None])[0],
                requires_python=wheel.requires_python or None,
                wheel=wheel,
            )
        )
    return out


def cache_dir() -> Path:
    base = os.environ.get("SAPPER_DEV_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "sapper-dev"
    return root / "index"


def index(offline: bool) -> Index:
    """The index with the dev cache. Online, the page is always revalidated; ``offline``,
    the cached page is used whatever its age (and a missing one fails at once)."""
    if offline:
        return Index(cache_dir=cache_dir(), user_agent=USER_AGENT, retries=0, page_max_age=1e12)
    return Index(cache_dir=cache_dir(), user_agent=USER_AGENT, page_max_age=0)


def release_files(offline: bool) -> tuple[ReleaseFile, ...]:
    """Every file of setuptools the index lists."""
    try:
        return index(offline).files(PROJECT)
    except FetchError as exc:
        if offline:
            raise SystemExit(f"--offline: no usable cached page of {PROJECT} ({exc})") from None
        raise


def fetch_wheel(release: Release, offline: bool) -> bytes:
    """The wheel's bytes, from the cache or the index, checked against its sha256."""
    if offline and _cached_path(release.wheel) is None:
        raise SystemExit(f"--offline: {release.wheel.filename} is not cached")
    try:
        return index(offline).download(release.wheel).data
    except FetchError as exc:
        raise ExtractionError(f"setuptools {release.version}: {exc}") from exc


def _cached_path(file: ReleaseFile) -> Path | None:
    path = cache_dir() / "wheels" / file.sha256[:2] / file.sha256 / file.filename
    return path if path.is_file() else None
