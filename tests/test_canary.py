"""sapper canary: classes, real regressions between setuptools releases, store, export,
report, bisect."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from canary_support import BUILD_CACHE, DATA, builder, require_sandbox, sdist

from sapper.canary import (
    CanaryOptions,
    CanaryStore,
    SideResult,
    classify,
    export_rows,
    parse_backend,
    run_canary,
)
from sapper.canary.bisect import bisect, changelog_url, releases_between
from sapper.report.canary import render_html, render_text, summarize


def side(outcome: str) -> SideResult:
    return SideResult(backend="b", outcome=outcome)


@pytest.mark.parametrize(
    ("baseline", "candidate", "uses", "all_backends", "expected"),
    [
        ("ok", "fail", True, False, "regressed"),
        ("fail", "ok", True, False, "fixed"),
        ("ok", "ok", True, False, "pass"),
        ("fail", "fail", True, False, "fail"),
        ("ok", "spurious", True, False, "spurious"),
        ("spurious", "prepare-fail", True, False, "prepare-fail"),
        ("ok", "fail", False, False, "not-setuptools"),
        ("ok", "fail", False, True, "regressed"),
        ("ok", "fail", None, False, "regressed"),
    ],
)
def test_classify(baseline, candidate, uses, all_backends, expected):
    got = classify(side(baseline), side(candidate), uses_setuptools=uses, all_backends=all_backends)
    assert got == expected


@pytest.mark.parametrize(
    ("spec", "requirement", "version"),
    [
        ("78.0.1", "setuptools==78.0.1", "78.0.1"),
        ("setuptools==77.0.3", "setuptools==77.0.3", "77.0.3"),
        ("setuptools>=80", "setuptools>=80", None),
    ],
)
def test_parse_backend(spec, requirement, version):
    backend = parse_backend(spec)
    assert (backend.requirement, backend.version) == (requirement, version)


@pytest.mark.parametrize("spec", ["hatchling==1.0", "not a backend at all", "./missing.whl"])
def test_parse_backend_refuses(spec):
    from sapper import UsageError

    with pytest.raises(UsageError, match="give setuptools==VERSION"):
        parse_backend(spec)


def test_parse_backend_wheel(tmp_path):
    wheel = tmp_path / "setuptools-99.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    backend = parse_backend(str(wheel))
    assert backend.version == "99.1.0"
    assert backend.requirement == f"setuptools @ {wheel.as_uri()}"


@pytest.mark.parametrize(
    ("good", "bad", "yanked", "expected"),
    [
        ("77.0.3", "78.1.0", [], ["77.0.3", "78.0.1", "78.0.2", "78.1.0"]),
        ("71.1.0", "72.1.0", ["72.0.0"], ["71.1.0", "72.1.0"]),
        ("71.1.0", "72.0.0", ["72.0.0"], ["71.1.0", "72.0.0"]),  # an end is kept
    ],
)
def test_releases_between(good, bad, yanked, expected):
    versions = [
        "76.0.0",
        "77.0.3",
        "78.0.1",
        "78.0.2",
        "78.1.0",
        "79.0.0rc1",
        "71.1.0",
        "72.0.0",
        "72.1.0",
        "80.0.0",
    ]
    assert releases_between(versions, good, bad, yanked=yanked) == expected


def test_changelog_url():
    assert changelog_url("78.0.1") == "https://setuptools.pypa.io/en/stable/history.html#v78-0-1"


# --------------------------------------------------------------------------- real canaries


@pytest.fixture(scope="module")
def sandboxed():
    require_sandbox()


def _options(tmp_path: Path, baseline: str, candidate: str, **kw) -> CanaryOptions:
    return CanaryOptions(
        baseline=parse_backend(baseline),
        candidate=parse_backend(candidate),
        db=tmp_path / "store.duckdb",
        cache_dir=BUILD_CACHE,
        **kw,
    )


def _rows(db: Path):
    with CanaryStore(db, read_only=True) as store:
        run = store.runs()[0]
        return run, {r.project or r.target: r for r in store.rows(run["run_id"])}


def test_dash_keys_regress_in_78_0_1(sandboxed, tmp_path):
    corpus = tmp_path / "corpus"
    for name in ("regress-dash", "fail-both", "nonsetuptools-ok"):
        sdist(name, corpus)
    options = _options(tmp_path, "77.0.3", "78.0.1")
    seen = []
    summary = run_canary([str(corpus)], options=options, on_progress=seen.append)
    assert summary.built == 3
    assert seen[-1].done == 3
    assert summary.counts["regressed"] == 1
    run, rows = _rows(options.db)
    classes = {name: row.cls for name, row in rows.items()}
    # (the in-tree backend's project is named by sapper's static reading: its file name)
    assert classes == {
        "regress-dash": "regressed",
        "fail-both": "fail",
        "nonsetuptools-ok": "not-setuptools",
    }
    other = rows["nonsetuptools-ok"]
    assert other.baseline is not None
    assert other.candidate is not None
    # the same inputs on both sides (setuptools not involved): built once
    assert (other.baseline.attempts, other.candidate.attempts) == (1, 0)
    assert other.candidate.outcome == other.baseline.outcome == "ok"
    dash = rows["regress-dash"]
    assert dash.baseline is not None
    assert (dash.baseline.attempts, dash.candidate.attempts) == (1, 1)
    assert dash.candidate is not None
    assert dash.candidate.error_type == "setuptools.errors.InvalidConfigError"
    assert (dash.baseline.static, dash.candidate.static) == ("builds", "fails")
    assert "SC001" in dash.candidate.static_codes
    assert any("dash-separated" in w["summary"] for w in dash.baseline.warnings)

    report = summarize(rows.values(), run)
    (cause,) = report["root_causes"]
    assert cause["signature"].startswith("InvalidConfigError: Invalid dash-separated key")
    assert cause["projects"] == ["regress-dash==1.0"]
    assert [t["target"] for t in report["triage"]["confirmed"]] == ["regress-dash==1.0"]
    assert report["triage"]["unexplained"] == []
    dash_warnings = [w for w in report["warnings"] if "dash-separated" in w["summary"]]
    assert dash_warnings and dash_warnings[0]["baseline"]["sdists"] == 1
    assert dash_warnings[0]["candidate"]["sdists"] == 0
    text = render_text(report)
    assert "root causes of the regressions (1):" in text
    assert "regress-dash==1.0" in text
    assert "<code>InvalidConfigError" in render_html(report)

    # the same command again: the run continues, nothing is built twice
    again = run_canary([str(corpus)], options=options)
    assert (again.built, again.skipped, again.run_id) == (0, 3, summary.run_id)

    # export: the documented row schema
    out = tmp_path / "rows.jsonl"
    assert export_rows(list(rows.values()), out) == 3
    records = [json.loads(line) for line in out.read_text().splitlines()]
    record = next(r for r in records if r["class"] == "regressed")
    assert record["schema"] == "sapper.canary/1"
    assert record["project"] == {"name": "regress-dash", "version": "1.0"}
    assert set(record["baseline"]) >= {
        "backend",
        "outcome",
        "error_type",
        "signature",
        "message",
        "seconds",
        "warnings",
    }
    assert record["static"] == {"baseline": "builds", "candidate": "fails", "codes": ["SC001"]}
    assert record["baseline"]["warnings"][0]["due_date"] == "2025-03-03"

    parquet = tmp_path / "rows.parquet"
    assert export_rows(list(rows.values()), parquet) == 3
    import duckdb

    got = duckdb.sql(f"SELECT class, count(*) FROM '{parquet}' GROUP BY 1 ORDER BY 1").fetchall()
    assert got == [("fail", 1), ("not-setuptools", 1), ("regressed", 1)]


@pytest.mark.parametrize(
    "case",
    [
        (
            "regress-pkgres",
            "81.0.0",
            "82.0.0",
            "regressed",
            "ModuleNotFoundError: No module named 'pkg_resources'",
        ),
        (
            "regress-testcmd",
            "71.1.0",
            "72.0.0",
            "regressed",
            "ModuleNotFoundError: No module named 'setuptools.command.test'",
        ),
        ("regress-dash", "78.0.1", "78.0.2", "fixed", None),
    ],
)
def test_real_regressions(sandboxed, tmp_path, case):
    fixture, baseline, candidate, cls, signature = case
    corpus = tmp_path / "corpus"
    sdist(fixture, corpus)
    work = tmp_path / "work"
    work.mkdir()
    options = _options(tmp_path, baseline, candidate, work_dir=work)
    run_canary([str(corpus)], options=options)
    assert list(work.iterdir()) == []  # every build cleaned up after itself
    _, rows = _rows(options.db)
    row = rows[fixture]
    assert row.cls == cls, (row.baseline, row.candidate)
    failing = row.candidate if cls == "regressed" else row.baseline
    assert failing is not None
    if signature is not None:
        assert failing.signature == signature


def test_cli_canary_and_export(sandboxed, tmp_path, capsys):
    from sapper.cli import main

    corpus = tmp_path / "corpus"
    sdist("regress-dash", corpus)
    db = tmp_path / "cli.duckdb"
    code = main(
        [
            "canary",
            str(corpus),
            "--baseline",
            "77.0.3",
            "--candidate",
            "78.0.1",
            "--db",
            str(db),
            "--cache-dir",
            str(BUILD_CACHE),
            "--progress",
            "never",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1  # a regression
    assert "regressed" in out
    assert "regress-dash==1.0" in out
    code = main(["canary", "--db", str(db), "--export", str(tmp_path / "x.jsonl")])
    assert code == 0
    assert json.loads((tmp_path / "x.jsonl").read_text())["class"] == "regressed"
    capsys.readouterr()

    # sapper report --canary: the same sections from the store, JSON and HTML
    page = tmp_path / "canary.html"
    code = main(["report", str(db), "--canary", "--format", "json", "--html", str(page)])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["schema"] == "sapper.canary-report/1"
    assert report["classes"]["regressed"]["count"] == 1
    assert report["root_causes"][0]["projects"] == ["regress-dash==1.0"]
    assert "Content-Security-Policy" in page.read_text()
    assert main(["report", str(db), "--canary", "nosuchrun"]) == 2


def test_cli_canary_needs_both_backends(tmp_path, capsys):
    from sapper.cli import main

    code = main(["canary", str(tmp_path), "--baseline", "77.0.3"])
    assert code == 2
    assert "--candidate" in capsys.readouterr().err


# --------------------------------------------------------------------------- bisect


def test_bisect_monotone(sandboxed, tmp_path):
    target = sdist("regress-pkgres", tmp_path)
    result = bisect(target, ["81.0.0", "82.0.0", "82.0.1"], builder=builder(timeout=120))
    assert not result.exhaustive
    assert result.first == "82.0.0"
    assert result.changes == (("82.0.0", "ok", "fail"),)


def test_bisect_non_monotone_reports_every_change(sandboxed, tmp_path):
    """78.0.1 made dash keys an error, 78.0.2 restored them: both ends build, so bisect
    builds every release between them and reports the break and the repair."""
    target = sdist("regress-dash", tmp_path)
    releases = ["77.0.3", "78.0.1", "78.0.2", "78.1.0"]
    result = bisect(target, releases, builder=builder(timeout=120))
    assert result.exhaustive
    assert result.first == "78.0.1"
    assert result.changes == (("78.0.1", "ok", "fail"), ("78.0.2", "fail", "ok"))
    assert [s.version for s in result.steps] == releases


def test_resumes_after_kill_9(sandboxed, tmp_path):
    """Killed with SIGKILL after its first row, the same command finishes the run, and
    every target is in the store once."""
    import os
    import select
    import signal
    import subprocess
    import sys
    import time

    corpus = tmp_path / "corpus"
    for name in ("fail-both", "regress-dash", "nonsetuptools-ok"):
        sdist(name, corpus)
    db = tmp_path / "kill.duckdb"
    cmd = [
        sys.executable,
        "-m",
        "sapper",
        "canary",
        str(corpus),
        "--baseline",
        "77.0.3",
        "--candidate",
        "78.0.1",
        "--db",
        str(db),
        "--cache-dir",
        str(BUILD_CACHE),
        "--progress",
        "always",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + 120
    while b"built 1/3" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert b"built 1/3" in seen, seen[-2000:]

    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr  # the dash-key regression
    assert "already done" in done.stderr
    with CanaryStore(db, read_only=True) as store:
        (run,) = store.runs()
        rows = list(store.rows(run["run_id"]))
    assert sorted(r.cls for r in rows) == ["fail", "not-setuptools", "regressed"]


def test_dask_engine(sandboxed, tmp_path):
    distributed = pytest.importorskip("distributed")
    corpus = tmp_path / "corpus"
    sdist("regress-dash", corpus)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        options = _options(
            tmp_path, "77.0.3", "78.0.1", engine="dask", scheduler=cluster.scheduler_address
        )
        summary = run_canary([str(corpus)], options=options)
    assert summary.counts["regressed"] == 1


def test_refuses_without_sandbox(tmp_path, monkeypatch, capsys):
    from sapper.build import _sandbox
    from sapper.cli import main

    monkeypatch.setattr(_sandbox, "_bwrap", lambda: None)
    _sandbox.check_sandbox.cache_clear()
    try:
        sdist("fail-both", tmp_path / "corpus")
        code = main(
            [
                "canary",
                str(tmp_path / "corpus"),
                "--baseline",
                "77.0.3",
                "--candidate",
                "78.0.1",
                "--db",
                str(tmp_path / "x.duckdb"),
            ]
        )
    finally:
        _sandbox.check_sandbox.cache_clear()
    assert code == 3  # could not build
    err = capsys.readouterr().err
    assert "bubblewrap" in err
    assert "--no-sandbox" in err


def test_enforce_deprecations_on_the_candidate(sandboxed, tmp_path):
    """The same setuptools with SETUPTOOLS_ENFORCE_DEPRECATION=1 on one side: the overdue
    dash-key deprecation becomes the error, and the static verdict (enforced) agrees."""
    from sapper.canary import parse_env

    corpus = tmp_path / "corpus"
    sdist("regress-dash", corpus)
    options = CanaryOptions(
        baseline=parse_backend("84.2.1"),
        candidate=parse_backend("84.2.1", env=parse_env(["SETUPTOOLS_ENFORCE_DEPRECATION=1"])),
        db=tmp_path / "store.duckdb",
        cache_dir=BUILD_CACHE,
    )
    run_canary([str(corpus)], options=options)
    _, rows = _rows(options.db)
    row = rows["regress-dash"]
    assert row.cls == "regressed"
    assert row.candidate is not None
    assert row.candidate.backend == "setuptools==84.2.1 SETUPTOOLS_ENFORCE_DEPRECATION=1"
    assert row.candidate.error_type == "setuptools.warnings.SetuptoolsDeprecationWarning"
    assert (row.baseline.static, row.candidate.static) == ("builds", "fails")


def test_backend_from_a_source_tree_is_built_once(tmp_path):
    """A source tree named setuptools becomes a wheel (with `build`), cached by its files."""
    import shutil

    tree = tmp_path / "setuptools-src"
    shutil.copytree(DATA / "nonsetuptools-ok", tree)
    backend_py = tree / "tinybackend.py"
    backend_py.write_text(
        backend_py.read_text().replace('"tinypkg", "1.0"', '"setuptools", "99.0.0"')
    )
    first = parse_backend(str(tree), cache_dir=tmp_path / "cache")
    assert first.version == "99.0.0"
    wheel = Path(first.requirement.split(" @ ", 1)[1].removeprefix("file://"))
    assert wheel.name == "setuptools-99.0.0-py3-none-any.whl"
    assert wheel.is_file()
    stamp = wheel.stat().st_mtime_ns
    again = parse_backend(str(tree), cache_dir=tmp_path / "cache")
    assert again.requirement == first.requirement
    assert wheel.stat().st_mtime_ns == stamp  # not built again


def test_both_sides_share_one_unpacked_tree(sandboxed, tmp_path):
    from sapper.build import unpack_sdist
    from sapper.canary.engine import build_side

    archive = sdist("regress-dash", tmp_path / "in")
    tree = unpack_sdist(archive, tmp_path / "tree")
    assert tree.name == "regress-dash-1.0"
    b = builder(timeout=120)
    first, _ = build_side(b, archive, parse_backend("77.0.3"), "metadata", tree=tree)
    assert tree.is_dir()  # copied: the other side gets it untouched
    assert not list(tree.glob("*.egg-info"))
    second, _ = build_side(b, archive, parse_backend("78.0.1"), "metadata", tree=tree, move=True)
    assert not tree.exists()  # the last side took it
    assert (first.outcome, second.outcome) == ("ok", "fail")
    assert second.error_type == "setuptools.errors.InvalidConfigError"


def test_default_work_dir_is_a_roomy_memory_file_system_or_none():
    from sapper.canary.engine import default_jobs, default_work_dir

    found = default_work_dir()
    if found is not None:
        import os

        stat = os.statvfs(found)
        assert stat.f_bavail * stat.f_frsize >= 8 * 1024**3
        assert any(
            line.split()[1:3] == [str(found), "tmpfs"]
            for line in Path("/proc/mounts").read_text().splitlines()
        )
    assert default_jobs() >= 1


SAME_INPUTS = [
    # (outcome, declared, dynamic, baseline env, candidate env, expected)
    ("ok", ("hatchling",), (), {}, {}, True),
    ("fail", ("flit_core>=3.2,<4",), (), {}, {}, True),
    ("ok", ("setuptools>=61", "wheel"), (), {}, {}, False),
    ("ok", ("Setuptools",), (), {}, {}, False),
    ("ok", ("hatchling",), ("setuptools",), {}, {}, False),
    ("ok", ("hatchling",), (), {}, {"SETUPTOOLS_ENFORCE_DEPRECATION": "1"}, False),
    ("spurious", ("hatchling",), (), {}, {}, False),
    ("prepare-fail", ("hatchling",), (), {}, {}, False),
]


@pytest.mark.parametrize("case", SAME_INPUTS)
def test_same_inputs(case):
    from sapper.build import BuildResult
    from sapper.canary.engine import same_inputs

    outcome, declared, dynamic, base_env, cand_env, expected = case
    result = BuildResult(
        outcome=outcome,
        mode="metadata",
        backend="x:y",
        declared_requires=declared,
        dynamic_requires=dynamic,
    )
    baseline = parse_backend("77.0.3", env=tuple(base_env.items()))
    candidate = parse_backend("78.0.1", env=tuple(cand_env.items()))
    assert same_inputs(result, baseline, candidate) is expected


@pytest.mark.parametrize(
    ("reason", "declared", "timeouts", "expected"),
    [
        ("timeout", ("hatchling",), True, True),  # under the budget of other backends
        ("timeout", ("hatchling",), False, False),
        ("memory", ("hatchling",), True, False),
        ("timeout", ("setuptools",), True, False),
    ],
)
def test_same_inputs_reuses_a_timeout_only_under_the_budget(reason, declared, timeouts, expected):
    from sapper.build import BuildResult
    from sapper.canary.engine import same_inputs

    result = BuildResult(
        outcome="spurious",
        spurious_reason=reason,
        mode="metadata",
        backend="x:y",
        declared_requires=declared,
    )
    baseline, candidate = parse_backend("77.0.3"), parse_backend("78.0.1")
    assert same_inputs(result, baseline, candidate, timeouts=timeouts) is expected


@pytest.mark.parametrize(
    ("reason", "declared", "budgeted", "expected"),
    [
        # a timeout under the budget of other backends, setuptools pinned or not
        ("timeout", ("setuptools", "meson-python"), True, True),
        ("timeout", ("hatchling",), True, True),
        # full --timeout: each side's own timeout
        ("timeout", ("setuptools", "meson-python"), False, False),
        ("memory", ("setuptools", "meson-python"), True, False),
        # same inputs reused, budget or not; different ones are not
        (None, ("hatchling",), False, True),
        (None, ("setuptools", "meson-python"), True, False),
    ],
)
def test_reuse_baseline(reason, declared, budgeted, expected):
    from sapper.build import BuildResult
    from sapper.canary.engine import reuse_baseline

    result = BuildResult(
        outcome="spurious" if reason else "ok",
        spurious_reason=reason,
        mode="metadata",
        backend="mesonpy",
        declared_requires=declared,
    )
    baseline, candidate = parse_backend("77.0.3"), parse_backend("78.0.1")
    assert reuse_baseline(result, baseline, candidate, budgeted=budgeted) is expected


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ("setuptools.build_meta", False),
        ("setuptools.build_meta:__legacy__", False),
        ("hatchling.build", True),
    ],
)
def test_same_inputs_never_for_setuptools_backend(backend, expected):
    """A setuptools backend whose requirements name only setuptools_scm is still built
    with each side's setuptools: its result is never reused."""
    from sapper.build import BuildResult
    from sapper.canary.engine import same_inputs

    result = BuildResult(
        outcome="ok", mode="metadata", backend=backend, declared_requires=("setuptools_scm",)
    )
    assert same_inputs(result, parse_backend("77.0.3"), parse_backend("78.0.1")) is expected


