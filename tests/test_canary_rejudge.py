"""`sapper canary --rejudge`: the static verdicts of a stored run recomputed with the engine
of now, from the sdists in the download cache, without building.

The stored rows are written as a run writes them (the static verdicts by the canary's own
``_statics``, the real outcomes as a build of these fixtures gives them: the
``import pkg_resources`` fixture builds with 81.0.0 and fails with 82.0.0, as
``test_canary.py`` proves in the sandbox); "the engine before" is the same engine with a
rule left out, as an engine that did not yet know that failure.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest

import sapper.check
from sapper.canary import CanaryStore, SideResult, TargetRow, parse_backend
from sapper.canary.engine import _Settings, _statics
from sapper.canary.rejudge import rejudge_run, sdist_of
from sapper.canary.store import run_id_for
from sapper.report.canary import summarize
from tests.canary_support import sdist

BASELINE = parse_backend("81.0.0")
CANDIDATE = parse_backend("82.0.0")
SIGNATURE = "ModuleNotFoundError: No module named 'pkg_resources'"


@pytest.fixture
def engine_without(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make the engine leave out rule ``code`` (an engine that does not know it yet), or,
    given None, be the engine of now again."""
    real = sapper.check.check_files

    def without(code: str | None) -> None:
        if code is None:
            monkeypatch.setattr(sapper.check, "check_files", real)
            return

        def check_files(files: Any, **kwargs: Any) -> Any:
            options = kwargs["options"]._replace(ignore=(code,))
            return real(files, **{**kwargs, "options": options})

        monkeypatch.setattr(sapper.check, "check_files", check_files)

    yield without
    monkeypatch.setattr(sapper.check, "check_files", real)


