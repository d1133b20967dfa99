"""``sapper check``: analyse targets and decide which setuptools versions fail on them."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from ._exceptions import SapperError, TargetError, UsageError
from .inputs._directory import read_directory
from .inputs._files import ProjectFiles, is_sdist_filename
from .model import (
    ErrorRecord,
    Finding,
    Outcome,
    Project,
    Status,
    TargetKind,
    TargetResult,
    Verdict,
)
from .project import BuildSystem, PyProject, identify
from .rules import Context, rules_for
from .versions import Catalogue, catalogue, contains

__all__ = [
    "Options",
    "check_files",
    "check_target",
    "check_targets",
    "classify_target",
    "selected",
]


def _today() -> _dt.date:
    return _dt.datetime.now(tz=_dt.timezone.utc).date()


# A NamedTuple, not a frozen dataclass: every cold `sapper check` builds this class, and a
# frozen dataclass costs several exec() calls to build (findings and results stay dataclasses).
class Options(NamedTuple):
    """How to evaluate targets.

    ``setuptools`` pins the version the verdict is for, with every finding (a version
    ``build-system.requires`` rules out is what a build without isolation gets, and the
    verdict says so: ``Verdict.excluded_by``); by default it is the newest release the
    project's ``build-system.requires`` (and ``python``) allow, as a PEP 517 frontend would
    install, and findings that concern only versions the requirements rule out are dropped.
    Downloads are cached in ``cache_dir`` (default: the user cache, ``$SAPPER_CACHE_DIR``);
    ``no_cache`` disables the cache altogether.
    """

    setuptools: str | None = None
    enforce_deprecations: bool = False
    python: str | None = None
    index_url: str | None = None
    #: The build's ``sys.platform``, for setup.py's platform tests (None: the running
    #: interpreter's, as ``python`` None is its Python for ``sys.version_info`` tests).
    platform: str | None = None
    cache_dir: Path | None = None
    no_cache: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    today: _dt.date | None = None
    #: Honour ``# sapper: ignore[CODES]`` comments (see :mod:`sapper.suppress`); the command
    #: line does, scans of other people's sdists do not.
    suppressions: bool = False
    #: ``(glob, codes)`` pairs: findings in matching files are dropped.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Report ``sapper: ignore`` comments that suppress nothing as SAP100 findings (with
    #: ``suppressions``; see :func:`sapper.suppress.unused_suppressions`). Off by default:
    #: the command line turns it on when a selection names SAP100 (``--select ALL``).
    unused_suppressions: bool = False


def selected(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """Whether ``--select``/``--ignore`` (codes or prefixes) let rule ``code`` run; the most
    specific selector decides (see :mod:`sapper.selection`)."""
    from .selection import selected as _selected

    return _selected(code, select, ignore)


def status_at(finding: Finding, version: str, cat: Catalogue | None = None) -> Status:
    """The finding's status when building with setuptools ``version`` (see ``Status``)."""
    if contains(finding.fails, version):
        return "removed"
    if contains(finding.fails_enforced, version):
        return "overdue"
    cat = cat or catalogue()
    at = cat.parsed(version)
    problem = (*finding.fails_enforced, *finding.warns)
    if problem and not any(contains(problem, v) for v in cat.universe if cat.parsed(v) >= at):
        return "requires-newer"
    return "deprecated"


def failing_codes(
    findings: Sequence[Finding], version: str, *, enforce: bool = False
) -> tuple[str, ...]:
    """The codes of the findings that make a build with setuptools ``version`` fail (with
    ``SETUPTOOLS_ENFORCE_DEPRECATION=1`` if ``enforce``), each once, in finding order: the
    ``because`` of a verdict."""
    return tuple(
        dict.fromkeys(
            f.code for f in findings if contains(f.fails_enforced if enforce else f.fails, version)
        )
    )


