"""The rows of a scan report (:func:`sapper.report.summary.summarize` computes them): pure,
frozen data that the text, JSON and HTML renderers read. Re-exported by
:mod:`sapper.report.summary`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CLASSES",
    "EXPOSURE_WEIGHT",
    "AtRisk",
    "Count",
    "Example",
    "Exposure",
    "Incident",
    "RuleRow",
    "SdistClass",
    "StoreInfo",
    "Summary",
    "Totals",
    "VersionRow",
    "WhatIf",
    "YearRow",
    "share",
]

SdistClass = Literal["fails", "overdue", "builds", "unknown", "error"]
#: Every sdist class, in display order.
CLASSES: tuple[SdistClass, ...] = ("fails", "overdue", "builds", "unknown", "error")
Exposure = Literal["no wheel", "platform wheels only", "wheels unknown"]
#: Rough share of a project's installs that build its sdist, by what wheels it publishes.
EXPOSURE_WEIGHT: dict[Exposure, float] = {
    "no wheel": 1.0,
    "platform wheels only": 0.5,
    "wheels unknown": 0.5,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Count:
    """How many sdists, projects (current sdist) and 30-day downloads something covers.

    ``sdist_downloads`` estimates the downloads that would build the sdist: a project's
    downloads times :data:`EXPOSURE_WEIGHT` of its wheels (0 when it ships a pure wheel).
    """

    sdists: int = 0
    projects: int = 0
    downloads: int = 0
    sdist_downloads: int = 0


def share(part: int, whole: int) -> float | None:
    """``part / whole`` rounded to 4 places; None when ``whole`` is 0."""
    return round(part / whole, 4) if whole else None


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreInfo:
    path: str
    kind: str
    schema_version: str | None
    sapper_version: str | None
    newest_setuptools: str | None
    top_list_date: str | None
    created_at: str | None
    last_run_at: str | None
    engine: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Totals:
    #: ``sdists``: rows; ``projects``: distinct projects; ``downloads``: their sum.
    all: Count
    #: Projects whose downloads are known.
    projects_with_downloads: int
    #: Per sdist class, in :data:`CLASSES` order (classes with no sdist included).
    classes: tuple[tuple[SdistClass, Count], ...]
    #: ``error_type`` -> number of sdists, most frequent first.
    errors: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleRow:
    """One rule, with all its findings (``status`` None) or those of one status."""

    code: str
    slug: str
    summary: str
    status: str | None
    count: Count
    due_date: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class YearRow:
    """Sdists uploaded in one year (None: upload time unknown), by class."""

    year: int | None
    sdists: int
    classes: tuple[tuple[SdistClass, int], ...]

    def of(self, cls: SdistClass) -> int:
        return dict(self.classes).get(cls, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """A project, by its newest sdist."""

    project: str
    version: str | None
    downloads: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIf:
    """What breaks if setuptools turned one rule's overdue or pending deprecation into an error.

    ``count`` covers sdists that build today (class ``builds`` or ``overdue``) and have a
    finding of ``code`` with ``status``; ``examples`` are the most-downloaded such projects
    (by their newest sdist).
    """

    code: str
    slug: str
    summary: str
    status: str
    due_date: str | None
    count: Count
    examples: tuple[Example, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class VersionRow:
    """Sdists whose findings fail on one setuptools version (normal and enforced builds)."""

    version: str
    date: str | None
    fails: Count
    fails_enforced: Count
    #: As it happened: of the projects with a release current on ``date`` (the newest
    #: uploaded before that day), those whose release then fails on ``version``.
    then: Count = Count()
    then_total: Count = Count()
    #: Sdists that fail on ``version`` and built on the key version before it, and the
    #: reverse (0 for the first): the change a release made, such as 78.0.1's.
    newly_failing: int = 0
    newly_building: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Incident:
    """setuptools 78.0.1 (2025-03-24) as it happened, from the releases current that day."""

    version: str
    date: str
    #: Projects with a release uploaded before ``date`` (``sdists`` = ``projects``).
    current: Count
    #: Those newly broken: their current release failed on ``version`` but not on the
    #: release before it.
    failing: Count
    #: The release before ``version``.
    previous: str | None
    #: Every scanned sdist that fails on ``version``, current then or not.
    sdists_failing: int
    #: Projects in the store, and how many have no scanned release from before ``date``.
    projects: int
    without_release: int
    examples: tuple[Example, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AtRisk:
    """A project whose newest sdist fails (or fails when enforced) and that lacks a pure wheel."""

    project: str
    version: str | None
    downloads: int | None
    exposure: Exposure
    score: float
    cls: SdistClass
    codes: tuple[str, ...]
    upload_time: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    store: StoreInfo
    totals: Totals
    rules: tuple[RuleRow, ...]
    years: tuple[YearRow, ...]
    what_if: tuple[WhatIf, ...]
    versions: tuple[VersionRow, ...]
    at_risk: tuple[AtRisk, ...]
    #: How many at-risk projects there are in all (``at_risk`` holds the top ones).
    at_risk_total: int
    #: setuptools 78.0.1 as it happened (None if the catalogue lacks it).
    incident: Incident | None = None
    #: With ``--as-of``: projects are counted by their newest sdist uploaded before this day.
    as_of: str | None = None
    #: Why setuptools itself fails every wheel build under SETUPTOOLS_ENFORCE_DEPRECATION=1
    #: at the store's newest setuptools (from ``data/backend.json``); None if it does not.
    backend_enforced: str | None = None
