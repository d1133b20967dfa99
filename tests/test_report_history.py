"""``sapper report`` answering "what breaks, for whom" and "what did 78.0.1 do": downloads
that build the sdist, the historical view (--as-of, the 'then' columns, the incident), and
requires-newer findings kept out of the what-if table even in stores that predate it.

The stores are built like those of test_report.py (real ``check_files`` results on small
fixture projects); expected numbers are recomputed here in plain Python.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_report import (
    CLEAN,
    DASHED_CFG,
    INTERPOLATION,
    Built,
    Sample,
    build_rows,
    write_duckdb,
)

from sapper.cli import main
from sapper.report import open_store, summarize
from sapper.report.json import report_dict
from sapper.report.summary import EXPOSURE_WEIGHT

LICENSE_STRING = {"pyproject.toml": '[project]\nname = "x"\nversion = "1"\nlicense = "MIT"\n'}

#: Three projects as a --versions newest-per-year scan would store them.
HISTORY = (
    # dashed: its 2024 release was current on 2025-03-24 and broke; 2025-06 fixed it
    Sample("dashed", "1.0", "2024-05-01", 1_000_000, False, False, DASHED_CFG),
    Sample("dashed", "1.1", "2025-06-01", 1_000_000, False, False, CLEAN),
    # purewheel: broken too, but it ships a pure wheel: no install builds its sdist
    Sample("purewheel", "2.0", "2023-01-01", 4_000_000, True, True, DASHED_CFG),
    Sample("purewheel", "2.1", "2025-09-01", 4_000_000, True, True, CLEAN),
    # interp: fails with every setuptools: not broken *by* 78.0.1
    Sample("interp", "0.1", "2022-02-02", 500_000, True, False, INTERPOLATION),
    # newcomer: first release after the incident
    Sample("newcomer", "1.0", "2025-12-01", 7_000, False, False, DASHED_CFG),
    # licensed: a PEP 639 string, fails only before 77: not a time bomb
    Sample("licensed", "3.0", "2025-10-10", 20_000, False, False, LICENSE_STRING),
)
RULES = ("PP002", "SC001", "SC002", "SC006")


@pytest.fixture(scope="module")
def built() -> Built:
    return build_rows(HISTORY, select=RULES)


@pytest.fixture(scope="module")
def db(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_duckdb(tmp_path_factory.mktemp("history") / "scan.duckdb", built)


def _report(db: Path, **kw: Any) -> dict[str, Any]:
    store = open_store(db)
    try:
        return report_dict(summarize(store, **kw))
    finally:
        store.close()


def test_incident_charges_the_release_current_that_day(db: Path) -> None:
    """The newest releases all build 78.0.1, yet the incident is not '0 downloads'."""
    inc = _report(db)["incident"]
    assert (inc["setuptools"], inc["date"]) == ("78.0.1", "2025-03-24")
    # current that day: dashed 1.0, purewheel 2.0, interp 0.1
    assert inc["current"]["projects"] == 3
    assert inc["current"]["downloads"] == 5_500_000
    # newly broken: dashed and purewheel (interp fails on every version)
    assert inc["fails"]["projects"] == 2
    assert inc["fails"]["downloads"] == 5_000_000
    assert inc["downloads_share"] == round(5_000_000 / 5_500_000, 4)
    # only dashed's installs build the sdist: purewheel ships a pure wheel
    assert inc["fails"]["sdist_downloads"] == 1_000_000
    assert [x["project"] for x in inc["examples"]] == ["purewheel", "dashed"]
    assert [x["version"] for x in inc["examples"]] == ["2.0", "1.0"]
    assert inc["without_release"] == 2  # newcomer, licensed
    # every scanned sdist failing on 78.0.1: dashed 1.0, purewheel 2.0, interp, newcomer
    assert inc["sdists_failing"] == 4


def test_newest_view_has_no_78_failures_but_then_column_does(db: Path) -> None:
    row = next(v for v in _report(db)["versions"] if v["version"] == "78.0.1")
    assert row["fails"]["projects"] == 2  # today's newest: interp and newcomer
    assert row["then"]["fails"]["projects"] == 3  # dashed, purewheel, interp as of that day
    assert row["then"]["current"]["projects"] == 3


def test_as_of_counts_projects_by_the_release_current_then(db: Path) -> None:
    now = _report(db)
    then = _report(db, as_of="2025-03-24")
    assert now["totals"]["projects"] == 5
    assert then["totals"]["projects"] == 3
    assert then["as_of"] == "2025-03-24"
    sc001 = next(r for r in then["rules"] if r["code"] == "SC001" and r["status"] is None)
    assert sc001["count"]["projects"] == 2
    assert sc001["count"]["downloads"] == 5_000_000
    assert sc001["count"]["sdist_downloads"] == 1_000_000
    # the sdists table is not filtered: every scanned sdist still counts
    assert then["totals"]["sdists"] == now["totals"]["sdists"] == len(HISTORY)


def test_sdist_downloads_follow_the_wheels(db: Path) -> None:
    doc = _report(db)
    got = doc["totals"]["sdist_downloads"]
    # newest: dashed 1.1 (no wheel), purewheel 2.1 (pure), interp (platform), newcomer
    # (no wheel), licensed (no wheel)
    expected = (
        1_000_000 * EXPOSURE_WEIGHT["no wheel"]
        + 500_000 * EXPOSURE_WEIGHT["platform wheels only"]
        + 7_000 * EXPOSURE_WEIGHT["no wheel"]
        + 20_000 * EXPOSURE_WEIGHT["no wheel"]
    )
    assert got == int(expected)


def test_at_risk_ranked_by_downloads_that_build_the_sdist(db: Path) -> None:
    projects = _report(db)["at_risk"]["projects"]
    assert [p["project"] for p in projects] == ["interp", "newcomer"]
    assert projects[0]["score"] == 500_000 * EXPOSURE_WEIGHT["platform wheels only"]


def test_requires_newer_is_not_a_pending_deprecation(db: Path, built: Built) -> None:
    doc = _report(db)
    assert {f["status"] for f in built.findings if f["code"] == "PP002"} == {"requires-newer"}
    assert ("PP002", "requires-newer") in {(r["code"], r["status"]) for r in doc["rules"]}
    assert all(w["code"] != "PP002" for w in doc["what_if"])


def test_store_written_before_requires_newer_is_reclassified(built: Built, tmp_path: Path) -> None:
    """A store scanned by an older sapper says 'deprecated' for PP002; the report still keeps
    it out of the what-if table."""
    old = Built(
        sdists=built.sdists,
        findings=[
            {**f, "status": "deprecated" if f["status"] == "requires-newer" else f["status"]}
            for f in built.findings
        ],
    )
    doc = _report(write_duckdb(tmp_path / "old.duckdb", old))
    assert ("PP002", "requires-newer") in {(r["code"], r["status"]) for r in doc["rules"]}
    assert ("PP002", "deprecated") not in {(r["code"], r["status"]) for r in doc["rules"]}
    assert all(w["code"] != "PP002" for w in doc["what_if"])


def test_backend_enforced_is_stated(db: Path) -> None:
    text = _report(db)["backend_enforced"]
    assert "build_wheel" in text and "2025-10-31" in text


def test_cli_as_of_and_bad_date(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    assert main(["report", str(db), "--no-html", "--as-of", "2025-03-24"]) == 0
    out = capsys.readouterr().out
    assert "by its release current on 2025-03-24" in out
    assert "setuptools 78.0.1 as it happened (2025-03-24)" in out
    assert "2 of 3 projects with a release current that day were newly broken" in out
    with pytest.raises(SystemExit) as exc:
        main(["report", str(db), "--as-of", "24/03/2025"])
    assert exc.value.code == 2
    assert "invalid date '24/03/2025'" in capsys.readouterr().err
