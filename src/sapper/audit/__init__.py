"""``sapper audit``: which of a project's dependencies get built from source, which of those
break with today's setuptools, and what to pin.

:func:`audit` reads an input (:mod:`sapper.audit.inputs`), resolves each distribution and
decides whether an installer builds it (:mod:`sapper.audit.resolve`), judges each sdist
that gets built (:mod:`sapper.audit.verdicts`) and returns an :class:`AuditReport`;
:func:`sapper.audit.emit.emit` turns a report into build constraints for pip, uv or Poetry.
The library never prints; ``on_package`` reports progress.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import SapperError
from .inputs import Entry, FormatControl, InputSet, read_inputs
from .resolve import (
    IndexFiles,
    Resolution,
    Source,
    Target,
    resolve_entry,
    target_environment,
)
from .verdicts import BuildVerdict, judge_sdist

if TYPE_CHECKING:
    from ..pypi import Index

__all__ = [
    "SCHEMA_VERSION",
    "AuditReport",
    "PackageAudit",
    "audit",
    "report_json",
]

#: Version of the JSON document :func:`report_json` returns (docs/audit.md).
SCHEMA_VERSION = "1"


@dataclass(frozen=True, slots=True, kw_only=True)
class PackageAudit:
    """One distribution of the input, resolved and, if built from source, judged."""

    name: str
    version: str | None
    origin: str
    source: Source
    #: How the version was chosen and why this file (or why skipped/unavailable).
    how: str
    wheel: str | None = None
    wheel_url: str | None = None
    wheel_sha256: str | None = None
    sdist: str | None = None
    sdist_url: str | None = None
    sdist_sha256: str | None = None
    verdict: BuildVerdict | None = None
    error: str | None = None

    @property
    def fails(self) -> bool:
        return self.verdict is not None and self.verdict.outcome == "fails"


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditReport:
    input: str
    format: str
    target: str
    target_python: str
    packages: tuple[PackageAudit, ...]
    notes: tuple[str, ...] = ()
    enforce_deprecations: bool = False

    @property
    def failing(self) -> tuple[PackageAudit, ...]:
        return tuple(p for p in self.packages if p.fails)

    @property
    def built(self) -> tuple[PackageAudit, ...]:
        return tuple(p for p in self.packages if p.source == "sdist")


def audit(
    path: str | Path | Sequence[str | Path],
    *,
    constraints: Sequence[str | Path] = (),
    python: str | None = None,
    platforms: Sequence[str] = (),
    index_url: str | None = None,
    no_index: bool = False,
    find_links: Sequence[str] = (),
    only_binary: Sequence[str] = (),
    no_binary: Sequence[str] = (),
    enforce_deprecations: bool = False,
    cache_dir: Path | None = None,
    on_package: Callable[[int, int, str], None] | None = None,
) -> AuditReport:
    """Audit the requirements files, lock files or pip reports at ``path`` (one or several;
    :func:`sapper.audit.inputs.read_inputs` says how several are combined).

    ``constraints`` are constraints files for the requirements files, as pip's ``-c``.
    ``index_url`` overrides the input's own ``--index-url`` (default PyPI); ``no_index``
    reads no index at all, as pip's ``--no-index``; ``find_links`` adds local directories
    of distributions; ``only_binary``/``no_binary`` apply after the
    input's own options, as pip applies command-line options after the file's.
    """
    from ..pypi import DEFAULT_INDEX_URL, Index

    paths = [path] if isinstance(path, (str, Path)) else list(path)
    input_sets = read_inputs(paths, constraints=constraints)
    target = target_environment(python, platforms)
    packages = []
    total = sum(len(s.entries) for s in input_sets)
    done = 0
    for read in input_sets:
        control = read.format_control
        for value in no_binary:
            control = control.updated("no_binary", value)
        for value in only_binary:
            control = control.updated("only_binary", value)
        inputs = _with_control(read, control)
        primary = index_url or inputs.index_url
        if primary is None:
            primary = DEFAULT_INDEX_URL
        urls = [primary, *inputs.extra_index_urls] if primary else list(inputs.extra_index_urls)
        if no_index:
            urls = []
        files_of = IndexFiles(urls, [*inputs.find_links, *find_links], cache_dir=cache_dir)
        downloader = Index(urls[0] if urls else DEFAULT_INDEX_URL, cache_dir=cache_dir)
        for entry in inputs.entries:
            if on_package is not None:
                on_package(done, total, entry.name)
            done += 1
            packages.append(
                _audit_entry(
                    entry,
                    inputs,
                    target,
                    files_of=files_of,
                    downloader=downloader,
                    enforce_deprecations=enforce_deprecations,
                )
            )
    return AuditReport(
        input=", ".join(str(p) for p in paths),
        format="+".join(dict.fromkeys(s.format for s in input_sets)),
        target=target.describe(),
        target_python=target.python,
        packages=tuple(packages),
        notes=tuple(n for s in input_sets for n in s.notes),
        enforce_deprecations=enforce_deprecations,
    )


def _audit_entry(
    entry: Entry,
    inputs: InputSet,
    target: Target,
    *,
    files_of: IndexFiles,
    downloader: Index,
    enforce_deprecations: bool,
) -> PackageAudit:
    try:
        resolution = resolve_entry(entry, inputs, target, files_of=files_of)
    except SapperError as exc:
        return PackageAudit(
            name=entry.name,
            version=entry.version,
            origin=entry.origin,
            source="unavailable",
            how=str(exc),
            error=str(exc),
        )
    verdict = None
    if resolution.source == "sdist":
        verdict = judge_sdist(
            resolution,
            target,
            downloader=downloader,
            enforce_deprecations=enforce_deprecations,
        )
    return _package(entry.origin, resolution, verdict)


def _with_control(inputs: InputSet, control: FormatControl) -> InputSet:
    import dataclasses

    return dataclasses.replace(inputs, format_control=control)


def _package(origin: str, r: Resolution, verdict: BuildVerdict | None) -> PackageAudit:
    return PackageAudit(
        name=r.name,
        version=r.version,
        origin=origin,
        source=r.source,
        how=r.how,
        wheel=r.wheel.filename if r.wheel else None,
        wheel_url=r.wheel.url if r.wheel else None,
        wheel_sha256=r.wheel.sha256 if r.wheel else None,
        sdist=r.sdist.filename if r.sdist else None,
        sdist_url=r.sdist.url if r.sdist else None,
        sdist_sha256=r.sdist.sha256 if r.sdist else None,
        verdict=verdict,
    )


def report_json(report: AuditReport) -> dict[str, Any]:
    """The versioned JSON document of an audit (schema in docs/audit.md)."""
    from .._version import __version__
    from .emit import plan_constraints

    plan = plan_constraints(report)

    def verdict(v: BuildVerdict | None) -> dict[str, Any] | None:
        if v is None:
            return None
        return {
            "outcome": v.outcome,
            "backend": v.backend,
            "build_requires_setuptools": v.requires,
            "setuptools_today": v.today,
            "because": list(v.because),
            "newest_good_setuptools": v.newest_good,
            "good_setuptools": list(v.good),
            "constraint": v.constraint,
            "reason": v.reason,
            "findings": [
                {
                    "code": f.code,
                    "message": f.text,
                    "path": f.path,
                    "line": f.line,
                    "fails": list(f.fails),
                    "fails_enforced": list(f.fails_enforced),
                }
                for f in v.findings
            ],
        }

    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "sapper", "version": __version__},
        "input": {"path": report.input, "format": report.format},
        "target": {"description": report.target, "python": report.target_python},
        "enforce_deprecations": report.enforce_deprecations,
        "packages": [
            {
                "name": p.name,
                "version": p.version,
                "origin": p.origin,
                "source": p.source,
                "how": p.how,
                "wheel": p.wheel,
                "sdist": p.sdist,
                "sdist_sha256": p.sdist_sha256,
                "error": p.error,
                "verdict": verdict(p.verdict),
            }
            for p in report.packages
        ],
        "summary": {
            "packages": len(report.packages),
            "built_from_source": len(report.built),
            "failing": len(report.failing),
        },
        "plan": {
            "constraint": plan.constraint,
            "conflict": plan.conflict,
            "groups": [
                {"constraint": g.constraint, "packages": list(g.packages)} for g in plan.groups
            ],
            "fixed": list(plan.fixed),
            "unfixed": list(plan.unfixed),
            "unbuildable": list(plan.unbuildable),
        },
        "notes": list(report.notes),
    }