def _pack(tree: Path, dest: Path, name: str) -> Path:
    import tarfile

    dest.mkdir(parents=True, exist_ok=True)
    archive = dest / f"{name}-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree, arcname=f"{name}-1.0")
    return archive


def test_in_tree_backend_wrapping_setuptools_gets_each_sides_pin(sandboxed, tmp_path):
    """An in-tree backend (backend-path) wrapping setuptools.build_meta, with setuptools in
    its build requirements, builds with each side's setuptools: the dash keys regress."""
    corpus = tmp_path / "corpus"
    sdist("regress-dash-intree", corpus)
    options = _options(tmp_path, "77.0.3", "78.0.1")
    run_canary([str(corpus)], options=options)
    _, rows = _rows(options.db)
    (row,) = rows.values()
    assert row.cls == "regressed", (row.baseline, row.candidate)
    assert row.uses_setuptools is True
    assert row.baseline is not None
    assert row.candidate is not None
    assert (row.baseline.attempts, row.candidate.attempts) == (1, 1)
    assert row.candidate.error_type == "setuptools.errors.InvalidConfigError"
    assert (row.baseline.static, row.candidate.static) == ("builds", "fails")


def test_in_tree_backend_getting_setuptools_through_another_requirement(sandboxed, tmp_path):
    """The same backend when only setuptools_scm (which depends on setuptools) is required:
    setuptools is in the build environment, so it gets the side's pin, as pip's
    --build-constraint would give it; the candidate is not the baseline's result."""
    import shutil

    tree = tmp_path / "src"
    shutil.copytree(DATA / "regress-dash-intree", tree)
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('["setuptools"]', '["setuptools_scm"]'))
    corpus = tmp_path / "corpus"
    _pack(tree, corpus, "regress-dash-scm")
    options = _options(tmp_path, "77.0.3", "78.0.1")
    run_canary([str(corpus)], options=options)
    _, rows = _rows(options.db)
    (row,) = rows.values()
    assert row.baseline is not None
    assert row.candidate is not None
    assert row.candidate.attempts == 1, "the candidate took the baseline's result"
    assert (row.baseline.outcome, row.candidate.outcome) == ("ok", "fail"), (
        row.baseline,
        row.candidate,
    )
    assert row.candidate.error_type == "setuptools.errors.InvalidConfigError"
    # (sapper's static reading sees no setuptools in the requirements: not-setuptools, as
    # every such target; --all-backends classifies it by its builds)
    assert row.cls == "not-setuptools"


