"""Run a canary: resolve the corpus as ``sapper scan`` does, build every sdist with both
backends in the sandbox, classify, and write the rows to the store as they come."""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._defaults import DEFAULT_STORE
from .._exceptions import SapperError, ScanInterrupted
from ..build import Builder, BuildResult, Limits, Mode
from ..scan.corpus import Item, Job, VersionPolicy
from ._pool import in_dask, in_processes
from ._resolve import _permanent, _resolve
from .model import CLASSES, Backend, SideResult, TargetRow, classify
from .store import CanaryStore, corpus_identity

if TYPE_CHECKING:
    from ..check import Options
    from ..inputs._files import ProjectFiles
    from ..model import TargetResult

__all__ = [
    "OTHER_BACKEND_TIMEOUT",
    "CanaryOptions",
    "CanaryProgress",
    "CanarySummary",
    "build_side",
    "default_jobs",
    "default_work_dir",
    "run_canary",
    "same_inputs",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class CanaryOptions:
    """How to run a canary."""

    baseline: Backend
    candidate: Backend
    db: Path = DEFAULT_STORE
    mode: Mode = "metadata"
    all_backends: bool = False
    limits: Limits = field(default_factory=Limits)
    #: Worker processes (each builds one target, both sides, at a time).
    jobs: int = 1
    sandbox: bool = True
    versions: VersionPolicy = field(default_factory=lambda: VersionPolicy(kind="newest"))
    index_url: str | None = None
    cache_dir: Path | None = None
    #: Build again the targets an earlier run of the same settings left in these classes.
    retry: tuple[str, ...] = ()
    engine: Literal["process", "dask"] = "process"
    scheduler: str | None = None
    #: Where the builds unpack and run (default: :func:`default_work_dir`).
    work_dir: Path | None = None
    #: Bound of the build environments in bytes (None: :func:`~sapper.build.Builder`'s).
    envs_max_size: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CanaryProgress:
    phase: Literal["resolve", "build"]
    done: int
    total: int
    skipped: int
    elapsed: float
    counts: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class CanarySummary:
    run_id: str
    db: Path
    total: int
    built: int
    skipped: int
    seconds: float
    counts: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Settings:
    baseline: Backend
    candidate: Backend
    mode: Mode
    all_backends: bool
    builder: Builder
    index_url: str | None
    cache_dir: Path | None
    #: None: :func:`default_work_dir` of the machine the target is built on.
    work_dir: Path | None = None


#: The wall-clock limit per hook (seconds) of a target sapper reads as built by another
#: backend than setuptools (meson-python, scikit-build-core, hatchling...), without
#: ``--all-backends``: its class is ``not-setuptools`` whatever the builds give, and a
#: backend that compiles the project for its metadata would otherwise hold a worker for up
#: to twice ``--timeout`` per side. Such a build is not retried.
OTHER_BACKEND_TIMEOUT = 60.0
_BUDGET_NOTE = (
    " (the budget of a target built by another backend than setuptools, classified "
    "not-setuptools whatever its builds give; --all-backends gives it the full --timeout)"
)

#: A memory file system is used for the builds when it has this much room.
_MEMORY_WORK_MIN_FREE = 8 * 1024**3


def default_work_dir() -> Path | None:
    """Where builds unpack and run by default: ``/dev/shm`` when it is a writable memory
    file system (tmpfs) with 8 GiB free, else None (the temporary directory).

    A build writes thousands of small files (the unpacked sdist, its copy, ``egg-info``),
    all deleted a second later; on a busy disk that is most of a small build's time.
    """
    shm = Path("/dev/shm")
    try:
        stat = os.statvfs(shm)
        mounts = Path("/proc/mounts").read_text(encoding="utf-8")
    except OSError:
        return None
    is_tmpfs = any(
        line.split()[1:3] == [str(shm), "tmpfs"] for line in mounts.splitlines() if line.strip()
    )
    free = stat.f_bavail * stat.f_frsize
    if is_tmpfs and free >= _MEMORY_WORK_MIN_FREE and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


def default_jobs() -> int:
    """Builds at once by default: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


Static = tuple[str, tuple[str, ...]]


def _enforces(backend: Backend) -> bool:
    return dict(backend.env).get("SETUPTOOLS_ENFORCE_DEPRECATION", "").lower() in (
        "1",
        "true",
        "yes",
        "on",
    )


def _statics(
    path: Path, data: bytes | None, s: _Settings
) -> tuple[tuple[Static, Static], bool | None, tuple[str | None, str | None]]:
    """sapper's static verdict for both sides, ((fails|builds|unknown, rule codes) per
    side, uses setuptools, (project name, version)), from one reading of the sdist (its
    bytes ``data`` when given) and one run of the rules: the verdicts differ only by the
    setuptools version (and the enforcement of deprecations) they are evaluated at."""
    from ..check import Options, check_files, failing_codes
    from ..inputs._directory import read_directory
    from ..inputs.sources import read_sdist
    from ..versions import catalogue

    unknown: Static = ("unknown", ())
    sides = (s.baseline, s.candidate)
    try:
        if path.is_dir():
            files = read_directory(path)
        else:
            files = read_sdist(path if data is None else data, label=path.name)
    except SapperError:
        return (unknown, unknown), None, (None, None)

    def options(backend: Backend) -> Options:
        return Options(
            setuptools=backend.version,
            enforce_deprecations=_enforces(backend),
            index_url=s.index_url,
            cache_dir=s.cache_dir,
        )

    kind: Literal["directory", "sdist"] = "directory" if path.is_dir() else "sdist"
    try:
        result = check_files(files, target=str(path), kind=kind, options=options(sides[0]))
    except SapperError:
        result = None
    if result is None or any(b.version is None for b in sides):
        # a version to choose from the project's own requirements: each side on its own
        return _statics_each(path, files, kind, [options(b) for b in sides], result)
    ident = (result.project.name, result.project.version)
    verdict = result.verdict
    if verdict is None:
        return (unknown, unknown), result.uses_setuptools, ident
    first: Static = (verdict.outcome, tuple(verdict.because))
    if verdict.outcome == "unknown" and not verdict.setuptools:
        # not a setuptools project (or no release matches): whatever the version
        return (first, first), result.uses_setuptools, ident
    if _builds_itself(verdict.setuptools, sides[0].version):
        # setuptools' own sdist: its in-tree backend is itself, whichever setuptools a side
        # pins, so both sides are judged with the tree's own version
        return (first, first), result.uses_setuptools, ident
    # setup() gets keywords sapper cannot read: "unknown" at any version nothing fails at
    from ..facts.setup_py import SetupPyFacts

    unread = verdict.outcome == "unknown" or bool(
        verdict.outcome == "fails" and "setup.py" in files.files and SetupPyFacts(files).unseen
    )
    version = sides[1].version
    assert version is not None
    try:
        version = catalogue().validate_version(version)
    except SapperError:
        return (first, unknown), result.uses_setuptools, ident
    because = failing_codes(result.findings, version, enforce=_enforces(sides[1]))
    second: Static = ("fails" if because else ("unknown" if unread else "builds"), because)
    return (first, second), result.uses_setuptools, ident


def _builds_itself(judged: str, asked: str | None) -> bool:
    """Whether the verdict was given for another setuptools than the side asked for: the
    tree builds with its own (see ``sapper.check``'s ``_own_setuptools``)."""
    from ..versions import catalogue

    if not judged or asked is None:
        return False
    try:
        return judged != catalogue().validate_version(asked)
    except SapperError:
        return False


def _statics_each(
    path: Path,
    files: ProjectFiles,
    kind: Literal["directory", "sdist"],
    options: list[Options],
    first: TargetResult | None,
) -> tuple[tuple[Static, Static], bool | None, tuple[str | None, str | None]]:
    """The static verdicts of the sides one by one (``first``: the baseline's result, or
    None when it raised), from the files read once."""
    from ..check import check_files

    out: list[Static] = []
    uses: bool | None = None
    ident: tuple[str | None, str | None] = (None, None)
    for index, option in enumerate(options):
        try:
            result = (
                first
                if index == 0
                else check_files(files, target=str(path), kind=kind, options=option)
            )
        except SapperError:
            result = None
        if result is None:
            out.append(("unknown", ()))
            continue
        uses = result.uses_setuptools if result.uses_setuptools is not None else uses
        if ident == (None, None):
            ident = (result.project.name, result.project.version)
        verdict = result.verdict
        out.append(
            ("unknown", ()) if verdict is None else (verdict.outcome, tuple(verdict.because))
        )
    return (out[0], out[1]), uses, ident


def build_side(
    builder: Builder,
    path: Path,
    backend: Backend,
    mode: Mode,
    *,
    tree: Path | None = None,
    move: bool = False,
    retry: bool = True,
) -> tuple[BuildResult, int]:
    """Build ``path`` with ``backend``; a spurious failure is retried once (from ``path``)
    unless ``retry`` is False.

    ``tree``: the sdist already unpacked (:func:`~sapper.build.unpack_sdist`), copied into
    the build's own directory instead of unpacking the archive again, or moved there with
    ``move`` (the last side of a target).
    """
    source = tree if tree is not None else path
    result = builder.build(
        source,
        mode=mode,
        override=[backend.requirement],
        env=dict(backend.env),
        move_source=move and tree is not None,
    )
    if result.outcome == "spurious" and retry:
        return builder.build(
            path, mode=mode, override=[backend.requirement], env=dict(backend.env)
        ), 2
    return result, 1


def same_inputs(
    result: BuildResult, baseline: Backend, candidate: Backend, *, timeouts: bool = False
) -> bool:
    """Whether the candidate's build of a target would get exactly the inputs of the
    baseline's build ``result``: neither the requirements the sdist declares, nor those its
    ``get_requires_for_build_wheel`` added, nor those installed (with the pin of a
    setuptools another requirement pulled in) name what the backends pin (a project built
    by hatchling, flit, maturin... without setuptools; setuptools' own backend is always
    pinned), and both sides set the same variables.
    Then the build environment, the source and the hooks are the same, and so is the
    outcome. Only a completed verdict (``ok`` or ``fail``) is reused: a spurious or
    prepare-fail result is worth building again, except a timeout with ``timeouts`` (a
    target under the budget of other backends, whose class does not depend on it)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    timed_out = timeouts and result.spurious_reason == "timeout"
    if (result.outcome not in ("ok", "fail") and not timed_out) or dict(baseline.env) != dict(
        candidate.env
    ):
        return False
    pinned = set()
    for text in (baseline.requirement, candidate.requirement):
        try:
            pinned.add(canonicalize_name(Requirement(text).name))
        except InvalidRequirement:
            return False
    for text in (*result.declared_requires, *result.dynamic_requires, *result.requires):
        try:
            name = canonicalize_name(Requirement(text).name)
        except InvalidRequirement:
            return False
        if name in pinned:
            return False
    from ..build._runner import is_setuptools_backend

    if "setuptools" in pinned and is_setuptools_backend(result.backend):
        return False  # setuptools' backend reached through another requirement: pinned
    return result.backend != ""


def reuse_baseline(
    result: BuildResult, baseline: Backend, candidate: Backend, *, budgeted: bool
) -> bool:
    """Whether the candidate side takes the baseline's ``result`` instead of a build of its
    own: when its inputs are the same (:func:`same_inputs`), or when the baseline timed out
    under the budget of another backend (``budgeted``): such a target is classified
    not-setuptools whatever its builds give, so a second wait of the budget (statsmodels,
    scikit-image: meson compiling for its metadata, with setuptools among its requirements,
    so pinned per side) would buy nothing."""
    if budgeted and result.outcome == "spurious" and result.spurious_reason == "timeout":
        return True
    return same_inputs(result, baseline, candidate, timeouts=budgeted)


def _side(
    result: BuildResult, attempts: int, backend: Backend, static: tuple[str, tuple[str, ...]]
) -> SideResult:
    return SideResult(
        backend=backend.label,
        outcome=result.outcome,
        error_type=result.error_type,
        signature=result.signature,
        message=result.message,
        spurious_reason=result.spurious_reason,
        hook=result.hook,
        seconds=result.seconds,
        attempts=attempts,
        log_tail=result.log_tail[-3000:],
        warnings=tuple(
            {k: v for k, v in asdict(w).items() if k != "message"} | {"message": w.message[:2000]}
            for w in result.warnings
        ),
        static=static[0],
        static_codes=static[1],
    )


def run_target(job: Job, s: _Settings) -> TargetRow:
    """Both sides of one target (runs in a worker)."""
    from ..scan.corpus import top_list

    base = TargetRow(
        key=job.fallback_key,
        target=job.target,
        project=job.project,
        version=job.version,
        cls="prepare-fail",
        downloads=top_list().downloads(job.project),
    )
    work_dir = s.work_dir or default_work_dir()
    builder = copy.copy(s.builder)
    builder.work_root = work_dir
    with tempfile.TemporaryDirectory(prefix="sapper-canary-", dir=work_dir) as tmp:
        try:
            path = _materialize(job, s, Path(tmp))
        except (SapperError, OSError) as exc:
            return replace(base, error=str(exc), permanent=_permanent(exc))
        data = _read_bytes(path)
        key = job.sha256 or (hashlib.sha256(data).hexdigest() if data else _digest(path))
        base = replace(base, key=key)
        try:
            statics, uses, (name, version) = _statics(path, data, s)
            if base.project is None and name:
                base = replace(base, project=name, version=version)
            tree = _unpack_once(path, data, Path(tmp) / "tree")
            data = None  # not kept in memory during the builds
            budgeted = not s.all_backends and uses is False
            if budgeted:
                # classified not-setuptools whatever the builds give: a short budget, so
                # that a backend compiling for its metadata (meson-python...) cannot hold
                # a worker for two timeouts
                builder.limits = replace(
                    builder.limits, timeout=min(builder.limits.timeout, OTHER_BACKEND_TIMEOUT)
                )
            sides: list[SideResult] = []
            first: BuildResult | None = None
            for side, backend in enumerate((s.baseline, s.candidate)):
                if first is not None and reuse_baseline(
                    first, s.baseline, s.candidate, budgeted=budgeted
                ):
                    # the baseline's build, with exactly the candidate's inputs: not repeated
                    result, attempts = replace(first, seconds=0.0), 0
                else:
                    result, attempts = build_side(
                        builder,
                        path,
                        backend,
                        s.mode,
                        tree=tree,
                        move=side == 1,
                        retry=not budgeted,
                    )
                    if budgeted and result.spurious_reason == "timeout":
                        result = replace(result, message=f"{result.message}{_BUDGET_NOTE}")
                first = first or result
                sides.append(_side(result, attempts, backend, statics[side]))
        except SapperError as exc:
            return replace(base, cls="error", error=str(exc))
        except Exception as exc:  # a bug of sapper's: recorded, the run goes on
            return replace(base, cls="error", error=f"{type(exc).__name__}: {exc}")
    cls = classify(sides[0], sides[1], uses_setuptools=uses, all_backends=s.all_backends)
    return replace(base, cls=cls, baseline=sides[0], candidate=sides[1], uses_setuptools=uses)


def _read_bytes(path: Path) -> bytes | None:
    """The sdist's bytes, read once for the static verdicts and the unpack (None for a
    folder, or a file that cannot be read: each reader then reports the problem)."""
    if path.is_dir():
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def _unpack_once(path: Path, data: bytes | None, dest: Path) -> Path | None:
    """The sdist unpacked once for both sides; None (each side unpacks the archive and
    reports what is wrong as its own prepare-fail) when it cannot be, or is a folder."""
    from ..build import unpack_sdist

    if path.is_dir():
        return None
    try:
        return unpack_sdist(path, dest, data=data)
    except (SapperError, OSError):
        return None


def _materialize(job: Job, s: _Settings, tmp: Path) -> Path:
    if job.path is not None:
        return Path(job.path)
    from ..pypi import DEFAULT_INDEX_URL, Index, default_cache_dir
    from ..scan.analyse import sdist_file

    index = Index(s.index_url or DEFAULT_INDEX_URL, cache_dir=s.cache_dir or default_cache_dir())
    download = index.download(sdist_file(job))
    if download.path is not None:
        return download.path
    dest = tmp / (job.filename or "sdist.tar.gz")
    dest.write_bytes(download.data)
    return dest


def run_canary(
    sources: Sequence[str],
    *,
    top: int | None = None,
    options: CanaryOptions,
    on_progress: Callable[[CanaryProgress], None] | None = None,
) -> CanarySummary:
    """Build every sdist of the corpus with both backends and store the classified rows.

    :raises UsageError: for bad sources or options, or a store that cannot be opened.
    :raises SandboxError: when the sandbox is asked for and does not work.
    :raises ScanInterrupted: on Ctrl-C (``KeyboardInterrupt``), with the rows of the run in
        the store: what was written stays, and the same call again resumes.
    """
    start = time.monotonic()
    builder = Builder(
        cache_dir=options.cache_dir,
        index_url=options.index_url,
        limits=options.limits,
        sandbox=options.sandbox,
        envs_max_size=options.envs_max_size,
    )
    builder.check()
    settings = _Settings(
        baseline=options.baseline,
        candidate=options.candidate,
        mode=options.mode,
        all_backends=options.all_backends,
        builder=builder,
        index_url=options.index_url,
        cache_dir=options.cache_dir,
        work_dir=options.work_dir,
    )
    from ..scan.corpus import expand, top_list

    items = list(expand(sources, top=top))
    corpus = corpus_identity(
        sources,
        top=top is not None,
        ranking=top_list().source,
        versions=str(options.versions),
        index_url=options.index_url,
        remote=any(item.kind == "requirement" for item in items),
    )
    counts: dict[str, int] = dict.fromkeys(CLASSES, 0)
    with CanaryStore(options.db) as store:
        run_id = store.open_run(
            options.baseline,
            options.candidate,
            options.mode,
            options.all_backends,
            corpus=corpus,
            targets=[item.text for item in items],
        )
        try:
            return _run(run_id, store, items, settings, options, counts, on_progress, start)
        except KeyboardInterrupt:
            raise _interrupted(store, run_id, counts) from None


def _interrupted(store: CanaryStore, run_id: str, counts: dict[str, int]) -> ScanInterrupted:
    """What Ctrl-C leaves: the rows of the run in the store, and how many this call wrote."""
    try:
        stored: int | None = len(store.done_keys(run_id))
    except Exception:  # the count is a courtesy; the interruption is what matters
        stored = None
    return ScanInterrupted(db=store.path, stored=stored, written=sum(counts.values()))


def _run(  # noqa: PLR0917 - run_canary's state, handed on once
    run_id: str,
    store: CanaryStore,
    items: Sequence[Item],
    settings: _Settings,
    options: CanaryOptions,
    counts: dict[str, int],
    on_progress: Callable[[CanaryProgress], None] | None,
    start: float,
) -> CanarySummary:
    done = store.done_keys(run_id, retry=options.retry)
    jobs: list[Job] = []
    early: list[TargetRow] = []
    seen: set[str] = set()
    for item in _resolve((), None, options, items=items):
        if isinstance(item, TargetRow):
            early.append(item)
            continue
        found = item
        if found.path is not None and not found.sha256:
            found = replace(found, sha256=_digest(Path(found.path)))
        key = found.fallback_key
        if key in seen:
            continue
        seen.add(key)
        if found.sha256 and found.sha256 in done:
            continue
        jobs.append(found)
    skipped = len(seen) - len(jobs)
    # the biggest sdists first (the size stands for the build time): a slow target
    # started last would leave the other workers idle at the end of the run
    jobs.sort(key=_size, reverse=True)
    store.write(run_id, early)
    for row in early:
        counts[row.cls] += 1
    total = len(jobs) + len(early)
    state = {"done": len(early)}

    def report(phase: Literal["resolve", "build"] = "build") -> None:
        if on_progress is not None:
            on_progress(
                CanaryProgress(
                    phase=phase,
                    done=state["done"],
                    total=total,
                    skipped=skipped,
                    elapsed=time.monotonic() - start,
                    counts=dict(counts),
                )
            )

    report()
    built = _execute(jobs, settings, options)
    try:
        for row in built:
            store.write(run_id, [row])
            counts[row.cls] = counts.get(row.cls, 0) + 1
            state["done"] += 1
            report()
    finally:  # closed at once when interrupted: the workers are ended, not waited for
        getattr(built, "close", lambda: None)()
    store.finish_run(run_id)
    return CanarySummary(
        run_id=run_id,
        db=options.db,
        total=total + skipped,
        built=state["done"],
        skipped=skipped,
        seconds=time.monotonic() - start,
        counts=counts,
    )


def _size(job: Job) -> int:
    """The sdist's size in bytes, as known from the index or the file (0 when unknown)."""
    if job.size is not None:
        return job.size
    if job.path is not None:
        with contextlib.suppress(OSError):
            return Path(job.path).stat().st_size
    return 0


def _execute(
    jobs: list[Job], s: _Settings, options: CanaryOptions
) -> Generator[TargetRow, None, None]:
    if options.engine == "dask":
        yield from in_dask(functools.partial(run_target, s=s), jobs, options.scheduler)
        return
    if options.jobs <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield run_target(job, s)
        return
    yield from in_processes(functools.partial(run_target, s=s), jobs, options.jobs)
