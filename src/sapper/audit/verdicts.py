"""Verdicts for the sdists an installer would build: which setuptools they get today,
whether that fails, and the newest setuptools that builds them.

The sdist is downloaded (sha256-checked, cached), read in memory and checked with
:func:`sapper.check.check_files`; nothing is executed. The setuptools versions a build may
get are the releases that the sdist's ``build-system.requires`` admits, that support the
target Python, and that are not yanked (pip never picks a yanked release for a range).
The *good* ones are those where no finding fails; "today" is the newest admissible one,
what build isolation installs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from .._exceptions import SapperError, TargetError
from ..check import Options, check_files
from ..facts.pyproject import DEFAULT_REQUIRES
from ..inputs.sources import ProjectFiles, read_sdist
from ..model import Finding, Project
from ..project import build_system, load_pyproject
from ..versions import Catalogue, catalogue, contains
from .inputs import FileRef
from .resolve import Resolution, Target

if TYPE_CHECKING:
    from ..pypi import Index

__all__ = ["BuildVerdict", "admissible", "judge_files", "judge_sdist", "next_release"]

Outcome = Literal["builds", "fails", "unknown"]

#: pip's setuptools specifier for a project that names none (``>=40.8.0``).
_PIP_DEFAULT = DEFAULT_REQUIRES[0].removeprefix("setuptools")


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildVerdict:
    """What sapper predicts for building one sdist with setuptools."""

    #: ``builds``/``fails`` with the setuptools of today; ``unknown``: not a setuptools
    #: build, or the sdist could not be read.
    outcome: Outcome
    backend: str | None = None
    #: The setuptools requirement of ``build-system.requires`` (``""``: none).
    requires: str = ""
    #: The setuptools a build gets today (newest admissible release).
    today: str | None = None
    #: Rule codes that make the build fail with ``today``.
    because: tuple[str, ...] = ()
    #: Newest admissible release where no finding fails.
    newest_good: str | None = None
    #: The good releases as a union of specifier ranges.
    good: tuple[str, ...] = ()
    #: The build constraint that makes the build get ``newest_good`` (``setuptools<X``);
    #: None when none is needed or none helps.
    constraint: str | None = None
    findings: tuple[Finding, ...] = ()
    #: Why the outcome is what it is, in words.
    reason: str = ""
    #: Build constraints on other build requirements (``cython<3.0.0``) that a real build
    #: needed (``sapper audit --verify``), each found by bisecting real builds.
    build_constraints: tuple[str, ...] = ()


def admissible(
    cat: Catalogue, requires: SpecifierSet | None, python: str | None, *, yanked: bool = False
) -> list[str]:
    """The releases a build may get: match ``requires``, support ``python``, not yanked
    (unless pinned with ``==``, or ``yanked``), final releases; ascending."""
    pinned = yanked or (requires is not None and any(s.operator in ("==", "===") for s in requires))
    out = []
    for version in cat.universe:
        release = cat.release(version)
        if release is None:
            continue
        if release.yanked and not pinned:
            continue
        if requires is not None and not requires.contains(cat.parsed(version), prereleases=True):
            continue
        if python and release.requires_python and not _supports(release.requires_python, python):
            continue
        out.append(version)
    return out


@functools.lru_cache(maxsize=4096)
def _supports(requires_python: str, python: str) -> bool:
    try:
        return SpecifierSet(requires_python).contains(python + ".0")
    except InvalidSpecifier:  # pragma: no cover - PyPI data is clean
        return True


#: Rule code -> (first release that builds *wrong*, failing range of the finding it applies
#: to). A rule's ``fails`` says where the build errors; for installing, a release that
#: builds without error but produces a broken wheel is not good either. setuptools 58.0.0
#: and 58.0.1 dropped ``use_2to3=True`` silently and built unconverted Python 2 code; the
#: error only came in 58.0.2 (``use_2to3=False``, failing in ``==58.0.2`` alone, is fine).
_BROKEN_BEFORE_ERROR: dict[str, tuple[str, tuple[str, ...]]] = {
    "SP002": ("58.0.0", (">=58.0.2",)),
}


def _silently_broken(finding: Finding, version: str, cat: Catalogue) -> bool:
    known = _BROKEN_BEFORE_ERROR.get(finding.code)
    if known is None or finding.fails != known[1]:
        return False
    return cat.parsed(version) >= cat.parsed(known[0])


def next_release(cat: Catalogue, version: str) -> str | None:
    """The release right after ``version`` in the catalogue (yanked ones included)."""
    universe = cat.universe
    try:
        i = universe.index(version)
    except ValueError:
        return None
    return universe[i + 1] if i + 1 < len(universe) else None


def judge_files(
    files: ProjectFiles,
    *,
    label: str,
    project: Project,
    target: Target,
    enforce_deprecations: bool = False,
) -> BuildVerdict:
    """Check one sdist's files (a :class:`sapper.inputs.sources.ProjectFiles`) and decide."""
    cat = catalogue()
    options = Options(python=target.python, enforce_deprecations=enforce_deprecations)
    result = check_files(files, target=label, kind="sdist", options=options, project=project)
    bs = build_system(load_pyproject(files))
    # Without a setuptools requirement pip installs `setuptools>=40.8.0` (its default for
    # a project with no build-system.requires).
    spec = bs.setuptools if bs.setuptools is not None else SpecifierSet(_PIP_DEFAULT)
    requires = str(spec)
    if not result.uses_setuptools or result.verdict is None:
        return BuildVerdict(
            outcome="unknown",
            backend=result.backend,
            requires=requires,
            findings=result.findings,
            reason=f"built with {result.backend}, not setuptools; sapper models setuptools only",
        )
    allowed = admissible(cat, spec, target.python)
    if not allowed:
        return BuildVerdict(
            outcome="fails",
            backend=result.backend,
            requires=requires,
            findings=result.findings,
            reason=(f"no setuptools release matches {requires or 'any'} on Python {target.python}"),
        )

    def failing(version: str) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys(
                f.code
                for f in result.findings
                if contains(f.fails_enforced if enforce_deprecations else f.fails, version)
                or _silently_broken(f, version, cat)
            )
        )

    today = allowed[-1]
    because = failing(today)
    good = [v for v in allowed if not failing(v)]
    newest_good = good[-1] if good else None
    # The range shown also spans yanked releases, so it is not cut at each of them.
    shown = [v for v in admissible(cat, spec, target.python, yanked=True) if not failing(v)]
    constraint = None
    if because and newest_good is not None:
        upper = next_release(cat, newest_good)
        constraint = f"setuptools<{upper}" if upper else None
    assumed = (
        "; in-tree backend assumed to wrap setuptools" if bs.uses_setuptools == "assumed" else ""
    )
    # what check says it cannot read (setup() keywords built by code it does not follow)
    opaque = result.verdict.outcome == "unknown" and not because
    if opaque:
        why = result.verdict.reason.partition("; ")[2] or result.verdict.reason
        reason = f"static analysis cannot tell: {why}" + assumed
    elif not because:
        reason = (
            "no known setuptools removal applies (static analysis; the build itself is not run)"
            + assumed
        )
    elif newest_good is None:
        reason = "fails with every setuptools release its build-system.requires admits" + assumed
    else:
        slugs = dict.fromkeys(f.slug for f in result.findings if f.code in because)
        first_bad = next_release(cat, newest_good) or "the next release"
        reason = f"{', '.join(slugs)}: fails from setuptools {first_bad}" + assumed
    return BuildVerdict(
        outcome="unknown" if opaque else "fails" if because else "builds",
        backend=result.backend,
        requires=requires,
        today=today,
        because=because,
        newest_good=newest_good,
        good=cat.to_specifiers(shown),
        constraint=constraint,
        findings=result.findings,
        reason=reason,
    )


