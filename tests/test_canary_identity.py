"""A canary run's identity: its settings and its corpus, and the stores written before the
corpus was part of it.

Two corpora in one store are two runs (a project in both is not counted twice); the same
command again resumes its run; a larger ``--top`` over the same ranking extends it (the
ecosystem check, benchmarks/ecosystem.py, grows its stores that way); a store written by
sapper before the corpus was recorded keeps resuming its run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest
from canary_support import BUILD_CACHE, require_sandbox, sdist

from sapper.canary import CanaryOptions, CanaryStore, TargetRow, parse_backend, run_canary
from sapper.canary.store import corpus_identity, run_id_for

BASE, CAND = parse_backend("77.0.3"), parse_backend("78.0.1")
RANKING = "https://hugovk.github.io/top-pypi-packages/"


def ident(
    sources: tuple[str, ...] = (),
    *,
    top: bool = False,
    versions: str = "newest",
    index_url: str | None = None,
    remote: bool = True,
) -> str:
    return corpus_identity(
        sources,
        top=top,
        ranking=RANKING,
        versions=versions,
        index_url=index_url,
        remote=remote,
    )


#: (first corpus, second corpus, the same run?)
SAME_OR_NOT = [
    # --top 300 then --top 450 over the same ranking: the same run, extended
    (ident(top=True), ident(top=True), True),
    (ident(top=True, versions="before:2025-03-24"), ident(top=True), False),
    (ident(("requests", "numpy")), ident(("numpy", "requests")), True),
    (ident(("requests",)), ident(("requests", "numpy")), False),
    (ident(("requests",)), ident(("requests",), top=True), False),
    (ident(("requests",)), ident(("requests",), index_url="http://mirror/simple"), False),
    # the default index, named or not
    (ident(("requests",)), ident(("requests",), index_url="https://pypi.org/simple/"), True),
    (ident(("requests",), versions="all"), ident(("requests",), versions="newest"), False),
    # local sdists only: neither --versions nor the index changes what is built
    (ident(("/c",), remote=False, versions="all"), ident(("/c",), remote=False), True),
    (ident(("/c",), remote=False), ident(("/d",), remote=False), False),
]


@pytest.mark.parametrize(("first", "second", "same"), SAME_OR_NOT)
def test_corpus_identity(first: str, second: str, same: bool) -> None:
    assert (first == second) is same
    ids = {run_id_for(BASE, CAND, "metadata", False, c) for c in (first, second)}
    assert (len(ids) == 1) is same


def test_corpus_identity_makes_paths_absolute(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "corpus").mkdir()
    monkeypatch.chdir(tmp_path)
    assert ident(("corpus",)) == ident((str(tmp_path / "corpus"),))
    assert ident(("corpus",)) != ident(("other",))


def _row(target: str, downloads: int = 10) -> TargetRow:
    return TargetRow(
        key=hashlib.sha256(target.encode()).hexdigest(),
        target=target,
        project=target,
        version="1.0",
        cls="pass",
        downloads=downloads,
    )


def test_open_run_resumes_the_same_corpus_and_separates_another(tmp_path: Path) -> None:
    top = ident(top=True)
    before = ident(top=True, versions="before:2025-03-24")
    with CanaryStore(tmp_path / "s.duckdb") as store:
        first = store.open_run(BASE, CAND, "metadata", False, corpus=top, targets=["a"])
        store.write(first, [_row("a")])
        again = store.open_run(BASE, CAND, "metadata", False, corpus=top, targets=["a", "b"])
        other = store.open_run(BASE, CAND, "metadata", False, corpus=before, targets=["a"])
        assert again == first
        assert other != first
        assert store.done_keys(other) == set()
        assert {r["run_id"]: r["corpus"] for r in store.runs()} == {first: top, other: before}


#: The canary tables as sapper wrote them before the corpus was part of a run's identity
#: (and the same identity formula): a store of an ecosystem run holds these.
OLD_DDL = (
    """CREATE TABLE canary_runs (
        run_id VARCHAR PRIMARY KEY, created VARCHAR, baseline VARCHAR, candidate VARCHAR,
        baseline_env VARCHAR, candidate_env VARCHAR, mode VARCHAR, all_backends BOOLEAN,
        schema VARCHAR, sapper_version VARCHAR, finished VARCHAR,
        rejudged VARCHAR, rejudged_by VARCHAR)""",
    """CREATE TABLE canary_results (
        run_id VARCHAR, key VARCHAR, target VARCHAR, project VARCHAR, version VARCHAR,
        downloads BIGINT, class VARCHAR, uses_setuptools BOOLEAN, error VARCHAR,
        baseline VARCHAR, candidate VARCHAR, written VARCHAR,
        permanent BOOLEAN DEFAULT false, PRIMARY KEY (run_id, key))""",
)


def _old_store(path: Path, targets: list[str]) -> str:
    old_id = hashlib.sha256(
        json.dumps([BASE.requirement, [], CAND.requirement, [], "metadata", False]).encode()
    ).hexdigest()[:12]
    con = duckdb.connect(str(path))
    for ddl in OLD_DDL:
        con.execute(ddl)
    con.execute(
        "INSERT INTO canary_runs VALUES (?, '2026-01-01T00:00:00Z', ?, ?, '[]', '[]', "
        "'metadata', false, 'sapper.canary/1', '0.1', NULL, NULL, NULL)",
        [old_id, BASE.spec, CAND.spec],
    )
    for target in targets:
        row = _row(target)
        con.execute(
            "INSERT INTO canary_results (run_id, key, target, project, version, downloads, "
            "class) VALUES (?, ?, ?, ?, '1.0', 10, 'pass')",
            [old_id, row.key, target, target],
        )
    con.close()
    return old_id


@pytest.mark.parametrize(
    ("stored", "asked", "adopted"),
    [
        (["a", "b"], ["a", "b", "c"], True),  # a larger --top: the old run, extended
        (["a", "b", "c"], ["a", "b"], True),  # the same ranking, a smaller --top
        ([], ["x"], True),  # nothing written yet
        (["a", "b"], ["x", "y"], False),  # another corpus: a run of its own
    ],
)
def test_a_store_of_older_sapper_keeps_resuming(
    tmp_path: Path, stored: list[str], asked: list[str], adopted: bool
) -> None:
    db = tmp_path / "old.duckdb"
    old_id = _old_store(db, stored)
    assert old_id == run_id_for(BASE, CAND, "metadata", False)
    top = ident(top=True)
    with CanaryStore(db) as store:
        run_id = store.open_run(BASE, CAND, "metadata", False, corpus=top, targets=asked)
        assert (run_id == old_id) is adopted
        assert len(store.done_keys(run_id)) == (len(stored) if adopted else 0)
        # adopted once, the old run is this corpus's from now on
        again = store.open_run(BASE, CAND, "metadata", False, corpus=top, targets=asked)
        assert again == run_id
        corpora = {r["run_id"]: r["corpus"] for r in store.runs()}
    assert corpora[run_id] == top
    if not adopted:
        assert corpora[old_id] is None
    # a read-only reader (sapper report) of the migrated store sees every run
    with CanaryStore(db, read_only=True) as store:
        assert len(list(store.rows(old_id))) == len(stored)


def test_two_corpora_in_one_store_are_two_runs(tmp_path: Path) -> None:
    """Real builds: each corpus its own run (a target in both is built for each, and counted
    once in each), and the same command again resumes its run."""
    require_sandbox()
    first, second = tmp_path / "first", tmp_path / "second"
    sdist("regress-dash", first)
    sdist("fail-both", first)
    sdist("fail-both", second)
    db = tmp_path / "two.duckdb"

    def run(corpus: Path) -> tuple[str, int, int]:
        options = CanaryOptions(baseline=BASE, candidate=CAND, db=db, cache_dir=BUILD_CACHE)
        summary = run_canary([str(corpus)], options=options)
        return summary.run_id, summary.built, summary.skipped

    one, built, _ = run(first)
    assert built == 2
    two, built, _ = run(second)
    assert (two != one, built) == (True, 1)
    assert run(first) == (one, 0, 2)  # resumed: nothing built again
    with CanaryStore(db, read_only=True) as store:
        classes = {
            r["run_id"]: sorted(x.cls for x in store.rows(r["run_id"])) for r in store.runs()
        }
    assert classes == {one: ["fail", "regressed"], two: ["fail"]}
