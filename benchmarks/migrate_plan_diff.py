"""Which migration plans two versions of sapper's engine write differently.

``sapper scan --migrate`` proves each migration by building the wheel before and after,
which takes hours over the top 1,000 on two cores. When the engine changes after such a
run, only the sdists whose plan changed need building again: this script plans every sdist
of a run's report (``--migrate-json``) with both engines (``--src-a``/``--src-b``: ``src``
folders, e.g. from ``git archive COMMIT src``) without building, and lists the sdists whose
outcome or written files differ, as requirements (``name==version``) ready for
``sapper scan --migrate LIST``.

    python benchmarks/migrate_plan_diff.py --report run.json --src-a OLD/src --src-b src \\
        --out changed.txt

Static only: nothing is built or run from the sdists.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

#: Runs inside a subprocess with one engine on PYTHONPATH: reads sdist paths on stdin,
#: prints one JSON line per sdist: its outcome and a digest of every file the plan writes.
_PLANNER = r"""
import hashlib, json, sys, tempfile
from pathlib import Path
from sapper.build import unpack_sdist
from sapper.migrate import plan_migration

for line in sys.stdin:
    path = Path(line.strip())
    with tempfile.TemporaryDirectory(prefix="sapper-plan-diff-") as tmp:
        try:
            tree = unpack_sdist(path, Path(tmp) / "t")
            plan = plan_migration(tree)
        except Exception as exc:  # an engine error is an outcome here
            print(json.dumps({"file": path.name, "outcome": f"error: {type(exc).__name__}"}))
            continue
        if plan.refusals:
            outcome = "refused: " + ",".join(sorted({r.code for r in plan.refusals}))
        else:
            outcome = "migrated" if plan.changes else "nothing-to-do"
        digest = hashlib.sha256()
        for change in sorted(plan.changes, key=lambda c: c.path):
            digest.update(change.path.encode() + b"\0")
            digest.update((change.after if change.after is not None else "\0deleted").encode())
            digest.update(b"\0")
        print(json.dumps({"file": path.name, "outcome": outcome, "digest": digest.hexdigest()}))
        sys.stdout.flush()
"""


def _cached(cache: Path) -> dict[str, Path]:
    """Every sdist in sapper's download cache, by file name."""
    return {p.name: p for p in cache.rglob("*") if p.is_file() and not p.name.startswith(".")}


def _plan_all(src: Path, paths: list[Path]) -> dict[str, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    done = subprocess.run(
        [sys.executable, "-c", _PLANNER],
        input="".join(f"{p}\n" for p in paths),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    out: dict[str, dict[str, str]] = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        out[row["file"]] = row
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, required=True, help="a --migrate-json report")
    parser.add_argument("--src-a", type=Path, required=True, help="the engine of the report")
    parser.add_argument("--src-b", type=Path, required=True, help="the engine to compare")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "sapper" / "sdists",
        help="where the report's sdists were downloaded (sapper's cache)",
    )
    parser.add_argument("--out", type=Path, help="write the differing sdists as requirements")
    args = parser.parse_args()
    report = json.loads(args.report.read_text(encoding="utf-8"))
    cached = _cached(args.cache)
    wanted = [
        e
        for e in report["entries"]
        if e.get("outcome") in {"migrated", "refused", "nothing-to-do"} and e.get("filename")
    ]
    missing = [e["filename"] for e in wanted if e["filename"] not in cached]
    paths = [cached[e["filename"]] for e in wanted if e["filename"] in cached]
    a = _plan_all(args.src_a, paths)
    b = _plan_all(args.src_b, paths)
    differ: list[dict[str, str]] = []
    for entry in wanted:
        name = entry["filename"]
        if name not in a or name not in b:
            continue
        if a[name] != b[name]:
            differ.append(
                {
                    "requirement": f"{entry['project']}=={entry['version']}",
                    "a": a[name]["outcome"],
                    "b": b[name]["outcome"],
                }
            )
    print(f"{len(paths)} sdists planned with both engines ({len(missing)} not in the cache)")
    for label, plans in (("a", a), ("b", b)):
        counts = Counter(row["outcome"] for row in plans.values())
        print(f"engine {label}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"{len(paths) - len(differ)} the same plan, {len(differ)} different:")
    for row in differ:
        print(f"  {row['requirement']}: {row['a']} -> {row['b']}")
    if args.out is not None:
        args.out.write_text("".join(f"{r['requirement']}\n" for r in differ), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