def _cached(archive: Path, cache: Path) -> str:
    """Put ``archive`` in a download cache as the canary's download does; its sha256."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    folder = cache / "sdists" / digest[:2] / digest
    folder.mkdir(parents=True)
    shutil.copy(archive, folder / archive.name)
    return digest


def _store_run(db: Path, archive: Path, key: str, outcomes: tuple[str, str], cache: Path) -> str:
    """A stored run of one target, its static verdicts from the engine as it is now."""
    settings = _Settings(
        baseline=BASELINE,
        candidate=CANDIDATE,
        mode="metadata",
        all_backends=False,
        builder=None,  # type: ignore[arg-type]  # _statics does not build
        index_url=None,
        cache_dir=cache,
    )
    statics, uses, (name, version) = _statics(archive, archive.read_bytes(), settings)
    sides = [
        SideResult(
            backend=backend.label,
            outcome=outcome,
            signature=SIGNATURE if outcome == "fail" else None,
            static=static[0],
            static_codes=static[1],
        )
        for backend, outcome, static in zip((BASELINE, CANDIDATE), outcomes, statics, strict=True)
    ]
    cls = {("ok", "fail"): "regressed", ("ok", "ok"): "pass"}[outcomes]
    row = TargetRow(
        key=key,
        target=f"{name}=={version}",
        project=name,
        version=version,
        cls=cls,  # type: ignore[arg-type]
        baseline=sides[0],
        candidate=sides[1],
        uses_setuptools=uses,
    )
    run_id = run_id_for(BASELINE, CANDIDATE, "metadata", False)
    with CanaryStore(db) as store:
        store.start_run(run_id, BASELINE, CANDIDATE, "metadata", False)
        store.write(run_id, [row])
        store.finish_run(run_id)
    return run_id


def _triage(db: Path) -> dict[str, list[str]]:
    with CanaryStore(db, read_only=True) as store:
        run_id = store.resolve_run(None)
        report = summarize(list(store.rows(run_id)), {})
    return {k: [e["target"] for e in v] for k, v in report["triage"].items()}


def test_a_rule_the_engine_gains_turns_unexplained_into_confirmed(tmp_path, engine_without):
    cache = tmp_path / "cache"
    archive = sdist("regress-pkgres", tmp_path / "corpus")
    key = _cached(archive, cache)
    db = tmp_path / "c.duckdb"
    engine_without("SP001")
    run_id = _store_run(db, archive, key, ("ok", "fail"), cache)
    assert _triage(db)["unexplained"] == ["regress-pkgres==1.0"]

    engine_without(None)  # the engine of now
    with CanaryStore(db) as store:
        summary = rejudge_run(store, run_id, cache_dir=cache)
        rows = list(store.rows(run_id))
        run = store.runs()[0]
    assert (summary.rows, summary.rejudged, summary.missing, summary.changed) == (1, 1, 0, 1)
    [change] = summary.changes
    assert (change.side, change.before, change.after) == ("candidate", "builds", "fails")
    assert change.codes_after == ("SP001",)
    assert rows[0].candidate is not None
    assert rows[0].candidate.static_codes == ("SP001",)
    assert rows[0].candidate.outcome == "fail"  # the real build is left as it was
    assert rows[0].cls == "regressed"
    assert run["rejudged"] and run["rejudged_by"]
    triage = _triage(db)
    assert triage["confirmed"] == ["regress-pkgres==1.0"]
    assert triage["unexplained"] == []


def test_a_rule_the_engine_loses_clears_a_false_alarm(tmp_path, engine_without):
    """Stored: the candidate predicted to fail, the real build ok (a false alarm); an
    engine that no longer reports that finding clears it."""
    cache = tmp_path / "cache"
    archive = sdist("regress-pkgres", tmp_path / "corpus")
    key = _cached(archive, cache)
    db = tmp_path / "c.duckdb"
    run_id = _store_run(db, archive, key, ("ok", "ok"), cache)
    assert _triage(db)["false_alarm"] == ["regress-pkgres==1.0"]
    engine_without("SP001")
    with CanaryStore(db) as store:
        summary = rejudge_run(store, run_id, cache_dir=cache)
    assert [(c.side, c.before, c.after) for c in summary.changes] == [
        ("candidate", "fails", "builds")
    ]
    assert _triage(db)["false_alarm"] == []


def test_unchanged_engine_changes_nothing_and_a_missing_sdist_is_counted(tmp_path):
    cache = tmp_path / "cache"
    archive = sdist("regress-pkgres", tmp_path / "corpus")
    key = _cached(archive, cache)
    db = tmp_path / "c.duckdb"
    run_id = _store_run(db, archive, key, ("ok", "fail"), cache)
    with CanaryStore(db) as store:
        summary = rejudge_run(store, run_id, cache_dir=cache)
        assert (summary.rejudged, summary.changed) == (1, 0)
        summary = rejudge_run(store, run_id, cache_dir=tmp_path / "empty")
        assert (summary.rejudged, summary.missing) == (0, 1)
    assert _triage(db)["confirmed"] == ["regress-pkgres==1.0"]


def test_sdist_of_prefers_the_given_path_when_its_digest_matches(tmp_path):
    archive = sdist("regress-pkgres", tmp_path / "corpus")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    row = TargetRow(key=digest, target=str(archive), project=None, version=None, cls="pass")
    assert sdist_of(row, tmp_path / "cache") == archive
    # the file at that path is another archive now: only the cache's copy is the same one
    other = TargetRow(key="0" * 64, target=str(archive), project=None, version=None, cls="pass")
    assert sdist_of(other, tmp_path / "cache") is None
    cached = tmp_path / "cache" / "sdists" / "00" / ("0" * 64) / "x-1.0.tar.gz"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"")
    assert sdist_of(other, tmp_path / "cache") == cached


def test_cli_rejudge(tmp_path, capsys, engine_without):
    from sapper.cli import main

    cache = tmp_path / "cache"
    archive = sdist("regress-pkgres", tmp_path / "corpus")
    key = _cached(archive, cache)
    db = tmp_path / "c.duckdb"
    engine_without("SP001")
    _store_run(db, archive, key, ("ok", "fail"), cache)
    engine_without(None)
    code = main(["canary", "--rejudge", "--db", str(db), "--cache-dir", str(cache)])
    captured = capsys.readouterr()
    assert code == 0
    assert "1 confirmed, 0 unexplained, 0 false alarms" in captured.out
    assert "regress-pkgres==1.0: candidate builds -> fails (SP001)" in captured.err
    assert "rejudged 1 of 1 rows" in captured.err
    assert main(["canary", "x.tar.gz", "--rejudge", "--db", str(db)]) == 2
