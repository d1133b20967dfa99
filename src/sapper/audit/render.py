"""Text rendering of an audit: one table row per distribution, then the plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..render.text import Style
from .emit import (
    PIP_BUILD_CONSTRAINT_SINCE,
    PIP_CONSTRAINT_REACHES_BUILDS_UNTIL,
    ConstraintPlan,
)

if TYPE_CHECKING:
    from . import AuditReport, PackageAudit

__all__ = ["render_table"]

_HEADERS = ("package", "version", "from sdist?", "verdict today", "newest good setuptools", "why")


def _row(p: PackageAudit, style: Style) -> tuple[tuple[str, str], ...]:
    """Cells as (plain, styled) pairs: widths are measured on the plain text."""

    def cell(text: str, styled: str | None = None) -> tuple[str, str]:
        return text, styled if styled is not None else text

    version = p.version or "?"
    if p.source == "wheel":
        return (
            cell(p.name),
            cell(version),
            cell("no (wheel)"),
            cell("-"),
            cell("-"),
            cell(p.wheel or ""),
        )
    if p.source == "skipped":
        return (cell(p.name), cell(version), cell("skipped"), cell("-"), cell("-"), cell(p.how))
    if p.source == "unavailable":
        return (
            cell(p.name),
            cell(version),
            cell("no file"),
            cell("-"),
            cell("-"),
            cell(p.error or p.how),
        )
    v = p.verdict
    if v is None:  # pragma: no cover - sdist rows always carry a verdict
        return (cell(p.name), cell(version), cell("yes"), cell("?"), cell("?"), cell(p.how))
    if v.outcome == "fails":
        verdict = f"fails ({v.today})"
        shown = style.red(verdict)
        why = f"{', '.join(v.because)} {v.reason}"
    elif v.outcome == "builds":
        verdict = f"builds ({v.today})"
        shown = style.green(verdict)
        why = v.reason
    else:
        verdict = "unknown"
        shown = style.yellow(verdict)
        why = v.reason
    good = v.newest_good or ("none" if v.outcome != "unknown" else "-")
    if v.constraint:
        good += f" ({v.constraint})"
    return (cell(p.name), cell(version), cell("yes"), cell(verdict, shown), cell(good), cell(why))


def render_table(report: AuditReport, plan: ConstraintPlan, style: Style) -> str:
    rows = [_row(p, style) for p in report.packages]
    widths = [len(h) for h in _HEADERS]
    for row in rows:
        for i, (plain, _) in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(plain))
    lines = [
        f"{style.bold('sapper audit')} {report.input} ({report.format}) for {report.target}",
        "",
        "  ".join(style.bold(h.ljust(widths[i])) for i, h in enumerate(_HEADERS[:-1]))
        + "  "
        + style.bold(_HEADERS[-1]),
    ]
    for row in rows:
        parts = [
            styled + " " * (widths[i] - len(plain)) for i, (plain, styled) in enumerate(row[:-1])
        ]
        lines.append("  ".join(parts) + "  " + row[-1][1])
    lines.append("")
    if "requirements" in report.format.split("+") and report.closure is None:
        lines.append(
            "Versions of unpinned requirements are the newest matching release with a file for "
            "the target, as pip would choose; dependencies are not resolved (give a lock or a "
            "`pip install --dry-run --report` file for the whole tree)."
        )
    built = report.built
    failing = report.failing
    lines.append(
        f"{len(report.packages)} distributions, {len(built)} built from source, "
        + (style.red(f"{len(failing)} would fail") if failing else style.green("none would fail"))
        + " with the setuptools a build gets today."
    )
    opaque = [
        p.name
        for p in built
        if p.verdict is not None and p.verdict.outcome == "unknown" and p.verdict.today
    ]
    if opaque:
        lines.append(
            style.yellow(
                f"Unknown: static analysis cannot tell for {len(opaque)} "
                f"({', '.join(opaque)}); `sapper audit --verify` builds them for real."
            )
        )
    unread = [p for p in report.packages if p.error]
    if unread:
        lines.append(
            style.yellow(
                f"Incomplete: {len(unread)} could not be looked up "
                f"({', '.join(p.name for p in unread)}); the table says why."
            )
        )
    if plan.constraint and not plan.conflict:
        lines.append(
            f"Fix: the build constraint `{plan.constraint}` (sapper audit ... --emit pip -o FILE): "
            f"pip >= {PIP_BUILD_CONSTRAINT_SINCE}: pip install --build-constraint FILE; "
            f"older pip (before {PIP_CONSTRAINT_REACHES_BUILDS_UNTIL}, as a fresh venv's 23.2): "
            "PIP_CONSTRAINT=FILE pip install; or --emit uv / --emit poetry."
        )
    if plan.conflict:
        lines.append(style.yellow("Conflict: no single global build constraint serves them all:"))
        for i, group in enumerate(plan.groups, start=1):
            need = group.constraint or "newest setuptools"
            lines.append(f"  group {i} ({need}): {', '.join(group.packages)}")
        lines.append(
            "Per-package constraints work (--emit uv, --emit poetry); for pip, build them "
            "apart with `sapper wheelhouse INPUT -o DIR`."
        )
    if plan.unbuildable:
        lines.append(
            "No setuptools release known to build: "
            + ", ".join(plan.unbuildable)
            + " (within their build-system.requires)."
        )
    for note in report.notes:
        lines.append(style.dim(f"note: {note}"))
    return "\n".join(lines) + "\n"
