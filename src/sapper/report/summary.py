"""What a scan found, aggregated for a backend maintainer: pure data, computed in DuckDB.

Counting conventions (also in docs/report.md):

* ``sdists`` counts every scanned sdist (row of the ``sdists`` table).
* ``projects`` and ``downloads`` count each project once, by its **newest scanned sdist**
  (latest ``upload_time``): an old release that fails does not count against a project
  whose current release builds. A project's downloads are the largest ``downloads`` value
  among its rows (the 30-day count from the top list); unknown downloads count as 0.
* An sdist's *class* is ``fails`` (fails at the evaluated setuptools), ``overdue`` (builds,
  but fails under ``SETUPTOOLS_ENFORCE_DEPRECATION=1``), ``builds``, ``unknown`` (another
  backend, or no setuptools matches its requirements) or ``error`` (not analysed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..rules import get_rule
from ..versions import Catalogue, catalogue, contains

if TYPE_CHECKING:
    import duckdb

    from ._source import Store

__all__ = [
    "CLASSES",
    "AtRisk",
    "Count",
    "Example",
    "Exposure",
    "RuleRow",
    "StoreInfo",
    "Summary",
    "Totals",
    "VersionRow",
    "WhatIf",
    "YearRow",
    "key_versions",
    "share",
    "summarize",
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

#: Computed once per report as temporary tables (the window over all sdists is the costly
#: part): ``_report_s``, every sdist with a normalised project key and its class;
#: ``_report_p``, each project's newest sdist with the project's downloads as ``pdl``;
#: ``_report_f``, the distinct (sdist, rule, status) triples of the findings.
_PREPARE = (
    """
CREATE OR REPLACE TEMP TABLE _report_s AS
SELECT key, project, version, upload_time, downloads, has_wheel, has_pure_wheel,
    outcome, outcome_enforced, fails, fails_enforced, error_type,
    coalesce(regexp_replace(lower(project), '[-_.]+', '-', 'g'), key) AS pkey,
    CASE
        WHEN outcome IS NULL THEN 'error'
        WHEN outcome = 'fails' THEN 'fails'
        WHEN outcome = 'builds' AND outcome_enforced = 'fails' THEN 'overdue'
        ELSE outcome
    END AS cls
FROM sdists
""",
    """