def _settings(baseline, candidate):
    from sapper.canary.engine import _Settings

    return _Settings(
        baseline=baseline,
        candidate=candidate,
        mode="metadata",
        all_backends=False,
        builder=builder(),
        index_url=None,
        cache_dir=BUILD_CACHE,
    )


def _static_reference(path: Path, backend) -> tuple[str, tuple[str, ...], bool | None]:
    """What the canary computed before: one check_target per side."""
    from sapper.check import Options, check_target

    enforce = dict(backend.env).get("SETUPTOOLS_ENFORCE_DEPRECATION") == "1"
    result = check_target(
        str(path), Options(setuptools=backend.version, enforce_deprecations=enforce)
    )
    verdict = result.verdict
    if verdict is None:
        return "unknown", (), result.uses_setuptools
    return verdict.outcome, tuple(verdict.because), result.uses_setuptools


@pytest.mark.parametrize(
    ("baseline", "candidate", "env"),
    [
        ("77.0.3", "78.0.1", ()),
        ("81.0.0", "82.0.0", ()),
        ("71.1.0", "72.0.0", (("SETUPTOOLS_ENFORCE_DEPRECATION", "1"),)),
        ("78.0.1", "setuptools>=70", ()),
    ],
)
def test_static_verdicts_of_both_sides_from_one_reading(
    tmp_path, monkeypatch, baseline, candidate, env
):
    import sapper.check
    import sapper.inputs.sources
    from sapper.canary.engine import _statics

    reads, checks = [], []
    read_sdist, check_files = sapper.inputs.sources.read_sdist, sapper.check.check_files
    monkeypatch.setattr(
        sapper.inputs.sources, "read_sdist", lambda *a, **k: reads.append(a) or read_sdist(*a, **k)
    )
    monkeypatch.setattr(
        sapper.check, "check_files", lambda *a, **k: checks.append(a) or check_files(*a, **k)
    )
    sides = (parse_backend(baseline), parse_backend(candidate, env=env))
    settings = _settings(*sides)
    fixtures = [p.name for p in DATA.iterdir() if p.is_dir()]
    assert len(fixtures) >= 10
    for name in fixtures:
        archive = sdist(name, tmp_path)
        reads.clear()
        checks.clear()
        (first, second), uses, _ = _statics(archive, archive.read_bytes(), settings)
        monkeypatch.setattr(sapper.inputs.sources, "read_sdist", read_sdist)
        monkeypatch.setattr(sapper.check, "check_files", check_files)
        expected = [_static_reference(archive, b) for b in sides]
        monkeypatch.setattr(
            sapper.inputs.sources,
            "read_sdist",
            lambda *a, **k: reads.append(a) or read_sdist(*a, **k),
        )
        monkeypatch.setattr(
            sapper.check, "check_files", lambda *a, **k: checks.append(a) or check_files(*a, **k)
        )
        assert [first, second] == [e[:2] for e in expected], name
        assert uses == (expected[0][2] if expected[0][2] is not None else expected[1][2]), name
        assert len(reads) == 1, name  # one reading of the archive for both sides
        # one run of the rules unless a side's version is to be chosen
        assert len(checks) == (2 if sides[1].version is None else 1), name


