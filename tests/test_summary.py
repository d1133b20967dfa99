"""The version summary: one wording, made in one place, shown once by every renderer."""

from __future__ import annotations

import datetime as dt
import json
import pickle
import re

import pytest
from helpers import TODAY, check
from test_rules_meta import PROJECTS, RULES

from sapper.model import Finding, version_summary
from sapper.render.concise import render_concise
from sapper.render.github import render_github
from sapper.render.json import render_json
from sapper.render.sarif import render_sarif
from sapper.render.text import Style, render_text
from sapper.rules import Context
from sapper.versions import catalogue

ENF = "fails with SETUPTOOLS_ENFORCE_DEPRECATION=1 in"


@pytest.mark.parametrize(
    ("fails", "enforced", "warns", "due", "expected"),
    [
        ((), (), (), None, ""),
        ((">=72",), (">=72",), (), None, "fails in setuptools >=72"),
        # the whole catalogue (SP900, PP900, PP009): no range to read
        ((">=0",), (">=0",), (), None, "fails with every setuptools release"),
        (("<40", ">=82"), ("<40", ">=82"), (), None, "fails in setuptools <40 | >=82"),
        # a failure hides a warning range without a due date
        ((">=80",), (">=80",), ("<80,>=60",), None, "fails in setuptools >=80"),
        ((), (), (">=75.1",), None, "warns in setuptools >=75.1"),
        ((), (), (">=75.1",), "2027-01-01", "deprecation due 2027-01-01 in the newest release"),
        (
            (),
            (">=75.1",),
            (">=75.1",),
            "2025-08-30",
            f"{ENF} >=75.1; deprecation overdue since 2025-08-30 in the newest release",
        ),
        (
            ("==78.0.1",),
            ("==78.0.1", ">=67.7.0"),
            (">=67.7.0",),
            "2026-03-03",
            f"fails in setuptools ==78.0.1; {ENF} >=67.7.0; "
            "deprecation overdue since 2026-03-03 in the newest release",
        ),
        # the due date is compared with the check's date, not the clock
        ((), (), (">=1",), TODAY.isoformat(), f"deprecation due {TODAY} in the newest release"),
    ],
)
def test_version_summary(
    fails: tuple[str, ...],
    enforced: tuple[str, ...],
    warns: tuple[str, ...],
    due: str | None,
    expected: str,
) -> None:
    assert version_summary(fails, enforced, warns, due, today=TODAY.isoformat()) == expected


@pytest.mark.parametrize(
    ("message", "summary", "text"),
    [
        ("prose", "", "prose"),
        ("prose", "fails in setuptools >=72", "prose (fails in setuptools >=72)"),
    ],
)
def test_text_is_message_then_summary(message: str, summary: str, text: str) -> None:
    f = Finding(code="X", slug="x", message=message, path="p", summary=summary)
    assert f.text == text
    assert pickle.loads(pickle.dumps(f)) == f


_SUMMARY_WORDS = re.compile(
    r"fails in setuptools|SETUPTOOLS_ENFORCE_DEPRECATION=1 in|overdue since|deprecation due"
    r"|warns in setuptools"
)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rules_write_prose_and_the_summary_comes_from_the_data(rule) -> None:
    """No rule writes a version summary of its own into ``message``; ``summary`` is exactly
    what :func:`version_summary` makes of the finding's own fields."""
    cat = catalogue()
    seen = 0
    for files in PROJECTS:
        ctx = Context(files=files, catalogue=cat, today=dt.date(2026, 12, 3))
        for f in rule.check(ctx):
            seen += 1
            assert not _SUMMARY_WORDS.search(f.message), f.message
            assert f.summary == version_summary(
                f.fails, f.fails_enforced, f.warns, f.due_date, today="2026-12-03"
            )
            assert f.summary, f"{f.code} finding with no versions: {f.message}"
    assert seen


def test_every_renderer_shows_the_summary_once() -> None:
    result = check(
        {
            "setup.cfg": "[metadata]\nname = demo\ndescription-file = README.rst\n",
            "setup.py": "from setuptools import setup\nsetup(use_2to3=True)\n",
        }
    )
    assert {f.code for f in result.findings} >= {"SC001", "SP002"}
    outputs = {
        "text": render_text([result], Style(color=False)),
        "concise": render_concise([result]),
        "github": render_github([result]),
        "sarif": render_sarif([result]),
        "json": render_json([result], newest=catalogue().newest),
    }
    for f in result.findings:
        for name, out in outputs.items():
            shown = json.dumps(f.text)[1:-1] if name in {"json", "sarif"} else f.text
            if name == "github":
                shown = shown.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            assert out.count(shown) == 1, (name, f.text)
    doc = json.loads(outputs["json"])
    by_code = {d["code"]: d for d in doc["targets"][0]["findings"]}
    sc = next(f for f in result.findings if f.code == "SC001")
    assert by_code["SC001"]["summary"] == sc.summary
    assert by_code["SC001"]["message"] == f"{sc.message} ({sc.summary})"
