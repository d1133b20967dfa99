"""Verdicts per PEP 517 stage under --enforce-deprecations, from data/backend.json."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from helpers import check

from sapper.render.json import render_json
from sapper.render.text import Style, render_text
from sapper.stages import backend_failure

CLEAN = {"setup.cfg": "[metadata]\nname = p\nversion = 1\n"}
DASH = {"setup.cfg": "[metadata]\nname = p\nversion = 1\ndescription-file = README\n"}


@pytest.mark.parametrize(
    ("version", "today", "fails"),
    [
        ("84.2.1", dt.date(2026, 12, 3), True),
        ("80.1.0", dt.date(2026, 12, 3), True),
        ("80.0.1", dt.date(2026, 12, 3), False),  # no due date on the warning yet
        ("84.2.1", dt.date(2025, 10, 31), False),  # due that day: not yet overdue
        ("84.2.1", dt.date(2025, 11, 1), True),
    ],
)
def test_backend_fails_every_wheel_build(version: str, today: dt.date, fails: bool) -> None:
    got = backend_failure(version, "wheel", enforce=True, today=today)
    assert (got is not None) == fails
    assert backend_failure(version, "metadata", enforce=True, today=today) is None
    assert backend_failure(version, "wheel", enforce=False, today=today) is None


def test_clean_project_enforced_does_not_claim_it_builds() -> None:
    result = check(CLEAN, enforce_deprecations=True)
    v = result.verdict
    assert v is not None and v.outcome == "builds" and v.because == ()
    meta, wheel = v.stages
    assert (meta.name, meta.outcome, meta.backend) == ("metadata", "builds", None)
    assert (wheel.name, wheel.outcome) == ("wheel", "fails")
    assert wheel.backend is not None and "2025-10-31" in wheel.backend
    text = render_text([result], Style(color=False))
    assert "builds with setuptools" not in text
    assert "setuptools itself fails every build_wheel" in text
    assert "metadata stage (prepare_metadata_for_build_wheel): the project's own" in text
    assert "1 target (1 fails)" in text


def test_clean_project_not_enforced_builds_at_both_stages() -> None:
    v = check(CLEAN).verdict
    assert v is not None
    assert [(s.outcome, s.backend) for s in v.stages] == [("builds", None), ("builds", None)]


def test_own_practice_fails_both_stages_and_json_carries_stages() -> None:
    result = check(DASH, enforce_deprecations=True)
    doc = json.loads(render_json([result], newest="84.2.1"))
    assert doc["version"] == 2
    stages = doc["targets"][0]["verdict"]["stages"]
    assert [(s["name"], s["outcome"], s["because"]) for s in stages] == [
        ("metadata", "fails", ["SC001"]),
        ("wheel", "fails", ["SC001"]),
    ]
    assert stages[0]["backend"] is None and stages[1]["backend"]


def test_old_setuptools_enforced_builds() -> None:
    v = check(CLEAN, enforce_deprecations=True, setuptools="77.0.3").verdict
    assert v is not None
    assert [s.outcome for s in v.stages] == ["builds", "builds"]
    assert "setuptools itself" not in render_text(
        [check(CLEAN, enforce_deprecations=True, setuptools="77.0.3")], Style(color=False)
    )
