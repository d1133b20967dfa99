"""The HTML pages fit: measured in headless Chromium at a desktop and a phone width.

At 1,400 and 390 CSS pixels wide, with every ``<details>`` opened: the page does not
scroll sideways (``scrollWidth`` against ``clientWidth``), no table or chart reaches past
its section or scrolls inside itself, no chart text (bar labels, values, legends, ticks)
is cut by its chart's edge, and no rule slug wraps inside a word. A screenshot of each
page at each width is taken and checked (a PNG of the width asked, not blank); they are
kept in the test's temporary directory, not in the repository.

Uses the DevTools client of test_report_browser (skipped without chromium, unless
``SAPPER_REQUIRE_CHROMIUM`` is set: then it fails).
"""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import DevTools, chromium, devtools, report_files  # noqa: F401

WIDTHS = (1400, 390)

#: Evaluated in the page: every overflow, in CSS pixels (0 when it fits).
FIT = """
(() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const doc = document.documentElement;
  const box = (el) => el.getBoundingClientRect();
  const edge = (el) => {
    const host = el.parentElement.closest("section, figure, details, main, body");
    const r = box(host), cs = getComputedStyle(host);
    return {left: r.left + parseFloat(cs.paddingLeft),
            right: r.right - parseFloat(cs.paddingRight)};
  };
  const past = (el) => {
    const r = box(el), e = edge(el);
    return Math.max(0, Math.ceil(r.right - e.right), Math.ceil(e.left - r.left),
                    el.scrollWidth - el.clientWidth);
  };
  const cut = (svg) => {
    const s = box(svg);
    let worst = 0, what = "";
    svg.querySelectorAll("text").forEach((t) => {
      const r = box(t);
      const over = Math.max(s.left - r.left, r.right - s.right, s.top - r.top, r.bottom - s.bottom);
      if (over > worst) { worst = over; what = t.textContent; }
    });
    return {cut: Math.ceil(worst), text: what};
  };
  const wrapped = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
    return lines.size > 1;
  };
  return {
    width: doc.clientWidth,
    page: doc.scrollWidth - doc.clientWidth,
    tables: Array.from(document.querySelectorAll("table")).map((t) => ({
      id: t.id, over: past(t), width: Math.round(box(t).width)})),
    charts: Array.from(document.querySelectorAll("svg.chart")).map((c) => Object.assign(
      {id: c.id, over: past(c), width: Math.round(box(c).width)}, cut(c))),
    slugs: Array.from(document.querySelectorAll(".slug")).filter(wrapped).map((e) => e.textContent),
  };
})()
"""


def measure(client: DevTools, url: str, width: int, shot: Path | None = None) -> dict[str, Any]:
    """Load ``url`` at ``width`` CSS pixels (no scroll bar) and return :data:`FIT`'s
    measures (and write a full-page screenshot to ``shot``)."""
    target = client.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = client.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    client.send("Page.enable", session=session)
    client.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    client.send("Emulation.setScrollbarsHidden", {"hidden": True}, session=session)
    client.send("Page.navigate", {"url": url}, session=session)
    client.wait_for("Page.loadEventFired")
    result = client.send(
        "Runtime.evaluate", {"expression": FIT, "returnByValue": True}, session=session
    )
    values: dict[str, Any] = result["result"]["value"]
    if shot is not None:
        png = client.send(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True},
            session=session,
        )["data"]
        shot.write_bytes(base64.b64decode(png))
    client.send("Target.closeTarget", {"targetId": target})
    client.events.clear()
    return values


def overflows(values: dict[str, Any]) -> list[str]:
    """Every way the measured page does not fit, as readable lines (none: it fits)."""
    bad = [f"page scrolls sideways by {values['page']} px"] if values["page"] > 0 else []
    bad += [f"table #{t['id']} overflows by {t['over']} px" for t in values["tables"] if t["over"]]
    for chart in values["charts"]:
        if chart["over"]:
            bad.append(f"chart #{chart['id']} overflows by {chart['over']} px")
        if chart["cut"] > 0:
            bad.append(f"chart #{chart['id']} cuts {chart['text']!r} by {chart['cut']} px")
    bad += [f"slug {s!r} wraps" for s in values["slugs"]]
    return bad


def png_facts(path: Path) -> tuple[int, int, int]:
    """(width, height, distinct bytes of its pixel rows) of a PNG file."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


@pytest.mark.parametrize("width", WIDTHS)
def test_report_fits(
    devtools: DevTools,  # noqa: F811
    report_files: tuple[Path, dict[str, Any]],  # noqa: F811
    tmp_path: Path,
    width: int,
) -> None:
    shot = tmp_path / f"report-{width}.png"
    values = measure(devtools, report_files[0].as_uri(), width, shot)
    assert values["width"] == width
    assert overflows(values) == []
    assert len(values["tables"]) >= 6
    assert len(values["charts"]) >= 5
    assert values["slugs"] == []
    got_width, height, distinct = png_facts(shot)
    assert got_width == width
    assert height > 900  # the whole page, longer than one screen
    assert distinct > 20  # text and charts, not a blank page


def test_harness_sees_overflow(devtools: DevTools, tmp_path: Path) -> None:  # noqa: F811
    """The measures can fail: a wide table, a chart cutting its label, a wrapped slug."""
    page = tmp_path / "wide.html"
    page.write_text(
        "<!DOCTYPE html><html><body><main><section>"
        '<table id="wide"><tr><td style="white-space:nowrap">' + "x" * 400 + "</td></tr></table>"
        '<svg class="chart" id="cut" width="100" height="40" viewBox="0 0 100 40">'
        '<text x="-30" y="20">a clipped label</text></svg>'
        '<p style="width:60px"><span class="slug">some-long-rule-slug</span></p>'
        "</section></main></body></html>"
    )
    values = measure(devtools, page.as_uri(), 390)
    problems = "\n".join(overflows(values))
    assert "page scrolls sideways" in problems
    assert "table #wide overflows" in problems
    assert "chart #cut cuts 'a clipped label'" in problems
    assert "slug 'some-long-rule-slug' wraps" in problems
