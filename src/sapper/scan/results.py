"""The one reader of the result store, shared by ``sapper scan --export`` and ``sapper report``.

A store is a DuckDB file (tables ``meta``, ``sdists``, ``findings``) or a directory of
Parquet partitions (``sdists/part-*.parquet``, ``findings/part-*.parquet``, ``meta.json``).
:func:`read_results` gives a read-only DuckDB connection with the relations ``sdists``,
``findings`` and ``meta`` over either, and never writes to the store.

**Which row of a key counts.** In a DuckDB store, writing a key again replaces its row and
findings: the row written last is the only one. A Parquet directory keeps every partition,
so the reader applies the same rule: a key written by several batches (a rerun with
``--retry-failed``, a resumed scan) counts once, by the row of the partition written last,
with the findings of that same partition. Partition names begin with the time the single
writer wrote them (``part-YYYYmmddTHHMMSSffffff-<random>``), so the last name in order is the
last write. ``scanned_at`` does not decide: it is when a worker analysed the sdist (on a
Dask worker, by that worker's clock), not when its row replaced the earlier one, and it is
what the writer's own ``failed_keys`` ignores too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._defaults import DEFAULT_STORE
from .._exceptions import StoreError, UsageError

if TYPE_CHECKING:
    import os

    import duckdb

__all__ = ["NEWEST_PARTITION", "StoreKind", "read_results"]

StoreKind = Literal["duckdb", "parquet"]

#: The ordering that picks the row of a key that counts (see the module docstring), over a
#: ``read_parquet(..., filename = 'part_')`` relation.
NEWEST_PARTITION = "row_number() OVER (PARTITION BY key ORDER BY parse_filename(part_) DESC)"


_EMPTY_SDISTS = """CREATE TEMP TABLE sdists (
  key TEXT, project TEXT, version TEXT, filename TEXT, sha256 TEXT,
  upload_time TIMESTAMP, size BIGINT, downloads BIGINT, has_wheel BOOLEAN,
  has_pure_wheel BOOLEAN, backend TEXT, outcome TEXT, outcome_enforced TEXT,
  fails VARCHAR[], fails_enforced VARCHAR[], result JSON, error_type TEXT,
  error_message TEXT, seconds DOUBLE, scanned_at TIMESTAMP)"""
_EMPTY_FINDINGS = """CREATE TEMP TABLE findings (
  key TEXT, code TEXT, slug TEXT, status TEXT, path TEXT, line INTEGER,
  fails VARCHAR[], fails_enforced VARCHAR[], warns VARCHAR[], due_date TEXT)"""


def read_results(path: str | os.PathLike[str]) -> tuple[duckdb.DuckDBPyConnection, StoreKind]:
    """A read-only connection with ``sdists``, ``findings`` and ``meta`` over the store.

    :raises UsageError: nothing is at ``path``.
    :raises StoreError: what is there cannot be opened as a store.
    """
    target = Path(path)
    if target.is_dir():
        return _open_parquet(target), "parquet"
    if target.is_file():
        return _open_duckdb(target), "duckdb"
    msg = (
        f"no scan results at {target}: run `sapper scan` first (it writes {DEFAULT_STORE} "
        "by default), or pass the DuckDB file or Parquet directory it wrote"
    )
    raise UsageError(msg)


def _open_duckdb(path: Path) -> duckdb.DuckDBPyConnection:
    import duckdb

    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        msg = (
            f"cannot open {path} as a DuckDB database ({exc}); if `sapper scan` is still "
            "writing it, wait for it to finish (or read a copy)"
        )
        raise StoreError(msg) from exc


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _open_parquet(path: Path) -> duckdb.DuckDBPyConnection:
    import duckdb

    has_sdists = any(path.glob("sdists/part-*.parquet"))
    if not has_sdists and not (path / "meta.json").is_file():
        msg = (
            f"{path} holds no sdists/part-*.parquet files: pass the DuckDB file or the "
            "Parquet directory `sapper scan` wrote"
        )
        raise StoreError(msg)
    con = duckdb.connect(":memory:")
    try:
        sdists = f"read_parquet({_sql_str(str(path / 'sdists' / 'part-*.parquet'))}, "
        sdists += "union_by_name = true, filename = 'part_')"
        if has_sdists:
            con.execute(
                f"CREATE TEMP VIEW sdists AS SELECT * EXCLUDE (part_) FROM {sdists} "
                f"QUALIFY {NEWEST_PARTITION} = 1"
            )
        else:
            con.execute(_EMPTY_SDISTS)
        if has_sdists and any(path.glob("findings/part-*.parquet")):
            findings = f"read_parquet({_sql_str(str(path / 'findings' / 'part-*.parquet'))}, "
            findings += "union_by_name = true, filename = 'part_')"
            # a key's findings come from the partition of the row that counts
            con.execute(
                f"CREATE TEMP VIEW findings AS SELECT f.* EXCLUDE (part_) FROM {findings} AS f "
                f"SEMI JOIN (SELECT key, parse_filename(part_) AS part FROM {sdists} "
                f"QUALIFY {NEWEST_PARTITION} = 1) AS s "
                "ON f.key = s.key AND parse_filename(f.part_) = s.part"
            )
        else:
            con.execute(_EMPTY_FINDINGS)
        con.execute("CREATE TEMP TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        meta_file = path / "meta.json"
        if meta_file.is_file():
            try:
                raw = json.loads(meta_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                msg = f"{meta_file}: not a JSON object ({exc}); scan again or remove it"
                raise StoreError(msg) from exc
            if not isinstance(raw, dict):
                msg = f"{meta_file}: not a JSON object; scan again or remove it"
                raise StoreError(msg)
            if raw:
                con.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [[str(k), None if v is None else str(v)] for k, v in raw.items()],
                )
    except duckdb.Error as exc:
        con.close()
        msg = f"{path}: cannot read the Parquet partitions ({exc}); scan again"
        raise StoreError(msg) from exc
    except BaseException:
        con.close()
        raise
    return con
