"""Mutation score per module: how many small deliberate bugs the fast tests catch.

For each module, the project (src/, tests/, scripts/, docs/, README.md, pyproject.toml)
is copied to a scratch directory, ``[tool.mutmut] only_mutate`` is narrowed to that
module, and ``mutmut run`` mutates it and runs the fast tests of
``[tool.mutmut] pytest_add_cli_args_test_selection`` (never the oracle) against each
mutant. The score is killed / (killed + survived); mutants that time out count as killed,
mutants no test reaches count as survived.

    python benchmarks/mutation.py                          # the core modules
    python benchmarks/mutation.py src/sapper/versions.py   # one module
    python benchmarks/mutation.py --survivors              # also list surviving mutants

Runs under ``nice``; ``--max-children`` (default 2) bounds the parallel test processes.
Scratch copies live under ``$TMPDIR/sapper-mutation`` (``--keep`` keeps them for
``mutmut show`` / ``mutmut browse``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = (
    "src/sapper/versions.py",
    "src/sapper/rules/setup_cfg.py",
    "src/sapper/rules/setup_py.py",
    "src/sapper/rules/pyproject.py",
    "src/sapper/rules/layout.py",
    "src/sapper/rules/requires.py",
    "src/sapper/sources.py",
    "src/sapper/fix/setup_cfg.py",
    "src/sapper/fix/setup_py.py",
    "src/sapper/scan/engine.py",
)


def _narrow(pyproject: str, module: str) -> str:
    """The pyproject text with ``[tool.mutmut] only_mutate`` set to ``module`` alone."""
    pattern = re.compile(r"^only_mutate = \[.*?\]\n", re.MULTILINE | re.DOTALL)
    if not pattern.search(pyproject):
        msg = "pyproject.toml has no [tool.mutmut] only_mutate list"
        raise SystemExit(msg)
    return pattern.sub(f"only_mutate = [{json.dumps(module)}]\n", pyproject, count=1)


def _copy(module: str, scratch: Path) -> Path:
    work = scratch / module.replace("/", "_")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "mutants")
    shutil.copytree(ROOT / "src", work / "src", ignore=ignore)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
    for name in ("scripts", "docs"):
        shutil.copytree(ROOT / name, work / name, ignore=ignore)
    shutil.copy2(ROOT / "README.md", work / "README.md")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(_narrow(text, module), encoding="utf-8")
    return work


def _counts(work: Path) -> dict[str, int]:
    subprocess.run(
        [sys.executable, "-m", "mutmut", "export-cicd-stats"],
        cwd=work,
        check=True,
        capture_output=True,
    )
    stats = json.loads((work / "mutants" / "mutmut-cicd-stats.json").read_text())
    return {k: int(v) for k, v in stats.items() if isinstance(v, int)}


def _survivors(work: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"],
        cwd=work,
        check=False,
        capture_output=True,
        text=True,
    )
    return [line.strip() for line in proc.stdout.splitlines() if "survived" in line]


def run(
    module: str,
    scratch: Path,
    max_children: int,
    *,
    survivors: bool,
    names: list[str] | None = None,
) -> dict[str, object]:
    work = _copy(module, scratch)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    start = time.perf_counter()
    proc = subprocess.run(
        [
            "nice",
            sys.executable,
            "-m",
            "mutmut",
            "run",
            "--max-children",
            str(max_children),
            *(names or []),
        ],
        cwd=work,
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout)[-2000:]
        return {"module": module, "error": f"mutmut run exited {proc.returncode}: {tail}"}
    counts = _counts(work)
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    survived = counts.get("survived", 0) + counts.get("no_tests", 0)
    total = killed + survived
    out: dict[str, object] = {
        "module": module,
        "mutants": counts.get("total", total),
        "killed": killed,
        "survived": survived,
        "skipped": counts.get("skipped", 0) + counts.get("suspicious", 0),
        "score": round(killed / total, 4) if total else None,
        "seconds": round(elapsed, 1),
        "workdir": str(work),
    }
    if survivors:
        out["survivors"] = _survivors(work)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", default=list(CORE), help="paths under src/")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    parser.add_argument(
        "--mutants",
        nargs="+",
        metavar="NAME",
        help="run only these mutants (mutmut names or globs), e.g. an earlier run's survivors",
    )
    parser.add_argument("--scratch", type=Path, help="scratch directory (default: $TMPDIR)")
    args = parser.parse_args(argv)
    scratch = args.scratch or Path(tempfile.gettempdir()) / "sapper-mutation"
    rows = []
    for module in args.modules:
        row = run(module, scratch, args.max_children, survivors=args.survivors, names=args.mutants)
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        elif "error" in row:
            print(f"{module}: {row['error']}", flush=True)
        else:
            score = row["score"]
            shown = f"{score:.1%}" if isinstance(score, float) else "n/a"
            print(
                f"{module:40} {row['killed']:>5}/{row['killed'] + row['survived']:<5} "  # type: ignore[operator]
                f"killed  {shown:>6}  ({row['seconds']} s)",
                flush=True,
            )
            for name in row.get("survivors", []) or []:  # type: ignore[union-attr]
                print(f"    {name}")
        if not args.keep:
            shutil.rmtree(str(row.get("workdir", "")), ignore_errors=True)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
