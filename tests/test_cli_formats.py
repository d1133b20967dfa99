"""``sapper check`` output conventions: SARIF (schema-validated), github, concise,
--statistics, --quiet."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import DATA

from sapper.cli import main
from sapper.render.github import escape_data, escape_property

SCHEMA = json.loads((DATA / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    (d / "setup.cfg").write_text(
        "[metadata]\nname = bad\nauthor-email = a@b.c\nhome-page = https://x\n"
        "[bdist_wheel]\nuniversal = 1\n"
    )
    return d


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    d = tmp_path / "clean"
    d.mkdir()
    (d / "setup.cfg").write_text("[metadata]\nname = ok\nversion = 1.0\n")
    return d


def test_sarif_validates_against_the_official_schema(capsys, project: Path, tmp_path) -> None:
    broken = tmp_path / "broken-1.0.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    code, out, _ = run(
        capsys, "check", str(project), str(broken), "--format", "sarif", "--setuptools", "78.0.1"
    )
    assert code == 3
    log = json.loads(out)
    jsonschema.validate(log, SCHEMA)
    run_ = log["runs"][0]
    ids = [r["ruleId"] for r in run_["results"]]
    assert ids.count("SC001") == 2
    assert "SC009" in ids
    rules = run_["tool"]["driver"]["rules"]
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("proj/setup.cfg")
        assert loc["region"]["startLine"] >= 3
    assert run_["invocations"][0]["executionSuccessful"] is False
    assert (
        "broken-1.0.tar.gz"
        in run_["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    )
    levels = {r["ruleId"]: r["level"] for r in run_["results"]}
    assert levels["SC001"] == "error"  # removed in 78.0.1
    assert levels["SC009"] == "warning"  # overdue: its due date (2025-08-30) has passed


def test_sarif_without_findings_is_valid(capsys, clean: Path) -> None:
    code, out, _ = run(capsys, "check", str(clean), "--format", "sarif")
    assert code == 0
    log = json.loads(out)
    jsonschema.validate(log, SCHEMA)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_github_annotations(capsys, project: Path) -> None:
    argv = ("check", str(project), "--format", "github", "--setuptools", "78.0.1")
    code, out, _ = run(capsys, *argv)
    assert code == 1
    lines = out.splitlines()
    assert lines
    first = lines[0]
    assert first.startswith(
        f"::error file={project}/setup.cfg,line=3,col=1,"
        "title=sapper SC001 setupcfg-dash-separated-key [removed]::dash-separated key"
    )
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("100%", "100%25", "100%25"),
        ("a\nb\r", "a%0Ab%0D", "a%0Ab%0D"),
        ("x: y, z", "x: y, z", "x%3A y%2C z"),
    ],
)
def test_github_escaping(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop


def test_concise(capsys, project: Path) -> None:
    code, out, _ = run(capsys, "check", str(project), "--format", "concise")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        f"{project}/setup.cfg:3:1: SC001 [overdue] dash-separated key `author-email` "
    )
    assert lines[-1] == f"Found {len(lines) - 1} findings."
    assert "verdict" not in out
    code, quiet, _ = run(capsys, "check", str(project), "--format", "concise", "-q")
    assert quiet.splitlines() == lines[:-1]


def test_statistics(capsys, project: Path) -> None:
    code, out, _ = run(capsys, "check", str(project), "--statistics", "--setuptools", "78.0.1")
    assert code == 1
    rows = [line.split() for line in out.splitlines()]
    assert rows[0][:3] == ["2", "SC001", "[*]"]
    assert {r[1] for r in rows} >= {"SC001", "SC009"}
    code, out, _ = run(
        capsys, "check", str(project), "--statistics", "--format", "json", "--setuptools", "78.0.1"
    )
    doc = json.loads(out)
    assert doc["version"] == 1
    assert doc["statistics"][0] == {
        "code": "SC001",
        "slug": doc["statistics"][0]["slug"],
        "count": 2,
        "fixable": True,
        "statuses": {"removed": 2},
    }
    assert run(capsys, "check", str(project), "--statistics", "--format", "sarif")[0] == 2


def test_quiet_text_shows_only_targets_with_findings(capsys, project: Path, clean: Path) -> None:
    code, out, _ = run(capsys, "check", str(clean), str(project), "-q", "--color", "never")
    assert code == 1
    assert str(clean) not in out
    assert f"{project}/setup.cfg:3:1: SC001" in out
    assert "targets" not in out  # no summary line
    code, out, _ = run(capsys, "check", str(clean), "-q")
    assert (code, out) == (0, "")


def test_sarif_locations(capsys, monkeypatch, tmp_path: Path) -> None:
    d = tmp_path / "my proj"
    d.mkdir()
    (d / "setup.cfg").write_text("[metadata]\nname = bad\nauthor-email = a@b.c\n")
    monkeypatch.chdir(tmp_path)
    log = json.loads(run(capsys, "check", "my proj", "--format", "sarif")[1])
    jsonschema.validate(log, SCHEMA)
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "my%20proj/setup.cfg", "uriBaseId": "%SRCROOT%"}
    log = json.loads(run(capsys, "check", str(d), "--format", "sarif")[1])
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (d / "setup.cfg").as_uri()}
