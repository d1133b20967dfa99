"""Open the result store ``sapper scan`` writes, read-only, for reporting.

The store is a DuckDB file (tables ``meta``, ``sdists``, ``findings``) or a directory of
Parquet partitions ``sdists/part-*.parquet`` and ``findings/part-*.parquet`` with the same
columns, plus ``meta.json``. Either way :func:`open_store` gives a DuckDB connection with the
relations ``sdists`` and ``findings``, and the ``meta`` mapping; it never writes to the store.
In a Parquet directory an sdist written by several runs counts once, by its newest row
(``scanned_at``), with the findings of that row's partition. The columns the report reads are
checked, so a foreign or outdated store fails with a message instead of a SQL error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._cli_common import DEFAULT_STORE
from .._exceptions import StoreError, UsageError
from ..scan.store import SCHEMA_VERSION

if TYPE_CHECKING:
    import duckdb

__all__ = ["DEFAULT_STORE", "SCHEMA_VERSION", "Store", "StoreError", "open_store"]

#: The columns the report reads.
_NEEDED = {
    "sdists": (
        "key",
        "project",
        "version",
        "upload_time",
        "downloads",
        "has_wheel",
        "has_pure_wheel",
        "outcome",
        "outcome_enforced",
        "fails",
        "fails_enforced",
        "error_type",
    ),
    "findings": ("key", "code", "slug", "status", "fails", "fails_enforced", "due_date"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Store:
    """An open, read-only result store."""

    path: Path
    kind: Literal["duckdb", "parquet"]
    meta: dict[str, str | None]
    con: duckdb.DuckDBPyConnection

    def close(self) -> None:
        self.con.close()


def _check(con: duckdb.DuckDBPyConnection, path: Path) -> dict[str, str | None]:
    import duckdb

    for table, wanted in _NEEDED.items():
        try:
            have = {row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()}
        except duckdb.Error:
            msg = (
                f"{path} has no `{table}` table: it was not written by `sapper scan`; "
                "pass the DuckDB file or Parquet directory `sapper scan` wrote"
            )
            raise StoreError(msg) from None
        lacking = [c for c in wanted if c not in have]
        if lacking:
            msg = (
                f"{path}: table `{table}` lacks the columns {', '.join(lacking)}; it was "
                "not written by this version of `sapper scan`: scan again"
            )
            raise StoreError(msg)
    try:
        rows = con.execute("SELECT key, value FROM meta").fetchall()
    except duckdb.Error:
        rows = []
    meta = {str(k): None if v is None else str(v) for k, v in rows}
    version = meta.get("schema_version")
    if version is not None and version != SCHEMA_VERSION:
        msg = (
            f"{path} has result-store schema version {version}; this sapper reads version "
            f"{SCHEMA_VERSION}: report with the sapper that scanned it, or scan again"
        )
        raise StoreError(msg)
    return meta


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _open_parquet(path: Path) -> duckdb.DuckDBPyConnection:
    import duckdb

    con = duckdb.connect(":memory:")
    sdists = _sql_str(str(path / "sdists" / "part-*.parquet"))
    findings = _sql_str(str(path / "findings" / "part-*.parquet"))
    newest = (
        f"SELECT *, row_number() OVER (PARTITION BY key ORDER BY scanned_at DESC NULLS LAST, "
        f"part_file DESC) AS n FROM read_parquet({sdists}, union_by_name = true, "
        "filename = 'part_file')"
    )
    try:
        if not any(path.glob("sdists/part-*.parquet")):
            msg = (
                f"{path} holds no sdists/part-*.parquet files: pass the DuckDB file or the "
                "Parquet directory `sapper scan` wrote"
            )
            raise StoreError(msg)
        con.execute(
            "CREATE TEMP VIEW sdists AS SELECT * EXCLUDE (n, part_file) "
            f"FROM ({newest}) WHERE n = 1"
        )
        if any(path.glob("findings/part-*.parquet")):
            # a key's findings come from the partition of its newest sdists row
            con.execute(
                "CREATE TEMP VIEW findings AS SELECT f.* EXCLUDE (part_file) FROM "
                f"read_parquet({findings}, union_by_name = true, filename = 'part_file') AS f "
                f"SEMI JOIN ({newest}) AS s ON f.key = s.key AND s.n = 1 AND "
                "parse_filename(f.part_file) = parse_filename(s.part_file)"
            )
        else:
            con.execute(
                "CREATE TEMP TABLE findings (key TEXT, code TEXT, slug TEXT, status TEXT, "
                "path TEXT, line INTEGER, fails VARCHAR[], fails_enforced VARCHAR[], "
                "warns VARCHAR[], due_date TEXT)"
            )
        con.execute("CREATE TEMP TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        meta_file = path / "meta.json"
        if meta_file.is_file():
            try:
                raw = json.loads(meta_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                msg = f"{meta_file}: not a JSON object ({exc}); scan again or remove it"
                raise StoreError(msg) from exc
            if raw:
                con.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [[str(k), None if v is None else str(v)] for k, v in dict(raw).items()],
                )
    except duckdb.Error as exc:
        con.close()
        msg = f"{path}: cannot read the Parquet partitions ({exc}); scan again"
        raise StoreError(msg) from exc
    except BaseException:
        con.close()
        raise
    return con


def _open_duckdb(path: Path) -> duckdb.DuckDBPyConnection:
    import duckdb

    try:
        return duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        msg = (
            f"cannot open {path} as a DuckDB database ({exc}); if `sapper scan` is still "
            "writing it, wait for it to finish (or report on a copy)"
        )
        raise StoreError(msg) from exc


def open_store(path: str | Path) -> Store:
    """Open a DuckDB file or a Parquet directory written by ``sapper scan``, read-only.

    :raises UsageError: nothing is at ``path``.
    :raises StoreError: what is there is not a result store this sapper can read.
    """
    path = Path(path)
    if path.is_dir():
        con = _open_parquet(path)
    elif path.is_file():
        con = _open_duckdb(path)
    else:
        msg = (
            f"no scan results at {path}: run `sapper scan` first (it writes {DEFAULT_STORE} "
            "by default), or pass the DuckDB file or Parquet directory it wrote"
        )
        raise UsageError(msg)
    try:
        meta = _check(con, path)
    except BaseException:
        con.close()
        raise
    return Store(path=path, kind="parquet" if path.is_dir() else "duckdb", meta=meta, con=con)
