"""``sapper audit --verify``: every sdist of an audit built for real, next to its static
verdict.

:func:`verify_report` builds each distribution the report says gets built from source, in
the sandbox of :mod:`sapper.build` (the runner of ``sapper canary``), as ``sapper
wheelhouse`` builds it: with sapper's newest good setuptools, an older one when the error
names a removal the static rules missed, a bisected constraint on another build requirement
when a newer release of it breaks the build, and "unfixable" when today's setuptools fails
too with an error that names no removal. The verdicts are then corrected by what the builds
showed, so that the emitted build constraints follow the real builds: an unfixable sdist
leaves the setuptools cap (it is "unbuildable"), a removal the rules missed lowers the cap.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..build import Builder
    from ..pypi import Index
    from . import AuditReport, PackageAudit
    from .inputs import FileRef
    from .verdicts import BuildVerdict
    from .wheelhouse import WheelhouseItem

__all__ = ["RealBuild", "verify_report"]

RealOutcome = Literal["builds", "fails", "unfixable"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RealBuild:
    """What a real, sandboxed build of one sdist gave."""

    #: ``builds``: a wheel was built (perhaps under ``setuptools``/``build_constraints``);
    #: ``fails``: no build worked; ``unfixable``: fails with sapper's newest good setuptools
    #: and with today's, with an error that names no setuptools removal.
    outcome: RealOutcome
    #: The setuptools release of the last build.
    setuptools: str | None = None
    #: Constraints on other build requirements the build needed (``cython<3.0.0``).
    build_constraints: tuple[str, ...] = ()
    #: What was built with what, or the error.
    reason: str = ""
    #: When ``unfixable``: the nearest newer release that installs here.
    suggestion: str | None = None
    #: The build needed an older setuptools than the static verdict's newest good release.
    beyond_static: bool = False


def verify_report(
    report: AuditReport,
    *,
    builder: Builder,
    index: Index,
    files_of: Callable[[str], list[FileRef]] | None = None,
    on_package: Callable[[int, int, str], None] | None = None,
    reaudit: Callable[[Sequence[str]], AuditReport] | None = None,
) -> AuditReport:
    """``report`` with every sdist built for real (:attr:`PackageAudit.real`) and its
    verdict corrected by the build (see the module docstring). Builds run for the running
    interpreter: ``report`` must target it.

    ``reaudit(build_constraints)`` audits the input again with pip's resolver given those
    constraints: when pip could not resolve the tree and the builds found constraints on
    other build requirements (``cython<3.0.0``), the tree is resolved again under them and
    its sdists built too (those built already are not built again).
    """
    known: dict[tuple[str, str | None], RealBuild] = {}
    verified = _verify_all(report, builder, index, files_of, on_package, known)
    found = tuple(
        dict.fromkeys(
            c for p in verified.packages if p.real is not None for c in p.real.build_constraints
        )
    )
    if (
        reaudit is not None
        and found
        and report.closure is not None
        and report.closure.report is None
    ):
        again = reaudit(found)
        if again.closure is not None and again.closure.report is not None:
            return _verify_all(again, builder, index, files_of, on_package, known)
    return verified


def _verify_all(  # noqa: PLR0917 - private, called twice with the same arguments
    report: AuditReport,
    builder: Builder,
    index: Index,
    files_of: Callable[[str], list[FileRef]] | None,
    on_package: Callable[[int, int, str], None] | None,
    known: dict[tuple[str, str | None], RealBuild],
) -> AuditReport:
    from .wheelhouse import _build_one

    built = [p for p in report.packages if p.source == "sdist"]
    done: dict[int, PackageAudit] = {}
    with tempfile.TemporaryDirectory(prefix="sapper-verify-builds-") as tmp:
        for i, p in enumerate(built):
            if on_package is not None:
                on_package(i, len(built), p.name)
            real = known.get((p.name, p.version))
            if real is None:
                real = _real(_build_one(p, Path(tmp), builder, index, files_of))
                known[(p.name, p.version)] = real
            done[id(p)] = dataclasses.replace(
                p, real=real, verdict=_corrected(p.verdict, real) if p.verdict else None
            )
    packages = tuple(done.get(id(p), p) for p in report.packages)
    return dataclasses.replace(report, packages=packages, verified=True)


def _real(item: WheelhouseItem) -> RealBuild:
    outcome: RealOutcome = (
        "builds" if item.action == "built" else "unfixable" if item.unfixable else "fails"
    )
    return RealBuild(
        outcome=outcome,
        setuptools=item.setuptools,
        build_constraints=item.build_constraints,
        reason=item.reason,
        suggestion=item.suggestion,
        beyond_static=item.beyond_static,
    )


def _corrected(v: BuildVerdict, real: RealBuild) -> BuildVerdict:
    """The static verdict ``v`` with what the real build showed."""
    from ..versions import catalogue, contains
    from .verdicts import next_release

    if v.outcome == "unknown" and real.outcome == "builds" and not real.build_constraints:
        return v
    if real.outcome in ("unfixable", "fails"):
        why = "no setuptools builds it here" if real.outcome == "unfixable" else "fails"
        return dataclasses.replace(
            v,
            outcome="fails",
            newest_good=None,
            good=(),
            constraint=None,
            reason=f"real build: {why}: {real.reason}",
        )
    if real.beyond_static and real.setuptools:
        cat = catalogue()
        upper = next_release(cat, real.setuptools)
        limit = cat.parsed(real.setuptools)
        good = cat.to_specifiers(
            x for x in cat.universe if contains(v.good, x) and cat.parsed(x) <= limit
        )
        v = dataclasses.replace(
            v,
            outcome="fails",
            newest_good=real.setuptools,
            good=good,
            constraint=f"setuptools<{upper}" if upper else v.constraint,
            reason=f"real build: {real.reason}",
        )
    if real.build_constraints:
        v = dataclasses.replace(
            v,
            outcome="fails",
            build_constraints=real.build_constraints,
            reason=f"real build: {real.reason}",
        )
    return v


def render_side_by_side(report: AuditReport, static: AuditReport) -> str:
    """The static verdict (from ``static``, the report before :func:`verify_report`) and the
    real build of each sdist, one line each."""
    before = {(p.name, p.version): p.verdict for p in static.packages}
    lines = ["Static and real verdicts (each sdist built in the sandbox):"]
    for p in report.packages:
        if p.real is None:
            continue
        v = before.get((p.name, p.version))
        if v is None:
            said = "-"
        else:
            said = v.outcome + (f" ({', '.join(v.because)})" if v.because else "")
            said += f", {v.constraint}" if v.constraint else ""
        real = p.real
        shown: str = real.outcome
        if real.outcome == "builds":
            shown += f" with setuptools {real.setuptools}" if real.setuptools else ""
            shown += f" under {', '.join(real.build_constraints)}" if real.build_constraints else ""
        elif real.suggestion:
            shown += f"; nearest release that installs here: {real.suggestion}"
        lines.append(f"  {p.name} {p.version}: static {said}; real {shown}")
        if real.outcome != "builds" or real.beyond_static or real.build_constraints:
            lines.append(f"      {real.reason}")
    return "\n".join(lines) + "\n"
