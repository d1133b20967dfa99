"""Verdicts, constraint plans and emitted files, offline against a --find-links directory.

The setuptools facts are sapper's own (data/setuptools.json); the real-installer proof that
the emitted files work is in test_audit_real.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sapper import _toml as tomllib
from sapper.audit import PackageAudit, audit, report_json
from sapper.audit.emit import emit, plan_constraints
from sapper.audit.render import render_table
from sapper.cli import main
from sapper.render.text import Style
from tests.audit_fixtures import make_sdist, needs_new_sdist, pkg_resources_sdist


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
    text = emit(report, "pip")
    assert "Nothing to constrain" in text
    assert not [line for line in text.splitlines() if line and not line.startswith("#")]


def test_what_check_cannot_read_is_unknown_not_builds(tmp_path: Path, links: Path) -> None:
    """setup() gets its keywords from code sapper does not follow: `sapper check` says
    unknown, and so does the audit (it said "builds"), and the summary says so."""
    setup = "from setuptools import setup\nimport json\nsetup(**json.load(open('meta.json')))\n"
    make_sdist(links, "opaque", "1.0", {"setup.py": setup, "meta.json": "{}"})
    report = audit(_req(tmp_path, "opaque==1.0"), no_index=True, find_links=[str(links)])
    (opaque,) = report.packages
    v = opaque.verdict
    assert v is not None and v.outcome == "unknown", v
    assert v.reason.startswith("static analysis cannot tell: setup() at setup.py:3 gets")
    assert plan_constraints(report).constraint is None
    text = render_table(report, plan_constraints(report), Style(color=False))
    assert "Unknown: static analysis cannot tell for 1 (opaque)" in text


def test_emitted_files_without_conflict(tmp_path: Path, links: Path) -> None:
    report = audit(
        _req(tmp_path, "bomb==1.0", "plain==1.0"), no_index=True, find_links=[str(links)]
    )
    pip = emit(report, "pip")
    assert pip.startswith("# Build constraints for pip, written by sapper")
    assert [line for line in pip.splitlines() if not line.startswith("#")] == ["setuptools<82.0.0"]
    assert "bomb 1.0 fails with setuptools 84.2.1 (SP001); newest good release 81.0.0" in pip
    # how each pip takes it: the measured boundaries (tests/test_audit_emit_real.py)
    assert "pip >= 25.3:  pip install --build-constraint THIS_FILE" in pip
    assert "pip < 26.2:   PIP_CONSTRAINT=THIS_FILE pip install" in pip

    # uv: the global table, which uv keeps in every resolution of a build
    uv = tomllib.loads(emit(report, "uv"))
    assert uv == {"tool": {"uv": {"build-constraint-dependencies": ["setuptools<82.0.0"]}}}

    poetry = tomllib.loads(emit(report, "poetry"))
    assert poetry == {
        "tool": {"poetry": {"build-constraints": {"bomb": {"setuptools": "<82.0.0"}}}}
    }


def test_constraints_on_other_build_requirements_are_emitted(tmp_path: Path, links: Path) -> None:
    """A constraint a real build needed on another build requirement (cython<3.0.0, found
    by audit --verify or the wheelhouse) reaches each emitted form beside setuptools'."""
    import dataclasses

    report = audit(
        _req(tmp_path, "bomb==1.0", "plain==1.0"), no_index=True, find_links=[str(links)]
    )

    def with_cython(p: PackageAudit) -> PackageAudit:
        if p.name != "plain" or p.verdict is None:
            return p
        verdict = dataclasses.replace(p.verdict, build_constraints=("cython<3.0.0",))
        return dataclasses.replace(p, verdict=verdict)

    report = dataclasses.replace(report, packages=tuple(map(with_cython, report.packages)))

    pip = emit(report, "pip")
    lines = [line for line in pip.splitlines() if not line.startswith("#")]
    assert lines == ["setuptools<82.0.0", "cython<3.0.0"]
    assert "plain 1.0 builds only under cython<3.0.0 (real builds, bisected)" in pip

    uv = tomllib.loads(emit(report, "uv"))
    assert uv["tool"]["uv"]["build-constraint-dependencies"] == [
        "setuptools<82.0.0",
        "cython<3.0.0",
    ]
    poetry = tomllib.loads(emit(report, "poetry"))
    assert poetry["tool"]["poetry"]["build-constraints"] == {
        "bomb": {"setuptools": "<82.0.0"},
        "plain": {"cython": "<3.0.0"},
    }


