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
from test_report import CLEAN, DASHED_CFG, USE_2TO3, Sample, build_rows, write_duckdb
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


def measure(
    client: DevTools, url: str, width: int, shot: Path | None = None, expression: str = FIT
) -> dict[str, Any]:
    """Load ``url`` at ``width`` CSS pixels (no scroll bar) and return what ``expression``
    gives (:data:`FIT`'s measures), and write a full-page screenshot to ``shot``."""
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
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
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


# --------------------------------------------------------------------------- the canary page


@pytest.fixture(scope="module")
def canary_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sapper report --canary``'s page of a store holding test_canary_report's rows, with
    a long warning and a long failure signature."""
    import contextlib
    import io

    from test_canary_report import ROWS

    from sapper.canary import CanaryStore, parse_backend
    from sapper.cli import main

    root = tmp_path_factory.mktemp("canary-fit")
    db = root / "store.duckdb"
    with CanaryStore(db) as store:
        base, cand = parse_backend("77.0.3"), parse_backend("78.0.1")
        run_id = store.open_run(base, cand, "metadata", False, corpus='{"sources":[]}')
        store.write(run_id, ROWS)
    page = root / "canary.html"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["report", str(db), "--canary", "--html", str(page)]) == 0
    return page


@pytest.mark.parametrize("width", WIDTHS)
def test_canary_page_fits(
    devtools: DevTools,  # noqa: F811
    canary_page: Path,
    tmp_path: Path,
    width: int,
) -> None:
    shot = tmp_path / f"canary-{width}.png"
    values = measure(devtools, canary_page.as_uri(), width, shot)
    assert overflows(values) == []
    assert {t["id"] for t in values["tables"]} == {"t-classes", "t-warnings", "t-static"}
    got_width, _, distinct = png_facts(shot)
    assert got_width == width
    assert distinct > 20


# --------------------------------------------------------------------------- 78.0.1


#: A corpus where 78.0.1 breaks one sdist in 62 (1.6%), beside a removal that broke 20.
INCIDENT_SAMPLES = (
    Sample("dashed", "1.0", "2024-01-01", 1_000, False, False, DASHED_CFG),
    *(Sample(f"old{i}", "1.0", "2014-01-01", 1_000, False, False, USE_2TO3) for i in range(20)),
    *(Sample(f"clean{i}", "1.0", "2024-01-01", 1_000, True, True, CLEAN) for i in range(41)),
)

#: The height of each bar of the versions' change panel, by its tooltip.
BARS = """
(() => Object.fromEntries(Array.from(
  document.querySelectorAll("#chart-versions-change rect > title"),
  (t) => [t.textContent, t.parentElement.getBoundingClientRect().height])))()
"""


@pytest.mark.parametrize(("width", "least"), [(1400, 10.0), (390, 5.0)])
def test_a_small_incident_shows_on_the_versions_chart(
    devtools: DevTools,  # noqa: F811
    tmp_path: Path,
    width: int,
    least: float,
) -> None:
    import contextlib
    import io

    from sapper.cli import main

    db = write_duckdb(tmp_path / "scan.duckdb", build_rows(INCIDENT_SAMPLES))
    page = tmp_path / "report.html"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["report", str(db), "--html", str(page)]) == 0
    assert overflows(measure(devtools, page.as_uri(), width)) == []
    bars = measure(devtools, page.as_uri(), width, expression=BARS)
    assert bars["setuptools 78.0.1: 1 newly failing"] >= least
    assert bars["setuptools 78.1.1: 1 newly building"] >= least
    # the removal that broke twenty is taller, but not twenty times: a log scale
    (removal,) = [h for t, h in bars.items() if t.endswith(": 20 newly failing")]
    assert 0.2 * removal <= bars["setuptools 78.0.1: 1 newly failing"] < removal


def main(pages: list[str]) -> int:
    """``python tests/test_report_fit.py PAGE.html...``: print every overflow of each page
    at each width (how the figures of the fix were measured, on any page)."""
    import tempfile

    from test_report_browser import CHROMIUM

    if CHROMIUM is None:
        print("chromium is not installed")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        client = DevTools(CHROMIUM, Path(tmp) / "profile")
        try:
            for page in pages:
                for width in WIDTHS:
                    values = measure(client, Path(page).resolve().as_uri(), width)
                    bad = overflows(values)
                    print(f"{page} at {width} px: {len(bad)} problems")
                    for line in bad:
                        print(f"    {line}")
        finally:
            client.close()
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
