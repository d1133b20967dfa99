"""The JSON output of ``sapper check`` over the benchmark corpus, saved or compared.

Speed work on the reader, the inflaters and the rules must not change a verdict: run this
before the change with ``--save``, after it with ``--compare``, and every target's result
must be identical (the whole document is compared, target by target, then as a whole).

    python benchmarks/check_json.py --save /tmp/check-before.json
    python benchmarks/check_json.py --compare /tmp/check-before.json

``sapper check --format json --isolated --exit-zero`` runs once over the 300 cached sdists of
``benchmarks/corpus-300.txt`` (see ``benchmarks/corpus.py``), in a fresh process, as a user
runs it. Exits 1 when ``--compare`` finds a difference.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))


def check_json(paths: list[Path]) -> str:
    """The JSON document ``sapper check`` prints for ``paths``."""
    argv = [sys.executable, "-m", "sapper", "check", "--format", "json", "--isolated"]
    argv += ["--exit-zero", "--quiet", *map(str, paths)]
    done = subprocess.run(argv, check=True, capture_output=True, text=True)
    return done.stdout


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two documents, target by target."""
    out: list[str] = []
    old = {t["target"]: t for t in before.get("targets", [])}
    new = {t["target"]: t for t in after.get("targets", [])}
    for target in sorted(old.keys() | new.keys()):
        if old.get(target) != new.get(target):
            out.append(f"{target}:\n  before: {old.get(target)}\n  after:  {new.get(target)}")
    rest_old = {k: v for k, v in before.items() if k != "targets"}
    rest_new = {k: v for k, v in after.items() if k != "targets"}
    if rest_old != rest_new:
        out.append(f"document: before {rest_old}, after {rest_new}")
    if not out and [t["target"] for t in before["targets"]] != [
        t["target"] for t in after["targets"]
    ]:
        out.append("the targets come in another order")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--save", type=Path, help="write the JSON output to this file")
    action.add_argument("--compare", type=Path, help="compare the JSON output with this file")
    args = parser.parse_args()

    from corpus import cached_paths

    paths = list(cached_paths())
    text = check_json(paths)
    if args.save:
        args.save.write_text(text)
        print(f"saved the JSON output over {len(paths)} sdists to {args.save}")
        return 0
    before = json.loads(args.compare.read_text())
    after = json.loads(text)
    found = differences(before, after)
    for line in found:
        print(line)
    targets = len(after.get("targets", []))
    if found:
        print(f"{len(found)} of {targets} results differ from {args.compare}")
        return 1
    same = "byte for byte" if text == args.compare.read_text() else "(same JSON, other bytes)"
    print(f"identical: {targets} results over {len(paths)} sdists, {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