def test_conflict_names_groups_and_breaks_nothing(tmp_path: Path, links: Path) -> None:
    setup = "from setuptools import setup\nsetup(name='old', version='1.0', use_2to3=True)\n"
    make_sdist(links, "old", "1.0", {"setup.py": setup})
    report = audit(
        _req(tmp_path, "bomb==1.0", "needsnew==1.0", "old==1.0"),
        no_index=True,
        find_links=[str(links)],
    )
    plan = plan_constraints(report)
    assert plan.conflict
    assert [(g.constraint, g.packages) for g in plan.groups] == [
        (None, ("needsnew==1.0",)),
        ("setuptools<58.0.0", ("bomb==1.0", "old==1.0")),
    ]
    # needsnew requires setuptools>=82 and builds today: no line may break it.
    assert plan.constraint is None
    assert plan.unfixed == ("bomb==1.0", "old==1.0")
    pip = emit(report, "pip")
    assert "CONFLICT" in pip and "sapper wheelhouse" in pip
    assert not [line for line in pip.splitlines() if line and not line.startswith("#")]
    uv_text = emit(report, "uv")
    uv = tomllib.loads(uv_text)["tool"]["uv"]
    assert "build-constraint-dependencies" not in uv
    # bomb's cap gets 81.0.0, which asks for nothing more: uv keeps a per-package cap.
    # old's gets 57.5.0, which asks for `wheel`: uv would drop it (said, not written).
    assert uv["extra-build-dependencies"] == {"bomb": ["setuptools<82.0.0"]}
    assert "old 1.0 fails with setuptools 84.2.1 (SP002)" in uv_text
    assert "uv cannot cap old per package: setuptools<58.0.0 gets 57.5.0," in uv_text
    assert "# Left failing by this file: old==1.0." in uv_text  # bomb is capped per package
    assert "# Left failing by this file: bomb==1.0, old==1.0." in pip
    poetry = tomllib.loads(emit(report, "poetry"))["tool"]["poetry"]["build-constraints"]
    assert poetry == {"bomb": {"setuptools": "<82.0.0"}, "old": {"setuptools": "<58.0.0"}}
    doc = report_json(report)
    assert doc["schema_version"] == "1"
    assert doc["plan"]["conflict"] is True
    assert doc["summary"] == {"packages": 3, "built_from_source": 3, "failing": 2}


