"""What ``sapper scan`` reads: sdist files, list files, requirements, the top-PyPI list.

:func:`expand` turns the command line's sources into :class:`Item` s (a local archive or a
requirement), :func:`resolve` turns a requirement into the :class:`Job` s of the releases a
:class:`VersionPolicy` selects, through the index's simple API (one project page per
project), and :func:`top_list` is the copy of the top-PyPI-packages list sapper ships.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._exceptions import FetchError, UsageError
from ..inputs.sources import is_sdist_filename

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from ..pypi import Index, ProjectListing, SdistFile

__all__ = [
    "Item",
    "Job",
    "TopList",
    "VersionPolicy",
    "expand",
    "parse_versions",
    "resolve",
    "top_list",
]


# --------------------------------------------------------------------------- the top list


@dataclass(frozen=True, slots=True, kw_only=True)
class TopList:
    """The most-downloaded projects on PyPI over 30 days, as shipped with sapper."""

    #: The day the list was made (``YYYY-MM-DD``).
    date: str
    source: str
    #: (project, downloads), most downloaded first.
    rows: tuple[tuple[str, int], ...]

    def top(self, n: int) -> list[tuple[str, int]]:
        if n < 1:
            msg = f"--top {n}: give a positive number of projects"
            raise UsageError(msg)
        return list(self.rows[:n])

    def downloads(self, project: str | None) -> int | None:
        """The 30-day download count of ``project``, or None when it is not on the list."""
        if not project:
            return None
        return _counts(self).get(_canonical(project))


_SEPARATORS = re.compile(r"[-_.]+")


def _canonical(name: str) -> str:
    """The PEP 503 normal form of a project name, as ``packaging.utils.canonicalize_name``
    (without importing it: ``packaging.utils`` imports ``packaging.tags``, and a scan of
    local files needs neither)."""
    return _SEPARATORS.sub("-", name).lower()


#: The download counts of each list by canonical name, keyed by the list's identity: a
#: cache keyed by the list itself would hash its 15,000 rows at every look-up.
_COUNTS: dict[int, tuple[TopList, dict[str, int]]] = {}


def _counts(top: TopList) -> dict[str, int]:
    found = _COUNTS.get(id(top))
    if found is None or found[0] is not top:
        if len(_COUNTS) >= 4:
            _COUNTS.clear()
        found = _COUNTS[id(top)] = (top, {_canonical(n): c for n, c in top.rows})
    return found[1]


@functools.cache
def top_list() -> TopList:
    """The list shipped in ``sapper/data/top-pypi-packages.json``."""
    raw = json.loads(resources.files("sapper").joinpath("data/top-pypi-packages.json").read_bytes())
    return TopList(
        date=str(raw["date"]),
        source=str(raw["source"]),
        rows=tuple((str(name), int(count)) for name, count in raw["rows"]),
    )


# --------------------------------------------------------------------------- versions


@dataclass(frozen=True, slots=True, kw_only=True)
class VersionPolicy:
    """Which releases of a project to take: ``newest``, ``all``, ``before`` a day, or the
    ``newest-per-year``."""

    kind: Literal["newest", "all", "before", "newest-per-year"]
    before: _dt.date | None = None

    def __str__(self) -> str:
        return f"before:{self.before}" if self.kind == "before" else self.kind


def parse_versions(text: str) -> VersionPolicy:
    """Parse ``newest``, ``all``, ``before:YYYY-MM-DD`` or ``newest-per-year``."""
    text = text.strip()
    if text in ("newest", "all", "newest-per-year"):
        return VersionPolicy(kind=text)  # type: ignore[arg-type]
    if text.startswith("before:"):
        try:
            day = _dt.date.fromisoformat(text.partition(":")[2])
        except ValueError:
            pass
        else:
            return VersionPolicy(kind="before", before=day)
    msg = f"--versions {text!r}: use newest, all, before:YYYY-MM-DD or newest-per-year"
    raise UsageError(msg)


# --------------------------------------------------------------------------- items and jobs


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One entry of the corpus before resolution: a local archive or a requirement."""

    kind: Literal["path", "requirement"]
    #: The absolute path, or the requirement as written.
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    """One sdist to analyse: a local file, or a file on the index."""

    #: What the user asked for: the path, or the requirement.
    target: str
    path: str | None = None
    url: str | None = None
    project: str | None = None
    version: str | None = None
    filename: str | None = None
    #: Known up front for index files; computed from the file for local ones.
    sha256: str | None = None
    upload_time: str | None = None
    size: int | None = None
    has_wheel: bool | None = None
    has_pure_wheel: bool | None = None

    @property
    def fallback_key(self) -> str:
        """The store key when the archive could not be read or downloaded."""
        if self.sha256:
            return self.sha256
        return f"path:{self.path}" if self.path else f"req:{self.target}"


