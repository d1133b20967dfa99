"""``sapper audit``: which of a project's dependencies get built from source, which of those
break with today's setuptools, and what to pin.

:func:`audit` reads an input (:mod:`sapper.audit.inputs`), resolves each distribution and
decides whether an installer builds it (:mod:`sapper.audit.resolve`), judges each sdist
that gets built (:mod:`sapper.audit.verdicts`) and returns an :class:`AuditReport`;
:func:`sapper.audit.emit.emit` turns a report into build constraints for pip, uv or Poetry.
The library never prints; ``on_package`` reports progress.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import SapperError
from .closure import Closure, resolve_closure
from .inputs import Entry, FileRef, FormatControl, InputSet, read_input, read_inputs
from .resolve import (
    IndexFiles,
    Resolution,
    Source,
    Target,
    resolve_entry,
    target_environment,
)
from .verdicts import BuildVerdict, judge_sdist
from .verify import RealBuild

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
    #: What a real, sandboxed build gave (``sapper audit --verify``); None: not built.
    real: RealBuild | None = None

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
    #: How a requirements file's dependency closure was resolved (None: not tried, the
    #: input pins its releases, or the target is not the running interpreter).
    closure: Closure | None = None
    #: Every sdist was built for real and its verdict corrected (``--verify``).
    verified: bool = False

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
    closure: bool = True,
    sandbox: bool = True,
    build_constraints: Sequence[str] = (),
) -> AuditReport:
    """Audit the requirements files, lock files or pip reports at ``path`` (one or several;
    :func:`sapper.audit.inputs.read_inputs` says how several are combined), or the
    dependencies of a project (a directory with a pyproject.toml, setup.py or setup.cfg, or
    one of those files), resolved as a requirements file naming it.
    ``constraints`` are constraints files for the requirements files, as pip's ``-c``.

    With ``closure`` (the default), a requirements file is resolved by pip's own resolver
    into its whole dependency tree for the running interpreter
    (:func:`sapper.audit.closure.resolve_closure`, in the sandbox unless ``sandbox`` is
    False), so that the dependencies it does not list are judged too; when pip cannot
    resolve it, the target is another interpreter, or several requirements files or a
    command-line ``-c`` are given, the listed lines are audited and a note says why.
    ``build_constraints`` are given to pip's resolver from its first round.

    ``index_url`` overrides the input's own ``--index-url`` (default PyPI); ``no_index``
    reads no index at all, as pip's ``--no-index``; ``find_links`` adds local directories
    of distributions; ``only_binary``/``no_binary`` apply after the
    input's own options, as pip applies command-line options after the file's.
    """
    import dataclasses

    given = [path] if isinstance(path, (str, Path)) else list(path)
    with contextlib.ExitStack() as stack:
        paths = [_project_requirements(p, stack) or p for p in given]
        report = _audit(
            paths,
            constraints=constraints,
            python=python,
            platforms=platforms,
            index_url=index_url,
            no_index=no_index,
            find_links=find_links,
            only_binary=only_binary,
            no_binary=no_binary,
            enforce_deprecations=enforce_deprecations,
            cache_dir=cache_dir,
            on_package=on_package,
            closure=closure,
            sandbox=sandbox,
            build_constraints=build_constraints,
        )
    if paths == given:
        return report
    projects = [str(p) for p, q in zip(given, paths, strict=True) if p != q]
    return dataclasses.replace(
        report,
        input=", ".join(str(p) for p in given),
        format="project" if len(given) == 1 else report.format,
        notes=(
            f"{', '.join(projects)}: a project; its dependencies are audited, as "
            "`pip install .` resolves them (the project itself is built from its tree)",
            *report.notes,
        ),
    )


#: The files that make a directory a project ``sapper audit`` can take.
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def _project_requirements(path: str | Path, stack: contextlib.ExitStack) -> Path | None:
    """For a project (a directory with a pyproject.toml, setup.py or setup.cfg, or one of
    those files), a requirements file that names it, alive as long as ``stack``; else None."""
    import tempfile

    given = Path(path)
    if given.is_dir() and any((given / f).is_file() for f in _PROJECT_FILES):
        project = given.resolve()
    elif given.name in _PROJECT_FILES and given.is_file():
        project = given.resolve().parent
    else:
        return None
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sapper-project-")))
    file = tmp / project.name
    file.write_text(f"{project}\n", encoding="utf-8")
    return file


def _audit(
    paths: Sequence[str | Path],
    *,
    constraints: Sequence[str | Path],
    python: str | None,
    platforms: Sequence[str],
    index_url: str | None,
    no_index: bool,
    find_links: Sequence[str],
    only_binary: Sequence[str],
    no_binary: Sequence[str],
    enforce_deprecations: bool,
    cache_dir: Path | None,
    on_package: Callable[[int, int, str], None] | None,
    closure: bool,
    sandbox: bool,
    build_constraints: Sequence[str],
) -> AuditReport:
    input_sets = read_inputs(paths, constraints=constraints)
    target = target_environment(python, platforms)
    packages: list[PackageAudit] = []
    notes: list[str] = []
    formats: list[str] = []
    resolved: Closure | None = None
    total = sum(len(s.entries) for s in input_sets)
    done = 0
    for read in input_sets:
        control = read.format_control
        for value in no_binary:
            control = control.updated("no_binary", value)
        for value in only_binary:
            control = control.updated("only_binary", value)
        inputs = _with_control(read, control)
        files_of, downloader = _sources(inputs, index_url, no_index, find_links, cache_dir)
        notes.extend(inputs.notes)
        formats.append(inputs.format)
        closed: Closure | None = None
        if closure and inputs.format == "requirements":
            before = len(inputs.entries)
            inputs, closed = _closure(
                inputs,
                constraints=constraints,
                target=target,
                files_of=files_of,
                downloader=downloader,
                notes=notes,
                index_url=index_url,
                no_index=no_index,
                find_links=find_links,
                only_binary=only_binary,
                no_binary=no_binary,
                enforce_deprecations=enforce_deprecations,
                cache_dir=cache_dir,
                sandbox=sandbox,
                build_constraints=build_constraints,
            )
            total += len(inputs.entries) - before
            resolved = closed
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
                    by_pip=closed is not None and closed.report is not None,
                )
            )
            if closed is not None and closed.unprepared:
                packages[-1] = _unprepared(packages[-1], closed.unprepared)
    return AuditReport(
        input=", ".join(str(p) for p in paths),
        format="+".join(dict.fromkeys(formats)),
        target=target.describe(),
        target_python=target.python,
        packages=tuple(packages),
        notes=tuple(notes),
        enforce_deprecations=enforce_deprecations,
        closure=resolved,
    )


def _sources(
    inputs: InputSet,
    index_url: str | None,
    no_index: bool,
    find_links: Sequence[str],
    cache_dir: Path | None,
) -> tuple[IndexFiles, Index]:
    """Where the files of ``inputs`` are listed and downloaded from."""
    from ..pypi import DEFAULT_INDEX_URL, Index

    primary = index_url or inputs.index_url
    if primary is None:
        primary = DEFAULT_INDEX_URL
    urls = [primary, *inputs.extra_index_urls] if primary else list(inputs.extra_index_urls)
    if no_index:
        urls = []
    files_of = IndexFiles(urls, [*inputs.find_links, *find_links], cache_dir=cache_dir)
    return files_of, Index(urls[0] if urls else DEFAULT_INDEX_URL, cache_dir=cache_dir)


def _closure(
    inputs: InputSet,
    *,
    constraints: Sequence[str | Path],
    target: Target,
    files_of: IndexFiles,
    downloader: Index,
    notes: list[str],
    index_url: str | None,
    no_index: bool,
    find_links: Sequence[str],
    only_binary: Sequence[str],
    no_binary: Sequence[str],
    enforce_deprecations: bool,
    cache_dir: Path | None,
    sandbox: bool,
    build_constraints: Sequence[str],
) -> tuple[InputSet, Closure | None]:
    """The requirements set ``inputs`` with its whole dependency tree, as pip resolves it
    (see :func:`audit`); a note in ``notes`` says what was done or why not."""
    if not target.native:
        notes.append(
            "the dependencies of the listed lines are not resolved for --python/--platform "
            "(pip resolves for the running interpreter only): only the listed lines are "
            "audited; run on the target, or give a lock or a pip report made there"
        )
        return inputs, None
    if len(inputs.files) != 1 or constraints:
        notes.append(
            "the dependencies are resolved for one requirements file without a command-line "
            "-c (put the -r and -c lines into one file for that): only the listed lines are "
            "audited"
        )
        return inputs, None
    path = Path(inputs.files[0])

    def constraint_for(name: str, version: str) -> str | None:
        entry = Entry(name=name, version=version, specifier=f"=={version}")
        try:
            found = resolve_entry(entry, inputs, target, files_of=files_of)
        except SapperError:
            return None
        if found.source != "sdist":
            return None
        judged = judge_sdist(
            found,
            target,
            downloader=downloader,
            enforce_deprecations=enforce_deprecations,
        )
        return judged.constraint

    resolved = resolve_closure(
        path,
        constraint_for=constraint_for,
        index_url=index_url,
        no_index=no_index,
        find_links=[*find_links],
        only_binary=only_binary,
        no_binary=no_binary,
        cache_dir=cache_dir,
        sandbox=sandbox,
        build_constraints=build_constraints,
    )
    notes.extend(resolved.notes)
    if resolved.report is not None:
        inputs = _closure_inputs(inputs, resolved, path.name)
        notes.append(_closure_note(resolved, inputs, path.name))
    else:
        notes.append(
            f"pip could not resolve the dependencies of {path.name} "
            f"({resolved.error}); only the listed lines are audited"
            + (", and the sdist that stopped pip" if resolved.failed else "")
        )
        inputs = _with_failed(inputs, resolved, path.name)
    return inputs, resolved


def _unprepared(p: PackageAudit, unprepared: Sequence[tuple[str, str, str]]) -> PackageAudit:
    """``p`` with the verdict real pip gave when it could not prepare its metadata here
    (with today's setuptools, and no cap mends it): that outweighs a static "builds"."""
    import dataclasses

    from packaging.utils import canonicalize_name

    v = p.verdict
    if v is None or v.outcome == "fails" or v.today is None or p.source != "sdist":
        return p  # other backends stay unknown: sapper models setuptools
    key = (canonicalize_name(p.name), p.version)
    error = next((e for n, ver, e in unprepared if (canonicalize_name(n), ver) == key), None)
    if error is None:
        return p
    verdict = dataclasses.replace(
        v,
        outcome="fails",
        newest_good=None,
        good=(),
        constraint=None,
        reason=(
            f"pip could not prepare its metadata here with setuptools {v.today} ({error}); "
            "sapper knows no setuptools release that mends it (a missing system library or "
            "tool, code for another Python)"
        ),
    )
    return dataclasses.replace(p, verdict=verdict)


def _audit_entry(
    entry: Entry,
    inputs: InputSet,
    target: Target,
    *,
    files_of: IndexFiles,
    downloader: Index,
    enforce_deprecations: bool,
    by_pip: bool,
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
    if by_pip:
        resolution = _resolved_by_pip(resolution)
    verdict = None
    if resolution.source == "sdist":
        verdict = judge_sdist(
            resolution,
            target,
            downloader=downloader,
            enforce_deprecations=enforce_deprecations,
        )
    return _package(entry.origin, resolution, verdict)


def _closure_inputs(inputs: InputSet, closure: Closure, label: str) -> InputSet:
    """The entries of pip's report, each with where it comes from: the line of the
    requirements file that names it, or the distributions that require it."""
    import dataclasses
    import json
    import tempfile

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    report = closure.report or {}
    with tempfile.TemporaryDirectory(prefix="sapper-report-") as tmp:
        file = Path(tmp) / "report.json"
        file.write_text(json.dumps(report), encoding="utf-8")
        from_pip = read_input(file)
    listed = {e.key: e.origin for e in inputs.entries}
    items = report.get("install")
    parents: dict[str, list[str]] = {}
    for item in items if isinstance(items, list) else []:
        meta = item.get("metadata") or {}
        for text in meta.get("requires_dist") or ():
            try:
                child = canonicalize_name(Requirement(text).name)
            except InvalidRequirement:
                continue
            parents.setdefault(child, []).append(f"{meta.get('name')} {meta.get('version')}")
    entries = []
    for entry in from_pip.entries:
        origin = listed.get(entry.key)
        if origin is None:
            by = parents.get(entry.key)
            origin = f"required by {', '.join(by[:3])}" if by else f"a dependency ({label})"
        files = tuple(_local_hash(f) for f in entry.files) if entry.files else entry.files
        entries.append(dataclasses.replace(entry, origin=origin, files=files))
    # the lines pip was not given (a VCS URL it could not fetch, a missing local project,
    # an sdist whose metadata cannot be prepared here): audited as listed
    got = {e.key for e in entries}
    gone = {canonicalize_name(m.group(1)) for m in map(_LINE_NAME.match, closure.dropped) if m}
    entries += [
        e
        for e in inputs.entries
        if e.key not in got
        and (
            (e.reference and any(e.reference in line for line in closure.dropped)) or e.key in gone
        )
    ]
    return dataclasses.replace(inputs, format="pip-report", entries=tuple(entries))


_LINE_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _with_failed(inputs: InputSet, closure: Closure, label: str) -> InputSet:
    """``inputs`` with the sdist whose metadata stopped pip's resolver, when the file does
    not list it: it is built too (and the wheelhouse may find what it needs)."""
    import dataclasses

    from packaging.utils import canonicalize_name

    if closure.failed is None:
        return inputs
    name, version = closure.failed
    if any(e.key == canonicalize_name(name) for e in inputs.entries):
        return inputs
    entry = Entry(
        name=name,
        version=version,
        specifier=f"=={version}",
        origin=f"a dependency ({label}) whose metadata stopped pip's resolver",
    )
    return dataclasses.replace(inputs, entries=(*inputs.entries, entry))


def _local_hash(f: FileRef) -> FileRef:
    """A file of a --find-links directory with its sha256 (pip's report gives none)."""
    import dataclasses
    import hashlib
    from urllib.parse import unquote, urlsplit

    if f.sha256 or not f.url or not f.url.startswith("file:"):
        return f
    try:
        data = Path(unquote(urlsplit(f.url).path)).read_bytes()
    except OSError:
        return f
    return dataclasses.replace(f, sha256=hashlib.sha256(data).hexdigest())


def _closure_note(closure: Closure, inputs: InputSet, label: str) -> str:
    under = (
        f", under the build constraints {', '.join(closure.build_constraints)} (without "
        "them pip cannot prepare the metadata of some sdists)"
        if closure.build_constraints
        else ""
    )
    return (
        f"the whole dependency tree of {label} was resolved by {closure.pip} "
        f"(pip install --dry-run --report){under}: {len(inputs.entries)} distributions"
    )


def _resolved_by_pip(r: Resolution) -> Resolution:
    import dataclasses

    return dataclasses.replace(
        r, how=r.how.replace("chosen by pip (report)", "chosen by pip's resolver")
    )


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
            "build_constraints": list(v.build_constraints),
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
        "verified": report.verified,
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
                "real": None
                if p.real is None
                else {
                    "outcome": p.real.outcome,
                    "setuptools": p.real.setuptools,
                    "build_constraints": list(p.real.build_constraints),
                    "reason": p.real.reason,
                    "suggestion": p.real.suggestion,
                },
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
        "closure": None
        if report.closure is None
        else {
            "resolved": report.closure.report is not None,
            "resolver": report.closure.pip,
            "build_constraints": list(report.closure.build_constraints),
            "rounds": list(report.closure.rounds),
            "error": report.closure.error or None,
            "left_out": list(report.closure.dropped),
        },
    }
