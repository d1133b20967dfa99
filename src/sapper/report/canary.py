"""The canary sections of ``sapper report``: classes, root causes, warnings, triage.

:func:`summarize` turns the stored rows of one canary run into a versioned, JSON-ready dict
(schema ``sapper.canary-report/1``); :func:`render_text` and :func:`render_html` show it.
"""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..build import signature

if TYPE_CHECKING:
    from ..canary.model import SideResult, TargetRow

__all__ = [
    "REPORT_SCHEMA",
    "page_html",
    "render_html",
    "render_text",
    "summarize",
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
                key = signature(category, summary)
                if key in seen_here:
                    continue
                seen_here.add(key)
                entry = groups.setdefault(
                    key,
                    {
                        "key": key,
                        "category": category,
                        "summary": summary,
                        "due_date": w.get("due_date"),
                        "url": w.get("url"),
                        "baseline": {"sdists": 0, "downloads": 0},
                        "candidate": {"sdists": 0, "downloads": 0},
                    },
                )
                entry["due_date"] = entry["due_date"] or w.get("due_date")
                entry["url"] = entry["url"] or w.get("url")
                entry[side]["sdists"] += 1
                entry[side]["downloads"] += _weight(row)
    out: list[dict[str, Any]] = []
    for entry in groups.values():
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


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def render_html(report: dict[str, Any]) -> str:
    """The canary section as an HTML fragment (no script, escaped)."""
    run = report["run"]
    parts = [
        '<section id="canary"><h2>Canary run '
        f"{_e(run['run_id'])}: {_e(run['baseline'])} &rarr; {_e(run['candidate'])}</h2>",
        f"<p>{_e(run['mode'])} mode, {report['targets']} sdists.</p>",
        "<table><tr><th>class</th><th>sdists</th><th>downloads</th></tr>",
    ]
    for cls, entry in report["classes"].items():
        if entry["count"]:
            parts.append(
                f"<tr><td>{_e(cls)}</td><td>{entry['count']}</td>"
                f"<td>{_n(entry['downloads'])}</td></tr>"
            )
    parts.append("</table><h3>Root causes of the regressions</h3>")
    for cause in report["root_causes"]:
        parts.append(
            f"<details><summary><code>{_e(cause['signature'])}</code>: {cause['count']} sdists, "
            f"{_n(cause['downloads'])} downloads</summary><p>{_e(', '.join(cause['projects']))}"
            f"</p><pre>{_e(cause['example']['log'])}</pre></details>"
        )
    parts.append(
        "<h3>Warnings emitted</h3><table><tr><th>category</th><th>summary</th>"
        "<th>due</th><th>baseline</th><th>candidate</th></tr>"
    )
    for w in report["warnings"]:
        parts.append(
            f"<tr><td>{_e(w['category'])}</td><td>{_e(w['summary'])}</td>"
            f"<td>{_e(w['due_date'] or '')}{' (overdue)' if w.get('overdue') else ''}</td>"
            f"<td>{w['baseline']['sdists']}</td><td>{w['candidate']['sdists']}</td></tr>"
        )
    parts.append(
        "</table><h3>Static vs real</h3><table><tr><th>triage</th><th>target</th>"
        "<th>signature</th><th>rules</th></tr>"
    )
    for label, entries in report["triage"].items():
        for entry in entries:
            parts.append(
                f"<tr><td>{_e(label)}</td><td>{_e(entry['target'])}</td>"
                f"<td><code>{_e(entry['signature'] or '')}</code></td>"
                f"<td>{_e(', '.join(entry['codes']))}</td></tr>"
            )
    parts.append("</table></section>")
    return "\n".join(parts)


def page_html(report: dict[str, Any]) -> str:
    """A self-contained HTML page with the canary section (no script, no network)."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>sapper canary {_e(report['run']['run_id'])}</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;"
        "text-align:left;vertical-align:top}pre{background:#f4f4f4;padding:.5rem;"
        "overflow-x:auto}</style></head><body>\n" + render_html(report) + "\n</body></html>\n"
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
