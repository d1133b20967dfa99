"""The canary report from stored rows: grouping, weighting, warnings, triage (no builds)."""

from __future__ import annotations

import datetime as _dt

from sapper.canary import SideResult, TargetRow
from sapper.report.canary import render_html, render_text, summarize

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
