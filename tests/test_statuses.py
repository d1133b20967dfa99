"""The three notions a finding's status keeps apart: removed, overdue/pending deprecation,
and requires-newer (a forward constraint: fails only in releases older than the one
evaluated)."""

from __future__ import annotations

import pytest
from helpers import check

from sapper.check import status_at
from sapper.model import Finding

NAME = '[project]\nname = "p"\nversion = "1"\n'
CFG_DASH = "[metadata]\nname = p\nversion = 1\ndescription-file = README\n"


def _f(
    fails: tuple[str, ...], enforced: tuple[str, ...] = (), warns: tuple[str, ...] = ()
) -> Finding:
    return Finding(
        code="X001",
        slug="x",
        message="m",
        path="setup.cfg",
        fails=fails,
        fails_enforced=enforced or fails,
        warns=warns,
    )


@pytest.mark.parametrize(
    ("finding", "version", "status"),
    [
        (_f(("==78.0.1",), (">=78.0.1",)), "78.0.1", "removed"),
        (_f(("==78.0.1",), ("==78.0.1", ">=80.0.0")), "84.2.1", "overdue"),
        # fails in a newer release than the one evaluated: still a pending break for it
        (_f(("==78.0.1",)), "77.0.3", "deprecated"),
        # warns in the evaluated release (no failure anywhere yet): pending
        (_f((), (), (">=70.0.0",)), "84.2.1", "deprecated"),
        # fails only before 77.0.1 and never warns after: a forward constraint
        (_f(("<77.0.1",)), "84.2.1", "requires-newer"),
        (_f(("<64.0.0",), ("<64.0.0",), ("<60.0.0",)), "77.0.3", "requires-newer"),
        # fails in 78.0.1 only, evaluated later, but still warns there: pending, not forward
        (_f(("==78.0.1",), ("==78.0.1",), (">=78.0.2",)), "84.2.1", "deprecated"),
        (_f(()), "84.2.1", "deprecated"),
    ],
)
def test_status_at(finding: Finding, version: str, status: str) -> None:
    assert status_at(finding, version) == status


def test_pep639_license_string_requires_newer_setuptools() -> None:
    """A PEP 639 license string is rejected before 77: no time bomb at the newest release."""
    result = check({"pyproject.toml": NAME + 'license = "MIT"\n'})
    statuses = {f.code: f.status for f in result.findings}
    assert statuses["PP002"] == "requires-newer"
    assert result.verdict is not None and result.verdict.outcome == "builds"


def test_pep639_license_string_pinned_old_setuptools_is_removed() -> None:
    result = check({"pyproject.toml": NAME + 'license = "MIT"\n'}, setuptools="76.1.0")
    assert {f.code: f.status for f in result.findings}["PP002"] == "removed"


def test_dash_key_stays_overdue_at_newest() -> None:
    result = check({"setup.cfg": CFG_DASH})
    assert {f.code: f.status for f in result.findings}["SC001"] == "overdue"
