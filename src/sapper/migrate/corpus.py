"""``sapper scan --migrate``: how much of a corpus :func:`~sapper.migrate.plan_migration`
migrates, proven by :func:`~sapper.migrate.verify.verify_migration`, and why the rest not.

:func:`migrate_corpus` takes the sources ``sapper scan`` takes (sdists, directories of
sdists, list files, requirements, ``top=N``: the top-PyPI list shipped with sapper), reads
each sdist (the newest one pip would take for a requirement, from the index through
sapper's download cache), and sorts it:

* ``not-setuptools``: another build backend, or none declared and neither setup.py nor
  setup.cfg;
* ``has-project``: a setuptools project whose pyproject.toml already has ``[project]``;
* ``unreadable``: the archive or its pyproject.toml cannot be read (``fetch-error``: the
  sdist could not be resolved or downloaded);
* then, for the setuptools projects without ``[project]`` (what is measured):
  ``migrated`` (a plan with changes), ``refused`` (the plan's refusals, by code),
  ``nothing-to-do`` (a plan without changes nor refusals) or ``error`` (the planner raised:
  a bug, with its exception).

The first ``verify_sample`` migrated sdists (all with None, in corpus order) are written to
a copy of the tree and built before and after in the sandbox
(:func:`~sapper.migrate.verify.verify_migration`): ``equivalent``, ``different`` (each one a
bug of the planner) or ``unverified`` with the reason. Nothing is ever written to the
sdists or the trees they came from.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._exceptions import SapperError, TargetError
from .verify import Verification, verify_migration

if TYPE_CHECKING:
    from ..build import Builder
    from ..pypi import Index
    from . import Migration, Refusal

__all__ = [
    "CorpusEntry",
    "CorpusReport",
    "Outcome",
    "classify_tree",
    "migrate_corpus",
]

Outcome = Literal[
    "migrated",
    "refused",
    "nothing-to-do",
    "error",
    "has-project",
    "not-setuptools",
    "unreadable",
    "fetch-error",
]
#: The outcomes of the setuptools projects without ``[project]``: what the aims count.
MEASURED: tuple[Outcome, ...] = ("migrated", "refused", "nothing-to-do", "error")


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    """What happened to one sdist of the corpus."""

    #: The source as given (a path, a requirement or a name of the top list).
    target: str
    outcome: Outcome
    project: str | None = None
    version: str | None = None
    filename: str | None = None
    #: Why, for ``not-setuptools``, ``unreadable``, ``fetch-error`` and ``error``.
    detail: str = ""
    refusals: tuple[Refusal, ...] = ()
    #: The files a ``migrated`` plan changes (relative paths).
    changed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: The proof, for the migrated sdists of the verified sample; None otherwise.
    verification: Verification | None = None

    @property
    def label(self) -> str:
        if self.project and self.version:
            return f"{self.project} {self.version}"
        return self.filename or self.target


@dataclass(frozen=True, slots=True)
class CorpusReport:
    """The entries of a corpus run, in corpus order, and their counts."""

    entries: tuple[CorpusEntry, ...]
    #: Whether every source was handled (False while running, or when interrupted).
    complete: bool = True
    #: How many migrated sdists were to be verified (None: all).
    verify_sample: int | None = None
    notes: tuple[str, ...] = field(default=())

    def outcomes(self) -> Counter[str]:
        return Counter(e.outcome for e in self.entries)

    def measured(self) -> int:
        """The setuptools projects without ``[project]``."""
        return sum(1 for e in self.entries if e.outcome in MEASURED)

    def verifications(self) -> Counter[str]:
        """Over the migrated entries: equivalent, different, unverified, not-verified."""
        return Counter(
            e.verification.status if e.verification else "not-verified"
            for e in self.entries
            if e.outcome == "migrated"
        )

    def refusal_codes(self) -> Counter[str]:
        """Refused sdists by refusal code (an sdist refused for two reasons counts twice)."""
        return Counter(code for e in self.entries for code in sorted({r.code for r in e.refusals}))

    def unverified_reasons(self) -> Counter[str]:
        return Counter(
            _reason_kind(e.verification.reason)
            for e in self.entries
            if e.verification is not None and e.verification.status == "unverified"
        )

    def errors(self) -> Counter[str]:
        return Counter(e.detail.partition(":")[0] for e in self.entries if e.outcome == "error")

    def as_json(self) -> dict[str, Any]:
        """The JSON form (``sapper scan --migrate --migrate-json``)."""
        return {
            "schema": "sapper.migrate-corpus/1",
            "complete": self.complete,
            "verify_sample": self.verify_sample,
            "sdists": len(self.entries),
            "outcomes": dict(sorted(self.outcomes().items())),
            "measured": self.measured(),
            "verifications": dict(sorted(self.verifications().items())),
            "refusals": dict(self.refusal_codes().most_common()),
            "unverified": dict(self.unverified_reasons().most_common()),
            "errors": dict(self.errors().most_common()),
            "entries": [_entry_json(e) for e in self.entries],
        }


def _entry_json(entry: CorpusEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "target": entry.target,
        "project": entry.project,
        "version": entry.version,
        "filename": entry.filename,
        "outcome": entry.outcome,
    }
    if entry.detail:
        out["detail"] = entry.detail
    if entry.refusals:
        out["refusals"] = [
            {"code": r.code, "reason": r.reason, "path": r.path, "line": r.line}
            for r in entry.refusals
        ]
    if entry.changed:
        out["changed"] = list(entry.changed)
    if entry.notes:
        out["notes"] = list(entry.notes)
    if entry.verification is not None:
        out["verification"] = {
            "status": entry.verification.status,
            "reason": entry.verification.reason,
            "differences": [
                {"what": d.what, "before": d.before, "after": d.after}
                for d in entry.verification.differences
            ],
        }
    return out


def _reason_kind(reason: str) -> str:
    """A verification's reason without its particulars (the counted kind)."""
    for kind in (
        "no build sandbox",
        "the tree before the migration does not build",
        "the build of the migrated tree did not finish",
        "no setuptools release sapper knows",
    ):
        if reason.startswith(kind):
            return kind
    return reason