@pytest.mark.parametrize(
    ("baseline", "candidate", "expected"),
    [
        ("57.5.0", "58.0.2", ("unknown", "fails")),
        ("58.0.2", "57.5.0", ("fails", "unknown")),
        ("57.0.0", "57.5.0", ("unknown", "unknown")),
    ],
)
def test_static_verdicts_when_setup_keywords_cannot_be_read(
    tmp_path, baseline, candidate, expected
):
    """setup(**make()) with a dict sapper cannot read: "unknown" wherever no finding
    fails (never "builds" on a guess), "fails" where one does (issue 21)."""
    from sapper.canary.engine import _statics

    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom helper import make\n"
        "setup(name='p', version='1.0', use_2to3=True, **make())\n"
    )
    settings = _settings(parse_backend(baseline), parse_backend(candidate))
    (first, second), _, _ = _statics(tmp_path, None, settings)
    assert (first[0], second[0]) == expected


def test_other_backends_get_a_short_budget(sandboxed, tmp_path, monkeypatch):
    """A target built by another backend (classified not-setuptools whatever its builds
    give) gets OTHER_BACKEND_TIMEOUT per hook, without the retry; --all-backends gets the
    full --timeout."""
    import shutil

    from sapper.build import Limits
    from sapper.canary import engine

    tree = tmp_path / "src"
    shutil.copytree(DATA / "nonsetuptools-ok", tree)
    backend_py = tree / "tinybackend.py"
    backend_py.write_text(
        backend_py.read_text().replace(
            "def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):\n",
            "def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):\n"
            "    import time; time.sleep(8)\n",
        )
    )
    corpus = tmp_path / "corpus"
    _pack(tree, corpus, "slowother")
    monkeypatch.setattr(engine, "OTHER_BACKEND_TIMEOUT", 2.0)
    options = _options(tmp_path, "77.0.3", "78.0.1", limits=Limits(timeout=120))
    run_canary([str(corpus)], options=options)
    _, rows = _rows(options.db)
    (row,) = rows.values()
    assert row.cls == "not-setuptools"
    assert row.baseline is not None
    assert row.baseline.outcome == "spurious"
    assert row.baseline.spurious_reason == "timeout"
    assert row.baseline.attempts == 1  # not retried
    assert row.baseline.seconds < 8
    assert "the hook ran longer than 2 s" in (row.baseline.message or "")
    assert "--all-backends gives it the full --timeout" in (row.baseline.message or "")
    assert row.candidate is not None  # the same inputs: the same timeout, not waited again
    assert (row.candidate.outcome, row.candidate.attempts) == ("spurious", 0)

    everything = _options(
        tmp_path / "all", "77.0.3", "78.0.1", limits=Limits(timeout=120), all_backends=True
    )
    (tmp_path / "all").mkdir()
    run_canary([str(corpus)], options=everything)
    _, rows = _rows(everything.db)
    (row,) = rows.values()
    assert row.baseline is not None
    assert row.baseline.outcome == "ok"