def _verdict(
    findings: Sequence[Finding],
    bs: BuildSystem,
    options: Options,
    cat: Catalogue,
    unreadable: Callable[[str], str | None] | None = None,
) -> Verdict:
    """The verdict for the evaluated setuptools; ``unreadable(version)`` (a file the build
    reads that sapper's rules could not, see :func:`_unreadable`) turns "builds" into
    "unknown"."""
    from .stages import stages_for

    enforce = options.enforce_deprecations
    if bs.uses_setuptools == "no":
        return Verdict(
            setuptools="",
            enforce_deprecations=enforce,
            outcome="unknown",
            reason=f"built with {bs.backend}, not setuptools; sapper models setuptools only",
        )
    excluded_by: str | None = None
    if options.setuptools:
        version = cat.validate_version(options.setuptools)
        reason = "--setuptools"
        if bs.setuptools is not None and not bs.setuptools.contains(version, prereleases=True):
            excluded_by = str(bs.setuptools)
    else:
        chosen = cat.select(bs.setuptools, python=options.python)
        if chosen is None:
            return Verdict(
                setuptools="",
                enforce_deprecations=enforce,
                outcome="unknown",
                reason=f"no setuptools release sapper knows matches {bs.setuptools}",
            )
        version = chosen
        reason = (
            f"newest setuptools allowed by build-system.requires ({bs.setuptools})"
            if bs.setuptools
            else "newest setuptools"
        )
        if options.python:
            reason += f" on Python {options.python}"
    because = failing_codes(findings, version, enforce=enforce)
    if bs.uses_setuptools == "assumed":
        reason += f"; in-tree backend {bs.backend} assumed to wrap setuptools"
    outcome: Outcome = "fails" if because else "builds"
    problem = None if because or unreadable is None else unreadable(version)
    if problem:
        # the rules could not read a file the build reads: never "builds" on a guess
        outcome, reason = "unknown", f"{problem} ({reason})"
    if excluded_by is not None:
        without = {
            "fails": f"fails because of {', '.join(because)}",
            "builds": "builds (as far as sapper's rules can tell)",
            "unknown": "may fail",
        }[outcome]
        reason += (
            f"; build-system.requires allows setuptools{excluded_by}, so an isolated build "
            f"never gets {version}; a build without isolation, as distributions build, "
            f"{without}"
        )
    return Verdict(
        setuptools=version,
        enforce_deprecations=enforce,
        outcome=outcome,
        because=because,
        reason=reason,
        excluded_by=excluded_by,
        stages=stages_for(findings, version, enforce=enforce, today=options.today or _today()),
    )


def _reachable(findings: list[Finding], bs: BuildSystem, cat: Catalogue) -> list[Finding]:
    """Drop findings that only concern setuptools versions the project's
    ``build-system.requires`` rules out: no build of this sdist can meet them (a PEP 639
    license string is no problem for a project that requires setuptools>=77)."""
    if bs.setuptools is None:
        return findings
    allowed = _allowed(cat, str(bs.setuptools))
    if not allowed:
        return findings
    return [f for f in findings if any(contains((*f.fails_enforced, *f.warns), v) for v in allowed)]


@functools.lru_cache(maxsize=64)
def _allowed(cat: Catalogue, spec: str) -> tuple[str, ...]:
    """The releases of the catalogue that the specifier ``spec`` admits (prereleases too)."""
    from packaging.specifiers import SpecifierSet

    parsed = SpecifierSet(spec)
    return tuple(v for v in cat.universe if parsed.contains(cat.parsed(v), prereleases=True))


def check_files(
    files: ProjectFiles,
    *,
    target: str,
    kind: TargetKind,
    options: Options | None = None,
    project: Project | None = None,
    sha256: str | None = None,
) -> TargetResult:
    """Run every selected rule over one project's files and give the verdict."""
    options = options or Options()
    nothing = _nothing_to_build(files, target=target, kind=kind)
    if nothing is not None:
        return TargetResult(
            target=target, kind=kind, project=project or Project(), errors=(nothing,), sha256=sha256
        )
    cat = catalogue()
    from .facts._values import make_target

    ctx = Context(
        files=files,
        catalogue=cat,
        today=options.today or _today(),
        target=make_target(options.python, options.platform),
    )
    pyproject = ctx.pyproject.parsed
    bs = ctx.pyproject.build_system
    findings: list[Finding] = []
    errors: list[ErrorRecord] = []
    if bs.uses_setuptools != "no":
        # the rules that cannot report without a file the project lacks are not even imported
        for rule in rules_for(options.select, options.ignore, present=files.files):
            findings.extend(rule.check(ctx))
    own = _own_setuptools(files, pyproject, cat) if bs.in_tree else None
    if own is not None:
        # setuptools' own sdist: its in-tree backend is itself, whatever is installed
        options = options._replace(setuptools=own[0])
    elif not options.setuptools:
        # an explicit version is evaluated as asked, whatever build-system.requires allows
        # (a build without isolation gets it): every finding counts
        findings = _reachable(findings, bs, cat)
    if bs.error and not any(f.code == "PP900" for f in findings):
        errors.append(ErrorRecord(type="pyproject", message=bs.error))
    suppressed = 0
    unused: list[Finding] = []
    if options.suppressions and options.unused_suppressions and bs.uses_setuptools != "no":
        unused = _unused_suppressions(findings, files, options)
    if options.suppressions or options.per_file_ignores:
        from .suppress import apply_suppressions

        split = apply_suppressions(
            findings,
            files.files,
            comments=options.suppressions,
            per_file_ignores=options.per_file_ignores,
        )
        findings, suppressed = list(split.kept), len(split.suppressed)
    verdict = _verdict(
        findings, bs, options, cat, lambda version: _unreadable(ctx, findings, version)
    )
    if own is not None:
        verdict = dataclasses.replace(verdict, reason=own[1])
    if verdict.outcome == "builds" and ctx.setup_py.exists and ctx.setup_py.unseen:
        # never "builds" on a guess: what setup() gets could not be read (issue 21)
        verdict = dataclasses.replace(
            verdict, outcome="unknown", reason=f"{verdict.reason}; {ctx.setup_py.unseen}"
        )
    if suppressed:
        word = "finding" if suppressed == 1 else "findings"
        note = f"; {suppressed} {word} suppressed (not counted in this verdict)"
        verdict = dataclasses.replace(verdict, reason=verdict.reason + note)
    version = verdict.setuptools or cat.newest
    findings = [dataclasses.replace(f, status=status_at(f, version, cat)) for f in findings]
    findings.extend(unused)  # about sapper's own comments: no status, no part in the verdict
    return TargetResult(
        target=target,
        kind=kind,
        project=project or identify(files, pyproject, fallback=Path(target).name),
        findings=tuple(findings),
        verdict=verdict,
        errors=tuple(errors),
        backend=bs.backend,
        sha256=sha256,
        uses_setuptools=bs.uses_setuptools != "no",
    )


