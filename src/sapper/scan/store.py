"""The result store of ``sapper scan``: a DuckDB file, or a directory of Parquet partitions.

A DuckDB file (``.sapper/scan.duckdb``) has the tables ``meta``, ``sdists`` and ``findings``
(:data:`DDL`). A store whose path ends in neither ``.duckdb`` nor ``.db`` (the Dask engine's
default) is a directory instead: ``meta.json``, ``sdists/part-*.parquet`` and
``findings/part-*.parquet`` with the same columns (``result`` as a JSON string).
:func:`open_results` reads either the same way.

Only one process writes a store. Rows are written in batches, each batch in one transaction
(DuckDB) or as one partition renamed into place (Parquet), so a scan killed at any moment
loses at most the batch in flight and never leaves half of one; :meth:`Store.done_keys` lets
the next run skip what is done.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .._exceptions import StoreError, UsageError

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "DDL",
    "FINDING_COLUMNS",
    "SCHEMA_VERSION",
    "SDIST_COLUMNS",
    "Row",
    "Store",
    "export",
    "is_parquet_store",
    "open_results",
    "open_store",
]

SCHEMA_VERSION: Final = "1"

_SDISTS_DDL: Final = """
CREATE TABLE IF NOT EXISTS sdists (
  key TEXT PRIMARY KEY,
  project TEXT, version TEXT, filename TEXT, sha256 TEXT,
  upload_time TIMESTAMP, size BIGINT, downloads BIGINT,
  has_wheel BOOLEAN,
  has_pure_wheel BOOLEAN,
  backend TEXT,
  outcome TEXT,
  outcome_enforced TEXT,
  fails VARCHAR[],
  fails_enforced VARCHAR[],
  result JSON,
  error_type TEXT, error_message TEXT,
  seconds DOUBLE, scanned_at TIMESTAMP
)"""
_FINDINGS_DDL: Final = """
CREATE TABLE IF NOT EXISTS findings (
  key TEXT, code TEXT, slug TEXT, status TEXT, path TEXT, line INTEGER,
  fails VARCHAR[], fails_enforced VARCHAR[], warns VARCHAR[], due_date TEXT
)"""
_META_DDL: Final = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)"

#: The schema of a DuckDB store.
DDL: Final = ";\n".join((_META_DDL, _SDISTS_DDL, _FINDINGS_DDL)) + ";\n"

SDIST_COLUMNS: Final = (
    "key",
    "project",
    "version",
    "filename",
    "sha256",
    "upload_time",
    "size",
    "downloads",
    "has_wheel",
    "has_pure_wheel",
    "backend",
    "outcome",
    "outcome_enforced",
    "fails",
    "fails_enforced",
    "result",
    "error_type",
    "error_message",
    "seconds",
    "scanned_at",
)
FINDING_COLUMNS: Final = (
    "key",
    "code",
    "slug",
    "status",
    "path",
    "line",
    "fails",
    "fails_enforced",
    "warns",
    "due_date",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One analysed (or failed) sdist, ready for the store.

    ``sdist`` maps :data:`SDIST_COLUMNS` to plain values (``result`` is a JSON string,
    ``upload_time`` and ``scanned_at`` naive UTC datetimes or None, the ``VARCHAR[]`` columns
    lists of strings); ``findings`` holds one mapping of :data:`FINDING_COLUMNS` per finding.
    """

    sdist: Mapping[str, Any]
    findings: tuple[Mapping[str, Any], ...] = ()
    #: Built by another backend than setuptools (its outcome ``unknown``); not stored, the
    #: ``backend`` column and the result say so.
    other_backend: bool = False

    @property
    def key(self) -> str:
        return str(self.sdist["key"])


def is_parquet_store(path: str | os.PathLike[str]) -> bool:
    """A store path not ending in ``.duckdb`` (or ``.db``) is a Parquet directory."""
    return not os.fspath(path).lower().endswith((".duckdb", ".db"))


