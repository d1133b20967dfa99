"""The canary sections of ``sapper report``: classes, root causes, warnings, triage.

:func:`summarize` turns the stored rows of one canary run into a versioned, JSON-ready dict
(schema ``sapper.canary-report/1``); :func:`render_text` and :func:`render_html` show it.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..build import signature
from ._page import e, labelled, page

if TYPE_CHECKING:
    from ..canary.model import SideResult, TargetRow

__all__ = [
    "REPORT_SCHEMA",
    "page_html",
    "render_html",
    "render_text",
    "summarize",
    "warning_key",
    "warning_text",
    "write_report",
]

REPORT_SCHEMA = "sapper.canary-report/1"
_EXAMPLES = 8


def _name(row: TargetRow) -> str:
    if row.project:
        return f"{row.project}=={row.version}" if row.version else row.project
    return row.target


def _weight(row: TargetRow) -> int:
    return row.downloads or 0


def summarize(
    rows: Iterable[TargetRow], run: dict[str, Any], *, today: _dt.date | None = None
) -> dict[str, Any]:
    """The report of one run (``run``: its ``canary_runs`` row)."""
    from ..canary.model import CLASSES

    today = today or _dt.datetime.now(tz=_dt.timezone.utc).date()
    rows = list(rows)
    classes = {c: {"count": 0, "downloads": 0} for c in CLASSES}
    for row in rows:
        entry = classes.setdefault(row.cls, {"count": 0, "downloads": 0})
        entry["count"] += 1
        entry["downloads"] += _weight(row)
    return {
        "schema": REPORT_SCHEMA,
        "run": {
            k: run.get(k)
            for k in (
                "run_id",
                "created",
                "finished",
                "baseline",
                "candidate",
                "baseline_env",
                "candidate_env",
                "mode",
                "all_backends",
                "corpus",
            )
        },
        "targets": len(rows),
        "classes": classes,
        "root_causes": _root_causes([r for r in rows if r.cls == "regressed"]),
        "fixed_causes": _root_causes([r for r in rows if r.cls == "fixed"], side="baseline"),
        "retry": sorted(
            _name(r) if r.project else r.target
            for r in rows
            if r.cls in ("spurious", "prepare-fail", "error") and not r.permanent
        ),
        "retry_reasons": _retry_reasons(rows),
        "not_retried": [
            {"target": _name(r) if r.project else r.target, "reason": r.error or ""}
            for r in sorted(rows, key=lambda r: (-_weight(r), r.target))
            if r.cls == "prepare-fail" and r.permanent
        ],
        "warnings": _warnings(rows, today),
        "triage": _triage(rows),
    }


def _root_causes(rows: Sequence[TargetRow], *, side: str = "candidate") -> list[dict[str, Any]]:
    groups: dict[str, list[TargetRow]] = {}
    for row in rows:
        failing: SideResult | None = row.candidate if side == "candidate" else row.baseline
        key = (failing.signature if failing else None) or "unknown"
        groups.setdefault(key, []).append(row)
    out: list[dict[str, Any]] = []
    for sig, members in groups.items():
        members.sort(key=lambda r: (-_weight(r), _name(r)))
        first = members[0]
        failing = first.candidate if side == "candidate" else first.baseline
        out.append(
            {
                "signature": sig,
                "error_type": failing.error_type if failing else None,
                "count": len(members),
                "downloads": sum(_weight(r) for r in members),
                "projects": [_name(r) for r in members],
                "example": {
                    "target": _name(first),
                    "message": (failing.message or "")[:1000] if failing else "",
                    "log": "\n".join((failing.log_tail if failing else "").splitlines()[-15:]),
                },
            }
        )
    out.sort(key=lambda g: (-int(g["count"]), -int(g["downloads"]), str(g["signature"])))
    return out


def _retry_reasons(rows: Sequence[TargetRow]) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for row in rows:
        if row.cls == "spurious":
            for s in (row.baseline, row.candidate):
                if s is not None and s.outcome == "spurious":
                    key = s.spurious_reason or "unknown"
                    reasons[key] = reasons.get(key, 0) + 1
        elif row.cls in ("prepare-fail", "error") and not row.permanent:
            reasons[row.cls] = reasons.get(row.cls, 0) + 1
    return dict(sorted(reasons.items()))


#: A path into a temporary build directory, up to the project's own folder: what is left
#: is the path inside the project (``/dev/shm/sapper-build-x1/src/pkg-1.0/README.rst`` ->
#: ``README.rst``).
_BUILD_DIR = re.compile(
    r"(?:/[\w.+@~-]+)*/(?:sapper-(?:build|canary)-|pip-(?:build-env|req-build|install)-"
    r"|tmp)[\w.-]*/(?:src/)?(?:(?!src/)[\w.+-]+-\d[\w.+!-]*/)?"
)
#: A line number after a file name (``setup.py:12``, ``setup.py:12:4``) or ``, line 12``.
_LINE = re.compile(r"(\.\w+):\d+(?::\d+)?\b|,? line \d+\b")
#: A trailing parenthesis and full stop: ``(available on setuptools>=77.0.0).`` or
#: ``(setup.cfg)``, which releases add to the same message.
_TAIL = re.compile(r"\s*\([^()]*\)\s*\.?\s*$")


def warning_text(summary: str) -> str:
    """A warning's summary as shown: the temporary build directory and line numbers gone."""
    return _LINE.sub(lambda m: m.group(1) or "", _BUILD_DIR.sub("", summary)).strip()


