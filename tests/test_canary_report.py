"""The canary report from stored rows: grouping, weighting, warnings, triage (no builds)."""

from __future__ import annotations

import datetime as _dt
from html.parser import HTMLParser

import pytest

from sapper.canary import SideResult, TargetRow
from sapper.report._page import CSS
from sapper.report.canary import (
    page_html,
    render_html,
    render_text,
    summarize,
    warning_key,
    warning_text,
)

DASH = "InvalidConfigError: Invalid dash-separated key '<name>' in '<name>'"
WARN = {
    "category": "setuptools.warnings.SetuptoolsDeprecationWarning",
    "summary": "Invalid dash-separated key 'home-page' in 'metadata' (setup.cfg)",
    "due_date": "2026-03-03",
    "url": "https://github.com/pypa/setuptools/discussions/5011",
}


def side(outcome, *, signature=None, static="builds", codes=(), warnings=(), reason=None):
    return SideResult(
        backend="setuptools==X",
        outcome=outcome,
        signature=signature,
        static=static,
        static_codes=codes,
        warnings=warnings,
        spurious_reason=reason,
        error_type="setuptools.errors.InvalidConfigError" if signature else None,
        message="Invalid dash-separated key 'home-page'" if signature else None,
        log_tail="line 1\nraise InvalidConfigError(" if signature else "",
    )


def row(name, cls, baseline, candidate, downloads=None):
    return TargetRow(
        key=name,
        target=f"{name}==1.0",
        project=name,
        version="1.0",
        cls=cls,
        baseline=baseline,
        candidate=candidate,
        downloads=downloads,
    )


ROWS = [
    # two dash-key regressions: one root cause, weighted by downloads; static predicted one
    row(
        "a",
        "regressed",
        side("ok", warnings=(WARN,)),
        side("fail", signature=DASH, static="fails", codes=("SC001",)),
        downloads=1000,
    ),
    row(
        "b",
        "regressed",
        side("ok", warnings=(WARN, WARN)),
        side("fail", signature=DASH, static="builds"),
        downloads=10,
    ),
    # another cause
    row("c", "regressed", side("ok"), side("fail", signature="ModuleNotFoundError: x")),
    # static says the candidate fails, the build is fine: a false alarm
    row("d", "pass", side("ok"), side("ok", static="fails", codes=("SC002",))),
    row("e", "spurious", side("ok"), side("spurious", reason="timeout")),
    row("f", "prepare-fail", side("prepare-fail"), side("ok")),
]


def test_summary():
    report = summarize(
        ROWS,
        {"run_id": "abc", "baseline": "77.0.3", "candidate": "78.0.1", "mode": "metadata"},
        today=_dt.date(2026, 12, 3),
    )
    assert report["schema"] == "sapper.canary-report/1"
    assert report["classes"]["regressed"] == {"count": 3, "downloads": 1010}
    first, second = report["root_causes"]
    assert (first["signature"], first["count"], first["downloads"]) == (DASH, 2, 1010)
    assert first["projects"] == ["a==1.0", "b==1.0"]  # most downloaded first
    assert second["projects"] == ["c==1.0"]
    (warning,) = report["warnings"]
    assert warning["baseline"] == {"sdists": 2, "downloads": 1010}  # b counted once
    assert warning["candidate"] == {"sdists": 0, "downloads": 0}
    assert warning["overdue"] is True
    triage = report["triage"]
    assert [t["target"] for t in triage["confirmed"]] == ["a==1.0"]
    assert [t["target"] for t in triage["unexplained"]] == ["b==1.0", "c==1.0"]
    assert [t["target"] for t in triage["false_alarm"]] == ["d==1.0"]
    assert report["retry"] == ["e==1.0", "f==1.0"]
    assert report["retry_reasons"] == {"prepare-fail": 1, "timeout": 1}