def _connect(path: str, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    import duckdb

    try:
        return duckdb.connect(path, read_only=read_only)
    except duckdb.Error as exc:
        msg = (
            f"{path}: cannot open the scan database ({exc}); another sapper process may be "
            "writing it, or it is not a DuckDB file: wait for it, or pass another --db"
        )
        raise StoreError(msg) from exc


def utcnow() -> str:
    """Now, in UTC, as the meta table spells times (``2026-12-03 13:02:51``)."""
    return _dt.datetime.now(tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


class Store:
    """Where one scan writes its rows; the base of the DuckDB and Parquet stores."""

    path: Path

    def done_keys(self) -> set[str]:
        """Keys of the sdists already in the store."""
        raise NotImplementedError

    def failed_keys(self) -> set[str]:
        """Keys of the sdists recorded with an error and no verdict."""
        raise NotImplementedError

    def write(self, rows: Sequence[Row]) -> None:
        """Write one batch of rows atomically; a row replaces one with the same key."""
        raise NotImplementedError

    def set_meta(self, values: Mapping[str, str | None]) -> None:
        raise NotImplementedError

    def meta(self) -> dict[str, str | None]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the store (idempotent)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _row_values(row: Mapping[str, Any], columns: Sequence[str]) -> list[Any]:
    return [row.get(c) for c in columns]


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[str], rows: list[list[Any]]
) -> None:
    """Insert ``rows`` with one statement: a parameter a column, each the list of that
    column's values, unnested side by side. Binding a few lists costs DuckDB about half as
    much as a multi-row ``VALUES`` with a parameter a value (``executemany`` is slower still).
    """
    if not rows:
        return
    values = [list(column) for column in zip(*rows, strict=True)]
    names = ", ".join(columns)
    unnested = ", ".join(f"unnest(?) AS {name}" for name in columns)
    con.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM (SELECT {unnested})", values)


class DuckDBStore(Store):
    """A DuckDB file; the process that opens it is its only writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._con: duckdb.DuckDBPyConnection | None = _connect(str(path))
        self._con.execute(DDL)

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            msg = f"{self.path}: the store is closed"
            raise UsageError(msg)
        return self._con

    def done_keys(self) -> set[str]:
        return {k for (k,) in self.con.execute("SELECT key FROM sdists").fetchall()}

    def failed_keys(self) -> set[str]:
        rows = self.con.execute(
            "SELECT key FROM sdists WHERE error_type IS NOT NULL AND outcome IS NULL"
        ).fetchall()
        return {k for (k,) in rows}

    def write(self, rows: Sequence[Row]) -> None:
        if not rows:
            return
        con = self.con
        keys = [r.key for r in rows]
        sdists = [_row_values(r.sdist, SDIST_COLUMNS) for r in rows]
        findings = [_row_values(f, FINDING_COLUMNS) for r in rows for f in r.findings]
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute("DELETE FROM findings WHERE key IN (SELECT unnest(?))", [keys])
            con.execute("DELETE FROM sdists WHERE key IN (SELECT unnest(?))", [keys])
            _insert(con, "sdists", SDIST_COLUMNS, sdists)
            _insert(con, "findings", FINDING_COLUMNS, findings)
            con.execute("INSERT OR REPLACE INTO meta VALUES ('last_run_at', ?)", [utcnow()])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def set_meta(self, values: Mapping[str, str | None]) -> None:
        self.con.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", [[k, v] for k, v in values.items()]
        )

    def meta(self) -> dict[str, str | None]:
        return dict(self.con.execute("SELECT key, value FROM meta").fetchall())

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


class ParquetStore(Store):
    """A directory of Parquet partitions, one per batch, each renamed into place whole."""

    def __init__(self, path: Path) -> None:
        if path.exists() and not path.is_dir():
            msg = f"{path}: not a directory; a Parquet store is a directory (or use a .duckdb path)"
            raise UsageError(msg)
        self.path = path
        self._wrote = False
        for sub in ("sdists", "findings"):
            (path / sub).mkdir(parents=True, exist_ok=True)

    def _query(self, sql: str) -> set[str]:
        if not any((self.path / "sdists").glob("part-*.parquet")):
            return set()
        con = _connect(":memory:")
        try:
            glob = str(self.path / "sdists" / "part-*.parquet")
            src = f"read_parquet('{_quote(glob)}', filename='part_')"
            rows = con.execute(sql.format(src=src)).fetchall()
        finally:
            con.close()
        return {k for (k,) in rows}

    def done_keys(self) -> set[str]:
        return self._query("SELECT key FROM {src}")

    def failed_keys(self) -> set[str]:
        # a key written again later (a retry) counts by its newest partition
        from .results import NEWEST_PARTITION

        return self._query(
            f"SELECT key FROM {{src}} QUALIFY {NEWEST_PARTITION} = 1 "
            "AND error_type IS NOT NULL AND outcome IS NULL"
        )

    def write(self, rows: Sequence[Row]) -> None:
        if not rows:
            return
        con = _connect(":memory:")
        try:
            con.execute(_SDISTS_DDL.replace("key TEXT PRIMARY KEY", "key TEXT"))
            con.execute(_FINDINGS_DDL)
            _insert(
                con, "sdists", SDIST_COLUMNS, [_row_values(r.sdist, SDIST_COLUMNS) for r in rows]
            )
            findings = [_row_values(f, FINDING_COLUMNS) for r in rows for f in r.findings]
            _insert(con, "findings", FINDING_COLUMNS, findings)
            stamp = _dt.datetime.now(tz=_dt.timezone.utc).strftime("%Y%m%dT%H%M%S%f")
            name = f"part-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
            # findings first: a partition of sdists is what marks the batch done
            for table in ("findings", "sdists"):
                final = self.path / table / name
                tmp = self.path / table / f".{name}.tmp"
                con.execute(
                    f"COPY (SELECT * FROM {table}) TO '{_quote(str(tmp))}' (FORMAT parquet)"
                )
                tmp.replace(final)
        finally:
            con.close()
        # meta.json is rewritten once, on close, not once per batch
        self._wrote = True

    def close(self) -> None:
        if self._wrote:
            self._wrote = False
            self.set_meta({"last_run_at": utcnow()})

    def set_meta(self, values: Mapping[str, str | None]) -> None:
        meta = self.meta()
        meta.update(values)
        target = self.path / "meta.json"
        tmp = self.path / ".meta.json.tmp"
        tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(target)

    def meta(self) -> dict[str, str | None]:
        try:
            data = json.loads((self.path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): (None if v is None else str(v)) for k, v in data.items()}


def _quote(text: str) -> str:
    return text.replace("'", "''")


def open_store(path: str | os.PathLike[str]) -> Store:
    """Open (creating it if needed) the store at ``path`` for writing."""
    target = Path(path)
    if is_parquet_store(target):
        return ParquetStore(target)
    return DuckDBStore(target)


def open_results(path: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """A read-only DuckDB connection with ``meta``, ``sdists`` and ``findings`` over a store.

    ``path`` is a DuckDB file written by ``sapper scan`` or a directory of Parquet partitions.
    A key written by several runs counts once, by the row written last (see
    :mod:`sapper.scan.results`, the reader ``sapper report`` uses too).

    :raises UsageError: if there is no store at ``path``.
    :raises StoreError: if what is there cannot be read as a store.
    """
    from .results import read_results

    con, _ = read_results(path)
    return con


def export(path: str | os.PathLike[str], dest: str | os.PathLike[str]) -> int:
    """Write the sdists of the store at ``path`` to ``dest`` (``.parquet`` or ``.jsonl``).

    A ``.jsonl`` file has one JSON object per sdist: the per-target schema of
    ``sapper check --format json`` (``sapper.render.json.result_dict``) plus a ``scan`` object
    with the other columns. A ``.parquet`` file has the columns of the ``sdists`` table.
    Returns the number of sdists written.
    """
    out = Path(dest)
    suffix = out.suffix.lower()
    if suffix not in (".parquet", ".jsonl"):
        msg = f"--export {out}: the file name must end in .parquet or .jsonl"
        raise UsageError(msg)
    con = open_results(path)
    try:
        (count,) = con.execute("SELECT count(*) FROM sdists").fetchone() or (0,)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.tmp")
        if suffix == ".parquet":
            con.execute(
                f"COPY (SELECT * FROM sdists ORDER BY key) TO '{_quote(str(tmp))}' (FORMAT parquet)"
            )
        else:
            cursor = con.execute(
                f"SELECT {', '.join(SDIST_COLUMNS)} FROM sdists ORDER BY project, version, key"
            )
            with tmp.open("w", encoding="utf-8") as stream:
                while batch := cursor.fetchmany(1000):
                    for values in batch:
                        stream.write(_jsonl_record(dict(zip(SDIST_COLUMNS, values, strict=True))))
        tmp.replace(out)
    finally:
        con.close()
    return int(count)


def _jsonl_record(row: dict[str, Any]) -> str:
    result = json.loads(row.pop("result") or "{}")
    scan = {k: _plain(v) for k, v in row.items()}
    result["scan"] = scan
    return json.dumps(result, ensure_ascii=False, sort_keys=False) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, _dt.datetime | _dt.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    return value