def judge_sdist(
    resolution: Resolution,
    target: Target,
    *,
    downloader: Index,
    enforce_deprecations: bool = False,
) -> BuildVerdict:
    """Download the sdist of ``resolution`` (through ``downloader``, a
    :class:`sapper.pypi.Index`) and judge it; a download or archive error gives an
    ``unknown`` verdict that says why."""
    from ..pypi import SdistFile

    sdist: FileRef | None = resolution.sdist
    if sdist is None or sdist.url is None:
        return BuildVerdict(outcome="unknown", reason="no sdist URL to download")
    file = SdistFile(
        name=resolution.name,
        version=resolution.version or "",
        filename=sdist.filename,
        url=sdist.url,
        sha256=sdist.sha256 or "",
        upload_time=sdist.upload_time,
        size=sdist.size,
        yanked=sdist.yanked,
    )
    try:
        download = downloader.download(file)
        files = read_sdist(download.data, label=sdist.filename)
    except TargetError as exc:
        return BuildVerdict(outcome="unknown", reason=f"could not read {sdist.filename}: {exc}")
    except SapperError as exc:
        return BuildVerdict(outcome="unknown", reason=f"could not fetch {sdist.filename}: {exc}")
    return judge_files(
        files,
        label=sdist.filename,
        project=Project(name=resolution.name, version=resolution.version),
        target=target,
        enforce_deprecations=enforce_deprecations,
    )
