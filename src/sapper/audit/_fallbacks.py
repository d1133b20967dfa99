"""What ``sapper wheelhouse`` tries when a build with the newest good setuptools is not
enough: an older setuptools after an error that names a removal (:func:`_older_for`),
an older release of another build requirement found by bisection
(:func:`fix_other_requirement`), or the nearest later release of the distribution that
installs here (:func:`nearest_release`). Each is decided by real builds.
"""

from __future__ import annotations

import contextlib
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..build import Builder, BuildResult
    from ..pypi import Index
    from . import PackageAudit
    from .inputs import FileRef
    from .verdicts import BuildVerdict

__all__ = ["OtherFix", "fix_other_requirement", "nearest_release"]


#: Build requirements never bisected: setuptools has its own logic, and these do not break
#: builds by themselves.
_NOT_BISECTED = frozenset({"setuptools", "pip"})
#: How many other build requirements, and older major series of each, are tried.
_OTHER_REQUIREMENTS = 3
_OLDER_SERIES = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class OtherFix:
    """A build requirement other than setuptools whose newer releases break a build."""

    #: Canonical name of the requirement (``cython``).
    name: str
    #: The build constraint (``cython<3.0.0``).
    constraint: str
    #: The newest release that builds it.
    newest_good: str
    #: What the bisection found, in words.
    why: str


