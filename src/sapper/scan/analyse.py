"""Analyse one sdist for ``sapper scan``: read it (stopping early when the rules allow),
check it, make its row.

Everything here runs in worker processes (the process pool, or Dask workers): the
functions are top-level and their arguments and results are picklable.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .._exceptions import SapperError, TargetError
from ..check import Options, check_files, selected
from ..inputs.sources import default_wanted, read_sdist
from ..model import ErrorRecord, Project, TargetKind, TargetResult
from ..render.json import result_dict
from ..versions import catalogue, contains
from .corpus import Job, parse_time, top_list
from .store import Row

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..pypi import Index, SdistFile

__all__ = [
    "AnalyseOptions",
    "analyse",
    "downloaded",
    "failed_row",
    "fetch_and_analyse",
    "file_sha256",
    "read_local",
    "read_plan",
]

#: What ``check_files`` reads to identify the project and its build backend.
_IDENTITY: Final = frozenset({"PKG-INFO", "pyproject.toml", "setup.cfg"})


@functools.lru_cache(maxsize=16)
def read_plan(select: tuple[str, ...], ignore: tuple[str, ...]) -> frozenset[str] | None:
    """The files to read (stopping once all are read) when every selected rule declares the
    files it reads (``Rule.reads``); None when a selected rule needs the whole archive (the
    layout rules read the listing, the setup.py rules the local modules setup.py imports)."""
    from ..rules import all_rules

    needs = set(_IDENTITY)
    for rule in all_rules():
        if not selected(rule.code, select, ignore):
            continue
        if rule.reads is None:
            return None
        needs |= rule.reads
    return frozenset(needs)


@dataclass(frozen=True, slots=True, kw_only=True)
class AnalyseOptions:
    """What every worker needs to know; picklable."""

    check: Options = field(default_factory=Options)
    #: Stop reading a tar archive once the files the selected rules read have been read,
    #: when they need no more (:func:`read_plan`).
    early_stop: bool = True
    index_url: str | None = None
    #: Download cache of the workers (None: their default cache directory).
    cache_dir: Path | None = None


def _now() -> _dt.datetime:
    return _dt.datetime.now(tz=_dt.timezone.utc).replace(tzinfo=None)


def _union(ranges: list[tuple[str, ...]]) -> list[str]:
    """The union of the findings' version ranges, merged into as few ranges as possible."""
    distinct = tuple(sorted({r for group in ranges for r in group}))
    return list(_merged(distinct)) if distinct else []


@functools.lru_cache(maxsize=1024)
def _merged(ranges: tuple[str, ...]) -> tuple[str, ...]:
    if len(ranges) == 1:
        return ranges
    cat = catalogue()
    return cat.to_specifiers(v for v in cat.universe if contains(ranges, v))


def make_row(job: Job, result: TargetResult, *, seconds: float) -> Row:
    """The store row of ``result``. Its outcomes are ``unknown`` for another build backend,
    and for a setuptools project whose verdict is ``unknown`` (what ``setup()`` gets, or a
    file the build reads, could not be read statically) unless a finding fails anyway:
    never "builds" on a guess."""
    newest = catalogue().newest
    findings = result.findings
    outcome: str | None = None
    enforced: str | None = None
    if result.verdict is not None:
        if not result.uses_setuptools:
            outcome = enforced = "unknown"
        else:
            otherwise = "unknown" if result.verdict.outcome == "unknown" else "builds"
            outcome = "fails" if any(contains(f.fails, newest) for f in findings) else otherwise
            enforced = (
                "fails" if any(contains(f.fails_enforced, newest) for f in findings) else otherwise
            )
    error = result.errors[0] if result.errors else None
    filename = job.filename or (Path(job.path).name if job.path else None)
    project = result.project.name or job.project
    version = result.project.version or job.version
    if not project or not version:  # the file name may tell
        guess = _from_filename(filename)
        project = project or guess[0]
        version = version or guess[1]
    key = result.sha256 or job.fallback_key
    sdist = {
        "key": key,
        "project": project,
        "version": version,
        "filename": filename,
        "sha256": result.sha256 or job.sha256,
        "upload_time": parse_time(job.upload_time),
        "size": job.size,
        "downloads": top_list().downloads(project),
        "has_wheel": job.has_wheel,
        "has_pure_wheel": job.has_pure_wheel,
        "backend": result.backend,
        "outcome": outcome,
        "outcome_enforced": enforced,
        "fails": _union([f.fails for f in findings]),
        "fails_enforced": _union([f.fails_enforced for f in findings]),
        "result": json.dumps(result_dict(result), ensure_ascii=False),
        "error_type": error.type if error else None,
        "error_message": error.message if error else None,
        "seconds": seconds,
        "scanned_at": _now(),
    }
    rows = tuple(
        {
            "key": key,
            "code": f.code,
            "slug": f.slug,
            "status": f.status,
            "path": f.path,
            "line": f.line,
            "fails": list(f.fails),
            "fails_enforced": list(f.fails_enforced),
            "warns": list(f.warns),
            "due_date": f.due_date,
        }
        for f in findings
    )
    other = result.verdict is not None and not result.uses_setuptools
    return Row(sdist=sdist, findings=rows, other_backend=other)


def _from_filename(filename: str | None) -> tuple[str | None, str | None]:
    """Project and version from an sdist filename (``name-1.0.tar.gz``), when it says."""
    if not filename:
        return None, None
    from packaging.utils import InvalidSdistFilename, parse_sdist_filename

    lower = filename.lower()
    for suffix in (".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar"):
        if lower.endswith(suffix):  # parse_sdist_filename knows .tar.gz and .zip only
            filename = filename[: -len(suffix)] + ".tar.gz"
            break
    try:
        name, version = parse_sdist_filename(filename)
    except InvalidSdistFilename:
        return None, None
    return str(name), str(version)


