"""The self-contained HTML page of ``sapper report``.

One file: inline CSS, inline SVG charts (:mod:`sapper.report.svg`), a small inline script
that makes tables sortable, and the JSON report embedded as
``<script type="application/json" id="sapper-report-data">``. A Content-Security-Policy
forbids every network request, so the page shows the same thing offline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from ..model import STATUSES
from ._page import labelled, page
from .json import pypi_url, report_dict
from .summary import CLASSES, INCIDENT_VERSION, Count, Summary, share
from .svg import Series, changes, columns, hbars, lines
from .text import human, percent

__all__ = ["READY_MARKER", "render_html"]

#: Logged to the console by the page's script once it has run (the browser test looks for it).
READY_MARKER = "sapper-report: ready"

_SCRIPT = """
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent.trim(); }
    var n = Number(v);
    return v !== "" && !isNaN(n) ? n : v.toLowerCase();
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = th.getAttribute("aria-sort") !== "ascending";
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      button.title = "sort by " + th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
  var data = JSON.parse(document.getElementById("sapper-report-data").textContent);
  document.documentElement.setAttribute("data-ready", String(data.version));
  console.info("%READY% (" + tables.length + " sortable tables)");
})();
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _inline(text: str) -> str:
    """Escape ``text`` and show its `backticked` parts as code, as rule summaries write them."""
    parts = _e(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: leave the text as it is
        return _e(text)
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _num(n: int | None) -> str:
    if n is None:
        return '<td class="num" data-sort="-1">?</td>'
    return f'<td class="num" data-sort="{n}" title="{_e(human(n))}">{n:,}</td>'


def _pct(part: int, whole: int) -> str:
    value = share(part, whole)
    key = value if value is not None else -1
    return f'<td class="num" data-sort="{key}">{percent(part, whole)}</td>'


def _count_cells(c: Count, whole: Count) -> str:
    return (
        _num(c.sdists)
        + _pct(c.sdists, whole.sdists)
        + _num(c.projects)
        + _num(c.downloads)
        + _pct(c.downloads, whole.downloads)
        + _num(c.sdist_downloads)
    )


_COUNT_HEAD = (
    '<th class="num">sdists</th><th class="num">% sdists</th><th class="num">projects</th>'
    '<th class="num">downloads (30 d)</th><th class="num">% downloads</th>'
    '<th class="num" title="estimated downloads that build the sdist: none with a pure '
    'wheel, all with no wheel, half with platform wheels only or unknown wheels">'
    "from sdist</th>"
)

_CLASS_TEXT = {
    "fails": "fails at the evaluated setuptools",
    "overdue": "builds, fails with SETUPTOOLS_ENFORCE_DEPRECATION=1",
    "builds": "builds (as far as sapper's rules tell)",
    "unknown": "unknown (another backend, or a verdict not decidable statically)",
    "error": "not analysed (error)",
}


def _table(caption: str, head: str, rows: Sequence[str], ident: str) -> str:
    return (
        f'<table class="sortable" id="{_e(ident)}"><caption class="visually-hidden">'
        f"{_e(caption)}</caption><thead><tr>{head}</tr></thead><tbody>\n"
        + "\n".join(f"<tr>{labelled(head, r)}</tr>" for r in rows)
        + "\n</tbody></table>"
    )


def _project_link(name: str, version: str | None) -> str:
    label = f"{name} {version}" if version else name
    return f'<a href="{_e(pypi_url(name, version))}">{_e(label)}</a>'


def _pct_fmt(x: float) -> str:
    return f"{x * 100:.1f}%"


def _section_totals(summary: Summary) -> str:
    t = summary.totals
    whole = t.all
    classes = dict(t.classes)
    cards = [
        ("sdists scanned", f"{whole.sdists:,}"),
        ("projects", f"{whole.projects:,}"),
        ("downloads covered (30 d)", human(whole.downloads)),
        ("sdists fail today", f"{classes['fails'].sdists:,}"),
        ("sdists fail when enforced", f"{classes['fails'].sdists + classes['overdue'].sdists:,}"),
        ("not analysed", f"{classes['error'].sdists:,}"),
    ]
    out = ['<section id="totals" aria-labelledby="h-totals"><h2 id="h-totals">Totals</h2>']
    out.append('<ul class="cards">')
    out.extend(f'<li><span class="n">{_e(v)}</span>{_e(k)}</li>' for k, v in cards)
    out.append("</ul>")
    rows = [
        f'<td class="c-{cls}">{_e(cls)}</td><td class="text">{_e(_CLASS_TEXT[cls])}</td>'
        + _count_cells(c, whole)
        for cls, c in t.classes
    ]
    out.append(
        _table(
            "sdists by outcome",
            "<th>outcome</th><th>meaning</th>" + _COUNT_HEAD,
            rows,
            "t-outcomes",
        )
    )
    out.append(
        _figure_hbars(
            ident="chart-outcomes",
            title="Outcome at the evaluated setuptools",
            desc="Share of scanned sdists and of downloads by outcome: "
            + "; ".join(
                f"{cls} {percent(c.sdists, whole.sdists)} of sdists, "
                f"{percent(c.downloads, whole.downloads)} of downloads"
                for cls, c in t.classes
            ),
            labels=["sdists", "downloads (newest sdist per project)"],
            series=[
                Series(
                    name=cls,
                    css=f"s-{cls}",
                    values=(
                        share(c.sdists, whole.sdists) or 0.0,
                        share(c.downloads, whole.downloads) or 0.0,
                    ),
                )
                for cls, c in t.classes
            ],
            scale=1.0,
            fmt=_pct_fmt,
        )
    )
    if t.errors:
        out.append("<h3>Errors by type</h3>")
        rows = [f"<td><code>{_e(k)}</code></td>{_num(n)}" for k, n in t.errors]
        out.append(
            _table(
                "errors by type", '<th>error type</th><th class="num">sdists</th>', rows, "t-errors"
            )
        )
    out.append("</section>")
    return "\n".join(out)


def _section_rules(summary: Summary) -> str:
    whole = summary.totals.all
    out = [
        '<section id="rules" aria-labelledby="h-rules"><h2 id="h-rules">Findings per rule</h2>',
        '<p class="note">Status at the evaluated setuptools, three notions kept apart: '
        '<span class="st-removed">removed</span> = fails there; <span class="st-overdue">'
        "overdue</span> = warning past its due date (fails under "
        "SETUPTOOLS_ENFORCE_DEPRECATION=1) and deprecated = a pending deprecation (warns, or "
        "fails only in newer releases): the time bombs; requires-newer = fails only in older "
        "releases, a forward constraint on the setuptools version and not a time bomb. An "
        "sdist with findings of several statuses counts in each.</p>",
    ]
    per_rule = [r for r in summary.rules if r.status is None]
    if not per_rule:
        out.append("<p>No findings.</p></section>")
        return "\n".join(out)
    statuses = STATUSES
    by = {(r.code, r.status): r for r in summary.rules}
    rows = []
    for r in per_rule:
        cells = (
            f'<td><code class="id" title="{_e(r.summary)}">{_e(r.code)}</code></td>'
            f'<td><span class="slug">{_e(r.slug)}</span></td>'
            f'<td class="text">{_inline(r.summary)}</td>' + _count_cells(r.count, whole)
        )
        for st in statuses:
            sub = by.get((r.code, st))
            cells += _num(sub.count.sdists if sub else 0)
        rows.append(cells)
    head = (
        "<th>code</th><th>rule</th><th>summary</th>"
        + _COUNT_HEAD
        + "".join(f'<th class="num">{st}</th>' for st in statuses)
    )
    out.append(_table("findings per rule", head, rows, "t-rules"))
    labels = [r.code for r in per_rule]
    for metric, title in (("sdists", "Sdists"), ("downloads", "Downloads")):
        series = [
            Series(
                name=st,
                css=f"s-{st}",
                values=tuple(
                    float(getattr(by[(c, st)].count, metric)) if (c, st) in by else 0.0
                    for c in labels
                ),
            )
            for st in statuses
        ]
        scale = max((sum(s.values[i] for s in series) for i in range(len(labels))), default=1)
        out.append(
            _figure_hbars(
                ident=f"chart-rules-{metric}",
                title=f"{title} with findings of each rule, by status",
                desc="; ".join(
                    f"{c}: "
                    + ", ".join(
                        f"{s.name} {human(int(s.values[i]))}" for s in series if s.values[i]
                    )
                    for i, c in enumerate(labels)
                ),
                labels=[f"{r.code} {r.slug}" for r in per_rule],
                series=series,
                scale=float(scale),
                fmt=lambda v: human(int(v)),
            )
        )
    out.append("</section>")
    return "\n".join(out)


def _section_what_if(summary: Summary) -> str:
    whole = summary.totals.all
    out = [
        '<section id="what-if" aria-labelledby="h-what-if">'
        '<h2 id="h-what-if">What breaks if a deprecation becomes an error</h2>',
        '<p class="note">For each rule with overdue or pending deprecations: the sdists that '
        "build today but have that rule's finding, so they would fail if setuptools turned "
        "the deprecation into an error. Findings that fail only in older releases "
        "(requires-newer) are not time bombs and are left out.</p>",
    ]
    overdue = dict(summary.totals.classes)["overdue"]
    out.append(
        f"<p>All overdue deprecations at once (<code>SETUPTOOLS_ENFORCE_DEPRECATION=1</code>): "
        f"<strong>{overdue.sdists:,} sdists</strong> ({percent(overdue.sdists, whole.sdists)}) "
        f"of {overdue.projects:,} projects, <strong>{human(overdue.downloads)} downloads"
        f"</strong> ({percent(overdue.downloads, whole.downloads)} of the downloads covered), "
        f"{human(overdue.sdist_downloads)} of them estimated to build the sdist. These count "
        "the projects' own practices.</p>"
    )
    if summary.backend_enforced:
        out.append(
            '<p class="warn"><strong>But in that mode '
            f"{_e(summary.backend_enforced)}</strong>: every wheel build fails, whatever the "
            "project does (the metadata stage still passes).</p>"
        )
    if not summary.what_if:
        out.append("<p>No overdue or pending deprecations in this scan.</p></section>")
        return "\n".join(out)
    rows = [
        f'<td><code class="id" title="{_e(w.summary)}">{_e(w.code)}</code> '
        f'<span class="slug">{_e(w.slug)}</span></td>'
        f'<td class="st-{_e(w.status)}">{_e(w.status)}</td><td>{_e(w.due_date or "")}</td>'
        + _count_cells(w.count, whole)
        + "<td>"
        + ", ".join(_project_link(x.project, x.version) for x in w.examples)
        + "</td>"
        for w in summary.what_if
    ]
    head = (
        "<th>rule</th><th>status</th><th>due date</th>" + _COUNT_HEAD + "<th>most-downloaded</th>"
    )
    out.append(_table("what breaks if a deprecation becomes an error", head, rows, "t-what-if"))
    out.append(
        _figure_hbars(
            ident="chart-what-if",
            title="Share of downloads that would break, per deprecation",
            desc="; ".join(
                f"{w.code} {w.status}: {percent(w.count.downloads, whole.downloads)} of "
                f"downloads, {w.count.sdists} sdists"
                for w in summary.what_if
            ),
            labels=[f"{w.code} {w.status}" for w in summary.what_if],
            series=[
                Series(
                    name="share of downloads",
                    css="s-overdue",
                    values=tuple(
                        share(w.count.downloads, whole.downloads) or 0.0 for w in summary.what_if
                    ),
                )
            ],
            scale=max(
                (share(w.count.downloads, whole.downloads) or 0.0 for w in summary.what_if),
                default=0.0,
            )
            or 1.0,
            fmt=_pct_fmt,
        )
    )
    out.append("</section>")
    return "\n".join(out)


def _section_versions(summary: Summary) -> str:
    whole = summary.totals.all
    versions = summary.versions
    out = [
        '<section id="versions" aria-labelledby="h-versions">'
        '<h2 id="h-versions">Breakage over setuptools versions</h2>',
        '<p class="note">Sdists whose findings fail a build with each key setuptools release '
        "(the newest of each major, and 78.0.1), normally and with "
        "SETUPTOOLS_ENFORCE_DEPRECATION=1. The <em>then</em> columns are history as it "
        "happened: of the projects with a release current on that setuptools' release day "
        "(their newest scanned sdist uploaded before it), those whose release failed.</p>",
    ]
    labels = [v.version for v in versions]
    out.append(
        _figure_lines(
            ident="chart-versions",
            title="Sdists that fail, per setuptools version",
            desc="; ".join(
                f"{v.version}: {v.fails.sdists} fail, {v.fails_enforced.sdists} when enforced"
                for v in versions
            ),
            labels=labels,
            series=[
                Series(
                    name="fails",
                    css="s-fails",
                    values=tuple(float(v.fails.sdists) for v in versions),
                ),
                Series(
                    name="fails when enforced",
                    css="s-overdue",
                    values=tuple(float(v.fails_enforced.sdists) for v in versions),
                ),
            ],
            fmt=lambda x: human(round(x)),
            marks=(INCIDENT_VERSION,),
        )
    )
    out.append(
        _figure(
            changes(
                ident="chart-versions-change",
                title="Sdists newly failing and newly building at each version",
                desc="Against the key version before it: "
                + "; ".join(
                    f"{v.version}: {v.newly_failing} newly fail, {v.newly_building} newly build"
                    for v in versions[1:]
                    if v.newly_failing or v.newly_building
                ),
                labels=labels,
                up=Series(
                    name="newly failing",
                    css="s-fails",
                    values=tuple(float(v.newly_failing) for v in versions),
                ),
                down=Series(
                    name="newly building",
                    css="s-builds",
                    values=tuple(float(v.newly_building) for v in versions),
                ),
                marks=(INCIDENT_VERSION,),
            ),
            "What each release changed, against the key version before it (logarithmic "
            f"scale, so that a release breaking a few sdists, such as {INCIDENT_VERSION}, "
            "shows beside one breaking hundreds)",
        )
    )
    rows = [
        f'<td data-sort="{i}">{_e(v.version)}</td><td class="date">{_e(v.date or "")}</td>'
        + _count_cells(v.fails, whole)
        + _num(v.fails_enforced.sdists)
        + _num(v.fails_enforced.downloads)
        + _pct(v.fails_enforced.downloads, whole.downloads)
        + _num(v.then.projects)
        + _num(v.then_total.projects)
        + _num(v.then.downloads)
        + _pct(v.then.downloads, v.then_total.downloads)
        for i, v in enumerate(versions)
    ]
    head = (
        "<th>setuptools</th><th>released</th>"
        + _COUNT_HEAD
        + '<th class="num">sdists, enforced</th><th class="num">downloads, enforced</th>'
        '<th class="num">% downloads, enforced</th>'
        '<th class="num">then: projects failing</th><th class="num">then: projects current'
        '</th><th class="num">then: downloads failing</th><th class="num">then: % downloads'
        "</th>"
    )
    out.append("<details><summary>Table of the key versions</summary>")
    out.append(_table("sdists failing per setuptools version", head, rows, "t-versions"))
    out.append("</details></section>")
    return "\n".join(out)


def _section_incident(summary: Summary) -> str:
    inc = summary.incident
    out = [
        '<section id="incident" aria-labelledby="h-incident">'
        f'<h2 id="h-incident">setuptools {_e(inc.version if inc else INCIDENT_VERSION)} '
        "as it happened</h2>"
    ]
    if inc is None:
        out.append("<p>The catalogue lacks this release.</p></section>")
        return "\n".join(out)
    out.append(
        f"<p>On {_e(inc.date)}, <strong>{inc.failing.projects:,} of {inc.current.projects:,} "
        "projects</strong> with a release current that day (their newest scanned sdist "
        f"uploaded before it) were newly broken: their release built with "
        f"{_e(inc.previous or '')} and failed with {_e(inc.version)}. They account for <strong>"
        f"{human(inc.failing.downloads)} of {human(inc.current.downloads)} downloads</strong> "
        f"({percent(inc.failing.downloads, inc.current.downloads)}), "
        f"{human(inc.failing.sdist_downloads)} of them estimated to build the sdist. In all, "
        f"{inc.sdists_failing:,} scanned sdists fail on {_e(inc.version)}.</p>"
    )
    if inc.without_release:
        out.append(
            f'<p class="note">{inc.without_release:,} of {inc.projects:,} projects have no '
            f"scanned release from before {_e(inc.date)}; scan with <code>--versions "
            f"before:{_e(inc.date)}</code> (or <code>newest-per-year</code>) to see them as "
            "they were.</p>"
        )
    if inc.examples:
        rows = [
            f"<td>{_project_link(x.project, x.version)}</td>" + _num(x.downloads)
            for x in inc.examples
        ]
        out.append(
            _table(
                "projects broken that day",
                '<th>project (release current then)</th><th class="num">downloads (30 d)</th>',
                rows,
                "t-incident",
            )
        )
    out.append("</section>")
    return "\n".join(out)


def _section_years(summary: Summary) -> str:
    years = summary.years
    out = ['<section id="years" aria-labelledby="h-years"><h2 id="h-years">By upload year</h2>']
    labels = [str(y.year) if y.year is not None else "?" for y in years]
    out.append(
        _figure_columns(
            ident="chart-years",
            title="Sdists per upload year, by outcome",
            desc="; ".join(
                f"{label}: {y.sdists} sdists, {y.of('fails')} fail, {y.of('overdue')} fail "
                "when enforced"
                for label, y in zip(labels, years, strict=True)
            ),
            labels=labels,
            series=[
                Series(name=c, css=f"s-{c}", values=tuple(float(y.of(c)) for y in years))
                for c in CLASSES
            ],
            fmt=lambda x: human(round(x)),
        )
    )
    rows = [
        f'<td data-sort="{y.year if y.year is not None else 0}">{_e(label)}</td>'
        + _num(y.sdists)
        + "".join(_num(y.of(c)) for c in CLASSES)
        + _pct(y.of("fails"), y.sdists)
        + _pct(y.of("overdue"), y.sdists)
        for label, y in zip(labels, years, strict=True)
    ]
    head = (
        '<th>year</th><th class="num">sdists</th>'
        + "".join(f'<th class="num">{c}</th>' for c in CLASSES)
        + '<th class="num">% fails</th><th class="num">% fails enforced only</th>'
    )
    out.append(_table("sdists per upload year", head, rows, "t-years"))
    out.append("</section>")
    return "\n".join(out)


def _section_at_risk(summary: Summary) -> str:
    out = [
        '<section id="at-risk" aria-labelledby="h-at-risk">'
        '<h2 id="h-at-risk">Projects most at risk</h2>',
        '<p class="note">Projects whose current sdist fails (or fails when enforced) and '
        "that publish no pure-Python wheel, so installs build the sdist: ranked by the "
        "downloads that build the sdist, downloads &times; exposure (1 with no wheel at all, ½ "
        "with platform wheels only or unknown wheels). "
        f"Top {len(summary.at_risk)} of {summary.at_risk_total}.</p>",
    ]
    if not summary.at_risk:
        out.append("<p>None.</p></section>")
        return "\n".join(out)
    rows = [
        f"<td>{_project_link(a.project, a.version)}</td>"
        + _num(a.downloads)
        + f"<td>{_e(a.exposure)}</td>"
        + f'<td class="num" data-sort="{a.score}">{human(round(a.score))}</td>'
        + f'<td class="c-{_e(a.cls)}">{_e("fails" if a.cls == "fails" else "fails enforced")}</td>'
        + "<td>"
        + " ".join(f"<code>{_e(c)}</code>" for c in a.codes)
        + "</td>"
        + f'<td class="date">{_e((a.upload_time or "")[:10])}</td>'
        for a in summary.at_risk
    ]
    head = (
        '<th>project</th><th class="num">downloads (30 d)</th><th>wheels</th>'
        '<th class="num">risk</th><th>outcome</th><th>rules</th><th>uploaded</th>'
    )
    out.append(_table("projects most at risk", head, rows, "t-at-risk"))
    out.append("</section>")
    return "\n".join(out)


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _figure_hbars(**kw: Any) -> str:
    return _figure(hbars(**kw), kw["title"])


def _figure_lines(**kw: Any) -> str:
    return _figure(lines(**kw), kw["title"])


def _figure_columns(**kw: Any) -> str:
    return _figure(columns(**kw), kw["title"])


def _json_script(doc: object) -> str:
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    # Nothing inside may close the script element or open a comment.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="sapper-report-data">{text}</script>'


def render_html(summary: Summary) -> str:
    s = summary.store
    facts = [f"setuptools {s.newest_setuptools or '?'} evaluated"]
    if s.top_list_date:
        facts.append(f"top list of {s.top_list_date}")
    if s.last_run_at or s.created_at:
        facts.append(f"scanned {s.last_run_at or s.created_at}")
    if s.sapper_version:
        facts.append(f"sapper {s.sapper_version}")
    if s.engine:
        facts.append(f"engine {s.engine}")
    sections = [
        ("totals", "Totals"),
        ("rules", "Per rule"),
        ("what-if", "What breaks if"),
        ("versions", "Over versions"),
        ("incident", "78.0.1"),
        ("years", "By year"),
        ("at-risk", "Most at risk"),
    ]
    return page(
        title=f"sapper report: {s.path}",
        heading="sapper report",
        meta=f"{_e(s.path)} &middot; {' &middot; '.join(_e(f) for f in facts)}",
        nav=sections,
        sections=[
            _section_totals(summary),
            _section_rules(summary),
            _section_what_if(summary),
            _section_versions(summary),
            _section_incident(summary),
            _section_years(summary),
            _section_at_risk(summary),
        ],
        footer="<p>Projects and downloads count each project once, by its "
        + (f"release current on {_e(summary.as_of)}" if summary.as_of else "newest scanned sdist")
        + "; downloads are 30-day counts from the top list. The same numbers, as JSON, are "
        "embedded in this page (<code>#sapper-report-data</code>) and printed by "
        "<code>sapper report --format json</code>.</p>",
        tail=_json_script(report_dict(summary))
        + f"\n<script>{_SCRIPT.replace('%READY%', READY_MARKER)}</script>",
        script=True,
    )
