"""How long a rerun of a finished ``sapper scan --top N`` takes, against the code before.

A rerun resolves every project again (the newest release may have changed) and then skips
every sdist already in the store, so its time is the resolve phase. Contenders, each a
fresh ``python -m sapper scan --top N`` process on its own copy of the store, run in turn
(``--repeat`` rounds, best kept) so that a busy machine penalises them alike:

* ``baseline``: sapper at ``--baseline`` (a git revision; default 1e00bcb, the last commit
  before the page cache and the lazy page parser), taken with ``git archive`` into a
  temporary directory; it caches no project page;
* ``cold``: ``--revision`` (default ``HEAD``, also taken with ``git archive``) with an empty
  cache: every page fetched and parsed (the pages it caches seed the next two);
* ``stale``: the same with the cached pages aged past their lifetime, so each is
  revalidated (a conditional request; a full GET from an index that gives no validators);
* ``fresh``: the same with the cached pages younger than their lifetime (a rerun within
  PyPI's ``max-age=600``): no request at all.

Prints the seconds of each and the ratio to the baseline. Needs the finished store (give
``--prepare`` to run the scan first) and network access to the index.

    python benchmarks/resolve.py --top 400 --db /tmp/top400.duckdb [--prepare] [--repeat 2]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _sapper(src: Path, args: list[str], cache: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src), "SAPPER_CACHE_DIR": str(cache)}
    env.pop("NO_COLOR", None)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sapper", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        msg = f"sapper {' '.join(args)} failed ({done.returncode}):\n{done.stderr}"
        raise SystemExit(msg)
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if "scanned 0 sdists" not in last:
        msg = f"not a rerun of a finished scan (something was scanned): {last}"
        raise SystemExit(msg)
    return seconds


def _baseline_tree(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "src"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _age_pages(cache: Path, seconds: float) -> int:
    count = 0
    for record in cache.glob("pages/*/*.json"):
        data = json.loads(record.read_text())
        data["fetched_at"] -= seconds
        record.write_text(json.dumps(data))
        count += 1
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=400)
    parser.add_argument("--db", type=Path, required=True, help="the finished scan's DuckDB file")
    parser.add_argument("--baseline", default="1e00bcb", help="git revision of the baseline")
    parser.add_argument(
        "--revision", default="HEAD", help="git revision measured against the baseline"
    )
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument(
        "--prepare", action="store_true", help="run the scan into --db first (downloads)"
    )
    args = parser.parse_args()
    here_src = ROOT / "src"
    common = ["--top", str(args.top), "--progress", "never", "-j", "1"]
    common += ["--connections", str(args.connections)]
    if args.prepare:
        subprocess.run(
            [sys.executable, "-m", "sapper", "scan", *common, "--db", str(args.db)],
            env={**os.environ, "PYTHONPATH": str(here_src)},
            check=True,
        )
    with tempfile.TemporaryDirectory(prefix="sapper-bench-resolve-") as tmp_name:
        tmp = Path(tmp_name)
        baseline_src = _baseline_tree(args.baseline, tmp / "baseline")
        here_src = _baseline_tree(args.revision, tmp / "new")
        times: dict[str, list[float]] = {}
        pages = 0
        for round_ in range(args.repeat):
            # cold first: the pages it caches are the stale and fresh runs' starting point
            for name in ("cold", "baseline", "stale", "fresh"):
                db = tmp / f"{name}-{round_}.duckdb"
                shutil.copyfile(args.db, db)
                cache = tmp / f"cache-{name}-{round_}"
                if name in ("stale", "fresh"):
                    shutil.copytree(tmp / f"cache-cold-{round_}" / "pages", cache / "pages")
                    if name == "stale":
                        _age_pages(cache, 86400.0)
                src = baseline_src if name == "baseline" else here_src
                seconds = _sapper(src, ["scan", *common, "--db", str(db)], cache)
                times.setdefault(name, []).append(seconds)
                if name == "cold":
                    pages = sum(1 for _ in cache.glob("pages/*/*.json"))
                print(f"round {round_ + 1} {name:8} {seconds:7.2f} s", file=sys.stderr)
    best = {name: min(values) for name, values in times.items()}
    print(
        f"rerun of a finished `sapper scan --top {args.top}` ({pages} project pages, "
        f"{args.connections} connections), best of {args.repeat}:"
    )
    for name in ("baseline", "cold", "stale", "fresh"):
        seconds = best[name]
        ratio = best["baseline"] / seconds if seconds else float("inf")
        print(f"  {name:8} {seconds:7.2f} s   {ratio:5.1f}x faster than the baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