CREATE OR REPLACE TEMP TABLE _report_p AS
SELECT *, max(downloads) OVER (PARTITION BY pkey) AS pdl
FROM _report_s
QUALIFY row_number() OVER (PARTITION BY pkey ORDER BY upload_time DESC NULLS LAST, key DESC) = 1
""",
    "CREATE OR REPLACE TEMP TABLE _report_f AS SELECT DISTINCT key, code, status FROM findings",
)
_CLEANUP = (
    "DROP TABLE IF EXISTS _report_s; DROP TABLE IF EXISTS _report_p; DROP TABLE IF EXISTS _report_f"
)
_BASE = "WITH s AS (SELECT * FROM _report_s), p AS (SELECT * FROM _report_p)\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class Count:
    """How many sdists, projects (newest sdist) and 30-day downloads something covers."""

    sdists: int = 0
    projects: int = 0
    downloads: int = 0


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


# -- helpers -------------------------------------------------------------------------------


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    return con.execute(_BASE + sql, list(params)).fetchall()


def _grouped(
    con: duckdb.DuckDBPyConnection, group: str, source: str, where: str = "true"
) -> dict[tuple[Any, ...], Count]:
    """Counts per ``group`` (SQL expressions over ``s``), over sdists and newest sdists.

    ``source`` is a FROM clause in which ``{rel}`` stands for the relation aliased ``s``; it
    must yield one row per sdist and group.
    """
    n = group.count(",") + 1
    sdists = _rows(
        con,
        f"SELECT {group}, count(*) FROM {source.format(rel='s')} WHERE {where} GROUP BY ALL",
    )
    projects = _rows(
        con,
        f"SELECT {group}, count(*), coalesce(sum(s.pdl), 0)::BIGINT "
        f"FROM {source.format(rel='p')} WHERE {where} GROUP BY ALL",
    )
    out: dict[tuple[Any, ...], Count] = {}
    for row in sdists:
        out[tuple(row[:n])] = Count(sdists=int(row[n]))
    for row in projects:
        key = tuple(row[:n])
        base = out.get(key, Count())
        out[key] = Count(sdists=base.sdists, projects=int(row[n]), downloads=int(row[n + 1]))
    return out


def _rule_text(code: str, slugs: dict[str, str]) -> tuple[str, str]:
    rule = get_rule(code)
    if rule is None:
        return slugs.get(code, ""), ""
    return rule.slug, rule.summary


def key_versions(cat: Catalogue) -> tuple[str, ...]:
    """The newest release of each major version sapper knows, plus 78.0.1, ascending."""
    newest: dict[int, str] = {}
    for v in cat.universe:
        newest[cat.parsed(v).major] = v
    chosen = set(newest.values())
    if cat.release("78.0.1") is not None:
        chosen.add("78.0.1")
    return tuple(sorted(chosen, key=cat.parsed))


def _iso(value: object) -> str | None:
    if value is None:
        return None
    iso = getattr(value, "isoformat", None)
    return str(iso(sep=" ") if callable(iso) else value)


# -- sections ------------------------------------------------------------------------------


def _store_info(store: Store) -> StoreInfo:
    m = store.meta
    return StoreInfo(
        path=str(store.path),
        kind=store.kind,
        schema_version=m.get("schema_version"),
        sapper_version=m.get("sapper_version"),
        newest_setuptools=m.get("newest_setuptools"),
        top_list_date=m.get("top_list_date"),
        created_at=m.get("created_at"),
        last_run_at=m.get("last_run_at"),
        engine=m.get("engine"),
    )


def _totals(con: duckdb.DuckDBPyConnection) -> Totals:
    ((n_sdists,),) = _rows(con, "SELECT count(*) FROM s")
    ((n_projects, downloads, with_downloads),) = _rows(
        con, "SELECT count(*), coalesce(sum(pdl), 0)::BIGINT, count(pdl) FROM p"
    )
    by_class = _grouped(con, "s.cls", "{rel} AS s")
    errors = _rows(
        con,
        "SELECT coalesce(error_type, 'unrecorded'), count(*) FROM s WHERE cls = 'error' "
        "GROUP BY 1 ORDER BY 2 DESC, 1",
    )
    return Totals(
        all=Count(sdists=int(n_sdists), projects=int(n_projects), downloads=int(downloads)),
        projects_with_downloads=int(with_downloads),
        classes=tuple((c, by_class.get((c,), Count())) for c in CLASSES),
        errors=tuple((str(t), int(n)) for t, n in errors),
    )


@dataclass(frozen=True, slots=True)
class _FindingFacts:
    """Per rule and status, from one pass over the findings: the slug and the due date."""

    slugs: dict[str, str]
    due: dict[tuple[str, str], str | None]

    def any_due(self, code: str) -> str | None:
        dates = [d for (c, _), d in self.due.items() if c == code and d is not None]
        return max(dates) if dates else None


def _finding_facts(con: duckdb.DuckDBPyConnection) -> _FindingFacts:
    slugs: dict[str, str] = {}
    due: dict[tuple[str, str], str | None] = {}
    for c, st, d, slug in con.execute(
        "SELECT code, status, max(due_date), any_value(slug) FROM findings GROUP BY ALL"
    ).fetchall():
        due[(str(c), str(st))] = d
        slugs[str(c)] = str(slug or "")
    return _FindingFacts(slugs=slugs, due=due)


def _rules(con: duckdb.DuckDBPyConnection, facts: _FindingFacts) -> tuple[RuleRow, ...]:
    slugs, due = facts.slugs, facts.due
    by_status = _grouped(
        con,
        "f.code, f.status",
        "_report_f AS f JOIN {rel} AS s USING (key)",
    )
    by_rule = _grouped(
        con,
        "f.code",
        "(SELECT DISTINCT key, code FROM _report_f) AS f JOIN {rel} AS s USING (key)",
    )
    order = {"removed": 0, "overdue": 1, "deprecated": 2}
    rows: list[RuleRow] = []
    for (code,), count in sorted(by_rule.items()):
        slug, summary = _rule_text(code, slugs)
        rows.append(
            RuleRow(
                code=code,
                slug=slug,
                summary=summary,
                status=None,
                count=count,
                due_date=facts.any_due(code),
            )
        )
        statuses = sorted(
            (st for (c, st) in by_status if c == code), key=lambda st: order.get(st, 9)
        )
        rows.extend(
            RuleRow(
                code=code,
                slug=slug,
                summary=summary,
                status=st,
                count=by_status[(code, st)],
                due_date=due.get((code, st)),
            )
            for st in statuses
        )
    return tuple(rows)


def _years(con: duckdb.DuckDBPyConnection) -> tuple[YearRow, ...]:
    per: dict[int | None, dict[SdistClass, int]] = {}
    for year, cls, n in _rows(con, "SELECT year(upload_time), cls, count(*) FROM s GROUP BY ALL"):
        per.setdefault(year, {})[cls] = int(n)
    years = sorted(per, key=lambda y: (y is None, y or 0))
    return tuple(
        YearRow(
            year=y,
            sdists=sum(per[y].values()),
            classes=tuple((c, per[y].get(c, 0)) for c in CLASSES),
        )
        for y in years
    )


def _what_if(
    con: duckdb.DuckDBPyConnection, facts: _FindingFacts, n_examples: int = 10
) -> tuple[WhatIf, ...]:
    source = (
        "(SELECT * FROM _report_f WHERE status IN ('overdue', 'deprecated')) AS f "
        "JOIN {rel} AS s USING (key)"
    )
    where = "s.outcome = 'builds'"
    counts = _grouped(con, "f.code, f.status", source, where)
    examples: dict[tuple[str, str], list[Example]] = {}
    for code, status, project, version, downloads in _rows(
        con,
        "SELECT f.code, f.status, coalesce(s.project, s.key), s.version, s.pdl "
        f"FROM {source.format(rel='p')} "
        f"WHERE {where} QUALIFY row_number() OVER (PARTITION BY f.code, f.status "
        "ORDER BY s.pdl DESC NULLS LAST, s.pkey) <= ? "
        "ORDER BY f.code, f.status, s.pdl DESC NULLS LAST, s.pkey",
        [n_examples],
    ):
        examples.setdefault((str(code), str(status)), []).append(
            Example(
                project=str(project),
                version=None if version is None else str(version),
                downloads=None if downloads is None else int(downloads),
            )
        )
    due, slugs = facts.due, facts.slugs
    keys = sorted(
        ((str(c), str(st)) for c, st in counts),
        key=lambda cs: (cs[1] != "overdue", -counts[cs].downloads, -counts[cs].sdists, cs[0]),
    )
    out: list[WhatIf] = []
    for code, status in keys:
        slug, summary = _rule_text(code, slugs)
        out.append(
            WhatIf(
                code=code,
                slug=slug,
                summary=summary,
                status=status,
                due_date=due.get((code, status)),
                count=counts[(code, status)],
                examples=tuple(examples.get((code, status), ())),
            )
        )
    return tuple(out)


def _versions(con: duckdb.DuckDBPyConnection, cat: Catalogue) -> tuple[VersionRow, ...]:
    versions = key_versions(cat)
    sql = (
        "SELECT coalesce(s.fails, []), coalesce(s.fails_enforced, []), count(*), "
        "{downloads}::BIGINT FROM {rel} AS s "
        "WHERE len(coalesce(s.fails, [])) + len(coalesce(s.fails_enforced, [])) > 0 "
        "GROUP BY ALL"
    )
    sdist_groups = _rows(con, sql.format(rel="s", downloads="0"))
    project_groups = _rows(con, sql.format(rel="p", downloads="coalesce(sum(s.pdl), 0)"))
    rows: list[VersionRow] = []
    for v in versions:
        f = [0, 0, 0]
        e = [0, 0, 0]
        for groups, slot in ((sdist_groups, 0), (project_groups, 1)):
            for fails, enforced, n, dl in groups:
                hit = contains(fails, v)
                hit_enforced = hit or contains(enforced, v)
                if hit:
                    f[slot] += int(n)
                    if slot == 1:
                        f[2] += int(dl)
                if hit_enforced:
                    e[slot] += int(n)
                    if slot == 1:
                        e[2] += int(dl)
        release = cat.release(v)
        rows.append(
            VersionRow(
                version=v,
                date=release.date if release else None,
                fails=Count(sdists=f[0], projects=f[1], downloads=f[2]),
                fails_enforced=Count(sdists=e[0], projects=e[1], downloads=e[2]),
            )
        )
    return tuple(rows)


_EXPOSURE_SQL = """
CASE
    WHEN has_wheel IS false THEN 'no wheel'
    WHEN has_wheel IS true AND has_pure_wheel IS false THEN 'platform wheels only'
    ELSE 'wheels unknown'
