"""Canary results in the DuckDB store ``sapper scan`` uses (tables of their own).

``canary_runs`` has one row per run: a run is identified by its two backends, their
environment variables, the mode, ``--all-backends`` and its corpus (:func:`corpus_identity`:
the sources, the ranking ``--top`` takes projects from, the ``--versions`` selection and the
index, but not the ``--top`` size, so a larger ``--top`` extends a run), so running the same
command again continues that run (rows already written are skipped: resumable after ``kill
-9``, since each batch is one transaction) and another pair of backends or another corpus is
a new run kept beside it. ``canary_results`` has one row per (run, sdist).

Stores written before the corpus was part of the identity hold runs without one
(``corpus`` NULL): the first run of the same settings whose corpus overlaps such a run's
targets adopts it (:meth:`CanaryStore.open_run`), so an interrupted run still resumes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import StoreError, UsageError
from .model import ROW_SCHEMA, Backend, TargetRow, side_from_json, side_json

if TYPE_CHECKING:
    import duckdb

__all__ = ["CanaryStore", "corpus_identity", "export_rows", "run_id_for"]

_DDL = (
    """CREATE TABLE IF NOT EXISTS canary_runs (
        run_id VARCHAR PRIMARY KEY, created VARCHAR, baseline VARCHAR, candidate VARCHAR,
        baseline_env VARCHAR, candidate_env VARCHAR, mode VARCHAR, all_backends BOOLEAN,
        schema VARCHAR, sapper_version VARCHAR, finished VARCHAR)""",
    """CREATE TABLE IF NOT EXISTS canary_results (
        run_id VARCHAR, key VARCHAR, target VARCHAR, project VARCHAR, version VARCHAR,
        downloads BIGINT, class VARCHAR, uses_setuptools BOOLEAN, error VARCHAR,
        baseline VARCHAR, candidate VARCHAR, written VARCHAR,
        PRIMARY KEY (run_id, key))""",
    # added after the first stores were written: older files gain it on open
    "ALTER TABLE canary_results ADD COLUMN IF NOT EXISTS permanent BOOLEAN DEFAULT false",
    # when the static verdicts were last recomputed (`sapper canary --rejudge`), and by
    # which sapper
    "ALTER TABLE canary_runs ADD COLUMN IF NOT EXISTS rejudged VARCHAR",
    "ALTER TABLE canary_runs ADD COLUMN IF NOT EXISTS rejudged_by VARCHAR",
    # the corpus part of the run's identity (corpus_identity); NULL in older stores
    "ALTER TABLE canary_runs ADD COLUMN IF NOT EXISTS corpus VARCHAR",
)


def corpus_identity(
    sources: Sequence[str],
    *,
    top: bool,
    ranking: str | None,
    versions: str,
    index_url: str | None,
    remote: bool,
) -> str:
    """The corpus part of a run's identity, as canonical JSON.

    ``sources`` as given (a path that exists made absolute; sorted, without duplicates),
    whether ``--top`` is given and the ``ranking`` it reads (the top list's source, not its
    size: a larger ``--top`` over the same ranking extends the run), and, when anything is
    resolved on the index (``remote``), the ``--versions`` selection and the index (the
    default one when None).
    """
    texts = sorted({os.path.abspath(s) if Path(s).exists() else s.strip() for s in sources})  # noqa: PTH100
    doc: dict[str, Any] = {"sources": texts, "top": ranking if top else None}
    if remote:
        from ..pypi import DEFAULT_INDEX_URL

        doc["versions"] = versions
        doc["index"] = (index_url or DEFAULT_INDEX_URL).rstrip("/")
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def run_id_for(
    baseline: Backend,
    candidate: Backend,
    mode: str,
    all_backends: bool,
    corpus: str | None = None,
) -> str:
    """The id of the run these settings make (stable: the same command continues it).

    ``corpus``: :func:`corpus_identity`; None gives the id of a run written before the
    corpus was part of the identity.
    """
    fields: list[Any] = [
        baseline.requirement,
        baseline.env,
        candidate.requirement,
        candidate.env,
        mode,
        all_backends,
    ]
    if corpus is not None:
        fields.append(corpus)
    return hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:12]


class CanaryStore:
    """The canary tables of a DuckDB file (created on first use)."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        import duckdb

        if path.is_dir():
            msg = (
                f"{path} is a directory (a Parquet scan store); canary results need a DuckDB "
                "file: give --db FILE.duckdb"
            )
            raise UsageError(msg)
        if read_only and not path.exists():
            msg = f"{path}: no such store; run `sapper canary` first, or give --db"
            raise UsageError(msg)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con: duckdb.DuckDBPyConnection = duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as exc:
            msg = f"{path}: cannot open the store ({exc}); is another sapper writing to it?"
            raise StoreError(msg) from exc
        self.path = path
        if not read_only:
            for ddl in _DDL:
                self.con.execute(ddl)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> CanaryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ----------------------------------------------------------------------------

    def open_run(
        self,
        baseline: Backend,
        candidate: Backend,
        mode: str,
        all_backends: bool,
        *,
        corpus: str,
        targets: Iterable[str] = (),
    ) -> str:
        """The id of the run of these settings and corpus: the stored one (continued), a run
        of an older store with the same settings and no corpus recorded whose targets
        overlap ``targets`` (adopted: its corpus is recorded), or a new one."""
        run_id = run_id_for(baseline, candidate, mode, all_backends, corpus)
        if self._run_exists(run_id):
            return run_id
        legacy = run_id_for(baseline, candidate, mode, all_backends)
        found = self.con.execute(
            "SELECT corpus FROM canary_runs WHERE run_id = ?", [legacy]
        ).fetchone()
        if found is not None and found[0] == corpus:  # adopted earlier
            return legacy
        if found is not None and found[0] is None and self._overlaps(legacy, set(targets)):
            self.con.execute("UPDATE canary_runs SET corpus = ? WHERE run_id = ?", [corpus, legacy])
            return legacy
        self.start_run(run_id, baseline, candidate, mode, all_backends, corpus=corpus)
        return run_id

    def _run_exists(self, run_id: str) -> bool:
        found = self.con.execute(
            "SELECT count(*) FROM canary_runs WHERE run_id = ?", [run_id]
        ).fetchone()
        return bool(found and found[0])

    def _overlaps(self, legacy: str, targets: set[str]) -> bool:
        """Whether the run ``legacy`` has no rows or a target among ``targets`` (the same
        corpus, or a prefix or extension of it)."""
        stored = {
            str(t)
            for (t,) in self.con.execute(
                "SELECT DISTINCT target FROM canary_results WHERE run_id = ?", [legacy]
            ).fetchall()
        }
        return not stored or bool(stored & targets)

    def start_run(
        self,
        run_id: str,
        baseline: Backend,
        candidate: Backend,
        mode: str,
        all_backends: bool,
        *,
        corpus: str | None = None,
    ) -> None:
        from .._version import __version__
        from ..scan.store import utcnow

        self.con.execute(
            "INSERT INTO canary_runs (run_id, created, baseline, candidate, baseline_env, "
            "candidate_env, mode, all_backends, schema, sapper_version, finished, corpus) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?) "
            "ON CONFLICT (run_id) DO NOTHING",
            [
                run_id,
                utcnow(),
                baseline.spec,
                candidate.spec,
                json.dumps(baseline.env),
                json.dumps(candidate.env),
                mode,
                all_backends,
                ROW_SCHEMA,
                __version__,
                corpus,
            ],
        )

    def finish_run(self, run_id: str) -> None:
        from ..scan.store import utcnow

        self.con.execute("UPDATE canary_runs SET finished = ? WHERE run_id = ?", [utcnow(), run_id])

    def mark_rejudged(self, run_id: str) -> None:
        """Record that the static verdicts of ``run_id`` were recomputed now, by this
        sapper (:func:`sapper.canary.rejudge.rejudge_run`)."""
        from .._version import __version__
        from ..scan.store import utcnow

        self.con.execute(
            "UPDATE canary_runs SET rejudged = ?, rejudged_by = ? WHERE run_id = ?",
            [utcnow(), __version__, run_id],
        )

    def runs(self) -> list[dict[str, Any]]:
        """Every run, newest first."""
        if not self._has_tables():
            return []
        cur = self.con.execute(
            "SELECT r.*, (SELECT count(*) FROM canary_results c WHERE c.run_id = r.run_id) AS n "
            "FROM canary_runs r ORDER BY created DESC"
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def _has_tables(self) -> bool:
        found = self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'canary_runs'"
        ).fetchone()
        return bool(found and found[0])

    def resolve_run(self, run: str | None) -> str:
        """The run id ``run`` names (a prefix is enough), or the newest run.

        :raises UsageError: when there is none, or the prefix is ambiguous.
        """
        runs = self.runs()
        if not runs:
            msg = f"{self.path}: no canary run in this store; run `sapper canary` first"
            raise UsageError(msg)
        if run is None:
            return str(runs[0]["run_id"])
        matches = [r for r in runs if str(r["run_id"]).startswith(run)]
        if len(matches) != 1:
            ids = ", ".join(str(r["run_id"]) for r in runs)
            msg = f"--run {run!r} names {len(matches)} runs; the runs are: {ids}"
            raise UsageError(msg)
        return str(matches[0]["run_id"])

    # -- results -------------------------------------------------------------------------

    def done_keys(self, run_id: str, *, retry: Sequence[str] = ()) -> set[str]:
        """Keys already written for ``run_id``, less those whose class is in ``retry``
        (unless their failure is permanent: asking again cannot help)."""
        rows = self.con.execute(
            f"SELECT key, class, {self._permanent_column()} FROM canary_results WHERE run_id = ?",
            [run_id],
        ).fetchall()
        return {str(k) for k, c, permanent in rows if c not in retry or permanent}

    def write(self, run_id: str, rows: Sequence[TargetRow]) -> None:
        """Write ``rows`` in one transaction (replacing earlier rows of the same keys)."""
        from ..scan.store import utcnow

        if not rows:
            return
        now = utcnow()
        self.con.execute("BEGIN TRANSACTION")
        try:
            for row in rows:
                self.con.execute(
                    "INSERT OR REPLACE INTO canary_results (run_id, key, target, project, "
                    "version, downloads, class, uses_setuptools, error, baseline, candidate, "
                    "written, permanent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        run_id,
                        row.key,
                        row.target,
                        row.project,
                        row.version,
                        row.downloads,
                        row.cls,
                        row.uses_setuptools,
                        row.error,
                        side_json(row.baseline),
                        side_json(row.candidate),
                        now,
                        row.permanent,
                    ],
                )
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise

    def _permanent_column(self) -> str:
        """``permanent``, or ``false`` in a store written before the column (opened
        read-only, so not given it)."""
        found = self.con.execute(
            "SELECT count(*) FROM information_schema.columns "
            "WHERE table_name = 'canary_results' AND column_name = 'permanent'"
        ).fetchone()
        return "permanent" if found and found[0] else "false"

    def rows(self, run_id: str) -> Iterator[TargetRow]:
        cur = self.con.execute(
            "SELECT key, target, project, version, downloads, class, uses_setuptools, error, "
            f"baseline, candidate, {self._permanent_column()} FROM canary_results "
            "WHERE run_id = ? ORDER BY key",
            [run_id],
        )
        for (
            key,
            target,
            project,
            version,
            downloads,
            cls,
            uses,
            error,
            base,
            cand,
            permanent,
        ) in cur.fetchall():
            yield TargetRow(
                key=key,
                target=target,
                project=project,
                version=version,
                downloads=downloads,
                cls=cls,
                uses_setuptools=uses,
                error=error,
                baseline=side_from_json(base),
                candidate=side_from_json(cand),
                permanent=bool(permanent),
            )


