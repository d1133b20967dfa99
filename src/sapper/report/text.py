"""The terminal summary of ``sapper report``: a few aligned tables, coloured on a terminal."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..render.text import Style
from .summary import Count, Summary, share

__all__ = ["human", "percent", "render_text"]


def human(n: int | None) -> str:
    """1234 -> ``1.2K``; 2_500_000 -> ``2.5M``; 3e9 -> ``3.0B``; None -> ``?``."""
    if n is None:
        return "?"
    for size, unit in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "K")):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def percent(part: int, whole: int) -> str:
    value = share(part, whole)
    if value is None:
        return "-"
    if part and value < 0.001:
        return "<0.1%"
    return f"{value * 100:.1f}%"


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], style: Style, align: str
) -> list[str]:
    """Aligned columns: ``align`` has ``l`` or ``r`` per column; the header is dimmed."""
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        out = [
            cell.rjust(widths[i]) if align[i] == "r" else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        return ("  " + "  ".join(out)).rstrip()

    return [style.dim(line(header)), *(line(r) for r in rows)]


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


_CLASS_LABEL = {
    "fails": "fails",
    "overdue": "fails enforced",
    "builds": "builds",
    "unknown": "unknown",
    "error": "not analysed",
}


def _colour(style: Style, cls: str) -> Callable[[str], str]:
    return {"fails": style.red, "overdue": style.yellow, "builds": style.green}.get(
        cls, lambda s: s
    )


def render_text(summary: Summary, style: Style, *, top: int = 10) -> str:
    t = summary.totals
    s = summary.store
    whole = t.all
    lines: list[str] = []

    def count_cells(c: Count) -> list[str]:
        return [
            str(c.sdists),
            percent(c.sdists, whole.sdists),
            str(c.projects),
            human(c.downloads),
            percent(c.downloads, whole.downloads),
            human(c.sdist_downloads),
        ]

    count_head = ["sdists", "%", "projects", "downloads", "%", "from sdist"]

    lines.append(style.bold(f"sapper report: {s.path}"))
    facts = [f"setuptools {s.newest_setuptools or '?'} evaluated"]
    if s.top_list_date:
        facts.append(f"top list of {s.top_list_date}")
    if s.last_run_at or s.created_at:
        facts.append(f"scanned {s.last_run_at or s.created_at}")
    if s.engine:
        facts.append(f"engine {s.engine}")
    lines.append(style.dim("; ".join(facts)))
    lines.append(
        f"{_n(whole.sdists, 'sdist')} of {_n(whole.projects, 'project')}, "
        f"{human(whole.downloads)} downloads in 30 days "
        f"({_n(t.projects_with_downloads, 'project')} with known downloads)"
    )
    lines.append("")
    header = ["outcome", *count_head, ""]
    rows: list[list[str]] = []
    for cls, c in t.classes:
        note = ""
        if cls == "error" and t.errors:
            note = ", ".join(f"{k} {n}" for k, n in t.errors)
        rows.append([_CLASS_LABEL[cls], *count_cells(c), note])
    table = _table(header, rows, style, "lrrrrrrl")
    for i, (cls, _) in enumerate(t.classes, 1):
        table[i] = _colour(style, cls)(table[i])
    lines.extend(table)
    if summary.as_of:
        lines.append(
            style.dim(
                "  projects and downloads count each project once, by its release current on "
                f"{summary.as_of} (newest sdist uploaded before that day)"
            )
        )
    else:
        lines.append(
            style.dim("  projects and downloads count each project once, by its newest sdist")
        )
    lines.append(
        style.dim(
            "  from sdist: estimated downloads that build the sdist (none with a pure wheel, "
            "all with no wheel, half with platform wheels only or unknown wheels)"
        )
    )

    if summary.rules:
        lines.append("")
        lines.append(style.bold("Findings per rule and status"))
        rows = []
        for r in summary.rules:
            label = f"{r.code} {r.slug}" if r.status is None else f"  {r.status}"
            note = f"due {r.due_date}" if r.due_date and r.status == "overdue" else ""
            rows.append([label, *count_cells(r.count), note])
        lines.extend(_table(["rule", *count_head, ""], rows, style, "lrrrrrrl"))
        lines.append(
            style.dim(
                "  removed: fails at the evaluated setuptools; overdue/deprecated: a deprecation "
                "that is (or will be) an error; requires-newer: fails only in older releases"
            )
        )

    if summary.what_if:
        lines.append("")
        lines.append(style.bold("What breaks if a deprecation becomes an error"))
        lines.append(
            style.dim(
                "  sdists that build today and have the rule's overdue or pending deprecation "
                "(requires-newer findings are not time bombs and are left out)"
            )
        )
        overdue = dict(t.classes)["overdue"]
        rows = [["all overdue", *count_cells(overdue), "SETUPTOOLS_ENFORCE_DEPRECATION=1"]]
        rows += [
            [
                f"{w.code} {w.status}",
                *count_cells(w.count),
                ", ".join(x.project for x in w.examples[:3])
                + (", ..." if len(w.examples) > 3 else ""),
            ]
            for w in summary.what_if
        ]
        lines.extend(_table(["rule", *count_head, ""], rows, style, "lrrrrrrl"))
        if summary.backend_enforced:
            lines.append(
                style.yellow(
                    f"  with SETUPTOOLS_ENFORCE_DEPRECATION=1 {summary.backend_enforced}: the "
                    "rows above count the projects' own practices only"
                )
            )

    changed = []
    previous: tuple[int, int] | None = None
    for v in summary.versions:
        now = (v.fails.sdists, v.fails_enforced.sdists)
        if now != previous or v is summary.versions[-1]:
            changed.append(v)
        previous = now
    if any(v.fails_enforced.sdists for v in changed):
        lines.append("")
        lines.append(style.bold("Breakage over setuptools versions"))
        lines.append(style.dim("  key versions where the count changes, and the newest"))
        rows = [
            [
                v.version,
                str(v.fails.sdists),
                percent(v.fails.sdists, whole.sdists),
                human(v.fails.downloads),
                str(v.fails_enforced.sdists),
                human(v.fails_enforced.downloads),
                f"{v.then.projects}/{v.then_total.projects}",
                human(v.then.downloads),
                percent(v.then.downloads, v.then_total.downloads),
                v.date or "",
            ]
            for v in changed
        ]
        lines.extend(
            _table(
                [
                    "setuptools",
                    "fail",
                    "%",
                    "downloads",
                    "enforced",
                    "downloads",
                    "then",
                    "downloads",
                    "%",
                    "released",
                ],
                rows,
                style,
                "lrrrrrrrrl",
            )
        )
        lines.append(
            style.dim(
                "  fail/enforced: the scanned sdists built with that setuptools; then: of the "
                "projects with a release current on its release day, those whose release failed"
            )
        )

    inc = summary.incident
    if inc is not None:
        lines.append("")
        lines.append(style.bold(f"setuptools {inc.version} as it happened ({inc.date})"))
        lines.append(
            f"  {inc.failing.projects} of {inc.current.projects} projects with a release current "
            f"that day were newly broken (built with {inc.previous}, failed with "
            f"{inc.version}): {human(inc.failing.downloads)} of "
            f"{human(inc.current.downloads)} downloads "
            f"({percent(inc.failing.downloads, inc.current.downloads)}), "
            f"{human(inc.failing.sdist_downloads)} of them estimated to build the sdist; "
            f"{_n(inc.sdists_failing, 'scanned sdist')} fail on it in all"
        )
        if inc.without_release:
            lines.append(
                style.dim(
                    f"  {inc.without_release} of {inc.projects} projects have no scanned release "
                    f"from before {inc.date}: scan with --versions before:{inc.date} (or "
                    "newest-per-year) to see them as they were"
                )
            )
        if inc.failing.projects:
            lines.append(
                "  "
                + ", ".join(f"{x.project} {x.version or ''}".rstrip() for x in inc.examples[:top])
                + (", ..." if inc.failing.projects > min(top, len(inc.examples)) else "")
            )

    if summary.at_risk:
        lines.append("")
        shown = summary.at_risk[:top]
        lines.append(
            style.bold(f"Projects most at risk (top {len(shown)} of {summary.at_risk_total})")
        )
        lines.append(
            style.dim(
                "  current sdist fails (or fails enforced), no pure wheel; ranked by downloads "
                "that build the sdist"
            )
        )
        rows = [
            [
                f"{a.project} {a.version or ''}".rstrip(),
                human(a.downloads),
                human(round(a.score)),
                a.exposure,
                _CLASS_LABEL[a.cls],
                " ".join(a.codes),
            ]
            for a in shown
        ]
        lines.extend(
            _table(
                ["project", "downloads", "from sdist", "wheels", "outcome", "rules"],
                rows,
                style,
                "lrrlll",
            )
        )
    return "\n".join(lines) + "\n"
