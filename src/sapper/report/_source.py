"""Open the result store ``sapper scan`` writes, read-only, for reporting.

The store is a DuckDB file (tables ``meta``, ``sdists``, ``findings``) or a directory of
Parquet partitions ``sdists/part-*.parquet`` and ``findings/part-*.parquet`` with the same
columns, plus ``meta.json``. Either way :func:`open_store` gives a DuckDB connection with the
relations ``sdists`` and ``findings``, and the ``meta`` mapping; it never writes to the store.
It reads through :func:`sapper.scan.results.read_results`, as ``sapper scan --export`` does:
an sdist written by several runs counts once, by the row written last, with that row's
findings. The columns the report reads are checked, so a foreign or outdated store fails
with a message instead of a SQL error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._defaults import DEFAULT_STORE
from .._exceptions import StoreError
from ..scan.results import read_results
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


def open_store(path: str | Path) -> Store:
    """Open a DuckDB file or a Parquet directory written by ``sapper scan``, read-only.

    :raises UsageError: nothing is at ``path``.
    :raises StoreError: what is there is not a result store this sapper can read.
    """
    path = Path(path)
    con, kind = read_results(path)
    try:
        meta = _check(con, path)
    except BaseException:
        con.close()
        raise
    return Store(path=path, kind=kind, meta=meta, con=con)