def expand(sources: Sequence[str], *, top: int | None = None) -> Iterator[Item]:
    """The items the command line names, in order, without duplicates.

    A source is a directory (every sdist in it, recursively, sorted), an sdist file, a text
    file listing paths, requirements or names (one a line, ``#`` comments; relative paths
    are relative to the list file), or a requirement. ``top`` adds the ``top`` most
    downloaded projects of :func:`top_list`.

    :raises UsageError: for a source that is none of these.
    """
    from ..pypi import looks_like_requirement

    seen: set[tuple[str, str]] = set()

    def once(item: Item) -> Iterator[Item]:
        ident = (item.kind, item.text)
        if ident not in seen:
            seen.add(ident)
            yield item

    for source in sources:
        path = Path(source)
        if path.is_dir():
            for found in _sdists_in(path):
                yield from once(Item(kind="path", text=found))
        elif path.is_file():
            if is_sdist_filename(path.name):
                yield from once(Item(kind="path", text=_absolute(path)))
            else:
                for item in _read_list(path):
                    yield from once(item)
        elif looks_like_requirement(source):
            yield from once(Item(kind="requirement", text=source.strip()))
        else:
            from .._reqtext import requirement_problem

            problem = requirement_problem(source)
            if problem is not None:
                msg = f"{source}: not a valid requirement: {problem}"
                raise UsageError(msg)
            msg = (
                f"{source}: not a directory of sdists, an sdist, a list file or a requirement "
                "such as 'name' or 'name==1.0'"
            )
            raise UsageError(msg)
    if top is not None:
        for name, _ in top_list().top(top):
            yield from once(Item(kind="requirement", text=name))


def _absolute(path: Path) -> str:
    """The absolute path, symbolic links kept (the store key of a file that fails)."""
    return os.path.abspath(path)  # noqa: PTH100


def _sdists_in(directory: Path) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(_absolute(Path(root) / f) for f in files if is_sdist_filename(f))
    return sorted(found)


def _read_list(path: Path) -> Iterator[Item]:
    from ..pypi import looks_like_requirement

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"{path}: cannot read the list file ({exc}); give a UTF-8 text file"
        raise UsageError(msg) from exc
    base = path.parent
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line or line.startswith("-"):  # comments, blank lines, pip options
            continue
        candidate = Path(line) if Path(line).is_absolute() else base / line
        if candidate.is_file() and is_sdist_filename(candidate.name):
            yield Item(kind="path", text=_absolute(candidate))
        elif candidate.is_dir():
            for found in _sdists_in(candidate):
                yield Item(kind="path", text=found)
        elif looks_like_requirement(line):
            yield Item(kind="requirement", text=line)
        else:
            msg = (
                f"{path}:{number}: {line!r} is neither an sdist that exists nor a requirement; "
                "fix or remove the line"
            )
            raise UsageError(msg)


# --------------------------------------------------------------------------- resolution


def resolve(index: Index, requirement: str, policy: VersionPolicy) -> list[Job]:
    """The jobs of the releases of ``requirement`` that ``policy`` selects.

    The project page is read once; one sdist per release (the one pip would take). Yanked
    files count only for an exact pin; pre-releases only when the specifier names one or
    the project has nothing else.

    :raises FetchError: when the project is unknown, the index cannot be read, or nothing
        matches.
    """
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    try:
        req = Requirement(requirement)
    except InvalidRequirement as exc:
        msg = f"{requirement!r} is not a valid requirement ({exc}); write NAME or NAME==VERSION"
        raise FetchError(msg, permanent=True) from None
    if req.url:
        msg = f"{requirement}: sapper does not fetch URL requirements; pass the file instead"
        raise FetchError(msg, permanent=True)
    listing = index.listing(req.name)
    specs = list(req.specifier)
    pinned = len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version
    if not specs and policy.kind == "newest":
        newest = _newest(listing)
        if newest is not None:
            return [_job(requirement, _preferred(listing, newest), listing)]
    # only the light records of the page are read here; objects are made for the chosen
    by_version: dict[Version, list[int]] = {}
    for text, positions in listing.sdists_by_version().items():
        usable = [p for p in positions if pinned or not listing.sdist_meta(p)[3]]
        if not usable:
            continue
        try:
            version = Version(text)
        except InvalidVersion:
            continue  # legacy versions only through an exact pin, as `check` does
        by_version.setdefault(version, []).extend(usable)
    # pre-releases too: pip's rule (pre-releases only when the specifier names one or no
    # final release matches) is applied by _select to the releases there were at the time
    matching = list(req.specifier.filter(by_version, prereleases=True))
    if not matching and pinned:
        # a legacy version pinned with ===, or anything resolve() explains better
        return [_job(requirement, index.resolve(requirement), listing)]
    chosen = _select(matching, by_version, listing, policy, req.specifier)
    if not chosen:
        if policy.kind == "newest":
            index.resolve(requirement)  # raises a FetchError that says why
        msg = (
            f"{requirement}: no release with an sdist matches --versions {policy} "
            f"on {index.index_url}"
        )
        raise FetchError(msg, permanent=True)
    return [_job(requirement, _preferred(listing, by_version[v]), listing) for v in chosen]