def test_biggest_sdists_are_built_first(tmp_path, monkeypatch):
    from sapper.canary import engine

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, size in (("aaa", 10), ("zzz", 50_000), ("mmm", 5_000)):
        (corpus / f"{name}-1.0.tar.gz").write_bytes(b"\x1f\x8b" + bytes(size))
    seen = []

    def execute(jobs, s, options):
        seen.extend(Path(job.path).name for job in jobs)
        return iter(())

    monkeypatch.setattr(engine, "_execute", execute)
    run_canary([str(corpus)], options=_options(tmp_path, "77.0.3", "78.0.1"))
    assert seen == ["zzz-1.0.tar.gz", "mmm-1.0.tar.gz", "aaa-1.0.tar.gz"]


def test_store_keeps_permanent_prepare_fails_out_of_retry(tmp_path):
    import duckdb

    from sapper.canary import TargetRow

    db = tmp_path / "store.duckdb"
    gone = TargetRow(
        key="req:torch",
        target="torch",
        project=None,
        version=None,
        cls="prepare-fail",
        error="no sdist",
        permanent=True,
    )
    flaky = TargetRow(
        key="abc",
        target="x==1",
        project="x",
        version="1",
        cls="prepare-fail",
        error="HTTP 503",
    )
    with CanaryStore(db) as store:
        store.write("run", [gone, flaky])
        assert {r.key: r.permanent for r in store.rows("run")} == {"req:torch": True, "abc": False}
        assert store.done_keys("run") == {"req:torch", "abc"}
        assert store.done_keys("run", retry=("prepare-fail",)) == {"req:torch"}
    # a store written before the column existed: read-only readers see no permanent row,
    # a writer adds the column
    old = tmp_path / "old.duckdb"
    con = duckdb.connect(str(old))
    con.execute(
        "CREATE TABLE canary_results (run_id VARCHAR, key VARCHAR, target VARCHAR, "
        "project VARCHAR, version VARCHAR, downloads BIGINT, class VARCHAR, "
        "uses_setuptools BOOLEAN, error VARCHAR, baseline VARCHAR, candidate VARCHAR, "
        "written VARCHAR, PRIMARY KEY (run_id, key))"
    )
    con.execute(
        "INSERT INTO canary_results VALUES ('run', 'k', 't', NULL, NULL, NULL, "
        "'prepare-fail', NULL, 'e', NULL, NULL, 'now')"
    )
    con.close()
    with CanaryStore(old, read_only=True) as store:
        assert [r.permanent for r in store.rows("run")] == [False]
        assert store.done_keys("run", retry=("prepare-fail",)) == set()
    with CanaryStore(old) as store:
        store.write("run", [gone])
        assert {r.key: r.permanent for r in store.rows("run")} == {"k": False, "req:torch": True}