# --------------------------------------------------------------------------- one tree


def _setuptools_backend(backend: str) -> bool:
    module = backend.partition(":")[0].strip()
    return module == "setuptools" or module.startswith("setuptools.")


def classify_tree(root: Path) -> tuple[Outcome | None, str]:
    """Whether the unpacked sdist ``root`` is measured: ``(None, "")`` for a setuptools
    project without ``[project]``, else the outcome (``not-setuptools``, ``has-project``,
    ``unreadable``) and why. Reads pyproject.toml only; runs nothing."""
    from .._toml import loads as toml_loads

    pyproject = root / "pyproject.toml"
    data: dict[str, Any] = {}
    if pyproject.is_file():
        try:
            data = toml_loads(pyproject.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, OSError) as exc:
            return "unreadable", f"pyproject.toml: {exc}"
    system = data.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    if isinstance(backend, str) and backend.strip():
        if not _setuptools_backend(backend):
            return "not-setuptools", f"build backend {backend}"
    elif not ((root / "setup.py").is_file() or (root / "setup.cfg").is_file()):
        # setuptools' backend (PEP 517's default) builds a tree with a setup.cfg only
        return "not-setuptools", "no build backend declared, no setup.py and no setup.cfg"
    if isinstance(data.get("project"), dict):
        return "has-project", "pyproject.toml has a [project] table"
    return None, ""


def _apply(plan: Migration, tree: Path, work: Path) -> Path:
    """A copy of ``tree`` (same directory name) with the plan written into it."""
    from . import write_migration

    copy = work / "after" / tree.name
    write_migration(plan, dest=copy)
    return copy


def _measure_tree(
    entry: CorpusEntry,
    tree: Path,
    work: Path,
    *,
    python: str | None,
    verify: bool,
    builder: Builder | None,
) -> CorpusEntry:
    outcome, detail = classify_tree(tree)
    if outcome is not None:
        return replace(entry, outcome=outcome, detail=detail)
    from . import plan_migration

    try:
        plan = plan_migration(tree, python=python)
    except Exception as exc:  # a planner bug is a measured outcome
        return replace(entry, outcome="error", detail=f"{type(exc).__name__}: {exc}"[:2000])
    if plan.refusals:
        return replace(entry, outcome="refused", refusals=tuple(plan.refusals))
    if not plan.changes:
        return replace(entry, outcome="nothing-to-do", notes=tuple(plan.notes))
    migrated = replace(
        entry,
        outcome="migrated",
        changed=tuple(c.path for c in plan.changes),
        notes=tuple(plan.notes),
    )
    if not verify:
        return migrated
    try:
        after = _apply(plan, tree, work)
    except Exception as exc:  # a writer bug is a measured outcome
        return replace(entry, outcome="error", detail=f"{type(exc).__name__}: {exc}"[:2000])
    return replace(migrated, verification=verify_migration(tree, after, builder=builder))