def _own_setuptools(
    files: ProjectFiles, pyproject: PyProject, cat: Catalogue
) -> tuple[str, str] | None:
    """setuptools' own tree (its sdist): ``build-backend = "setuptools.build_meta"`` found
    through ``backend-path`` in the tree itself, so the build imports the tree's setuptools,
    never an installed one (nor the one ``--setuptools`` names). The version the build
    really uses (the tree's own, when the catalogue knows it) and the verdict's reason;
    None for any other project, or a tree whose version sapper does not know."""
    table = pyproject.data.get("build-system") if isinstance(pyproject.data, dict) else None
    if not isinstance(table, dict):
        return None
    backend, paths = table.get("build-backend"), table.get("backend-path")
    if not (isinstance(backend, str) and isinstance(paths, list)):
        return None
    module = backend.partition(":")[0]
    if module.partition(".")[0] != "setuptools":
        return None
    import posixpath

    relative = module.replace(".", "/")
    found = any(
        isinstance(path, str)
        and any(
            posixpath.normpath(posixpath.join(path, f"{relative}{tail}")) in files.files
            for tail in (".py", "/__init__.py")
        )
        for path in paths
    )
    if not found:
        return None
    version = identify(files, pyproject).version
    if version is None or version not in cat.universe:
        return None
    reason = (
        f"setuptools' own tree: build-backend {backend} is imported from the tree "
        f"(backend-path), so the build uses this setuptools {version}, whatever setuptools "
        "is installed or asked for"
    )
    return version, reason


def _unreadable(ctx: Context, findings: Sequence[Finding], version: str) -> str | None:
    """Why a file the build with setuptools ``version`` reads could not be read by the
    rules, when no finding of the rule that reports it (SP900, PP900) is among ``findings``
    (left out, suppressed, or not certain), or setup.cfg does not parse as ``version``
    reads it (the verdict only asks when no finding fails there: SC003-SC006 were left
    out); None when every such file was read."""
    reported = {f.code for f in findings}
    problem = ctx.setup_py.syntax_error(ctx.target_python)
    if problem is not None and "SP900" not in reported:
        import sys

        where = f"line {problem.line}: " if problem.line is not None else ""
        text = f"setup.py does not compile ({where}{problem.message})"
        here = f"{sys.version_info.major}.{sys.version_info.minor}"
        if not problem.certain:
            return (
                f"{text} with the grammar of Python {here}, which sapper runs on; Python "
                f"{problem.python} may read it: run sapper on Python {problem.python} to know"
            )
        return f"{text} on Python {problem.python}, so the setup.py rules could not read it"
    error = ctx.pyproject.parsed.error
    if error is not None and "PP900" not in reported:
        return f"{error}, so the rules could not read it"
    if ctx.setup_cfg.unreadable_in(ctx.catalogue, version):
        return (
            f"configparser cannot read setup.cfg as setuptools {version} reads it, so the "
            "rules could not"
        )
    return None


