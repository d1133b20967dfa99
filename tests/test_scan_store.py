"""The result store of `sapper scan`: DuckDB file and Parquet directory, read the same way."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import duckdb
import pytest
from archive_factory import file, make_tar
from helpers import TODAY

from sapper._exceptions import UsageError
from sapper.check import Options
from sapper.model import ErrorRecord
from sapper.scan.analyse import AnalyseOptions, analyse, failed_row
from sapper.scan.corpus import Job
from sapper.scan.store import (
    FINDING_COLUMNS,
    SDIST_COLUMNS,
    Row,
    export,
    is_parquet_store,
    open_results,
    open_store,
)

OPTIONS = AnalyseOptions(check=Options(today=TODAY))


def sdist(name: str, cfg: str) -> bytes:
    root = f"{name}-1.0"
    return make_tar(
        [
            file(f"{root}/PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"),
            file(f"{root}/setup.cfg", cfg),
        ]
    )


DASHED = "[metadata]\nname = x\ndescription-file = README\n"
CLEAN = "[metadata]\nname = x\n"


def row(name: str, cfg: str = DASHED):
    return analyse(
        Job(target=f"{name}.tar.gz", filename=f"{name}-1.0.tar.gz"), sdist(name, cfg), OPTIONS
    )


@pytest.fixture(params=["scan.duckdb", "parquet-dir"])
def store_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return tmp_path / request.param


@pytest.mark.parametrize(
    ("path", "parquet"),
    [("x/scan.duckdb", False), ("scan.DB", False), ("results", True), ("r.parquet.d", True)],
)
def test_the_suffix_chooses_the_kind_of_store(path: str, parquet: bool) -> None:
    assert is_parquet_store(path) is parquet


def test_rows_are_read_back_with_their_findings(store_path: Path) -> None:
    dashed, clean = row("dashed"), row("clean", CLEAN)
    with open_store(store_path) as store:
        store.write([dashed, clean])
        assert store.done_keys() == {dashed.key, clean.key}
    con = open_results(store_path)
    sql = "SELECT project, outcome, outcome_enforced, fails, fails_enforced FROM sdists"
    got = {r[0]: r[1:] for r in con.execute(sql).fetchall()}
    (finding,) = json.loads(dashed.sdist["result"])["findings"]
    assert got == {
        "dashed": ("builds", "fails", finding["fails"], finding["fails_enforced"]),
        "clean": ("builds", "builds", [], []),
    }
    codes = con.execute("SELECT key, code FROM findings").fetchall()
    assert codes == [(dashed.key, "SC001")]
    assert {d[0] for d in con.execute("SELECT * FROM sdists").description} == set(SDIST_COLUMNS)
    assert {d[0] for d in con.execute("SELECT * FROM findings").description} == set(FINDING_COLUMNS)


def test_writing_a_key_again_replaces_its_row_and_findings(store_path: Path) -> None:
    first = row("same")
    failed = failed_row(
        Job(target="same.tar.gz", sha256=first.key), ErrorRecord(type="fetch", message="boom")
    )
    with open_store(store_path) as store:
        store.write([first])
        store.write([failed])
        assert store.failed_keys() == {first.key}
        store.write([first])
        assert store.failed_keys() == set()
    con = open_results(store_path)
    assert con.execute("SELECT count(*), min(error_type) FROM sdists").fetchone() == (1, None)
    assert con.execute("SELECT count(*) FROM findings").fetchone() == (1,)


def _plain_row(key: str, **values: object) -> Row:
    sdist = dict.fromkeys(SDIST_COLUMNS)
    sdist.update(key=key, **values)
    return Row(sdist=sdist)


# Each batch is written column by column (a list of values a column); what DuckDB infers from
# one column's list must not depend on which values share the batch.
BATCHES = {
    "ints and floats in a DOUBLE column": [
        _plain_row("a", seconds=1),
        _plain_row("b", seconds=0.25),
    ],
    "only empty lists in a list column": [
        _plain_row("a", fails=[], fails_enforced=[]),
        _plain_row("b", fails=[], fails_enforced=[]),
    ],
    "None beside lists, and only None": [
        _plain_row("a", fails=None, outcome="builds"),
        _plain_row("b", fails=["78.0.1", "78.0.2"], size=2**40, has_wheel=False),
    ],
    "one row with every kind of value": [
        _plain_row(
            "a",
            upload_time=datetime(2020, 1, 2, 3, 4, 5),
            result='{"a": [1, "x"]}',
            fails=["1"],
            error_message='it\'s "quoted"; DROP TABLE sdists',
        )
    ],
}


@pytest.mark.parametrize("batch", BATCHES.values(), ids=BATCHES.keys())
def test_a_batch_reads_back_value_for_value(store_path: Path, batch: list[Row]) -> None:
    with open_store(store_path) as store:
        store.write(batch)
    con = open_results(store_path)
    got = con.execute(f"SELECT {', '.join(SDIST_COLUMNS)} FROM sdists ORDER BY key").fetchall()
    want = [tuple(r.sdist[c] for c in SDIST_COLUMNS) for r in sorted(batch, key=Row.key.fget)]
    assert got == want


def test_a_batch_in_flight_is_never_half_visible(tmp_path: Path) -> None:
    """A partition being written has a name the readers do not match."""
    path = tmp_path / "results"
    with open_store(path) as store:
        store.write([row("one")])
    (path / "sdists" / ".part-x.parquet.tmp").write_bytes(b"half a file")
    con = open_results(path)
    assert con.execute("SELECT count(*) FROM sdists").fetchone() == (1,)


def test_the_duckdb_results_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "scan.duckdb"
    with open_store(path) as store:
        store.write([row("one")])
    con = open_results(path)
    with pytest.raises(duckdb.Error):
        con.execute("DELETE FROM sdists")


def test_meta_round_trips(store_path: Path) -> None:
    with open_store(store_path) as store:
        store.set_meta({"schema_version": "1", "top_list_date": None})
        store.set_meta({"engine": "process"})
        assert store.meta()["engine"] == "process"
    con = open_results(store_path)
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    assert meta["schema_version"] == "1"
    assert meta["top_list_date"] is None


def test_no_store_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no scan results"):
        open_results(tmp_path / "missing.duckdb")


def test_jsonl_export_has_the_check_json_schema(store_path: Path, tmp_path: Path) -> None:
    dashed = row("dashed")
    with open_store(store_path) as store:
        store.write([dashed, row("clean", CLEAN)])
    out = tmp_path / "out.jsonl"
    assert export(store_path, out) == 2
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["project"]["name"] for r in records] == ["clean", "dashed"]
    expected = json.loads(dashed.sdist["result"])
    got = records[1]
    assert {k: v for k, v in got.items() if k != "scan"} == expected
    assert got["scan"]["key"] == dashed.key
    assert got["scan"]["outcome_enforced"] == "fails"


def test_parquet_export_has_the_sdist_columns(store_path: Path, tmp_path: Path) -> None:
    with open_store(store_path) as store:
        store.write([row("one"), row("two", CLEAN)])
    out = tmp_path / "out.parquet"
    assert export(store_path, out) == 2
    con = duckdb.connect()
    columns = [d[0] for d in con.execute(f"SELECT * FROM '{out}'").description]
    assert columns == list(SDIST_COLUMNS)


def test_export_wants_a_known_suffix(store_path: Path, tmp_path: Path) -> None:
    with open_store(store_path) as store:
        store.write([row("one")])
    with pytest.raises(UsageError, match=r"\.parquet or \.jsonl"):
        export(store_path, tmp_path / "out.csv")
