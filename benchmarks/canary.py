"""Builds per second of sapper's sandboxed runner against a naive ``pip wheel`` loop.

The same small setuptools sdists are built, in the same run, by

* sapper: ``sapper.build.Builder`` (each hook in bubblewrap, build environments made once
  per requirement set with uv from a local wheelhouse), in ``metadata`` mode (the canary's
  default) and in ``wheel`` mode;
* the naive loop: ``pip wheel --no-deps`` of each sdist with build isolation (a fresh
  environment per build), setuptools pinned with ``--build-constraint`` (or, for a pip
  without that option, ``PIP_CONSTRAINT``, which older pips apply to build environments).

    python benchmarks/canary.py [--sdists 10] [--rounds 2] [--setuptools 80.9.0]

One warm-up build per method fills the caches (sapper's wheelhouse and environment, pip's
HTTP cache) and is not timed. Methods alternate within every round; the report gives the
median builds per second of each and the ratios to the naive loop.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

SETUP_CFG = """\
[metadata]
name = bench{n}
version = 1.{n}
description = benchmark project {n}

[options]
packages = find:
"""


def make_sdists(dest: Path, count: int) -> list[Path]:
    out = []
    for n in range(count):
        root = dest / f"bench{n}-1.{n}"
        (root / f"bench{n}").mkdir(parents=True)
        (root / f"bench{n}" / "__init__.py").write_text(f"VALUE = {n}\n")
        (root / "setup.cfg").write_text(SETUP_CFG.format(n=n))
        (root / "setup.py").write_text("from setuptools import setup\nsetup()\n")
        (root / "pyproject.toml").write_text(
            '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        )
        archive = dest / f"{root.name}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(root, arcname=root.name)
        out.append(archive)
    return out


def _pip_has_build_constraint() -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    return "--build-constraint" in done.stdout


def naive(sdists: list[Path], version: str, work: Path) -> float:
    constraint = work / "constraints.txt"
    constraint.write_text(f"setuptools=={version}\n")
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "--disable-pip-version-check"]
    if _pip_has_build_constraint():
        cmd += ["--build-constraint", str(constraint)]
    else:
        env["PIP_CONSTRAINT"] = str(constraint)
    start = time.perf_counter()
    for sdist in sdists:
        out = Path(tempfile.mkdtemp(dir=work))
        done = subprocess.run(
            [*cmd, "-w", str(out), str(sdist)], capture_output=True, env=env, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"pip wheel failed on {sdist.name}: {done.stderr.decode()[-500:]}")
    return time.perf_counter() - start


def sapper(sdists: list[Path], version: str, mode: str, cache: Path) -> float:
    from sapper.build import Builder

    builder = Builder(cache_dir=cache)
    start = time.perf_counter()
    for sdist in sdists:
        result = builder.build(sdist, mode=mode, override=[f"setuptools=={version}"])  # type: ignore[arg-type]
        if result.outcome != "ok":
            raise SystemExit(f"sapper failed on {sdist.name}: {result.message}")
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdists", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setuptools", default="80.9.0")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="sapper's build cache (default: a fresh temporary directory)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sapper-bench-canary-") as tmp:
        work = Path(tmp)
        cache = args.cache_dir or work / "cache"
        sdists = make_sdists(work / "sdists", args.sdists)
        # warm-up, untimed: one build each
        naive(sdists[:1], args.setuptools, work)
        sapper(sdists[:1], args.setuptools, "metadata", cache)
        sapper(sdists[:1], args.setuptools, "wheel", cache)
        times: dict[str, list[float]] = {
            "naive pip wheel": [],
            "sapper metadata": [],
            "sapper wheel": [],
        }
        for _ in range(args.rounds):
            times["naive pip wheel"].append(naive(sdists, args.setuptools, work))
            times["sapper metadata"].append(sapper(sdists, args.setuptools, "metadata", cache))
            times["sapper wheel"].append(sapper(sdists, args.setuptools, "wheel", cache))
    n = len(sdists)
    rates = {name: n / statistics.median(values) for name, values in times.items()}
    base = rates["naive pip wheel"]
    print(
        f"{n} sdists x {args.rounds} rounds, setuptools {args.setuptools}, "
        f"pip --build-constraint: {_pip_has_build_constraint()}"
    )
    for name, rate in rates.items():
        print(f"  {name:<16} {rate:6.2f} builds/s   {rate / base:5.2f}x the naive loop")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