def _unused_suppressions(
    findings: list[Finding], files: ProjectFiles, options: Options
) -> list[Finding]:
    """SAP100: the ``sapper: ignore`` comments that suppress none of ``findings`` (those
    ``per-file-ignores`` suppress first do not count, as in ruff)."""
    from .rules._base import rule_index
    from .suppress import UNUSED_SUPPRESSION, apply_suppressions, unused_suppressions

    ran = {rule.code for rule in rules_for(options.select, options.ignore)}
    after_globs = apply_suppressions(
        findings, files.files, comments=False, per_file_ignores=options.per_file_ignores
    ).kept
    unused = unused_suppressions(
        after_globs,
        files.files,
        enabled=ran.__contains__,
        known=(*rule_index(), UNUSED_SUPPRESSION),
    )
    # per-file-ignores may name SAP100 itself, as ruff's may name RUF100
    return list(
        apply_suppressions(
            unused, files.files, comments=False, per_file_ignores=options.per_file_ignores
        ).kept
    )


def _nothing_to_build(files: ProjectFiles, *, target: str, kind: TargetKind) -> ErrorRecord | None:
    """An error record when the project has no setup.py, setup.cfg or pyproject.toml (no
    build frontend can build it); for a folder of sdists, how to check them instead."""
    if any(name in files.names for name in ("setup.py", "setup.cfg", "pyproject.toml")):
        return None
    where = "the archive" if kind != "directory" else target
    msg = f"{where}: no setup.py, setup.cfg or pyproject.toml, so there is nothing to build"
    if kind == "directory":
        sdists = [n for n in files.names if is_sdist_filename(n.rsplit("/", 1)[-1])]
        if sdists:
            msg = (
                f"{target}: a folder of {len(sdists)} sdist(s), not a project: run "
                f"`sapper scan {target}` to check them all, or pass the files to `sapper check`"
            )
    return ErrorRecord(type="no-project", message=msg)


def classify_target(target: str) -> TargetKind:
    """``directory``, ``sdist`` or ``pypi``; raises UsageError for anything else."""
    path = Path(target)
    if path.is_dir():
        return "directory"
    if path.is_file():
        if is_sdist_filename(path.name):
            return "sdist"
        msg = (
            f"{target}: not a directory, an sdist (.tar.gz, .tgz, .tar.bz2, .tar.xz, .zip) "
            "or a requirement"
        )
        raise UsageError(msg)
    if os.sep in target or "/" in target or is_sdist_filename(target):
        msg = f"{target}: no such file or directory"
        raise UsageError(msg)
    from .pypi import looks_like_requirement  # not for paths: it imports the HTTP client

    if looks_like_requirement(target):
        return "pypi"
    from ._reqtext import requirement_problem

    problem = requirement_problem(target)
    if problem is not None:
        msg = f"{target}: not a valid requirement: {problem}"
        raise UsageError(msg)
    msg = f"{target}: not a directory, an sdist file or a requirement such as 'name==1.0'"
    raise UsageError(msg)


def check_target(target: str, options: Options | None = None) -> TargetResult:
    """Check one target; a target that cannot be analysed gives an error record."""
    options = options or Options()
    try:
        kind = classify_target(target)
    except UsageError as exc:
        return TargetResult(
            target=target, kind="directory", errors=(ErrorRecord(type="usage", message=str(exc)),)
        )
    try:
        if kind == "directory":
            files = read_directory(target)
            return check_files(files, target=target, kind=kind, options=options)
        # the archive readers (tar, zip, the inflaters) only for archives
        from .inputs.sources import read_sdist

        if kind == "sdist":
            files = read_sdist(target)
            return check_files(files, target=target, kind=kind, options=options)
        from .pypi import DEFAULT_INDEX_URL, Index, default_cache_dir

        cache_dir = None if options.no_cache else (options.cache_dir or default_cache_dir())
        index = Index(options.index_url or DEFAULT_INDEX_URL, cache_dir=cache_dir)
        download = index.fetch(target)
        # the cached file is read as a stream (never whole); without a cache, its bytes
        archive = download.path if download.path is not None else download.data
        files = read_sdist(archive, label=download.file.filename)
        return check_files(
            files,
            target=target,
            kind=kind,
            options=options,
            project=Project(name=download.file.name, version=download.file.version),
            sha256=download.file.sha256,
        )
    except TargetError as exc:
        return TargetResult(
            target=target, kind=kind, errors=(ErrorRecord(type=exc.kind, message=str(exc)),)
        )
    except UsageError:
        raise
    except SapperError as exc:  # pragma: no cover - defensive
        return TargetResult(
            target=target, kind=kind, errors=(ErrorRecord(type="error", message=str(exc)),)
        )


def check_targets(
    targets: Sequence[str],
    options: Options | None = None,
    *,
    on_target: Callable[[int, str], None] | None = None,
) -> list[TargetResult]:
    """Check targets in order; ``on_target(index, target)`` is called before each one."""
    results = []
    for i, target in enumerate(targets):
        if on_target is not None:
            on_target(i, target)
        results.append(check_target(target, options))
    return results
