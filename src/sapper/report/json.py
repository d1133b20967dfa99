"""``sapper report --format json``: the versioned report schema (documented in docs/report.md).

The HTML page embeds the same document, so a reader of either sees the same numbers.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from .._version import __version__
from .summary import Count, Summary, Totals, share

__all__ = ["SCHEMA_VERSION", "pypi_url", "render_json", "report_dict"]

#: Bumped only on incompatible changes; adding keys is compatible.
SCHEMA_VERSION = 2


def pypi_url(project: str, version: str | None) -> str:
    """The PyPI page of a release (of the project when the version is unknown)."""
    url = f"https://pypi.org/project/{quote(project, safe='')}/"
    return url + f"{quote(version, safe='')}/" if version else url


def count_dict(count: Count, totals: Totals) -> dict[str, Any]:
    whole = totals.all
    return {
        "sdists": count.sdists,
        "projects": count.projects,
        "downloads": count.downloads,
        "sdist_downloads": count.sdist_downloads,
        "sdists_share": share(count.sdists, whole.sdists),
        "projects_share": share(count.projects, whole.projects),
        "downloads_share": share(count.downloads, whole.downloads),
    }


def _plain(count: Count) -> dict[str, int]:
    return {
        "projects": count.projects,
        "downloads": count.downloads,
        "sdist_downloads": count.sdist_downloads,
    }


def report_dict(summary: Summary) -> dict[str, Any]:
    inc = summary.incident
    t = summary.totals
    s = summary.store
    return {
        "version": SCHEMA_VERSION,
        "kind": "sapper-report",
        "sapper": __version__,
        "store": {
            "path": s.path,
            "kind": s.kind,
            "schema_version": s.schema_version,
            "sapper_version": s.sapper_version,
            "newest_setuptools": s.newest_setuptools,
            "top_list_date": s.top_list_date,
            "created_at": s.created_at,
            "last_run_at": s.last_run_at,
            "engine": s.engine,
        },
        "totals": {
            "sdists": t.all.sdists,
            "projects": t.all.projects,
            "downloads": t.all.downloads,
            "sdist_downloads": t.all.sdist_downloads,
            "projects_with_downloads": t.projects_with_downloads,
            "classes": {cls: count_dict(c, t) for cls, c in t.classes},
            "errors": dict(t.errors),
        },
        "rules": [
            {
                "code": r.code,
                "slug": r.slug,
                "summary": r.summary,
                "status": r.status,
                "due_date": r.due_date,
                "count": count_dict(r.count, t),
            }
            for r in summary.rules
        ],
        "years": [
            {
                "year": y.year,
                "sdists": y.sdists,
                "classes": dict(y.classes),
                "fails_share": share(y.of("fails"), y.sdists),
                "overdue_share": share(y.of("overdue"), y.sdists),
            }
            for y in summary.years
        ],
        "what_if": [
            {
                "code": w.code,
                "slug": w.slug,
                "summary": w.summary,
                "status": w.status,
                "due_date": w.due_date,
                "count": count_dict(w.count, t),
                "examples": [
                    {
                        "project": x.project,
                        "version": x.version,
                        "url": pypi_url(x.project, x.version),
                        "downloads": x.downloads,
                    }
                    for x in w.examples
                ],
            }
            for w in summary.what_if
        ],
        "versions": [
            {
                "version": v.version,
                "date": v.date,
                "fails": count_dict(v.fails, t),
                "fails_enforced": count_dict(v.fails_enforced, t),
                "then": {
                    "current": _plain(v.then_total),
                    "fails": _plain(v.then),
                    "downloads_share": share(v.then.downloads, v.then_total.downloads),
                },
            }
            for v in summary.versions
        ],
        "incident": None
        if inc is None
        else {
            "setuptools": inc.version,
            "date": inc.date,
            "previous": inc.previous,
            "current": _plain(inc.current),
            "fails": _plain(inc.failing),
            "projects_share": share(inc.failing.projects, inc.current.projects),
            "downloads_share": share(inc.failing.downloads, inc.current.downloads),
            "sdists_failing": inc.sdists_failing,
            "projects": inc.projects,
            "without_release": inc.without_release,
            "examples": [
                {
                    "project": x.project,
                    "version": x.version,
                    "url": pypi_url(x.project, x.version),
                    "downloads": x.downloads,
                }
                for x in inc.examples
            ],
        },
        "as_of": summary.as_of,
        "backend_enforced": summary.backend_enforced,
        "at_risk": {
            "total": summary.at_risk_total,
            "projects": [
                {
                    "project": a.project,
                    "version": a.version,
                    "url": pypi_url(a.project, a.version),
                    "downloads": a.downloads,
                    "exposure": a.exposure,
                    "score": a.score,
                    "class": a.cls,
                    "codes": list(a.codes),
                    "upload_time": a.upload_time,
                }
                for a in summary.at_risk
            ],
        },
    }


def render_json(summary: Summary) -> str:
    return json.dumps(report_dict(summary), indent=2, ensure_ascii=False) + "\n"
