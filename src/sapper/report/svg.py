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

__all__ = ["Series", "changes", "columns", "hbars", "lines", "nice_ticks", "text_width"]


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


#: The width of a character of the charts' 11 px text, on the wide side (for layout).
CHAR_W = 6.6


def text_width(text: str) -> float:
    """The width ``text`` takes in a chart, estimated generously (never cut)."""
    return CHAR_W * len(text)


def _legend(series: Sequence[Series], x: float, y: float, right: float) -> tuple[list[str], float]:
    """The legend from ``(x, y)``, wrapped before ``right``: (its elements, the baseline
    of its last row)."""
    out = ['<g class="legend" aria-hidden="true">']
    start = x
    for s in series:
        step = 24 + text_width(s.name)
        if x > start and x + step - 10 > right:
            x, y = start, y + 16
        out.append(
            f'<rect x="{_fmt(x)}" y="{_fmt(y - 9)}" width="10" height="10" class="{s.css}"/>'
        )
        out.append(f'<text x="{_fmt(x + 14)}" y="{_fmt(y)}">{escape(s.name)}</text>')
        x += step
    out.append("</g>")
    return out, y


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
    """Horizontal stacked bars, one per label; ``scale`` is the value of a full-width bar.

    The label column is as wide as the longest label and the value column as the longest
    value, so that neither is cut."""
    bar_w, row_h = 420.0, 22.0
    label_w = max(60.0, max((text_width(label) for label in labels), default=0.0) + 14)
    totals = [sum(s.values[i] for s in series) for i in range(len(labels))]
    value_w = max((text_width(fmt(t)) for t in totals), default=0.0) + 12
    width = label_w + bar_w + value_w
    head, last = _legend(series, label_w, 14, width)
    top = last + 16
    height = top + row_h * len(labels) + 10
    out = _open(ident, title, desc, width, height)
    out.extend(head)
    scale = scale or 1.0
    for i, label in enumerate(labels):
        y = top + i * row_h
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
    left, plot_h, bottom = 56.0, 200.0, 40.0
    step = max(14.0, min(48.0, 640.0 / max(len(labels), 1)))
    width = max(left + step * len(labels) + 20, 360)
    head, last = _legend(series, left, 14, width)
    top = last + 16
    height = top + plot_h + bottom
    totals = [sum(s.values[i] for s in series) for i in range(len(labels))]
    ticks = nice_ticks(max(totals, default=0.0))
    peak = ticks[-1]
    out = _open(ident, title, desc, width, height)
    out.extend(head)
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
    left, plot_w, plot_h, bottom = 56.0, 640.0, 200.0, 56.0
    width = left + plot_w + 50
    head, last = _legend(series, left, 14, width)
    top = last + 16
    height = top + plot_h + bottom
    ticks = nice_ticks(max((v for s in series for v in s.values), default=0.0))
    peak = ticks[-1]
    n = max(len(labels) - 1, 1)
    base = top + plot_h

    def px(i: int) -> float:
        return left + plot_w * i / n

    def py(v: float) -> float:
        return base - plot_h * v / peak

    out = _open(ident, title, desc, width, height)
    out.extend(head)
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


def _symlog(value: float) -> float:
    return math.log10(1 + abs(value))


def changes(
    *,
    ident: str,
    title: str,
    desc: str,
    labels: Sequence[str],
    up: Series,
    down: Series,
    marks: Sequence[str] = (),
) -> str:
    """Columns up (``up``'s values) and down (``down``'s) from a zero line, one pair per
    label, on a logarithmic scale (``log10(1 + n)``, ticks at 1, 10, 100...): a change of
    one sdist in a thousand stands beside one of hundreds. ``marks``: labels drawn in bold
    with a guide."""
    left, half, bottom = 56.0, 100.0, 56.0
    step = max(10.0, min(40.0, 640.0 / max(len(labels), 1)))
    width = max(left + step * len(labels) + 30, 360)
    head, last = _legend((up, down), left, 14, width)
    top = last + 16
    zero = top + half
    height = zero + half + bottom
    peak = max((v for s in (up, down) for v in s.values), default=0.0)
    decades = max(1, math.ceil(math.log10(max(peak, 1) + 1)))
    ticks = [10**k for k in range(decades + 1) if 10**k <= max(peak, 1) * 10]

    def h(value: float) -> float:
        return half * _symlog(value) / _symlog(10**decades)

    out = _open(ident, title, desc, width, height)
    out.extend(head)
    right = left + step * len(labels)
    out.append(
        f'<line class="axis" x1="{_fmt(left)}" y1="{_fmt(zero)}" x2="{_fmt(right)}" '
        f'y2="{_fmt(zero)}"/>'
    )
    out.append(
        f'<text class="tick" x="{_fmt(left - 6)}" y="{_fmt(zero + 4)}" text-anchor="end">0</text>'
    )
    for tick in ticks:
        for sign, prefix in ((-1, "+"), (1, "\u2212")):
            y = zero + sign * h(tick)
            out.append(
                f'<line class="grid" x1="{_fmt(left)}" y1="{_fmt(y)}" x2="{_fmt(right)}" '
                f'y2="{_fmt(y)}"/>'
            )
            out.append(
                f'<text class="tick" x="{_fmt(left - 6)}" y="{_fmt(y + 4)}" '
                f'text-anchor="end">{prefix}{tick:,}</text>'
            )
    for i, label in enumerate(labels):
        x = left + i * step
        for series, sign in ((up, -1), (down, 1)):
            value = series.values[i]
            if value <= 0:
                continue
            y = zero if sign > 0 else zero - h(value)
            out.append(
                f'<rect class="{series.css}" x="{_fmt(x + 2)}" y="{_fmt(y)}" '
                f'width="{_fmt(step - 4)}" height="{_fmt(h(value))}">'
                f"<title>setuptools {escape(label)}: {value:,.0f} {escape(series.name)}"
                "</title></rect>"
            )
        if label in marks:
            out.append(
                f'<line class="mark" x1="{_fmt(x + step / 2)}" y1="{_fmt(top)}" '
                f'x2="{_fmt(x + step / 2)}" y2="{_fmt(zero + half)}"/>'
            )
        beside = any(labels[j] in marks for j in (i - 1, i + 1) if 0 <= j < len(labels))
        if label in marks or len(labels) <= 24 or (i % 2 == 0 and not beside):
            weight = ' font-weight="bold"' if label in marks else ""
            out.append(
                f'<text class="tick"{weight} transform="translate({_fmt(x + step / 2)},'
                f'{_fmt(zero + half + 10)}) rotate(40)">{escape(label)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out)
