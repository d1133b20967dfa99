"""The layout and style every HTML page of sapper shares: ``sapper report`` and
``sapper report --canary`` (one stylesheet, one page shell).

The page fits its window from phone to desktop width: the content column grows to 1,320 px,
tables wrap their text (a rule slug or a number never breaks), and below 760 px a table
shows each row as a block of "label: value" lines (the labels come from the header, as
``data-label``), so nothing scrolls sideways. Charts are SVG scaled to the column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

__all__ = ["CSS", "csp", "e", "labelled", "page"]


def e(text: object) -> str:
    """``text`` escaped for HTML text and attribute values."""
    return escape(str(text), quote=True)


def csp(*, script: bool) -> str:
    """The Content-Security-Policy of a page: nothing from the network, inline style (and
    inline script when the page has one)."""
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        + ("script-src 'unsafe-inline'; " if script else "")
        + "img-src data:; base-uri 'none'; form-action 'none'"
    )


CSS = """
:root { --fails: #c0392b; --overdue: #d68910; --deprecated: #7d8fa3; --builds: #1e8449;
  --unknown: #95a5a6; --error: #4a235a; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  margin: 0; background: #fff; }
header, main, footer { max-width: 1320px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 1.6em; margin: 0.2em 0; }
h2 { font-size: 1.25em; margin: 1.8em 0 0.4em; border-bottom: 1px solid var(--line); }
p.meta, p.note, figcaption { color: var(--muted); }
p, li, dd, summary { overflow-wrap: break-word; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
a { color: #0550ae; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; padding: 0; list-style: none; }
.cards li { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px;
  min-width: 150px; }
.cards .n { font-size: 1.5em; font-weight: 600; display: block; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; font-size: 0.93em; }
th, td { padding: 4px 5px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; overflow-wrap: break-word; }
th { font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, .date, .slug, code.id { white-space: nowrap; }
td.text { min-width: 10em; }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0;
  cursor: pointer; color: inherit; text-align: inherit; }
th[aria-sort=ascending] button::after { content: " \\25B2"; }
th[aria-sort=descending] button::after { content: " \\25BC"; }
code { font-size: 0.95em; }
pre { background: #f4f4f4; padding: 8px; overflow-x: auto; max-width: 100%;
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85em; }
.warn { border-left: 4px solid var(--overdue); padding-left: 8px; }
.st-removed, .c-fails, .c-regressed { color: var(--fails); font-weight: 600; }
.st-overdue, .c-overdue { color: var(--overdue); font-weight: 600; }
.c-builds, .c-fixed, .c-pass { color: var(--builds); }
svg.chart { max-width: 100%; height: auto; display: block; margin: 10px 0; }
svg.chart text { font: 11px system-ui, sans-serif; fill: var(--ink); }
svg.chart .grid { stroke: var(--line); stroke-dasharray: 2 3; }
svg.chart .axis { stroke: var(--muted); }
svg.chart .mark { stroke: var(--fails); stroke-dasharray: 4 3; }
svg.chart .line { fill: none; stroke-width: 2; }
.s-fails, .s-removed, .s-regressed { fill: var(--fails); stroke: var(--fails); }
.s-overdue { fill: var(--overdue); stroke: var(--overdue); }
.s-deprecated, .s-spurious { fill: var(--deprecated); stroke: var(--deprecated); }
.s-builds, .s-pass, .s-fixed { fill: var(--builds); stroke: var(--builds); }
.s-unknown, .s-not-setuptools, .s-fail { fill: var(--unknown); stroke: var(--unknown); }
.s-error, .s-prepare-fail { fill: var(--error); stroke: var(--error); }
.s-requires-newer { fill: #8e6bb8; stroke: #8e6bb8; }
polyline.s-overdue { stroke-dasharray: 5 3; }
details { margin: 6px 0 14px; }
figure { margin: 12px 0 20px; }
figcaption { font-size: 0.9em; }
footer { margin: 40px auto 30px; color: var(--muted); font-size: 0.9em; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 760px) {
  header, main, footer { padding: 0 12px; }
  table, tbody, tr, td { display: block; width: 100%; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); }
  tr { border-bottom: 2px solid var(--line); padding: 4px 0; }
  td { display: flow-root; border: 0; padding: 2px 0; text-align: right; min-width: 0; }
  td.text { min-width: 0; text-align: left; }
  td:empty { display: none; }
  td::before { content: attr(data-label); float: left; margin-right: 12px;
    font-weight: 600; color: var(--muted); text-align: left; }
  td.text::before { float: none; display: block; }
}
"""

_TH = re.compile(r"<th\b[^>]*>(.*?)</th>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_TD = re.compile(r"<td\b")


def labelled(head: str, row: str) -> str:
    """``row``'s cells with the header's labels as ``data-label`` (the narrow layout
    shows them beside each value)."""
    labels = iter(_TAG.sub("", m) for m in _TH.findall(head))
    return _TD.sub(lambda _: f'<td data-label="{next(labels, "")}"', row)


def page(
    *,
    title: str,
    heading: str,
    meta: str,
    nav: Sequence[tuple[str, str]],
    sections: Sequence[str],
    footer: str = "",
    tail: str = "",
    script: bool = False,
) -> str:
    """A self-contained page: ``meta`` (HTML) under the ``heading``, a navigation bar of
    (anchor, label), the sections (HTML), the ``footer`` (HTML) and a ``tail`` (scripts,
    HTML) before ``</body>``."""
    links = "".join(f'<li><a href="#{e(k)}">{e(v)}</a></li>' for k, v in nav)
    body = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp(script=script)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{e(heading)}</h1>",
        f'<p class="meta">{meta}</p>',
        f'<nav aria-label="sections"><ul>{links}</ul></nav>' if nav else "",
        "</header>",
        "<main>",
        *sections,
        "</main>",
        f"<footer>{footer}</footer>" if footer else "",
        tail,
        "</body>",
        "</html>",
    ]
    return "\n".join(line for line in body if line) + "\n"