def test_cli_exit_codes_and_files(
    tmp_path: Path, links: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    req = _req(tmp_path, "bomb==1.0")
    base = [str(req), "--no-index", "-f", str(links)]
    assert main(["audit", *base, "--color", "never"]) == 1
    out = capsys.readouterr().out
    assert "bomb" in out and "fails (84.2.1)" in out and "81.0.0 (setuptools<82.0.0)" in out
    assert "pip >= 25.3: pip install --build-constraint FILE" in out
    assert "PIP_CONSTRAINT=FILE" in out
    assert main(["audit", *base, "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["packages"][0]["verdict"]["because"] == ["SP001"]
    target = tmp_path / "out" / "uv.toml"
    assert main(["audit", *base, "--emit", "uv", "-o", str(target)]) == 1
    assert tomllib.loads(target.read_text())
    assert sorted(p.name for p in target.parent.iterdir()) == ["uv.toml"]
    ok = _req(tmp_path, "plain==1.0")
    assert main(["audit", str(ok), "--no-index", "-f", str(links)]) == 0


@pytest.mark.parametrize("fmt", ["pip", "uv", "poetry"])
def test_emit_to_stdout_is_one_document(
    tmp_path: Path, links: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    req = _req(tmp_path, "bomb==1.0", "plain==1.0")
    assert main(["audit", str(req), "--no-index", "-f", str(links), "--emit", fmt]) == 1
    out = capsys.readouterr().out
    if fmt == "pip":
        from packaging.requirements import Requirement

        lines = [line for line in out.splitlines() if line and not line.startswith("#")]
        assert [str(Requirement(line)) for line in lines] == ["setuptools<82.0.0"]
    else:
        assert tomllib.loads(out)["tool"]  # the whole of stdout is one TOML document
    assert out == emit(audit(req, no_index=True, find_links=[str(links)]), fmt)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give the file(s) to audit"),
        (["REQ", "-o", "x.txt"], "-o/--output goes with --emit"),
        (["REQ", "--emit", "pip", "--format", "json"], "add -o FILE for --format json"),
        (["missing.txt"], "no such file"),
        (["--frobnicate", "REQ"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_usage_errors_print_audits_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    req = _req(tmp_path, "plain==1.0")
    argv = [
        str(req) if a == "REQ" else str(tmp_path / a) if a.endswith(".txt") else a for a in argv
    ]
    try:
        code = main(["audit", *argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: sapper audit ")
    assert message in err


def test_r_and_several_inputs(
    tmp_path: Path, links: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.txt").write_text("bomb==1.0\n")
    (tmp_path / "b.txt").write_text("plain==1.0\n")
    base = ["--no-index", "-f", str(links), "--format", "json"]
    a, b = str(tmp_path / "a.txt"), str(tmp_path / "b.txt")
    for argv in (["-r", a, "-r", b], [a, b], [a, "-r", b], ["--requirement", a, b]):
        assert main(["audit", *argv, *base]) == 1
        doc = json.loads(capsys.readouterr().out)
        assert [p["name"] for p in doc["packages"]] == ["bomb", "plain"]
        assert doc["input"]["format"] == "requirements"
    assert main(["audit", "-r", b, *base]) == 0
    capsys.readouterr()
    # -c as pip's: bomb's only release is 1.0, so a constraint excluding it leaves no file
    (tmp_path / "c.txt").write_text("bomb<1\n")
    assert main(["audit", "-r", a, "-c", str(tmp_path / "c.txt"), *base]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["packages"][0]["source"] == "unavailable"


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
    from sapper.audit._fallbacks import _older_for

    assert _older_for(message, pinned, None) == expected


def test_a_distribution_not_looked_up_makes_the_audit_incomplete(
    tmp_path: Path, links: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fake_index import FakeIndex, serve

    # bomb fails; nothere is on no index: "nothing would fail" cannot be said, and 3 wins
    req = _req(tmp_path, "bomb==1.0", "nothere==1.0")
    with serve(FakeIndex()) as url:
        base = [str(req), "--index-url", url, "-f", str(links), "--cache-dir", str(tmp_path)]
        assert main(["audit", *base, "--color", "never"]) == 3
        out = capsys.readouterr().out
        assert "Incomplete: 1 could not be looked up (nothere)" in out
        assert "no project named 'nothere'" in out
        ok = _req(tmp_path, "plain==1.0")
        assert main(["audit", str(ok), "--index-url", url, "-f", str(links)]) == 0


def test_help_states_the_measured_pip_boundaries(capsys: pytest.CaptureFixture[str]) -> None:
    from sapper.audit.emit import PIP_BUILD_CONSTRAINT_SINCE, PIP_CONSTRAINT_REACHES_BUILDS_UNTIL

    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"pip >= {PIP_BUILD_CONSTRAINT_SINCE} takes the file with --build-constraint" in text
    assert f"(before {PIP_CONSTRAINT_REACHES_BUILDS_UNTIL}," in text