# --------------------------------------------------------------------------- the corpus


def _sdist(item_kind: str, text: str, index: Index | None) -> tuple[Path | bytes, CorpusEntry]:
    """The archive of one source (a path, or the bytes/cached file of the sdist a
    requirement resolves to) and its entry so far.

    :raises TargetError: when it cannot be resolved or downloaded.
    """
    if item_kind == "path":
        path = Path(text)
        return path, CorpusEntry(target=text, outcome="unreadable", filename=path.name)
    if index is None:
        from ..pypi import Index

        index = Index()
    file = index.resolve(text)
    download = index.download(file)
    entry = CorpusEntry(
        target=text,
        outcome="unreadable",
        project=file.name,
        version=file.version,
        filename=file.filename,
    )
    return (download.path if download.path is not None else download.data), entry


def migrate_corpus(
    sources: Sequence[str] = (),
    *,
    top: int | None = None,
    index: Index | None = None,
    verify_sample: int | None = None,
    builder: Builder | None = None,
    python: str | None = None,
    work_root: Path | None = None,
    on_entry: Callable[[CorpusEntry, CorpusReport], None] | None = None,
) -> CorpusReport:
    """Plan (and verify, for the first ``verify_sample`` migrated; None: all, 0: none) the
    migration of every sdist ``sources`` and ``top`` name (see :mod:`sapper.scan.corpus`'s
    :func:`~sapper.scan.corpus.expand`). ``index``: where requirements are resolved and
    downloaded (default PyPI through sapper's cache); ``builder``: for the proofs;
    ``python``: passed to :func:`~sapper.migrate.plan_migration`. ``on_entry`` is called
    after each sdist with its entry and the report so far.

    Never raises for what an sdist is or does: each is an entry.

    :raises UsageError: for a source that is neither an sdist, a directory, a list file nor
        a requirement.
    """
    from ..build import unpack_sdist
    from ..scan.corpus import expand

    items = list(expand(sources, top=top))
    entries: list[CorpusEntry] = []
    verified = 0
    for item in items:
        with tempfile.TemporaryDirectory(prefix="sapper-migrate-corpus-", dir=work_root) as tmp:
            work = Path(tmp)
            try:
                archive, entry = _sdist(item.kind, item.text, index)
            except (TargetError, OSError) as exc:
                entry = CorpusEntry(target=item.text, outcome="fetch-error", detail=str(exc))
            else:
                entry = _one(
                    entry,
                    archive,
                    work,
                    unpack=unpack_sdist,
                    python=python,
                    verify=verify_sample is None or verified < verify_sample,
                    builder=builder,
                )
        if entry.verification is not None:
            verified += 1
        entries.append(entry)
        if on_entry is not None:
            on_entry(entry, _report(entries, False, verify_sample))
    return _report(entries, True, verify_sample)


def _report(entries: Iterable[CorpusEntry], complete: bool, sample: int | None) -> CorpusReport:
    return CorpusReport(entries=tuple(entries), complete=complete, verify_sample=sample)


def _one(
    entry: CorpusEntry,
    archive: Path | bytes,
    work: Path,
    *,
    unpack: Callable[..., Path],
    python: str | None,
    verify: bool,
    builder: Builder | None,
) -> CorpusEntry:
    name = entry.filename or "sdist.tar.gz"
    try:
        if isinstance(archive, bytes):  # an index without a cache: the file is written
            path = work / Path(name).name
            path.write_bytes(archive)
            archive = path
        tree = unpack(archive, work / "before")
    except (SapperError, OSError) as exc:
        return replace(entry, outcome="unreadable", detail=str(exc))
    if entry.project is None:
        with contextlib.suppress(ValueError):
            from packaging.utils import parse_sdist_filename

            project, version = parse_sdist_filename(name)
            entry = replace(entry, project=str(project), version=str(version))
    return _measure_tree(entry, tree, work, python=python, verify=verify, builder=builder)
