"""Benchmark: ``sapper report`` on a synthetic PyPI-sized result store.

    python benchmarks/report.py [N_SDISTS]             (default 1,000,000)

Builds a DuckDB store of N sdists over N/4 projects (about 45% with findings) in a temporary
directory, then times, in the same run, a baseline (one grouped query joining sdists and
findings: the least any report over the store costs) and the full report (summary, text,
JSON and HTML), and prints both and their ratio. Not a test: it takes tens of seconds.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE sdists (
  key TEXT PRIMARY KEY, project TEXT, version TEXT, filename TEXT, sha256 TEXT,
  upload_time TIMESTAMP, size BIGINT, downloads BIGINT, has_wheel BOOLEAN,
  has_pure_wheel BOOLEAN, backend TEXT, outcome TEXT, outcome_enforced TEXT,
  fails VARCHAR[], fails_enforced VARCHAR[], result JSON, error_type TEXT,
  error_message TEXT, seconds DOUBLE, scanned_at TIMESTAMP
);
CREATE TABLE findings (
  key TEXT, code TEXT, slug TEXT, status TEXT, path TEXT, line INTEGER,
  fails VARCHAR[], fails_enforced VARCHAR[], warns VARCHAR[], due_date TEXT
);
"""


def make_store(path: Path, n: int) -> None:
    import duckdb

    projects = max(n // 4, 1)
    con = duckdb.connect(str(path))
    con.execute(DDL)
    con.execute("INSERT INTO meta VALUES ('schema_version', '1'), ('newest_setuptools', '84.2.1')")
    con.execute(
        f"""
        INSERT INTO sdists SELECT
          md5(i::TEXT), 'proj' || (i % {projects}), (i // {projects})::TEXT || '.0', NULL, NULL,
          TIMESTAMP '2008-01-01' + to_days((hash(i) % 6500)::INTEGER), 1000,
          CASE WHEN i % 7 = 0 THEN NULL ELSE (hash(i * 3) % 10000000)::BIGINT END,
          i % 3 = 0, i % 6 = 0, 'setuptools.build_meta:__legacy__',
          CASE WHEN i % 50 = 0 THEN NULL WHEN i % 5 = 0 THEN 'fails'
               WHEN i % 7 = 0 THEN 'unknown' ELSE 'builds' END,
          CASE WHEN i % 50 = 0 THEN NULL WHEN i % 5 = 0 OR i % 3 = 1 THEN 'fails'
               WHEN i % 7 = 0 THEN 'unknown' ELSE 'builds' END,
          CASE WHEN i % 5 = 0 THEN ['>=58.0.2'] WHEN i % 3 = 1 THEN ['==78.0.1'] ELSE [] END,
          CASE WHEN i % 5 = 0 THEN ['>=58.0.2'] WHEN i % 3 = 1 THEN ['>=67.7.0'] ELSE [] END,
          NULL, CASE WHEN i % 50 = 0 THEN 'fetch' END, NULL, 0.01, now()
        FROM range({n}) AS t(i)
        """
    )
    con.execute(
        f"""
        INSERT INTO findings SELECT
          md5(i::TEXT), CASE WHEN i % 5 = 0 THEN 'SP002' ELSE 'SC001' END,
          CASE WHEN i % 5 = 0 THEN 'setuppy-use-2to3' ELSE 'setupcfg-dash-separated-key' END,
          CASE WHEN i % 5 = 0 THEN 'removed' ELSE 'overdue' END, 'setup.cfg', 3,
          CASE WHEN i % 5 = 0 THEN ['>=58.0.2'] ELSE ['==78.0.1'] END,
          CASE WHEN i % 5 = 0 THEN ['>=58.0.2'] ELSE ['>=67.7.0'] END, [], '2026-03-03'
        FROM range({n}) AS t(i) WHERE i % 50 <> 0 AND (i % 5 = 0 OR i % 3 = 1)
        """
    )
    con.close()


def baseline(path: Path) -> float:
    import duckdb

    start = time.perf_counter()
    con = duckdb.connect(str(path), read_only=True)
    con.execute(
        "SELECT f.code, f.status, count(DISTINCT s.key), sum(s.downloads) "
        "FROM findings AS f JOIN sdists AS s USING (key) GROUP BY ALL"
    ).fetchall()
    con.close()
    return time.perf_counter() - start


def report(path: Path) -> float:
    from sapper.render.text import Style
    from sapper.report import open_store, summarize
    from sapper.report.html import render_html
    from sapper.report.json import render_json
    from sapper.report.text import render_text

    start = time.perf_counter()
    store = open_store(path)
    try:
        summary = summarize(store)
    finally:
        store.close()
    render_text(summary, Style(color=False))
    render_json(summary)
    render_html(summary)
    return time.perf_counter() - start


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scan.duckdb"
        make_store(path, n)
        base = baseline(path)
        full = report(path)
    print(f"{n:,} sdists: baseline query {base:.2f} s, sapper report {full:.2f} s")
    print(f"ratio report/baseline: {full / base:.1f}")


if __name__ == "__main__":
    main()