def export_rows(rows: Sequence[TargetRow], dest: Path) -> int:
    """Write ``rows`` to ``dest`` (``.jsonl`` or ``.parquet``); return how many.

    :raises UsageError: for another suffix.
    """
    suffix = dest.suffix.lower()
    if suffix not in (".jsonl", ".parquet"):
        msg = f"--export {dest}: give a .jsonl or .parquet file name"
        raise UsageError(msg)
    dest.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(row.export(), sort_keys=True) for row in rows]
    if suffix == ".jsonl":
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
        tmp.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        tmp.replace(dest)
        return len(lines)
    import tempfile

    import duckdb

    with tempfile.TemporaryDirectory() as tmpdir:
        source = Path(tmpdir) / "rows.jsonl"
        source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        con = duckdb.connect()
        try:
            if lines:
                con.execute(
                    f"COPY (SELECT * FROM read_json_auto('{_quote(source)}', "
                    "format='newline_delimited', maximum_object_size=16777216)) "
                    f"TO '{_quote(dest)}' (FORMAT PARQUET)"
                )
            else:
                con.execute(
                    f"COPY (SELECT NULL AS target LIMIT 0) TO '{_quote(dest)}' (FORMAT PARQUET)"
                )
        finally:
            con.close()
    return len(lines)


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")