def test_not_yet_due_is_not_overdue():
    report = summarize(ROWS[:1], {"run_id": "x"}, today=_dt.date(2026, 1, 1))
    assert report["warnings"][0]["overdue"] is False


def test_renderings_escape_and_show_the_sections():
    nasty = row("<script>", "regressed", side("ok"), side("fail", signature="E: <b>'<name>'</b>"))
    report = summarize(
        [*ROWS, nasty],
        {"run_id": "abc", "baseline": "77.0.3", "candidate": "78.0.1", "mode": "metadata"},
    )
    text = render_text(report)
    for heading in (
        "classes",
        "root causes of the regressions (3):",
        "warnings the backend",
        "static vs real: 1 confirmed, 3 unexplained, 1 false alarms",
        "retry list",
    ):
        assert heading in text
    page = render_html(report)
    assert "<script>" not in page
    assert "&lt;script&gt;" in page


def test_permanent_prepare_fails_are_not_retried():
    wheel_only = TargetRow(
        key="req:torch",
        target="torch",
        project=None,
        version=None,
        cls="prepare-fail",
        error="torch: no matching release has an sdist on https://pypi.org/simple",
        permanent=True,
    )
    report = summarize([*ROWS, wheel_only], {"run_id": "abc"}, today=_dt.date(2026, 12, 3))
    assert report["retry"] == ["e==1.0", "f==1.0"]
    assert report["retry_reasons"] == {"prepare-fail": 1, "timeout": 1}
    assert report["not_retried"] == [{"target": "torch", "reason": wheel_only.error}]
    text = render_text(report)
    assert "not retried (1 prepare-fail that no rerun changes" in text
    assert "  torch: no matching release has an sdist" in text
    assert "not retried" not in render_text(summarize(ROWS, {"run_id": "abc"}))


# --------------------------------------------------------------------------- warnings


@pytest.mark.parametrize(
    ("summary", "shown"),
    [
        (
            "File '/dev/shm/sapper-build-c7y0m0me/src/s3fs-2026.9.0/README.rst' cannot be found",
            "File 'README.rst' cannot be found",
        ),
        (
            "unclosed file <_io.BufferedReader name='/tmp/sapper-build-x_1/src/a-b-1.0/x/y.txt'>",
            "unclosed file <_io.BufferedReader name='x/y.txt'>",
        ),
        ("/tmp/tmpab12cd/pkg-1.0/setup.py:3:1: bad thing", "setup.py: bad thing"),
        ("in setup.cfg, line 12: odd", "in setup.cfg: odd"),
        ("License classifiers are deprecated.", "License classifiers are deprecated."),
    ],
)
def test_warning_text_drops_the_build_directory_and_line_numbers(summary, shown):
    assert warning_text(summary) == shown