def test_static_verdicts_of_setuptools_own_tree(tmp_path):
    """setuptools' own sdist builds with its in-tree self whatever setuptools a side pins:
    both sides are judged with its own version (the 71.1.0 -> 72.0.0 newest corpus saw
    setuptools 84.2.1 build with both, where PP002 said fails)."""
    from sapper.canary.engine import _statics

    (tmp_path / "PKG-INFO").write_text("Metadata-Version: 2.4\nName: setuptools\nVersion: 84.2.1\n")
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "setuptools.build_meta"\n'
        'backend-path = ["."]\n\n[project]\nname = "setuptools"\nversion = "84.2.1"\n'
        'license = "MIT"\n'
    )
    (tmp_path / "setuptools").mkdir()
    (tmp_path / "setuptools" / "__init__.py").write_text("")
    (tmp_path / "setuptools" / "build_meta.py").write_text("")
    settings = _settings(parse_backend("setuptools==71.1.0"), parse_backend("setuptools==72.0.0"))
    (first, second), _, _ = _statics(tmp_path, None, settings)
    assert (first[0], second[0]) == ("builds", "builds")


def test_a_missing_work_dir_is_made(tmp_path: Path) -> None:
    """``--work-dir`` names a folder that does not exist yet: it is made, not a traceback
    (``FileNotFoundError`` from the temporary directory inside it, before)."""
    from sapper.cli._common import work_directory

    target = tmp_path / "a" / "b"
    assert work_directory(str(target)) == target
    assert target.is_dir()