def warning_key(summary: str) -> str:
    """The group of a warning: its shown text without a trailing parenthesis or full stop,
    quoted names, versions, numbers and paths masked (as failure signatures are), whatever
    its category (one message raised as DeprecationWarning and FutureWarning is one)."""
    text = _TAIL.sub("", warning_text(summary)).rstrip(" .")
    return signature("warning", text).removeprefix("warning: ").removeprefix("warning")


def _warnings(rows: Sequence[TargetRow], today: _dt.date) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        for side in ("baseline", "candidate"):
            result: SideResult | None = getattr(row, side)
            if result is None:
                continue
            seen_here: set[str] = set()
            for w in result.warnings:
                category = str(w.get("category") or "").rsplit(".", 1)[-1]
                summary = str(w.get("summary") or "")
                key = warning_key(summary)
                entry = groups.setdefault(
                    key,
                    {
                        "key": key,
                        "category": category,
                        "categories": [],
                        "summary": warning_text(summary),
                        "due_date": w.get("due_date"),
                        "url": w.get("url"),
                        "baseline": {"sdists": 0, "downloads": 0},
                        "candidate": {"sdists": 0, "downloads": 0},
                    },
                )
                if category not in entry["categories"]:
                    entry["categories"].append(category)
                entry["due_date"] = entry["due_date"] or w.get("due_date")
                entry["url"] = entry["url"] or w.get("url")
                if key in seen_here:
                    continue
                seen_here.add(key)
                entry[side]["sdists"] += 1
                entry[side]["downloads"] += _weight(row)
    out: list[dict[str, Any]] = []
    for entry in groups.values():
        entry["categories"].sort()
        due = entry["due_date"]
        try:
            entry["overdue"] = bool(due) and _dt.date.fromisoformat(str(due)) < today
        except ValueError:
            entry["overdue"] = None
        out.append(entry)
    out.sort(key=lambda e: (-int(e["baseline"]["sdists"] + e["candidate"]["sdists"]), e["key"]))
    return out


