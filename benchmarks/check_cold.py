"""Cold start of ``sapper check`` on a small tree, side by side with two baselines.

Each command runs as a fresh process, alternating between commands in every round so that
machine noise hits all of them alike; the report gives median wall times and ratios.

    python benchmarks/check_cold.py [--rounds 20]

Baselines: ``python -c "import setuptools"`` (what every setuptools build pays before it
reads setup.cfg) and ``validate-pyproject pyproject.toml`` (a static checker of the same
kind); a baseline that is not installed is skipped (``pip install validate-pyproject``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def _time(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        (tree / "setup.cfg").write_text(SETUP_CFG)
        (tree / "pyproject.toml").write_text(PYPROJECT)
        (tree / "README.rst").write_text("demo\n")
        commands: dict[str, list[str]] = {
            "sapper check": [sys.executable, "-m", "sapper", "check", ".", "--exit-zero"],
            "import setuptools": [sys.executable, "-c", "import setuptools"],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        vpp = shutil.which("validate-pyproject", path=str(bindir)) or shutil.which(
            "validate-pyproject"
        )
        if vpp:
            commands["validate-pyproject"] = [vpp, "pyproject.toml"]
        else:
            print("validate-pyproject not installed: skipped (pip install validate-pyproject)")
        for cmd in commands.values():  # warm the OS file cache, not the measurement
            _time(cmd, tree)
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, cmd in commands.items():
                samples[name].append(_time(cmd, tree))
    medians = {name: statistics.median(v) for name, v in samples.items()}
    base = medians["sapper check"]
    print(f"{'command':<22}{'median ms':>10}{'min ms':>9}{'sapper / this':>15}")
    for name, med in medians.items():
        print(f"{name:<22}{med * 1000:>10.1f}{min(samples[name]) * 1000:>9.1f}{base / med:>15.2f}")
    print(f"aim: sapper check under 150 ms -> {'met' if base < 0.150 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
