"""CPU cost of reading sdists as streams, before and after, side by side in one run.

On a busy machine the wall-clock times of ``benchmarks/scan.py`` vary by half from run to
run; CPU time varies far less. This runs, alternately, sapper at ``--baseline`` (a git
revision; default 8a62316, the last commit that read each sdist whole) and the working
tree's, each in a fresh interpreter:

* ``read_sdist(path)`` of every sdist of the benchmark corpus (``benchmarks/corpus-300.txt``,
  in the cache: ``python benchmarks/corpus.py``), CPU seconds of the reading alone;
* ``sapper scan -j 1`` of the corpus into a fresh DuckDB file, CPU seconds of the process
  (user and system, start-up included).

Each ``--repeat`` times, best kept; prints both and the ratio (above 1: the new code costs
more CPU).

    python benchmarks/stream_cpu.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from memory import baseline_tree  # noqa: E402  # the benchmarks' own folder

_READ = """
import sys, time
from pathlib import Path
from sapper.inputs.sources import read_sdist
paths = [Path(line) for line in Path(sys.argv[1]).read_text().split()]
start = time.process_time()
for path in paths:
    try:
        read_sdist(path)
    except Exception:
        pass
print(time.process_time() - start)
"""


def _cpu_of(args: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="8a62316", help="git revision of the baseline")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from corpus import cached_paths

    paths = [str(path) for path in cached_paths()]
    with tempfile.TemporaryDirectory(prefix="sapper-stream-cpu-") as tmp_name:
        tmp = Path(tmp_name)
        listing = tmp / "paths.txt"
        listing.write_text("\n".join(paths) + "\n")
        sources = {
            "baseline": baseline_tree(args.baseline, tmp / "baseline"),
            "new": HERE.parent / "src",
        }
        best: dict[tuple[str, str], float] = {}
        for round_ in range(args.repeat):
            for name, src in sources.items():
                env = {**os.environ, "PYTHONPATH": str(src)}
                read = subprocess.run(
                    [sys.executable, "-c", _READ, str(listing)],
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                )
                seconds = float(read.stdout)
                best[name, "read"] = min(best.get((name, "read"), seconds), seconds)
                db = tmp / f"{name}-{round_}.duckdb"
                scan = [sys.executable, "-m", "sapper", "scan", str(listing), "-j", "1"]
                seconds = _cpu_of([*scan, "--db", str(db), "--progress", "never"], env)
                best[name, "scan"] = min(best.get((name, "scan"), seconds), seconds)
        print(f"{len(paths)} sdists, best of {args.repeat}, CPU seconds")
        for what, label in (("read", "read_sdist(path), in process"), ("scan", "sapper scan -j 1")):
            before, after = best["baseline", what], best["new", what]
            print(
                f"{label:<30} baseline {before:6.2f}  new {after:6.2f}  "
                f"new/baseline {after / before:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