def _triage(rows: Sequence[TargetRow]) -> dict[str, list[dict[str, Any]]]:
    confirmed: list[dict[str, Any]] = []
    unexplained: list[dict[str, Any]] = []
    false_alarm: list[dict[str, Any]] = []
    for row in rows:
        b, c = row.baseline, row.candidate
        if b is None or c is None:
            continue
        predicted = c.static == "fails" and b.static != "fails"
        entry = {
            "target": _name(row),
            "class": row.cls,
            "signature": c.signature or b.signature,
            "codes": sorted({*b.static_codes, *c.static_codes}),
        }
        if row.cls == "regressed":
            (confirmed if predicted else unexplained).append(entry)
        elif predicted and c.outcome == "ok":
            false_alarm.append(entry)
    return {"confirmed": confirmed, "unexplained": unexplained, "false_alarm": false_alarm}


# --------------------------------------------------------------------------- text


def _n(value: int) -> str:
    return f"{value:,}"


def render_text(report: dict[str, Any], *, top: int = 10) -> str:
    run = report["run"]
    lines = [
        f"canary run {run['run_id']}: {run['baseline']} -> {run['candidate']} "
        f"({run['mode']} mode), {report['targets']} sdists",
    ]
    for side in ("baseline_env", "candidate_env"):
        if run.get(side) and run[side] not in ("[]", ""):
            lines.append(f"  {side.replace('_', ' ')}: {run[side]}")
    lines += ["", "classes (sdists, 30-day downloads of the projects on the top list):"]
    for cls, entry in report["classes"].items():
        if entry["count"]:
            lines.append(f"  {cls:<15} {entry['count']:>6}  {_n(entry['downloads']):>16}")
    causes = report["root_causes"]
    lines += ["", f"root causes of the regressions ({len(causes)}):"]
    if not causes:
        lines.append("  none")
    for i, cause in enumerate(causes[:top], 1):
        projects = cause["projects"]
        shown = ", ".join(projects[:_EXAMPLES]) + (
            f", ... ({len(projects) - _EXAMPLES} more)" if len(projects) > _EXAMPLES else ""
        )
        lines += [
            f"  {i}. {cause['signature']}",
            f"     {cause['count']} sdists, {_n(cause['downloads'])} downloads: {shown}",
            f"     e.g. {cause['example']['target']}: {cause['example']['message'][:300]}",
        ]
        log = cause["example"]["log"].splitlines()[-5:]
        lines += [f"       | {line[:160]}" for line in log]
    if report["fixed_causes"]:
        lines += ["", "fixed (failed on the baseline, build on the candidate):"]
        for cause in report["fixed_causes"][:top]:
            lines.append(f"  {cause['count']:>4}  {cause['signature']}")
    warnings = report["warnings"]
    lines += ["", "warnings the backend emitted (sdists per side; users never see these):"]
    if not warnings:
        lines.append("  none")
    for w in warnings[:top]:
        due = w["due_date"] or "no due date"
        state = " (overdue)" if w.get("overdue") else ""
        lines.append(
            f"  {w['baseline']['sdists']:>5} | {w['candidate']['sdists']:>5}  {w['category']}: "
            f"{w['summary'][:120]}  [due {due}{state}]"
        )
    triage = report["triage"]
    lines += [
        "",
        "static vs real: "
        f"{len(triage['confirmed'])} confirmed, {len(triage['unexplained'])} unexplained, "
        f"{len(triage['false_alarm'])} false alarms",
    ]
    for label in ("unexplained", "false_alarm"):
        for entry in triage[label][:top]:
            lines.append(f"  {label.replace('_', ' ')}: {entry['target']}: {entry['signature']}")
    if report["retry"]:
        reasons = ", ".join(f"{k} {v}" for k, v in report["retry_reasons"].items())
        lines += ["", f"retry list ({len(report['retry'])}: {reasons}):"]
        lines += [f"  {t}" for t in report["retry"][: top * 3]]
    if report["not_retried"]:
        lines += [
            "",
            f"not retried ({len(report['not_retried'])} prepare-fail that no rerun changes: "
            "no sdist on the index, only yanked ones, or no such release):",
        ]
        for entry in report["not_retried"][:top]:
            target, reason = entry["target"], entry["reason"]
            # the index's messages start with the requirement itself: not said twice
            reason = reason.removeprefix(f"{target}: ")
            lines.append(f"  {target}: {reason[:160]}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- HTML


def _table(
    head: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    ident: str,
    nums: int = 0,
    text: int | None = None,
) -> str:
    """A table in the report's style: ``head`` labels (the last ``nums`` columns are
    numbers, column ``text`` is running text), ``rows`` of cell HTML."""
    cells = [
        f'<th class="num">{e(h)}</th>' if i >= len(head) - nums else f"<th>{e(h)}</th>"
        for i, h in enumerate(head)
    ]
    header = "".join(cells)
    body = []
    for row in rows:
        tds = "".join(
            f'<td class="num">{c}</td>'
            if i >= len(head) - nums
            else f'<td class="text">{c}</td>'
            if i == text
            else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{labelled(header, tds)}</tr>")
    return (
        f'<table id="{e(ident)}"><thead><tr>{header}</tr></thead><tbody>\n'
        + "\n".join(body)
        + "\n</tbody></table>"
    )


def _section(ident: str, title: str, *parts: str) -> str:
    return (
        f'<section id="{ident}" aria-labelledby="h-{ident}"><h2 id="h-{ident}">{e(title)}</h2>'
        + "".join(parts)
        + "</section>"
    )


def _sections(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(anchor, navigation label, HTML) of each section with something to show."""
    out: list[tuple[str, str, str]] = []
    classes = [(c, v) for c, v in report["classes"].items() if v["count"]]
    cards = "".join(
        f'<li><span class="n c-{e(c)}">{v["count"]:,}</span>{e(c)}</li>' for c, v in classes
    )
    out.append(
        (
            "classes",
            "Classes",
            _section(
                "classes",
                "Classes",
                f'<ul class="cards">{cards}</ul>',
                _table(
                    ["class", "sdists", "downloads (30 d)"],
                    (
                        [
                            f'<span class="c-{e(c)}">{e(c)}</span>',
                            f"{v['count']:,}",
                            _n(v["downloads"]),
                        ]
                        for c, v in classes
                    ),
                    ident="t-classes",
                    nums=2,
                ),
            ),
        )
    )
    for key, ident, title, label in (
        ("root_causes", "root-causes", "Root causes of the regressions", "Regressions"),
        ("fixed_causes", "fixed", "Fixed: failed on the baseline, build on the candidate", "Fixed"),
    ):
        causes = report[key]
        if causes:
            out.append((ident, label, _section(ident, title, *map(_cause, causes))))
    if report["warnings"]:
        rows = [
            [
                e(", ".join(w.get("categories") or [w["category"]])),
                e(w["summary"]),
                (f'<span class="date">{e(w["due_date"])}</span>' if w["due_date"] else "")
                + (' <strong class="c-overdue">overdue</strong>' if w.get("overdue") else ""),
                f"{w['baseline']['sdists']:,}",
                f"{w['candidate']['sdists']:,}",
            ]
            for w in report["warnings"]
        ]
        note = (
            '<p class="note">Each warning once per sdist and side, grouped by its message '
            "(quoted names, versions, numbers and the temporary build directory masked); "
            "users never see these.</p>"
        )
        table = _table(
            ["category", "message", "due", "baseline", "candidate"],
            rows,
            ident="t-warnings",
            nums=2,
            text=1,
        )
        out.append(("warnings", "Warnings", _section("warnings", "Warnings emitted", note, table)))
    triage = report["triage"]
    entries = [(label, x) for label, xs in triage.items() for x in xs]
    if entries:
        counts = ", ".join(f"{len(xs)} {label.replace('_', ' ')}" for label, xs in triage.items())
        rows = [
            [
                e(label.replace("_", " ")),
                e(x["target"]),
                f"<code>{e(x['signature'] or '')}</code>",
                " ".join(f'<code class="id">{e(c)}</code>' for c in x["codes"]),
            ]
            for label, x in entries
        ]
        out.append(
            (
                "static",
                "Static vs real",
                _section(
                    "static",
                    "Static vs real",
                    f"<p>{e(counts)}.</p>",
                    _table(
                        ["triage", "target", "signature", "rules"], rows, ident="t-static", text=2
                    ),
                ),
            )
        )
    if report["retry"]:
        reasons = ", ".join(f"{k} {v}" for k, v in report["retry_reasons"].items())
        out.append(
            (
                "retry",
                "Retry",
                _section(
                    "retry",
                    f"Retry list ({len(report['retry'])})",
                    f'<p class="note">{e(reasons)}; <code>--retry</code> builds them again.</p>',
                    "<p>" + ", ".join(e(t) for t in report["retry"]) + "</p>",
                ),
            )
        )
    if report["not_retried"]:
        rows = [
            [e(x["target"]), e(x["reason"].removeprefix(f"{x['target']}: "))]
            for x in report["not_retried"]
        ]
        out.append(
            (
                "not-retried",
                "Not retried",
                _section(
                    "not-retried",
                    "Not retried: prepare-fails no rerun changes",
                    _table(["target", "reason"], rows, ident="t-not-retried", text=1),
                ),
            )
        )
    return out


def _cause(cause: dict[str, Any]) -> str:
    projects = ", ".join(cause["projects"])
    return (
        f"<details><summary><code>{e(cause['signature'])}</code>: {cause['count']:,} sdists, "
        f"{_n(cause['downloads'])} downloads</summary><p>{e(projects)}</p>"
        f"<p>e.g. {e(cause['example']['target'])}: {e(cause['example']['message'])}</p>"
        f"<pre>{e(cause['example']['log'])}</pre></details>"
    )


def render_html(report: dict[str, Any]) -> str:
    """The canary sections with something to show, as HTML (no script, escaped)."""
    return "\n".join(html for _, _, html in _sections(report))


def page_html(report: dict[str, Any]) -> str:
    """A self-contained HTML page of the run, in the style of ``sapper report``'s page (no
    script, no network)."""
    run = report["run"]
    facts = [
        f"{run.get('baseline')} \u2192 {run.get('candidate')}",
        f"{run.get('mode')} mode",
        f"{report['targets']:,} sdists",
    ]
    for side in ("baseline_env", "candidate_env"):
        if run.get(side) and run[side] not in ("[]", ""):
            facts.append(f"{side.replace('_', ' ')} {run[side]}")
    if run.get("corpus"):
        facts.append(f"corpus {run['corpus']}")
    facts += [f"{k} {run[k]}" for k in ("created", "finished") if run.get(k)]
    sections = _sections(report)
    return page(
        title=f"sapper canary {run.get('run_id')}",
        heading=f"sapper canary run {run.get('run_id')}",
        meta=" &middot; ".join(e(f) for f in facts),
        nav=[(ident, label) for ident, label, _ in sections],
        sections=[html for _, _, html in sections],
        footer="<p>Downloads are 30-day counts of the projects on the top list. The same "
        "numbers, as JSON: <code>sapper report --canary --format json</code>.</p>",
    )


def write_report(
    store_path: Path, run: str | None, fmt: str, html_path: Path | None
) -> tuple[str, str]:
    """(the text or JSON to print, the run id) for ``sapper report --canary``; writes the
    HTML page to ``html_path`` when given.

    :raises UsageError: when the store has no such run.
    """
    import json

    from ..canary.store import CanaryStore

    with CanaryStore(store_path, read_only=True) as store:
        run_id = store.resolve_run(run)
        meta = next(r for r in store.runs() if r["run_id"] == run_id)
        report = summarize(store.rows(run_id), meta)
    if html_path is not None:
        html_path.parent.mkdir(parents=True, exist_ok=True)
        html_path.write_text(page_html(report), encoding="utf-8")
    if fmt == "json":
        return json.dumps(report, indent=2, default=str) + "\n", run_id
    return render_text(report), run_id
