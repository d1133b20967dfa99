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

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..check import status_at
from ..model import STATUSES, Finding
from ..rules import get_rule
from ..versions import Catalogue, catalogue, contains
from ._rows import (
    CLASSES,
    EXPOSURE_WEIGHT,
    AtRisk,
    Count,
    Example,
    Exposure,
    Incident,
    RuleRow,
    SdistClass,
    StoreInfo,
    Summary,
    Totals,
    VersionRow,
    WhatIf,
    YearRow,
    share,
)

if TYPE_CHECKING:
    import duckdb

    from ._source import Store

__all__ = [
    "CLASSES",
    "AtRisk",
    "Count",
    "Example",
    "Exposure",
    "Incident",
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

#: Computed once per report as temporary tables (the window over all sdists is the costly
#: part): ``_report_s``, every sdist with a normalised project key, its class and ``w``, the
#: share of its installs that build the sdist (:data:`EXPOSURE_WEIGHT`, 0 with a pure
#: wheel); ``_report_p``, each project's current sdist (the newest one, or the newest uploaded
#: before ``--as-of``) with the project's downloads as ``pdl`` and those hitting the sdist as
#: ``sdl``; ``_report_f``, the distinct (sdist, rule, status) triples of the findings, with
#: ``requires-newer`` told apart from pending deprecations even in stores written before
#: that status existed.
_PREPARE_S = """
CREATE OR REPLACE TEMP TABLE _report_s AS
SELECT key, project, version, upload_time, downloads, has_wheel, has_pure_wheel,
    outcome, outcome_enforced, fails, fails_enforced, error_type,
    coalesce(regexp_replace(lower(project), '[-_.]+', '-', 'g'), key) AS pkey,
    CASE
        WHEN outcome IS NULL THEN 'error'
        WHEN outcome = 'fails' THEN 'fails'
        WHEN outcome = 'builds' AND outcome_enforced = 'fails' THEN 'overdue'
        ELSE outcome
    END AS cls,
    CASE
        WHEN has_pure_wheel IS true THEN 0.0
        WHEN has_wheel IS false THEN {no_wheel}
        WHEN has_wheel IS true THEN {platform}
        ELSE {unknown}
    END AS w
FROM sdists
"""
_PREPARE_P = """
CREATE OR REPLACE TEMP TABLE _report_p AS
SELECT *, (coalesce(pdl, 0) * w)::BIGINT AS sdl FROM (
    SELECT *, max(downloads) OVER (PARTITION BY pkey) AS pdl
    FROM _report_s
    WHERE {where}
    QUALIFY row_number() OVER (
        PARTITION BY pkey ORDER BY upload_time DESC NULLS LAST, key DESC) = 1
)
"""
_CLEANUP = (
    "DROP TABLE IF EXISTS _report_s; DROP TABLE IF EXISTS _report_p; "
    "DROP TABLE IF EXISTS _report_f; DROP TABLE IF EXISTS _report_fwd"
)
_BASE = "WITH s AS (SELECT * FROM _report_s), p AS (SELECT * FROM _report_p)\n"


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
        f"SELECT {group}, count(*), coalesce(sum(s.pdl), 0)::BIGINT, "
        f"coalesce(sum(s.sdl), 0)::BIGINT FROM {source.format(rel='p')} WHERE {where} "
        "GROUP BY ALL",
    )
    out: dict[tuple[Any, ...], Count] = {}
    for row in sdists:
        out[tuple(row[:n])] = Count(sdists=int(row[n]))
    for row in projects:
        key = tuple(row[:n])
        base = out.get(key, Count())
        out[key] = Count(
            sdists=base.sdists,
            projects=int(row[n]),
            downloads=int(row[n + 1]),
            sdist_downloads=int(row[n + 2]),
        )
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
    ((n_projects, downloads, sdist_downloads, with_downloads),) = _rows(
        con,
        "SELECT count(*), coalesce(sum(pdl), 0)::BIGINT, coalesce(sum(sdl), 0)::BIGINT, "
        "count(pdl) FROM p",
    )
    by_class = _grouped(con, "s.cls", "{rel} AS s")
    errors = _rows(
        con,
        "SELECT coalesce(error_type, 'unrecorded'), count(*) FROM s WHERE cls = 'error' "
        "GROUP BY 1 ORDER BY 2 DESC, 1",
    )
    return Totals(
        all=Count(
            sdists=int(n_sdists),
            projects=int(n_projects),
            downloads=int(downloads),
            sdist_downloads=int(sdist_downloads),
        ),
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
    order = {st: i for i, st in enumerate(STATUSES)}
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


def _current_at(day: str) -> str:
    """A relation: each project's newest sdist uploaded before ``day`` (the release that was
    current then), with the project's downloads ``pdl`` and those hitting the sdist ``sdl``."""
    return f"""(
        SELECT *, (coalesce(pdl, 0) * w)::BIGINT AS sdl FROM (
            SELECT *, max(downloads) OVER (PARTITION BY pkey) AS pdl FROM _report_s
            WHERE upload_time < DATE '{_dt.date.fromisoformat(day).isoformat()}'
            QUALIFY row_number() OVER (
                PARTITION BY pkey ORDER BY upload_time DESC, key DESC) = 1
        )
    )"""


def _then(
    con: duckdb.DuckDBPyConnection, version: str, day: str, previous: str | None = None
) -> tuple[Count, Count]:
    """(projects with a release current on ``day``, those of them failing on ``version``
    but, if ``previous`` is given, not on ``previous``)."""
    total = [0, 0, 0]
    failing = [0, 0, 0]
    for fails, n, dl, sdl in con.execute(
        "SELECT coalesce(fails, []), count(*), coalesce(sum(pdl), 0)::BIGINT, "
        f"coalesce(sum(sdl), 0)::BIGINT FROM {_current_at(day)} GROUP BY ALL"
    ).fetchall():
        hit = contains(fails, version) and not (previous and contains(fails, previous))
        for acc in (total, failing) if hit else (total,):
            acc[0] += int(n)
            acc[1] += int(dl)
            acc[2] += int(sdl)

    def count(c: list[int]) -> Count:
        return Count(sdists=c[0], projects=c[0], downloads=c[1], sdist_downloads=c[2])

    return count(total), count(failing)


def _versions(con: duckdb.DuckDBPyConnection, cat: Catalogue) -> tuple[VersionRow, ...]:
    versions = key_versions(cat)
    sql = (
        "SELECT coalesce(s.fails, []), coalesce(s.fails_enforced, []), count(*), "
        "{downloads}::BIGINT, {sdl}::BIGINT FROM {rel} AS s "
        "WHERE len(coalesce(s.fails, [])) + len(coalesce(s.fails_enforced, [])) > 0 "
        "GROUP BY ALL"
    )
    sdist_groups = _rows(con, sql.format(rel="s", downloads="0", sdl="0"))
    project_groups = _rows(
        con,
        sql.format(rel="p", downloads="coalesce(sum(s.pdl), 0)", sdl="coalesce(sum(s.sdl), 0)"),
    )
    rows: list[VersionRow] = []
    for index, v in enumerate(versions):
        newly = [0, 0]
        for fails, _enforced, n, _dl, _sdl in sdist_groups if index else ():
            now, was = contains(fails, v), contains(fails, versions[index - 1])
            if now != was:
                newly[0 if now else 1] += int(n)
        f = [0, 0, 0, 0]
        e = [0, 0, 0, 0]
        for groups, slot in ((sdist_groups, 0), (project_groups, 1)):
            for fails, enforced, n, dl, sdl in groups:
                hit = contains(fails, v)
                hit_enforced = hit or contains(enforced, v)
                for acc, on in ((f, hit), (e, hit_enforced)):
                    if not on:
                        continue
                    acc[slot] += int(n)
                    if slot == 1:
                        acc[2] += int(dl)
                        acc[3] += int(sdl)
        release = cat.release(v)
        then_total, then = (
            _then(con, v, release.date) if release and release.date else (Count(), Count())
        )
        rows.append(
            VersionRow(
                version=v,
                date=release.date if release else None,
                fails=Count(sdists=f[0], projects=f[1], downloads=f[2], sdist_downloads=f[3]),
                fails_enforced=Count(
                    sdists=e[0], projects=e[1], downloads=e[2], sdist_downloads=e[3]
                ),
                then=then,
                then_total=then_total,
                newly_failing=newly[0],
                newly_building=newly[1],
            )
        )
    return tuple(rows)


INCIDENT_VERSION = "78.0.1"


def _previous(cat: Catalogue, version: str) -> str | None:
    """The release before ``version`` in the catalogue."""
    i = cat.universe.index(version) if version in cat.universe else 0
    return cat.universe[i - 1] if i > 0 else None


def _incident(
    con: duckdb.DuckDBPyConnection, cat: Catalogue, n_examples: int = 25
) -> Incident | None:
    """setuptools 78.0.1 as it happened: each project's release current on its release day."""
    release = cat.release(INCIDENT_VERSION)
    if release is None or release.date is None:
        return None
    day = release.date
    previous = _previous(cat, INCIDENT_VERSION)
    total, failing = _then(con, INCIDENT_VERSION, day, previous)
    ((projects, without),) = _rows(
        con,
        "SELECT count(DISTINCT pkey), count(DISTINCT pkey) FILTER (WHERE pkey NOT IN "
        f"(SELECT pkey FROM s WHERE upload_time < DATE '{day}')) FROM s",
    )
    sdists_failing = sum(
        int(n)
        for fails, n in _rows(con, "SELECT coalesce(fails, []), count(*) FROM s GROUP BY ALL")
        if contains(fails, INCIDENT_VERSION)
    )
    examples: list[Example] = []
    groups = con.execute(
        "SELECT coalesce(project, key), version, pdl, coalesce(fails, []) "
        f"FROM {_current_at(day)} WHERE len(coalesce(fails, [])) > 0 "
        "ORDER BY pdl DESC NULLS LAST, pkey"
    ).fetchall()
    for project, version, pdl, fails in groups:
        if contains(fails, INCIDENT_VERSION) and not (previous and contains(fails, previous)):
            examples.append(
                Example(
                    project=str(project),
                    version=None if version is None else str(version),
                    downloads=None if pdl is None else int(pdl),
                )
            )
            if len(examples) >= n_examples:
                break
    return Incident(
        version=INCIDENT_VERSION,
        date=day,
        current=total,
        failing=failing,
        previous=previous,
        sdists_failing=sdists_failing,
        projects=int(projects),
        without_release=int(without),
        examples=tuple(examples),
    )


_EXPOSURE_SQL = """
CASE
    WHEN has_wheel IS false THEN 'no wheel'
    WHEN has_wheel IS true AND has_pure_wheel IS false THEN 'platform wheels only'
    ELSE 'wheels unknown'
END
"""


def _at_risk(con: duckdb.DuckDBPyConnection, top: int) -> tuple[tuple[AtRisk, ...], int]:
    sql = f"""
        , risk AS (
            SELECT coalesce(project, key) AS name, version, pdl, sdl, cls, upload_time, key,
                {_EXPOSURE_SQL} AS exposure
            FROM p
            WHERE cls IN ('fails', 'overdue') AND has_pure_wheel IS NOT true
        ),
        scored AS (
            SELECT *, coalesce(sdl, 0) AS score FROM risk
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


def summarize(
    store: Store, *, top: int = 20, cat: Catalogue | None = None, as_of: str | None = None
) -> Summary:
    """Aggregate an open result store into a :class:`Summary`.

    ``top`` bounds the at-risk project list. ``as_of`` (``YYYY-MM-DD``) counts each project
    by the release that was current that day (its newest sdist uploaded before it) instead
    of its newest scanned sdist, for a store scanned with ``--versions before:DATE``,
    ``newest-per-year`` or ``all``.
    """
    cat = cat or catalogue()
    con = store.con
    where = "true"
    if as_of is not None:
        where = f"upload_time < DATE '{_dt.date.fromisoformat(as_of).isoformat()}'"
    weights = {k: str(v) for k, v in EXPOSURE_WEIGHT.items()}
    con.execute(
        _PREPARE_S.format(
            no_wheel=weights["no wheel"],
            platform=weights["platform wheels only"],
            unknown=weights["wheels unknown"],
        )
    )
    con.execute(_PREPARE_P.format(where=where))
    _prepare_findings(con, cat)
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
            incident=_incident(con, cat),
            as_of=as_of,
            backend_enforced=_backend_enforced(store.meta.get("newest_setuptools") or cat.newest),
        )
    finally:
        con.execute(_CLEANUP)


def _backend_enforced(version: str) -> str | None:
    from ..stages import HOOKS, backend_failure

    today = _dt.datetime.now(tz=_dt.timezone.utc).date()
    d = backend_failure(version, "wheel", enforce=True, today=today)
    if d is None:
        return None
    return (
        f"setuptools {version} itself fails every {HOOKS[d.stage]} "
        f'("{d.warning}" is overdue since {d.due_date})'
    )


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    return {str(r[0]) for r in con.execute(f"DESCRIBE {table}").fetchall()}


def _prepare_findings(con: duckdb.DuckDBPyConnection, cat: Catalogue) -> None:
    """``_report_f``: distinct (key, code, status), where a ``deprecated`` finding that fails
    only in releases older than its sdist's evaluated setuptools becomes ``requires-newer``
    (stores written before that status existed call it ``deprecated``)."""
    warns = "coalesce(f.warns, [])" if "warns" in _columns(con, "findings") else "[]::VARCHAR[]"
    evaluated = (
        "json_extract_string(s.result, '$.verdict.setuptools')"
        if "result" in _columns(con, "sdists")
        else "NULL"
    )
    newest = cat.newest
    forward: list[tuple[str]] = []
    for fails, enforced, warned, version in con.execute(
        f"SELECT DISTINCT coalesce(f.fails, []), coalesce(f.fails_enforced, []), {warns}, "
        f"{evaluated} FROM findings AS f JOIN sdists AS s USING (key) "
        "WHERE f.status = 'deprecated'"
    ).fetchall():
        finding = Finding(
            code="",
            slug="",
            message="",
            path="",
            fails=tuple(fails),
            fails_enforced=tuple(enforced),
            warns=tuple(warned),
        )
        at = version if version and cat.release(version) else newest
        if status_at(finding, at, cat) == "requires-newer":
            forward.append((_sig(fails, enforced, warned, version),))
    con.execute("CREATE OR REPLACE TEMP TABLE _report_fwd (sig TEXT PRIMARY KEY)")
    if forward:
        con.executemany("INSERT OR IGNORE INTO _report_fwd VALUES (?)", forward)
    sig = (
        "concat_ws('#', array_to_string(coalesce(f.fails, []), '|'), "
        "array_to_string(coalesce(f.fails_enforced, []), '|'), "
        f"array_to_string({warns}, '|'), coalesce({evaluated}, ''))"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _report_f AS "
        "SELECT DISTINCT f.key, f.code, CASE WHEN f.status = 'deprecated' AND "
        f"{sig} IN (SELECT sig FROM _report_fwd) THEN 'requires-newer' ELSE f.status END "
        "AS status FROM findings AS f JOIN sdists AS s USING (key)"
    )


def _sig(fails: Sequence[str], enforced: Sequence[str], warns: Sequence[str], v: object) -> str:
    return "#".join(
        ("|".join(fails), "|".join(enforced), "|".join(warns), "" if v is None else str(v))
    )