END
"""


def _at_risk(con: duckdb.DuckDBPyConnection, top: int) -> tuple[tuple[AtRisk, ...], int]:
    weights = " ".join(f"WHEN '{k}' THEN {w}" for k, w in EXPOSURE_WEIGHT.items())
    sql = f"""
        , risk AS (
            SELECT coalesce(project, key) AS name, version, pdl, cls, upload_time, key,
                {_EXPOSURE_SQL} AS exposure
            FROM p
            WHERE cls IN ('fails', 'overdue') AND has_pure_wheel IS NOT true
        ),
        scored AS (
            SELECT *, coalesce(pdl, 0) * (CASE exposure {weights} END) AS score FROM risk
        )
    """
    ((total,),) = _rows(con, sql + "SELECT count(*) FROM scored")
    rows = _rows(
        con,
        sql
        + """
        , top AS (SELECT * FROM scored ORDER BY score DESC, pdl DESC NULLS LAST, name LIMIT ?)
        SELECT name, version, pdl, exposure, score, cls, upload_time,
            (SELECT list(DISTINCT code ORDER BY code) FROM _report_f AS f
             WHERE f.key = top.key AND f.status IN ('removed', 'overdue'))
        FROM top
        ORDER BY score DESC, pdl DESC NULLS LAST, name
        """,
        [top],
    )
    return (
        tuple(
            AtRisk(
                project=str(name),
                version=None if version is None else str(version),
                downloads=None if pdl is None else int(pdl),
                exposure=exposure,
                score=float(score),
                cls=cls,
                codes=tuple(codes or ()),
                upload_time=_iso(upload),
            )
            for name, version, pdl, exposure, score, cls, upload, codes in rows
        ),
        int(total),
    )


def summarize(store: Store, *, top: int = 20, cat: Catalogue | None = None) -> Summary:
    """Aggregate an open result store into a :class:`Summary`.

    ``top`` bounds the at-risk project list.
    """
    cat = cat or catalogue()
    con = store.con
    for sql in _PREPARE:
        con.execute(sql)
    try:
        at_risk, at_risk_total = _at_risk(con, top)
        facts = _finding_facts(con)
        return Summary(
            store=_store_info(store),
            totals=_totals(con),
            rules=_rules(con, facts),
            years=_years(con),
            what_if=_what_if(con, facts),
            versions=_versions(con, cat),
            at_risk=at_risk,
            at_risk_total=at_risk_total,
        )
    finally:
        con.execute(_CLEANUP)
