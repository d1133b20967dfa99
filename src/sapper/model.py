"""sapper's data model: rules, findings, verdicts and per-target results.

Everything here is a frozen, slotted, picklable dataclass made of plain values,
so results can cross process boundaries and be serialised to JSON as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

__all__ = [
    "STATUSES",
    "ErrorRecord",
    "Finding",
    "Outcome",
    "Project",
    "Reference",
    "Stage",
    "StageName",
    "Status",
    "TargetKind",
    "TargetResult",
    "Verdict",
    "version_summary",
]

#: ``removed``: fails in the evaluated setuptools; ``overdue``: a warning past its due date,
#: fails there under ``SETUPTOOLS_ENFORCE_DEPRECATION=1``; ``requires-newer``: fails (or
#: warns) only in releases older than the evaluated one, a forward constraint on the
#: setuptools version rather than a time bomb (a PEP 639 license string before 77);
#: ``deprecated``: a pending deprecation (warns in the evaluated version, or fails only in
#: newer ones); ``suppression``: not a setuptools practice but a ``sapper: ignore`` comment
#: that suppresses nothing (rule SAP100, reported only when selected; never in scans).
Status = Literal["removed", "overdue", "deprecated", "requires-newer", "suppression"]
#: Every status of a setuptools practice, most severe first.
STATUSES: tuple[Status, ...] = ("removed", "overdue", "deprecated", "requires-newer")
Outcome = Literal["fails", "builds", "unknown"]
#: PEP 517 stages: ``metadata`` (``prepare_metadata_for_build_wheel``), ``wheel``
#: (``build_wheel``).
StageName = Literal["metadata", "wheel"]
TargetKind = Literal["directory", "sdist", "pypi"]


# A NamedTuple, like the Rule it belongs to: every cold `sapper check` builds the class, and a
# frozen dataclass costs several exec() calls to build. Findings and results below stay
# frozen dataclasses.
class Reference(NamedTuple):
    """A pointer to the changelog entry, issue or source that backs a rule."""

    title: str
    url: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One deprecated or removed practice found in a project.

    ``fails`` and ``fails_enforced`` are unions of PEP 440 specifier strings (each string is
    one range; a version fails if any of them contains it) over the released setuptools
    versions sapper knows. ``fails_enforced`` is the same under
    ``SETUPTOOLS_ENFORCE_DEPRECATION=1`` and always includes ``fails``.

    ``message`` is the rule's own prose; ``summary`` is the version summary made by
    :func:`version_summary` from the version sets and due date when the finding was
    reported. Renderers show :attr:`text`, the two together.
    """

    code: str
    slug: str
    message: str
    path: str
    line: int | None = None
    column: int | None = None
    fails: tuple[str, ...] = ()
    fails_enforced: tuple[str, ...] = ()
    warns: tuple[str, ...] = ()
    due_date: str | None = None
    fix: str | None = None
    status: Status = "deprecated"
    summary: str = ""

    @property
    def text(self) -> str:
        """The message followed by the version summary in parentheses (what renderers show)."""
        return f"{self.message} ({self.summary})" if self.summary else self.message


#: The specifier of a finding that fails with every release (the whole catalogue).
EVERY_RELEASE = ">=0"


def version_summary(
    fails: tuple[str, ...],
    fails_enforced: tuple[str, ...],
    warns: tuple[str, ...],
    due_date: str | None,
    *,
    today: str,
) -> str:
    """The one wording of a finding's versions: where it fails, where it fails only with
    ``SETUPTOOLS_ENFORCE_DEPRECATION=1``, and the deprecation's due date (``overdue since``
    when ``due_date`` is before ``today``, an ISO date), or where it warns when nothing fails
    and there is no due date. Empty when there is nothing to say."""
    parts: list[str] = []
    if fails == (EVERY_RELEASE,):
        parts.append("fails with every setuptools release")
    elif fails:
        parts.append("fails in setuptools " + " | ".join(fails))
    extra = [s for s in fails_enforced if s not in fails]
    if extra:
        parts.append("fails with SETUPTOOLS_ENFORCE_DEPRECATION=1 in " + " | ".join(extra))
    if due_date:
        when = "overdue since" if due_date < today else "due"
        parts.append(f"deprecation {when} {due_date} in the newest release")
    elif warns and not fails:
        parts.append("warns in setuptools " + " | ".join(warns))
    return "; ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    """What happens at one PEP 517 stage of a build with the verdict's setuptools."""

    name: StageName
    hook: str
    #: ``fails`` if the project's own practices fail here or setuptools itself does.
    outcome: Outcome
    #: Codes of the project's findings that fail at this stage.
    because: tuple[str, ...] = ()
    #: Why setuptools itself fails every build at this stage in this mode (enforced
    #: deprecations only), from ``data/backend.json``; None when it does not.
    backend: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What happens when this project is built with one setuptools version."""

    setuptools: str
    enforce_deprecations: bool
    outcome: Outcome
    because: tuple[str, ...] = ()
    #: Why this setuptools version was chosen (``--setuptools``, newest, or the project's
    #: ``build-system.requires``), or why the outcome is unknown.
    reason: str = ""
    #: Per PEP 517 stage (metadata, then wheel); ``outcome`` above is the project's own
    #: practices only, a stage's outcome also counts setuptools' own failures.
    stages: tuple[Stage, ...] = ()
    #: The setuptools specifier of ``build-system.requires`` when it rules out ``setuptools``
    #: (only for a version asked for explicitly, ``--setuptools``): an isolated build never
    #: gets that version, and the verdict is what a build without isolation does.
    excluded_by: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorRecord:
    """A target, or a part of it, that could not be analysed."""

    type: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Project:
    """The project's name and version, as far as its files tell (None: unknown)."""

    # (every dataclass here has a docstring: without one, ``dataclasses`` calls
    # ``inspect.signature`` to write it, at every start-up)

    name: str | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetResult:
    """Everything sapper found out about one target."""

    target: str
    kind: TargetKind
    project: Project = field(default_factory=Project)
    findings: tuple[Finding, ...] = ()
    verdict: Verdict | None = None
    errors: tuple[ErrorRecord, ...] = ()
    #: The build backend the project declares (``setuptools.build_meta:__legacy__`` when none).
    backend: str | None = None
    #: sha256 of the archive for sdist and pypi targets.
    sha256: str | None = None
    #: Whether setuptools builds the project (or an in-tree backend assumed to wrap it);
    #: None when the target could not be analysed.
    uses_setuptools: bool | None = None
