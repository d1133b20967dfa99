"""Every cached sdist's static findings and verdict, one JSON line each, to set two engines
side by side (what a rule change does to thousands of real sdists, without building).

    python benchmarks/static_verdicts.py before.jsonl              # with one engine
    python benchmarks/static_verdicts.py after.jsonl               # with the other
    python benchmarks/static_verdicts.py --compare before.jsonl after.jsonl

The sdists are those of sapper's download cache (``--cache-dir``, default sapper's own):
whatever earlier checks, scans and canary runs fetched. Static only: nothing is built.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sapper.check import Options, check_target
from sapper.inputs import is_sdist_filename
from sapper.pypi import default_cache_dir


def _record(path: Path) -> dict[str, object]:
    result = check_target(str(path), Options())
    codes = sorted([f.code, f.line or 0, list(f.fails)] for f in result.findings)
    outcome = result.verdict.outcome if result.verdict is not None else None
    return {"f": path.name, "codes": codes, "verdict": outcome}


def _write(out: Path, cache: Path) -> int:
    files = sorted(p for p in (cache / "sdists").rglob("*") if is_sdist_filename(p.name))
    with out.open("w", encoding="utf-8") as fh:
        for path in files:
            fh.write(json.dumps(_record(path)) + "\n")
    sys.stdout.write(f"{len(files)} sdists -> {out}\n")
    return 0


def _load(path: Path) -> dict[str, dict[str, object]]:
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return {str(r["f"]): r for r in rows}


def _key(row: dict[str, object]) -> tuple[str, frozenset[tuple[str, ...]]]:
    codes = row["codes"]
    assert isinstance(codes, list)
    return str(row["verdict"]), frozenset(tuple(map(str, c)) for c in codes)


def _compare(before: Path, after: Path) -> int:
    a, b = _load(before), _load(after)
    both = sorted(set(a) & set(b))
    changed = [f for f in both if _key(a[f]) != _key(b[f])]
    sys.stdout.write(f"{len(both)} sdists in both, {len(changed)} changed\n")
    for name in changed:
        (was, old), (now, new) = _key(a[name]), _key(b[name])
        sys.stdout.write(
            f"{name}: {was} -> {now}; added {sorted(new - old)}, removed {sorted(old - new)}\n"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", help="the JSON-lines file to write")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return _compare(*args.compare)
    if args.out is None:
        parser.error("give the file to write, or --compare BEFORE AFTER")
    return _write(args.out, args.cache_dir or default_cache_dir())


if __name__ == "__main__":
    raise SystemExit(main())