def failed_row(job: Job, error: ErrorRecord, *, seconds: float = 0.0) -> Row:
    """The row of a job whose archive could not be had (resolution or download failed)."""
    result = TargetResult(
        target=job.target,
        kind="pypi" if job.path is None else "sdist",
        project=Project(name=job.project, version=job.version),
        errors=(error,),
        sha256=job.sha256,
    )
    return make_row(job, result, seconds=seconds)


def analyse(job: Job, data: bytes | Path, options: AnalyseOptions) -> Row:
    """Check the archive of ``job`` (its bytes, or its file, which is read as a stream, never
    whole) and return its row; never raises for bad input."""
    start = time.perf_counter()
    label = job.filename or (Path(job.path).name if job.path else job.target)
    kind: TargetKind = "sdist" if job.path else "pypi"
    try:
        sha256 = job.sha256 or (
            hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else file_sha256(data)
        )
    except OSError as exc:
        return failed_row(job, ErrorRecord(type="target", message=_os_message(job, exc)))
    try:
        plan = None
        if options.early_stop:
            plan = read_plan(options.check.select, options.check.ignore)
        files = read_sdist(
            data,
            label=label,
            wanted=plan.__contains__ if plan is not None else default_wanted,
            stop_after=plan or (),
        )
        project = Project(name=job.project, version=job.version) if job.project else None
        result = check_files(
            files,
            target=job.target,
            kind=kind,
            options=options.check,
            project=project,
            sha256=sha256,
        )
    except TargetError as exc:
        result = TargetResult(
            target=job.target,
            kind=kind,
            project=Project(name=job.project, version=job.version),
            errors=(ErrorRecord(type=exc.kind, message=str(exc)),),
            sha256=sha256,
        )
    except (SapperError, RecursionError, MemoryError, ValueError, LookupError) as exc:
        # a bug or a limit in a rule must not stop a scan of thousands of sdists
        result = TargetResult(
            target=job.target,
            kind=kind,
            project=Project(name=job.project, version=job.version),
            errors=(ErrorRecord(type="internal", message=f"{label}: {type(exc).__name__}: {exc}"),),
            sha256=sha256,
        )
    return make_row(job, result, seconds=time.perf_counter() - start)


_HASH_CHUNK: Final = 1024 * 1024


def file_sha256(path: Path) -> str:
    """The sha256 of the file at ``path``, read a chunk at a time (never whole)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_local(job: Job) -> tuple[Job, Path]:
    """Hash ``job.path`` (streaming); the job gains its sha256 (its store key) and size, and
    the file is analysed from its path."""
    import dataclasses

    assert job.path is not None
    path = Path(job.path)
    sha = file_sha256(path)
    size = job.size or path.stat().st_size
    return dataclasses.replace(job, sha256=sha, size=size), path


def fetch_and_analyse(job: Job, options: AnalyseOptions) -> Row:
    """Get the archive of ``job`` (local file, cache or index) and analyse it (Dask workers)."""
    got = fetch_or_row(job, lambda j: fetch(j, options))
    return got if isinstance(got, Row) else analyse(*got, options)


def fetch_or_row(
    job: Job, get: Callable[[Job], tuple[Job, bytes | Path]]
) -> tuple[Job, bytes | Path] | Row:
    """``get(job)``, or the row that records why the archive could not be had."""
    start = time.perf_counter()
    try:
        return get(job)
    except (TargetError, OSError) as exc:
        kind = exc.kind if isinstance(exc, TargetError) else "target"
        message = str(exc) if isinstance(exc, TargetError) else _os_message(job, exc)
        return failed_row(
            job, ErrorRecord(type=kind, message=message), seconds=time.perf_counter() - start
        )


def fetch(job: Job, options: AnalyseOptions) -> tuple[Job, bytes | Path]:
    """``job``'s archive: its local file (hashed), or downloaded (cached, hash-checked)."""
    if job.path is not None:
        return read_local(job)
    from ..pypi import DEFAULT_INDEX_URL

    index = _index(options.index_url or DEFAULT_INDEX_URL, options.cache_dir)
    return job, downloaded(index, job)


def downloaded(index: Index, job: Job) -> bytes | Path:
    """Download ``job``'s archive: its file in the cache (read as a stream by the analysis,
    so that its bytes are not kept meanwhile), or its bytes when there is no cache."""
    download = index.download(sdist_file(job))
    return download.path if download.path is not None else download.data


def sdist_file(job: Job) -> SdistFile:
    """The index file a resolved job downloads."""
    from ..pypi import SdistFile

    assert job.url is not None and job.filename is not None
    return SdistFile(
        name=job.project or "",
        version=job.version or "",
        filename=job.filename,
        url=job.url,
        sha256=job.sha256 or "",
        upload_time=job.upload_time,
        size=job.size,
        yanked=False,
    )


_INDEXES: dict[tuple[str, Path | None], Index] = {}


def _index(url: str, cache_dir: Path | None) -> Index:
    from ..pypi import Index, default_cache_dir

    key = (url, cache_dir)
    if key not in _INDEXES:
        _INDEXES[key] = Index(url, cache_dir=cache_dir or default_cache_dir())
    return _INDEXES[key]


def _os_message(job: Job, exc: OSError) -> str:
    where = job.path or job.target
    return f"{where}: cannot read the file ({exc.strerror or exc}); check its path and permissions"