def fix_other_requirement(
    archive: Path,
    failed: BuildResult,
    *,
    override: Sequence[str],
    builder: Builder,
    index: Index,
    files_of: Callable[[str], list[FileRef]] | None,
) -> OtherFix | None:
    """When ``failed`` (a build of ``archive`` under ``override``) may have failed because of
    a build requirement other than setuptools: for each one the build installed without
    an exact pin (at most :data:`_OTHER_REQUIREMENTS`), build with the newest release of
    each older major series (at most :data:`_OLDER_SERIES`); when one builds, bisect the
    releases from it to the newest with real builds
    (:func:`sapper.canary.bisect.bisect`) and return the constraint ``NAME<FIRST_BAD``.
    None when nothing helps."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    from ..canary.bisect import bisect

    names: list[str] = []
    for text in (*failed.declared_requires, *failed.dynamic_requires):
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        name = str(canonicalize_name(req.name))
        exact = any(s.operator in ("==", "===") for s in req.specifier)
        if name not in _NOT_BISECTED and not exact and name not in names:
            names.append(name)
    for name in names[:_OTHER_REQUIREMENTS]:
        versions = _releases(name, index, files_of)
        if len(versions) < 2:
            continue
        newest = versions[-1]
        older = _newest_of_older_series(versions)[:_OLDER_SERIES]
        good = None
        for candidate in older:
            pins = [*override, f"{name}=={candidate}"]
            if builder.build(archive, mode="wheel", override=pins).outcome == "ok":
                good = candidate
                break
        if good is None:
            continue
        span = versions[versions.index(good) :]
        found = bisect(archive, span, builder=builder, mode="wheel", package=name, pins=override)
        change = next((c for c in found.changes if c[1] == "ok" and c[2] == "fail"), None)
        if change is None:
            continue
        first_bad = change[0]
        newest_good = span[span.index(first_bad) - 1]
        bad_step = next(s for s in found.steps if s.version == first_bad)
        why = (
            f"{name} {first_bad} breaks it ({_said(bad_step.message, bad_step.signature)}); "
            f"{newest_good} is the newest "
            f"release before it, found by bisecting {len(found.steps)} real builds between "
            f"{good} and {newest}"
        )
        return OtherFix(
            name=name, constraint=f"{name}<{first_bad}", newest_good=newest_good, why=why
        )
    return None


def _said(message: str | None, signature: str | None) -> str:
    """The error as the build said it: its last line, else the signature."""
    lines = [line.strip() for line in (message or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else signature or "failed"


def _releases(
    name: str, index: Index, files_of: Callable[[str], list[FileRef]] | None
) -> list[str]:
    """The final, not yanked releases of ``name``, ascending."""
    from packaging.version import InvalidVersion, Version

    from .._exceptions import SapperError
    from .resolve import _file_version

    found: dict[Version, str] = {}
    try:
        if files_of is not None:
            pairs = [(_file_version(f, name), f.yanked) for f in files_of(name)]
        else:
            pairs = [
                (f.version, f.yanked) for f in index.files(name) if f.kind in ("sdist", "wheel")
            ]
    except SapperError:
        return []
    for text, yanked in pairs:
        if not text or yanked:
            continue
        with contextlib.suppress(InvalidVersion):
            v = Version(text)
            if not v.is_prerelease:
                found.setdefault(v, text)
    return [found[v] for v in sorted(found)]


def _newest_of_older_series(versions: Sequence[str]) -> list[str]:
    """The newest release of each major series older than the newest one, newest first
    (``0.29.37`` for Cython 3)."""
    from packaging.version import Version

    newest_major = Version(versions[-1]).major
    best: dict[int, str] = {}
    for text in versions:
        major = Version(text).major
        if major < newest_major:
            best[major] = text
    return [best[m] for m in sorted(best, reverse=True)]


def _names_a_removal(result: BuildResult) -> bool:
    text = f"{result.signature or ''}\n{result.message or ''}"
    return any(pattern.search(text) for pattern, _ in _REMOVALS)


def nearest_release(
    p: PackageAudit,
    builder: Builder,
    index: Index,
    files_of: Callable[[str], list[FileRef]],
) -> str | None:
    """The nearest release after ``p``'s that installs on this interpreter: one with a
    wheel for it, or one whose sdist a real build (with its newest good setuptools) turns
    into a wheel. The newest release is tried first (None when it does not install either);
    then a binary search over the releases between, as for a history where old releases
    fail and newer ones work (about log2(n) builds)."""
    from packaging.version import InvalidVersion, Version

    from .._exceptions import SapperError
    from .resolve import _file_version

    if not p.version:
        return None
    try:
        current = Version(p.version)
        files = files_of(p.name)
    except (InvalidVersion, SapperError):
        return None
    versions = set()
    for f in files:
        with contextlib.suppress(InvalidVersion, ValueError):
            v = Version(_file_version(f, p.name) or "")
            if v > current and not v.is_prerelease and not f.yanked:
                versions.add(v)
    candidates = [str(v) for v in sorted(versions)]
    memo: dict[str, bool] = {}

    def installs(version: str) -> bool:
        if version not in memo:
            memo[version] = _installs_here(p.name, version, builder, index, files_of)
        return memo[version]

    if not candidates or not installs(candidates[-1]):
        return None
    lo, hi = -1, len(candidates) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if installs(candidates[mid]):
            hi = mid
        else:
            lo = mid
    return candidates[hi]


def _installs_here(
    name: str,
    version: str,
    builder: Builder,
    index: Index,
    files_of: Callable[[str], list[FileRef]],
) -> bool:
    """Whether ``name==version`` has a wheel for this interpreter, or its sdist builds."""
    from .._exceptions import SapperError
    from . import PackageAudit
    from .inputs import Entry, InputSet
    from .resolve import resolve_entry, target_environment
    from .verdicts import judge_sdist
    from .wheelhouse import _download

    target = target_environment()
    inputs = InputSet(path="", format="requirements", entries=())
    entry = Entry(name=name, version=version, specifier=f"=={version}")
    try:
        found = resolve_entry(entry, inputs, target, files_of=files_of)
    except SapperError:
        return False
    if found.source == "wheel":
        return True
    if found.source != "sdist" or found.sdist is None or not found.sdist.url:
        return False
    verdict = judge_sdist(found, target, downloader=index)
    override = [f"setuptools=={verdict.newest_good}"] if verdict.newest_good else []
    p = PackageAudit(name=name, version=version, origin="", source="sdist", how="")
    try:
        data = _download(p, found.sdist.url, found.sdist.sha256 or "", found.sdist.filename, index)
    except SapperError:
        return False
    with tempfile.TemporaryDirectory(prefix="sapper-nearest-") as tmp:
        archive = Path(tmp) / found.sdist.filename
        archive.write_bytes(data)
        return builder.build(archive, mode="wheel", override=override).outcome == "ok"


#: Build errors that name a setuptools removal, and the release that made it: when a build
#: with sapper's newest good release still fails with one of these (a use the static rules
#: cannot see, such as a keyword passed through ``setup(**kwargs)``), the wheelhouse tries
#: once more with the newest admissible release before that one.
_REMOVALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"use_2to3 is invalid"), "58.0.0"),  # 58.0.0/58.0.1 built it unconverted
    (re.compile(r"No module named '?pkg_resources"), "82.0.0"),
    (re.compile(r"No module named '?setuptools\.extern"), "71.0.0"),
    (re.compile(r"invalid command 'test'|No module named '?setuptools\.command\.test"), "72.0.0"),
    (re.compile(r"cannot import name '?Feature"), "46.0.0"),
)


def _older_for(message: str, pinned: str, verdict: BuildVerdict | None) -> str | None:
    """The release to try after ``pinned`` failed with ``message``, or None."""
    from packaging.specifiers import SpecifierSet

    from ..versions import catalogue
    from .verdicts import admissible

    cat = catalogue()
    for pattern, removed_in in _REMOVALS:
        if not pattern.search(message):
            continue
        limit = cat.parsed(removed_in)
        if cat.parsed(pinned) < limit:
            return None  # the release that failed predates the removal: not its cause
        requires = SpecifierSet(verdict.requires) if verdict and verdict.requires else None
        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        older = [v for v in admissible(cat, requires, python) if cat.parsed(v) < limit]
        return older[-1] if older else None
    return None
