"""Cold start of ``sapper check`` on a small tree, side by side with its baselines.

Each command runs as a fresh process, alternating between commands in every round so that
machine noise hits all of them alike; the report gives median wall times and ratios.

    python benchmarks/check_cold.py [--rounds 20]

Baselines: ``python -c "import setuptools"`` (what every setuptools build pays before it
reads setup.cfg), ``python -c pass`` (the interpreter alone), and two static tools of the
same kind, ``validate-pyproject pyproject.toml`` and ``setup-cfg-fmt setup.cfg`` (run on a
copy of the tree, since it rewrites the file); a tool that is not installed is skipped
(``pip install -e '.[bench]'`` installs them). ``sapper check`` runs as the console script
pip generated (what users and pre-commit run), not ``python -m sapper``. The aims (issue 13):
sapper check at most 0.4x ``import setuptools`` and within 60 ms of ``python -c pass``.

``--instructions`` also counts the instructions each command executes, once each under
``valgrind --tool=callgrind`` (when valgrind is installed): unlike wall times, the counts do
not depend on the machine's load, so two runs on a busy machine can be compared.

Every command runs with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` is dropped), as on
a user's machine, where pip compiled the installed modules: the warm-up round writes them.
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

from _measure import instructions

SETUP_CFG = """\
[metadata]
name = demo
version = 1.0
author-email = dev@example.org
description-file = README.rst

[options]
packages = find:
install_requires =
    requests>=2

[flake8]
max-line-length = 100
"""
PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "demo"
version = "1.0"
dependencies = ["requests>=2"]
"""


_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
AIM_RATIO = 0.4  # of import setuptools
AIM_OVER_PASS = 0.060  # seconds over python -c pass


def _time(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=_ENV
    )
    return time.perf_counter() - start


def _tool(name: str, bindir: Path) -> str | None:
    found = shutil.which(name, path=str(bindir)) or shutil.which(name)
    if not found:
        print(f"{name} not installed: skipped (pip install {name})")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each command's instructions with valgrind (independent of the load)",
    )
    args = parser.parse_args()
    print(f"load average (1, 5, 15 min) at the start: {os.getloadavg()}")
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        other = Path(tmp) / "copy"  # for the tools that rewrite files
        for folder in (tree, other):
            folder.mkdir()
            (folder / "setup.cfg").write_text(SETUP_CFG)
            (folder / "pyproject.toml").write_text(PYPROJECT)
            (folder / "README.rst").write_text("demo\n")
        # the console script pip generated, as users (and pre-commit) run it
        sapper = _tool("sapper", bindir) or sys.exit("sapper is not installed in this venv")
        commands: dict[str, tuple[list[str], Path]] = {
            "sapper check": ([sapper, "check", ".", "--exit-zero"], tree),
            "import setuptools": ([sys.executable, "-c", "import setuptools"], tree),
            "python -c pass": ([sys.executable, "-c", "pass"], tree),
        }
        if vpp := _tool("validate-pyproject", bindir):
            commands["validate-pyproject"] = ([vpp, "pyproject.toml"], tree)
        if fmt := _tool("setup-cfg-fmt", bindir):
            commands["setup-cfg-fmt"] = ([fmt, "setup.cfg"], other)
        for cmd, cwd in commands.values():  # warm the OS file cache and write bytecode
            _time(cmd, cwd)
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, (cmd, cwd) in commands.items():
                samples[name].append(_time(cmd, cwd))
        counts: dict[str, int] = {}
        if args.instructions:
            for name, (cmd, cwd) in commands.items():
                if (count := instructions(cmd, cwd, _ENV)) is not None:
                    counts[name] = count
            if not counts:
                print("valgrind not installed: no instruction counts")
    medians = {name: statistics.median(v) for name, v in samples.items()}
    base = medians["sapper check"]
    print(f"{'command':<22}{'median ms':>10}{'min ms':>9}{'sapper / this':>15}")
    for name, med in medians.items():
        print(f"{name:<22}{med * 1000:>10.1f}{min(samples[name]) * 1000:>9.1f}{base / med:>15.2f}")
    ratio = base / medians["import setuptools"]
    over = base - medians["python -c pass"]
    met = {True: "met", False: "NOT met"}
    print(f"aim: <= {AIM_RATIO}x import setuptools: {ratio:.2f}x -> {met[ratio <= AIM_RATIO]}")
    print(
        f"aim: within {AIM_OVER_PASS * 1000:.0f} ms of python -c pass: {over * 1000:+.0f} ms "
        f"-> {met[over <= AIM_OVER_PASS]}"
    )
    if counts:
        print(f"{'command':<22}{'instructions (M)':>17}{'sapper / this':>15}")
        for name, count in counts.items():
            print(f"{name:<22}{count / 1e6:>17.1f}{counts['sapper check'] / count:>15.2f}")
        extra = (counts["sapper check"] - counts["python -c pass"]) / 1e6
        print(f"sapper check executes {extra:.1f} M instructions more than python -c pass")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