def _newest(listing: ProjectListing) -> list[int] | None:
    """The usable sdists of the newest release a bare name means, walking down from the
    newest version: the newest final release, else the newest pre-release (pip's rule, as
    an empty specifier's ``filter`` applies it), parsing only the versions walked."""
    from ..pypi._pages import parsed_version

    by_version = listing.sdists_by_version()
    pre: list[int] | None = None
    for text in reversed(listing.sdist_order()):
        usable = [p for p in by_version[text] if not listing.sdist_meta(p)[3]]
        if not usable:
            continue
        version = parsed_version(text)
        if version is not None and not version.is_prerelease:
            return usable
        if pre is None:
            pre = usable
    return pre


def _preferred(listing: ProjectListing, positions: list[int]) -> SdistFile:
    """The sdist pip would take among the files of one release."""
    from ..pypi._select import file_preference

    def key(position: int) -> tuple[bool, bool, int]:
        filename, sha256, _, yanked = listing.sdist_meta(position)
        return file_preference(filename, sha256, yanked=yanked)

    return listing.sdist_at(min(positions, key=key))


def _select(
    versions: list[Version],
    files: dict[Version, list[int]],
    listing: ProjectListing,
    policy: VersionPolicy,
    specifier: SpecifierSet,
) -> list[Version]:
    """The releases ``policy`` selects among ``versions`` (every release the specifier
    matches, pre-releases included), each as pip would have chosen it: for ``before`` and
    ``newest-per-year``, among the releases uploaded by then, so that a project that had
    only pre-releases then (black until 2022) gives its newest pre-release of the time."""

    def pip_choice(pool: Iterable[Version]) -> Version | None:
        # the specifier's filter applies pip's rule to pre-releases
        return max(specifier.filter(pool), default=None)

    if policy.kind == "all":
        return sorted(specifier.filter(versions))
    if policy.kind == "newest":
        newest = pip_choice(versions)
        return [] if newest is None else [newest]
    uploaded = {v: _upload_day(listing.sdist_meta(p)[2] for p in files[v]) for v in versions}
    dated = sorted((day, v) for v, day in uploaded.items() if day is not None)
    if policy.kind == "before":
        assert policy.before is not None
        choice = pip_choice(v for day, v in dated if day < policy.before)
        return [] if choice is None else [choice]
    # newest-per-year: what pip chose at the end of each year, kept for the year it was
    # uploaded in (a year whose choice is an older release adds nothing)
    chosen: list[Version] = []
    for year in sorted({day.year for day, _ in dated}):
        choice = pip_choice(v for day, v in dated if day.year <= year)
        day_of = uploaded[choice] if choice is not None else None
        if choice is not None and day_of is not None and day_of.year == year:
            chosen.append(choice)
    return chosen


def _upload_day(times: Iterable[str | None]) -> _dt.date | None:
    days = [d for d in map(parse_time, times) if d is not None]
    return min(days).date() if days else None


def parse_time(text: str | None) -> _dt.datetime | None:
    """An ISO 8601 upload time as a naive UTC datetime, or None."""
    if not text:
        return None
    try:
        when = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return when


def _job(requirement: str, file: SdistFile, listing: ProjectListing) -> Job:
    from packaging.version import InvalidVersion, Version

    try:
        normal = str(Version(file.version))
    except InvalidVersion:
        normal = file.version
    return Job(
        target=requirement,
        url=file.url,
        project=file.name,
        version=file.version,
        filename=file.filename,
        sha256=file.sha256 or None,
        upload_time=file.upload_time,
        size=file.size,
        has_wheel=normal in listing.wheel_versions,
        has_pure_wheel=normal in listing.pure_wheel_versions,
    )
