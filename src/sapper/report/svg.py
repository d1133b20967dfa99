"""Small, dependency-free SVG charts for the HTML report.

Every chart is an ``<svg role="img">`` labelled by its ``<title>`` and ``<desc>``; every bar
and point has its own ``<title>`` (a tooltip, and what a screen reader announces). Colours
come from CSS classes (``s-fails``, ``s-overdue``...) so the page's stylesheet sets them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Series", "columns", "hbars", "lines", "nice_ticks"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Series:
    """One stack layer (bars) or line: a name for the legend, a CSS class and its values."""

    name: str
    css: str
    values: tuple[float, ...]


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def nice_ticks(peak: float, count: int = 4) -> tuple[float, ...]:
    """Round tick values from 0 to at least ``peak``: steps of 1, 2 or 5 times a power of ten
    (never below 1 for counts above 1; fractions are allowed for shares below 1)."""
    if peak <= 0:
        return (0.0, 1.0)
    raw = peak / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if peak > 1:
        step = max(step, 1.0)
    n = math.ceil(peak / step - 1e-9)
    return tuple(round(step * i, 10) for i in range(n + 1))


def _open(ident: str, title: str, desc: str, width: float, height: float) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(ident)}" '
        f'role="img" width="{_fmt(width)}" height="{_fmt(height)}" '
        f'viewBox="0 0 {_fmt(width)} {_fmt(height)}" '
        f'aria-labelledby="{escape(ident)}-t {escape(ident)}-d">',
        f'<title id="{escape(ident)}-t">{escape(title)}</title>',
        f'<desc id="{escape(ident)}-d">{escape(desc)}</desc>',
    ]


def _legend(series: Sequence[Series], x: float, y: float) -> list[str]:
    out = ['<g class="legend" aria-hidden="true">']
    for s in series:
        out.append(
            f'<rect x="{_fmt(x)}" y="{_fmt(y - 9)}" width="10" height="10" class="{s.css}"/>'
        )
        out.append(f'<text x="{_fmt(x + 14)}" y="{_fmt(y)}">{escape(s.name)}</text>')
        x += 24 + 7 * len(s.name)
    out.append("</g>")
    return out


def hbars(
    *,
    ident: str,
    title: str,
    desc: str,
    labels: Sequence[str],
    series: Sequence[Series],
    scale: float,
    fmt: Callable[[float], str],
) -> str:
    """Horizontal stacked bars, one per label; ``scale`` is the value of a full-width bar."""
    label_w, bar_w, row_h = 240.0, 420.0, 22.0
    width = label_w + bar_w + 70
    height = 30 + row_h * len(labels) + 10
    out = _open(ident, title, desc, width, height)
    out.extend(_legend(series, label_w, 14))
    scale = scale or 1.0
    for i, label in enumerate(labels):
        y = 30 + i * row_h
        out.append(
            f'<text class="label" x="{_fmt(label_w - 8)}" y="{_fmt(y + 14)}" '
            f'text-anchor="end">{escape(label)}</text>'
        )
        x = label_w
        total = 0.0
        for s in series:
            value = s.values[i]
            total += value
            w = bar_w * value / scale
            if value <= 0:
                continue
            out.append(
                f'<rect class="{s.css}" x="{_fmt(x)}" y="{_fmt(y + 3)}" '
                f'width="{_fmt(max(w, 1))}" height="{_fmt(row_h - 6)}">'
                f"<title>{escape(label)}, {escape(s.name)}: {escape(fmt(value))}</title></rect>"
            )
            x += w
        out.append(
            f'<text class="value" x="{_fmt(x + 6)}" y="{_fmt(y + 14)}">{escape(fmt(total))}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def columns(
    *,
    ident: str,
    title: str,
    desc: str,
    labels: Sequence[str],
    series: Sequence[Series],
    fmt: Callable[[float], str],
) -> str:
    """Vertical stacked columns, one per label, scaled to the tallest stack."""
    left, top, plot_h, bottom = 56.0, 30.0, 200.0, 40.0
    step = max(14.0, min(48.0, 640.0 / max(len(labels), 1)))
    width = left + step * len(labels) + 20
    height = top + plot_h + bottom
    totals = [sum(s.values[i] for s in series) for i in range(len(labels))]
    ticks = nice_ticks(max(totals, default=0.0))
    peak = ticks[-1]
    out = _open(ident, title, desc, max(width, 360), height)
    out.extend(_legend(series, left, 14))
    base = top + plot_h
    out.append(
        f'<line class="axis" x1="{_fmt(left)}" y1="{_fmt(base)}" '
        f'x2="{_fmt(left + step * len(labels))}" y2="{_fmt(base)}"/>'
    )
    for tick in ticks[1:]:
        y = base - plot_h * tick / peak
        out.append(
            f'<text class="tick" x="{_fmt(left - 6)}" y="{_fmt(y + 4)}" text-anchor="end">'
            f"{escape(fmt(tick))}</text>"
        )
        out.append(
            f'<line class="grid" x1="{_fmt(left)}" y1="{_fmt(y)}" '
            f'x2="{_fmt(left + step * len(labels))}" y2="{_fmt(y)}"/>'
        )
    for i, label in enumerate(labels):
        x = left + i * step
        y = base
        for s in series:
            value = s.values[i]
            if value <= 0:
                continue
            h = plot_h * value / peak
            y -= h
            out.append(
                f'<rect class="{s.css}" x="{_fmt(x + 2)}" y="{_fmt(y)}" '
                f'width="{_fmt(step - 4)}" height="{_fmt(max(h, 0.5))}">'
                f"<title>{escape(label)}, {escape(s.name)}: {escape(fmt(value))}</title></rect>"
            )
        if len(labels) <= 16 or i % 2 == 0:
            out.append(
                f'<text class="tick" x="{_fmt(x + step / 2)}" y="{_fmt(base + 14)}" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out)


def lines(
    *,
    ident: str,
    title: str,
    desc: str,
    labels: Sequence[str],
    series: Sequence[Series],
    fmt: Callable[[float], str],
    marks: Sequence[str] = (),
) -> str:
    """Step lines over categorical x values (setuptools versions); ``marks`` are labels
    to draw a vertical guide at."""
    left, top, plot_w, plot_h, bottom = 56.0, 30.0, 640.0, 200.0, 56.0
    width, height = left + plot_w + 50, top + plot_h + bottom
    ticks = nice_ticks(max((v for s in series for v in s.values), default=0.0))
    peak = ticks[-1]
    n = max(len(labels) - 1, 1)
    base = top + plot_h

    def px(i: int) -> float:
        return left + plot_w * i / n

    def py(v: float) -> float:
        return base - plot_h * v / peak

    out = _open(ident, title, desc, width, height)
    out.extend(_legend(series, left, 14))
    for tick in ticks:
        y = py(tick)
        out.append(
            f'<line class="{"axis" if tick == 0 else "grid"}" x1="{_fmt(left)}" y1="{_fmt(y)}" '
            f'x2="{_fmt(left + plot_w)}" y2="{_fmt(y)}"/>'
        )
        out.append(
            f'<text class="tick" x="{_fmt(left - 6)}" y="{_fmt(y + 4)}" text-anchor="end">'
            f"{escape(fmt(tick))}</text>"
        )
    every = max(1, len(labels) // 12)
    forced = {len(labels) - 1} | {i for i, label in enumerate(labels) if label in marks}
    for i, label in enumerate(labels):
        if label in marks:
            out.append(
                f'<line class="mark" x1="{_fmt(px(i))}" y1="{_fmt(top)}" '
                f'x2="{_fmt(px(i))}" y2="{_fmt(base)}"/>'
            )
        spaced = i % every == 0 and all(abs(i - j) >= every for j in forced)
        if i in forced or spaced:
            out.append(
                f'<text class="tick" transform="translate({_fmt(px(i))},{_fmt(base + 10)}) '
                f'rotate(40)">{escape(label)}</text>'
            )
    for s in series:
        points = " ".join(f"{_fmt(px(i))},{_fmt(py(v))}" for i, v in enumerate(s.values))
        out.append(f'<polyline class="line {s.css}" points="{points}"/>')
        for i, v in enumerate(s.values):
            out.append(
                f'<circle class="{s.css}" cx="{_fmt(px(i))}" cy="{_fmt(py(v))}" r="2.5">'
                f"<title>setuptools {escape(labels[i])}, {escape(s.name)}: "
                f"{escape(fmt(v))}</title></circle>"
            )
    out.append("</svg>")
    return "\n".join(out)
