"""One store reader for `scan --export` and `report`: which row of a re-scanned key counts."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import pytest
from test_scan_store import CLEAN, DASHED, row

from sapper._exceptions import StoreError, UsageError
from sapper.report import open_store as open_report_store
from sapper.scan.results import read_results
from sapper.scan.store import Row, export, open_results, open_store

EARLY = dt.datetime(2026, 1, 1, 12, 0, 0)
LATE = dt.datetime(2026, 6, 1, 12, 0, 0)


def _at(r: Row, when: dt.datetime) -> Row:
    return dataclasses.replace(r, sdist={**r.sdist, "scanned_at": when})


def _rescanned(path: Path) -> str:
    """A key written twice: first dashed (SC001, analysed LATE by a clock ahead), then clean
    (analysed EARLY, but written last). The row written last is the one that counts."""
    dashed, clean = row("same", DASHED), row("same", CLEAN)
    clean = dataclasses.replace(clean, sdist={**clean.sdist, "key": dashed.key})
    with open_store(path) as store:
        store.write([_at(dashed, LATE)])
        store.write([_at(clean, EARLY)])
        assert store.failed_keys() == set()
    return dashed.key


@pytest.mark.parametrize("name", ["scan.duckdb", "parquet-dir"])
def test_the_row_written_last_counts_everywhere(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    key = _rescanned(path)
    con = open_results(path)
    try:
        assert con.execute("SELECT key, scanned_at FROM sdists").fetchall() == [(key, EARLY)]
        assert con.execute("SELECT count(*) FROM findings").fetchone() == (0,)
    finally:
        con.close()
    store = open_report_store(path)
    try:
        assert store.con.execute("SELECT key, scanned_at FROM sdists").fetchall() == [(key, EARLY)]
        assert store.con.execute("SELECT count(*) FROM findings").fetchone() == (0,)
    finally:
        store.close()
    out = tmp_path / "out.jsonl"
    assert export(path, out) == 1
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["findings"] == []


def test_a_retry_that_failed_counts_as_failed(tmp_path: Path) -> None:
    """The writer's failed_keys and the readers agree on a Parquet store."""
    from sapper.model import ErrorRecord
    from sapper.scan.analyse import failed_row
    from sapper.scan.corpus import Job

    path = tmp_path / "results"
    good = _at(row("x"), LATE)
    bad = failed_row(Job(target="x", sha256=good.key), ErrorRecord(type="fetch", message="no"))
    with open_store(path) as store:
        store.write([good])
        store.write([_at(bad, EARLY)])
        assert store.failed_keys() == {good.key}
    con, kind = read_results(path)
    try:
        assert kind == "parquet"
        assert con.execute("SELECT error_type FROM sdists").fetchall() == [("fetch",)]
        assert con.execute("SELECT count(*) FROM findings").fetchone() == (0,)
    finally:
        con.close()


def test_a_store_with_nothing_written_yet_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "results"
    with open_store(path) as store:
        store.set_meta({"schema_version": "1"})
    con, _ = read_results(path)
    try:
        assert con.execute("SELECT count(*) FROM sdists").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM findings").fetchone() == (0,)
    finally:
        con.close()


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^no scan results at .*: run `sapper scan` first"):
        read_results(tmp_path / "missing.duckdb")
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreError, match="holds no sdists/part-"):
        read_results(tmp_path / "empty")
    (tmp_path / "junk.duckdb").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match=r"^cannot open .*junk.duckdb as a DuckDB database"):
        read_results(tmp_path / "junk.duckdb")
    bad_meta = tmp_path / "meta"
    with open_store(bad_meta) as store:
        store.write([row("y")])
    (bad_meta / "meta.json").write_text("[1, 2]")
    with pytest.raises(StoreError, match=r"meta\.json: not a JSON object"):
        read_results(bad_meta)


def test_parquet_meta_is_written_once_per_run(tmp_path: Path, monkeypatch) -> None:
    from sapper.scan.store import ParquetStore

    calls: list[dict[str, str | None]] = []
    original = ParquetStore.set_meta

    def counting(self: ParquetStore, values: dict[str, str | None]) -> None:
        calls.append(dict(values))
        original(self, values)

    monkeypatch.setattr(ParquetStore, "set_meta", counting)
    path = tmp_path / "results"
    with open_store(path) as store:
        for name in ("a", "b", "c"):
            store.write([row(name)])
        assert calls == []
    assert [list(c) for c in calls] == [["last_run_at"]]
    con, _ = read_results(path)
    try:
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        assert meta["last_run_at"] is not None
        assert con.execute("SELECT count(*) FROM sdists").fetchone() == (3,)
    finally:
        con.close()
