"""The report's SVG charts keep their text inside: label and value columns as wide as
their text, legends wrapped; the change panel's logarithmic scale.

Widths here are sapper's own estimate (:func:`sapper.report.svg.text_width`); the browser
test (test_report_fit.py) measures the rendered text.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from sapper.report.svg import Series, changes, columns, hbars, lines, text_width

NS = {"s": "http://www.w3.org/2000/svg"}
LONG = "SC009 setupcfg-bdist-wheel-universal-and-more-words"


def parse(svg: str) -> tuple[ET.Element, float, float]:
    root = ET.fromstring(svg)
    _, _, width, height = map(float, root.attrib["viewBox"].split())
    return root, width, height


def text_boxes(root: ET.Element) -> list[tuple[str, float, float]]:
    """(text, left, right) of every unrotated text, by its anchor and estimated width."""
    out = []
    for t in root.iter("{http://www.w3.org/2000/svg}text"):
        if "x" not in t.attrib:
            continue
        x, w = float(t.attrib["x"]), text_width(t.text or "")
        anchor = t.attrib.get("text-anchor", "start")
        left = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
        out.append((t.text or "", left, left + w))
    return out


def test_hbars_labels_are_whole_and_inside() -> None:
    svg = hbars(
        ident="c",
        title="t",
        desc="d",
        labels=["PP001 short", LONG],
        series=[Series(name="deprecated", css="s-deprecated", values=(5.0, 123456789.0))],
        scale=123456789.0,
        fmt=lambda v: f"{v:,.0f}",
    )
    root, width, _ = parse(svg)
    boxes = text_boxes(root)
    assert LONG in [t for t, _, _ in boxes]  # not cut to a prefix
    for text, left, right in boxes:
        assert left >= 0, text
        assert right <= width, text


@pytest.mark.parametrize("chart", ["hbars", "columns", "lines"])
def test_legends_wrap_inside_the_chart(chart: str) -> None:
    series = [
        Series(name=f"a rather long series name {i}", css=f"s-{i}", values=(1.0, 2.0))
        for i in range(6)
    ]
    common = {"ident": "c", "title": "t", "desc": "d", "labels": ["a", "b"], "series": series}
    if chart == "hbars":
        svg = hbars(**common, scale=2.0, fmt=str)
    elif chart == "columns":
        svg = columns(**common, fmt=str)
    else:
        svg = lines(**common, fmt=str)
    root, width, _ = parse(svg)
    legend = root.find("s:g[@class='legend']", NS)
    assert legend is not None
    rows = {t.attrib["y"] for t in legend.iter("{http://www.w3.org/2000/svg}text")}
    assert len(rows) > 1  # wrapped
    for text, left, right in text_boxes(legend):
        assert left >= 0
        assert right <= width, text
    # the plot starts below the legend's last row
    last = max(float(y) for y in rows)
    shapes = [
        float(r.attrib["y"])
        for r in root.iter("{http://www.w3.org/2000/svg}rect")
        if r not in list(legend)
    ]
    assert all(y > last for y in shapes)


def test_changes_scale_is_logarithmic_and_both_ways() -> None:
    svg = changes(
        ident="c",
        title="t",
        desc="d",
        labels=["58.0.0", "77.0.3", "78.0.1", "78.1.1"],
        up=Series(name="newly failing", css="s-fails", values=(200.0, 0.0, 1.0, 0.0)),
        down=Series(name="newly building", css="s-builds", values=(0.0, 0.0, 0.0, 1.0)),
        marks=("78.0.1",),
    )
    root, _, _ = parse(svg)
    bars = {
        r.find("s:title", NS).text: (float(r.attrib["y"]), float(r.attrib["height"]))  # type: ignore[union-attr]
        for r in root.iter("{http://www.w3.org/2000/svg}rect")
        if r.find("s:title", NS) is not None
    }
    big = bars["setuptools 58.0.0: 200 newly failing"]
    small = bars["setuptools 78.0.1: 1 newly failing"]
    back = bars["setuptools 78.1.1: 1 newly building"]
    assert small[1] / big[1] == pytest.approx(math.log10(2) / math.log10(201), rel=0.01)
    assert back[1] == small[1]
    assert small[0] + small[1] == pytest.approx(back[0])  # up from the zero line, and down
    bold = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("font-weight")]
    assert bold == ["78.0.1"]
