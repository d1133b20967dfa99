"""Cold start of ``sapper check`` with and without setuptools' own validators (issue 27).

The tree of ``benchmarks/check_cold.py`` (setup.cfg and a pyproject.toml with [project]),
checked by fresh processes, alternating between the variants in every round:

* ``before``: the code of ``--before SRC`` (a checkout's ``src`` folder, e.g. of main),
  which judges pyproject.toml with PP001/PP007's own checks only;
* ``no validators``: this code with an empty ``$SAPPER_VALIDATOR_CACHE`` (a machine that never
  ran ``sapper cache warm``: the same checks as before);
* ``validators, first look``: a warmed cache (``--validators DIR``, default the download
  cache) whose kept answers are removed before each run: every validator is loaded;
* ``validators, answers kept``: the same cache with the answers of the previous run
  (pre-commit checking an unchanged pyproject.toml);
* ``import setuptools`` and ``python -c pass`` as in check_cold.py.

Every variant runs as ``python -m sapper check . --exit-zero`` with ``PYTHONPATH`` naming the
code, so that both sides start the same way.

    python benchmarks/check_cold_validators.py --before /tmp/main/src [--rounds 15] [--instructions]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import instructions
from check_cold import PYPROJECT, SETUP_CFG

SRC = Path(__file__).resolve().parent.parent / "src"


def _time(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", type=Path, help="src folder of the code to compare with")
    parser.add_argument("--validators", type=Path, help="a warmed cache (default: the user's)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each variant's instructions once with valgrind (load-independent)",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(SRC))
    from sapper.pypi import default_cache_dir

    warmed = args.validators or default_cache_dir()
    print(f"load average (1, 5, 15 min) at the start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        (tree / "setup.cfg").write_text(SETUP_CFG)
        (tree / "pyproject.toml").write_text(PYPROJECT)
        (tree / "README.rst").write_text("demo\n")
        empty = Path(tmp) / "empty"
        empty.mkdir()
        copy = Path(tmp) / "warm"
        shutil.copytree(warmed / "validators", copy / "validators")
        results = copy / "validators" / "results"
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        check = [sys.executable, "-m", "sapper", "check", ".", "--exit-zero"]
        now = {**base, "PYTHONPATH": str(SRC)}
        variants: dict[str, tuple[list[str], dict[str, str]]] = {}
        if args.before:
            variants["before"] = (check, {**base, "PYTHONPATH": str(args.before)})
        variants["no validators"] = (check, {**now, "SAPPER_VALIDATOR_CACHE": str(empty)})
        variants["validators, first look"] = (check, {**now, "SAPPER_VALIDATOR_CACHE": str(copy)})
        variants["validators, answers kept"] = (
            check,
            {**now, "SAPPER_VALIDATOR_CACHE": str(copy)},
        )
        variants["import setuptools"] = ([sys.executable, "-c", "import setuptools"], base)
        variants["python -c pass"] = ([sys.executable, "-c", "pass"], base)
        for cmd, env in variants.values():  # warm the OS file cache and write bytecode
            _time(cmd, tree, env)
        samples: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, (cmd, env) in variants.items():
                if name == "validators, first look":
                    shutil.rmtree(results, ignore_errors=True)
                samples[name].append(_time(cmd, tree, env))
        counts: dict[str, int] = {}
        if args.instructions:
            for name, (cmd, env) in variants.items():
                if name == "validators, first look":
                    shutil.rmtree(results, ignore_errors=True)
                if (count := instructions(cmd, tree, env)) is not None:
                    counts[name] = count
    medians = {name: statistics.median(v) for name, v in samples.items()}
    ref = medians.get("before", medians["no validators"])
    print(f"{'command':<28}{'median ms':>10}{'min ms':>9}{'this / before':>15}")
    for name, med in medians.items():
        print(f"{name:<28}{med * 1000:>10.1f}{min(samples[name]) * 1000:>9.1f}{med / ref:>15.2f}")
    if counts:
        ref_count = counts.get("before", counts.get("no validators", 1))
        print(f"{'command':<28}{'instructions (M)':>17}{'this / before':>15}")
        for name, count in counts.items():
            print(f"{name:<28}{count / 1e6:>17.1f}{count / ref_count:>15.2f}")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