#: Pairs of summaries that are one warning, and pairs that are two.
SAME = [
    (
        "'tool.setuptools.license-files' is deprecated in favor of 'project.license-files'",
        "'tool.setuptools.license-files' is deprecated in favor of 'project.license-files' "
        "(available on setuptools>=77.0.0).",
    ),
    ("License classifiers are deprecated.", "License classifiers are deprecated"),
    (
        "File '/dev/shm/sapper-build-aaaa1111/src/x-1.0/README.rst' cannot be found",
        "File '/dev/shm/sapper-build-bbbb2222/src/x-1.0/README.rst' cannot be found",
    ),
    ("setup.py:12: use of X", "setup.py:40: use of X"),
]
DIFFERENT = [
    (
        "`install_requires` overwritten in `pyproject.toml` (dependencies)",
        "`extras_require` overwritten in `pyproject.toml` (optional-dependencies)",
    ),
    ("bdist_wheel.universal is deprecated", "License classifiers are deprecated."),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_one_warning_one_key(a, b):
    assert warning_key(a) == warning_key(b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_two_warnings_two_keys(a, b):
    assert warning_key(a) != warning_key(b)


def _warned(category: str, summary: str) -> dict[str, str]:
    return {"category": category, "summary": summary, "due_date": None, "url": None}


def test_one_deprecation_is_one_row_whatever_its_wording_and_class():
    """A release that appends "(available on setuptools>=77.0.0)." to a deprecation, or
    raises it as FutureWarning instead of DeprecationWarning, does not split it."""
    plain = _warned("setuptools.warnings.SetuptoolsDeprecationWarning", SAME[0][0])
    longer = _warned("setuptools.warnings.SetuptoolsDeprecationWarning", SAME[0][1])
    deprecation = _warned("builtins.DeprecationWarning", "The 'wheel' package is old")
    future = _warned("builtins.FutureWarning", "The 'wheel' package is old.")
    path = _warned("setuptools.warnings.SetuptoolsWarning", SAME[2][0])
    rows = [
        row("a", "pass", side("ok", warnings=(plain, deprecation)), side("ok", warnings=(longer,))),
        row("b", "pass", side("ok", warnings=(future, path)), side("ok", warnings=(longer,))),
    ]
    warnings = {w["key"]: w for w in summarize(rows, {"run_id": "x"})["warnings"]}
    assert len(warnings) == 3
    license_files = warnings[warning_key(SAME[0][0])]
    assert (license_files["baseline"]["sdists"], license_files["candidate"]["sdists"]) == (1, 2)
    wheel = warnings[warning_key("The 'wheel' package is old")]
    assert wheel["categories"] == ["DeprecationWarning", "FutureWarning"]
    assert wheel["baseline"]["sdists"] == 2
    assert warnings[warning_key(SAME[2][0])]["summary"] == "File 'README.rst' cannot be found"


# --------------------------------------------------------------------------- the page


class _Outline(HTMLParser):
    """The sections, navigation links and tables of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.links: list[str] = []
        self.tables: list[str] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id") or "")
        elif tag == "a" and (a.get("href") or "").startswith("#"):
            self.links.append((a.get("href") or "")[1:])
        elif tag == "table":
            self.tables.append(a.get("id") or "")
        self._in_style = tag == "style"

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False


def outline(page: str) -> _Outline:
    parser = _Outline()
    parser.feed(page)
    return parser


RUN = {"run_id": "abc", "baseline": "77.0.3", "candidate": "78.0.1", "mode": "metadata"}


def test_page_has_the_report_style_and_each_section_with_something_to_show():
    full = outline(page_html(summarize(ROWS, RUN, today=_dt.date(2026, 12, 3))))
    assert full.sections == ["classes", "root-causes", "warnings", "static", "retry"]
    assert full.links == full.sections  # the navigation names exactly those
    assert full.tables == ["t-classes", "t-warnings", "t-static"]
    assert full.style == CSS  # the stylesheet of sapper report's page, one source
    assert CSS in report_page_style()
    # a run where everything passed, without warnings: only its classes
    quiet = outline(page_html(summarize([row("q", "pass", side("ok"), side("ok"))], RUN)))
    assert quiet.sections == quiet.links == ["classes"]
    assert quiet.tables == ["t-classes"]


def report_page_style() -> str:
    import tempfile
    from pathlib import Path

    from test_report import build_rows, write_duckdb

    from sapper.report import open_store
    from sapper.report import summarize as report_summary
    from sapper.report.html import render_html as report_html

    with tempfile.TemporaryDirectory() as tmp:
        db = write_duckdb(Path(tmp) / "s.duckdb", build_rows())
        store = open_store(db)
        try:
            return outline(report_html(report_summary(store))).style
        finally:
            store.con.close()


def test_page_tables_label_each_cell_for_the_narrow_layout():
    page = page_html(summarize(ROWS, RUN, today=_dt.date(2026, 12, 3)))
    assert '<td data-label="class">' in page
    assert '<td data-label="downloads (30 d)" class="num">' in page
    assert '<td data-label="message" class="text">' in page
