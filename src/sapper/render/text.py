"""Terminal output: ``path:line:col: CODE message`` grouped per target, then a verdict."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from ..model import Finding, Stage, TargetResult

__all__ = ["Style", "render_text", "use_color"]


def use_color(mode: str, stream_isatty: bool) -> bool:
    """``always``/``never``/``auto``; auto honours NO_COLOR, FORCE_COLOR and the terminal."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream_isatty and os.environ.get("TERM") != "dumb"


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class Style(NamedTuple):
    color: bool

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def red(self, text: str) -> str:
        return self._wrap("1;31", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)


def _location(result: TargetResult, f: Finding) -> str:
    path = f.path
    if result.kind == "directory":
        path = os.path.normpath(f"{result.target}/{f.path}")
    if f.line is not None:
        path += f":{f.line}:{f.column or 1}"
    return path


def _code(style: Style, f: Finding) -> str:
    if f.status == "removed":
        return style.red(f.code)
    if f.status == "overdue":
        return style.yellow(f.code)
    return style.bold(f.code)


def _header(result: TargetResult) -> str:
    what = {"directory": "source tree", "sdist": "sdist", "pypi": "sdist from the index"}
    project = result.project
    ident = " ".join(x for x in (project.name, project.version) if x)
    return f"{result.target}" + (f" ({ident}, {what[result.kind]})" if ident else "")


def _stage_lines(stages: Sequence[Stage], style: Style) -> list[str]:
    """Under enforcement, one line per PEP 517 stage: the project's own practices, then
    setuptools' own failure at that stage, if any."""
    out: list[str] = []
    for st in stages:
        own = (
            style.red(f"fails because of {', '.join(st.because)}")
            if st.because
            else "the project's own practices pass"
        )
        line = f"  {st.name} stage ({st.hook}): {own}"
        if st.backend:
            line += "; " + style.red(st.backend)
        out.append(line)
    return out


def render_text(results: Sequence[TargetResult], style: Style, *, show_fix: bool = False) -> str:
    lines: list[str] = []
    totals = {"fails": 0, "builds": 0, "unknown": 0, "error": 0}
    n_findings = 0
    for result in results:
        lines.append(style.bold(_header(result)))
        for f in result.findings:
            lines.append(f"{_location(result, f)}: {_code(style, f)} {f.text}")
            if show_fix and f.fix:
                lines.extend(style.dim(f"    | {x}") for x in f.fix.splitlines())
        n_findings += len(result.findings)
        for e in result.errors:
            lines.append(style.red(f"error ({e.type}): ") + e.message)
        v = result.verdict
        if v is None:
            totals["error"] += 1
            lines.append(style.red("verdict: not analysed"))
        else:
            backend_fails = v.outcome == "builds" and any(st.backend for st in v.stages)
            totals["fails" if backend_fails else v.outcome] += 1
            enforce = " with SETUPTOOLS_ENFORCE_DEPRECATION=1" if v.enforce_deprecations else ""
            if v.outcome == "fails":
                text = style.red(f"fails with setuptools {v.setuptools}{enforce}")
                text += f" because of {', '.join(v.because)}"
            elif v.outcome == "builds" and any(st.backend for st in v.stages):
                hooks = ", ".join(st.hook for st in v.stages if st.backend)
                text = style.red(f"fails with setuptools {v.setuptools}{enforce}")
                text += (
                    f": setuptools itself fails every {hooks} in this mode; the project's "
                    "own practices pass (as far as sapper's rules can tell)"
                )
            elif v.outcome == "builds":
                text = style.green(f"builds with setuptools {v.setuptools}{enforce}")
                text += " (as far as sapper's rules can tell)"
            else:
                text = style.yellow("unknown")
                if v.setuptools:
                    text += f" with setuptools {v.setuptools}{enforce}"
            lines.append(f"verdict: {text} [{v.reason}]")
            if v.enforce_deprecations:
                lines.extend(_stage_lines(v.stages, style))
        lines.append("")
    parts = [f"{n} {k}" for k, n in totals.items() if n]
    target_word = "target" if len(results) == 1 else "targets"
    finding_word = "finding" if n_findings == 1 else "findings"
    lines.append(
        f"{len(results)} {target_word} ({', '.join(parts) or 'none'}), {n_findings} {finding_word}"
    )
    return "\n".join(lines) + "\n"
