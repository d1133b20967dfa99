"""Verdicts, constraint plans and emitted files, offline against a --find-links directory.

The setuptools facts are sapper's own (data/setuptools.json); the real-installer proof that
the emitted files work is in test_audit_real.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sapper.audit import audit, report_json
from sapper.audit.emit import emit, plan_constraints
from sapper.cli import main
from tests.audit_fixtures import make_sdist, needs_new_sdist, pkg_resources_sdist

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@pytest.fixture
def links(tmp_path: Path) -> Path:
    d = tmp_path / "links"
    d.mkdir()
    pkg_resources_sdist(d)
    needs_new_sdist(d)
    make_sdist(d, "plain", "1.0", {"setup.py": "from setuptools import setup\nsetup()\n"})
    make_sdist(
        d,
        "flitpkg",
        "1.0",
        {
            "pyproject.toml": "[build-system]\nrequires = ['flit_core']\n"
            "build-backend = 'flit_core.buildapi'\n"
        },
    )
    return d


def _req(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "requirements.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_pkg_resources_sdist_verdict(tmp_path: Path, links: Path) -> None:
    report = audit(_req(tmp_path, "bomb==1.0"), no_index=True, find_links=[str(links)])
    (bomb,) = report.packages
    assert bomb.source == "sdist"
    v = bomb.verdict
    assert v is not None
    assert v.outcome == "fails"
    assert v.today == "84.2.1"
    assert v.because == ("SP001",)
    assert v.newest_good == "81.0.0"
    assert v.constraint == "setuptools<82.0.0"
    assert v.good and all("82" not in g.split(",")[0] for g in v.good if g.startswith(">="))
    plan = plan_constraints(report)
    assert (plan.constraint, plan.conflict, plan.fixed) == (
        "setuptools<82.0.0",
        False,
        ("bomb==1.0",),
    )


def test_old_python_gets_an_older_setuptools(tmp_path: Path, links: Path) -> None:
    # setuptools 75.3.x is the last release for Python 3.8: pkg_resources is still there.
    report = audit(
        _req(tmp_path, "bomb==1.0"), python="3.8", no_index=True, find_links=[str(links)]
    )
    v = report.packages[0].verdict
    assert v is not None
    assert v.outcome == "builds"
    assert v.today is not None and v.today.startswith("75.3.")
    assert v.constraint is None


def test_other_backends_are_unknown_not_constrained(tmp_path: Path, links: Path) -> None:
    report = audit(
        _req(tmp_path, "flitpkg==1.0", "plain==1.0"), no_index=True, find_links=[str(links)]
    )
    flit, plain = report.packages
    assert flit.verdict is not None and flit.verdict.outcome == "unknown"
    assert "flit_core" in flit.verdict.reason
    assert plain.verdict is not None and plain.verdict.outcome == "builds"
    assert "static analysis" in plain.verdict.reason
    plan = plan_constraints(report)
    assert plan.constraint is None and not plan.conflict
    text = emit(report, "pip")["main"]
    assert "Nothing to constrain" in text
    assert not [line for line in text.splitlines() if line and not line.startswith("#")]


def test_emitted_files_without_conflict(tmp_path: Path, links: Path) -> None:
    report = audit(
        _req(tmp_path, "bomb==1.0", "plain==1.0"), no_index=True, find_links=[str(links)]
    )
    pip = emit(report, "pip")["main"]
    assert pip.startswith("# Build constraints for pip, written by sapper")
    assert [line for line in pip.splitlines() if not line.startswith("#")] == ["setuptools<82.0.0"]
    assert "bomb 1.0 fails with setuptools 84.2.1 (SP001); newest good release 81.0.0" in pip

    uv = emit(report, "uv")
    assert set(uv) == {"main", "build-constraints"}
    table = tomllib.loads(uv["main"])
    assert table == {"tool": {"uv": {"extra-build-dependencies": {"bomb": ["setuptools<82.0.0"]}}}}
    assert uv["build-constraints"].rstrip().endswith("\nsetuptools<82.0.0")

    poetry = tomllib.loads(emit(report, "poetry")["main"])
    assert poetry == {
        "tool": {"poetry": {"build-constraints": {"bomb": {"setuptools": "<82.0.0"}}}}
    }


def test_conflict_names_groups_and_breaks_nothing(tmp_path: Path, links: Path) -> None:
    report = audit(
        _req(tmp_path, "bomb==1.0", "needsnew==1.0"), no_index=True, find_links=[str(links)]
    )
    plan = plan_constraints(report)
    assert plan.conflict
    assert [(g.constraint, g.packages) for g in plan.groups] == [
        (None, ("needsnew==1.0",)),
        ("setuptools<82.0.0", ("bomb==1.0",)),
    ]
    # needsnew requires setuptools>=82 and builds today: no line may break it.
    assert plan.constraint is None
    assert plan.unfixed == ("bomb==1.0",)
    pip = emit(report, "pip")["main"]
    assert "CONFLICT" in pip and "sapper wheelhouse" in pip
    assert not [line for line in pip.splitlines() if line and not line.startswith("#")]
    uv = emit(report, "uv")
    assert set(uv) == {"main"}  # no global file when the needs conflict
    assert tomllib.loads(uv["main"])["tool"]["uv"]["extra-build-dependencies"] == {
        "bomb": ["setuptools<82.0.0"]
    }
    doc = report_json(report)
    assert doc["schema_version"] == "1"
    assert doc["plan"]["conflict"] is True
    assert doc["summary"] == {"packages": 2, "built_from_source": 2, "failing": 1}


def test_cli_exit_codes_and_files(
    tmp_path: Path, links: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    req = _req(tmp_path, "bomb==1.0")
    base = [str(req), "--no-index", "-f", str(links)]
    assert main(["audit", *base, "--color", "never"]) == 1
    out = capsys.readouterr().out
    assert "bomb" in out and "fails (84.2.1)" in out and "81.0.0 (setuptools<82.0.0)" in out
    assert main(["audit", *base, "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["packages"][0]["verdict"]["because"] == ["SP001"]
    target = tmp_path / "out" / "uv.toml"
    assert main(["audit", *base, "--emit", "uv", "-o", str(target)]) == 1
    assert target.exists()
    assert (tmp_path / "out" / "uv.build-constraints.txt").exists()
    ok = _req(tmp_path, "plain==1.0")
    assert main(["audit", str(ok), "--no-index", "-f", str(links)]) == 0
    assert main(["audit", str(ok), "-o", str(tmp_path / "x")]) == 2


def test_use_2to3_needs_a_setuptools_that_still_converts(tmp_path: Path, links: Path) -> None:
    # 58.0.0 and 58.0.1 build use_2to3=True projects without error but without conversion
    # (a broken wheel); the rule's failing range starts at 58.0.2, where the error came.
    setup = "from setuptools import setup\nsetup(name='old', version='1.0', use_2to3=True)\n"
    make_sdist(links, "old", "1.0", {"setup.py": setup})
    report = audit(_req(tmp_path, "old==1.0"), no_index=True, find_links=[str(links)])
    v = report.packages[0].verdict
    assert v is not None
    assert v.because == ("SP002",)
    assert v.newest_good == "57.5.0"
    assert v.constraint == "setuptools<58.0.0"


def test_legacy_sdist_range_starts_at_pips_default(tmp_path: Path, links: Path) -> None:
    report = audit(_req(tmp_path, "bomb==1.0"), no_index=True, find_links=[str(links)])
    v = report.packages[0].verdict
    assert v is not None
    assert v.requires == ">=40.8.0"  # what pip installs for a project without pyproject.toml
    assert v.good == (">=40.8.0,<82.0.0",)  # one range: yanked releases do not cut it


@pytest.mark.parametrize(
    ("message", "pinned", "expected"),
    [
        ("SystemExit: error in suds-jurko setup command: use_2to3 is invalid.", "81.0.0", "57.5.0"),
        ("ModuleNotFoundError: No module named 'pkg_resources'", "84.2.1", "81.0.0"),
        ("error: invalid command 'test'", "81.0.0", "71.1.0"),
        ("ModuleNotFoundError: No module named 'pkg_resources'", "58.0.1", None),  # had it
        ("SyntaxError: invalid syntax", "81.0.0", None),  # not a setuptools removal
    ],
)
def test_wheelhouse_retry_after_a_named_removal(message: str, pinned: str, expected: str) -> None:
    from sapper.audit.wheelhouse import _older_for

    assert _older_for(message, pinned, None) == expected
