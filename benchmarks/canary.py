"""Builds per second of sapper's sandboxed runner against a naive ``pip wheel`` loop.

The same small setuptools sdists are built, in the same run, by

* sapper: ``sapper.build.Builder`` (the hooks in bubblewrap, build environments made once
  per requirement set with uv from a local wheelhouse), in ``metadata`` mode (the canary's
  default) and in ``wheel`` mode, one build at a time; in ``metadata`` mode also with a new
  sandbox and interpreter for every hook (``hook_server=False``, the runner before the hook
  server) and with ``--jobs`` builds at once (worker processes, as ``sapper canary -j``);
* the naive loop: ``pip wheel --no-deps`` of each sdist with build isolation (a fresh
  environment per build), setuptools pinned with ``--build-constraint`` (or, for a pip
  without that option, ``PIP_CONSTRAINT``, which older pips apply to build environments).

    python benchmarks/canary.py [--sdists 10] [--rounds 2] [--setuptools 80.9.0] [--jobs 2]

One warm-up build per method fills the caches (sapper's wheelhouse and environment, pip's
HTTP cache) and is not timed. Both sides build in the same place (``--work-dir``, passed
as ``TMPDIR``: by default where ``sapper canary`` builds). Methods alternate within every
round; the report gives the median builds per second of each and the ratios to the naive
loop (one ``pip wheel`` at a time: the rows without ``-j`` compare the cost of one build,
the ``-j`` row what a canary run gets from the machine's cores).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
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


def _build_one(sdist: Path, version: str, mode: str, cache: Path, hook_server: bool) -> None:
    from sapper.build import Builder

    builder = Builder(cache_dir=cache, hook_server=hook_server)
    result = builder.build(sdist, mode=mode, override=[f"setuptools=={version}"])  # type: ignore[arg-type]
    if result.outcome != "ok":
        raise SystemExit(f"sapper failed on {sdist.name}: {result.message}")


def sapper(
    sdists: list[Path], version: str, mode: str, cache: Path, *, hook_server: bool = True
) -> float:
    start = time.perf_counter()
    for sdist in sdists:
        _build_one(sdist, version, mode, cache, hook_server)
    return time.perf_counter() - start


def sapper_parallel(
    pool: cf.ProcessPoolExecutor, sdists: list[Path], version: str, mode: str, cache: Path
) -> float:
    start = time.perf_counter()
    futures = [pool.submit(_build_one, s, version, mode, cache, True) for s in sdists]
    for future in futures:
        future.result()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdists", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setuptools", default="80.9.0")
    parser.add_argument("--jobs", type=int, default=2, help="builds at once for the -j row")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="sapper's build cache (default: a fresh temporary directory)",
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=None,
        help="where both sides unpack and build, as TMPDIR (default: where sapper canary "
        "builds, /dev/shm when it is a roomy tmpfs)",
    )
    args = parser.parse_args()
    from sapper.canary.engine import default_work_dir

    work_dir = args.work_dir or default_work_dir()
    if work_dir is not None:
        # the same place for pip's build directories and sapper's, for both
        os.environ["TMPDIR"] = str(work_dir)
        tempfile.tempdir = None
    with tempfile.TemporaryDirectory(prefix="sapper-bench-canary-") as tmp:
        work = Path(tmp)
        cache = args.cache_dir or work / "cache"
        sdists = make_sdists(work / "sdists", args.sdists)
        # warm-up, untimed: one build each (and one per worker of the pool)
        naive(sdists[:1], args.setuptools, work)
        sapper(sdists[:1], args.setuptools, "metadata", cache)
        sapper(sdists[:1], args.setuptools, "metadata", cache, hook_server=False)
        sapper(sdists[:1], args.setuptools, "wheel", cache)
        parallel = f"sapper metadata -j {args.jobs}"
        times: dict[str, list[float]] = {
            "naive pip wheel": [],
            "sapper metadata, interpreter per hook": [],
            "sapper metadata": [],
            "sapper wheel": [],
            parallel: [],
        }
        with cf.ProcessPoolExecutor(args.jobs) as pool:
            sapper_parallel(pool, sdists[: args.jobs], args.setuptools, "metadata", cache)
            for _ in range(args.rounds):
                times["naive pip wheel"].append(naive(sdists, args.setuptools, work))
                times["sapper metadata, interpreter per hook"].append(
                    sapper(sdists, args.setuptools, "metadata", cache, hook_server=False)
                )
                times["sapper metadata"].append(sapper(sdists, args.setuptools, "metadata", cache))
                times["sapper wheel"].append(sapper(sdists, args.setuptools, "wheel", cache))
                times[parallel].append(
                    sapper_parallel(pool, sdists, args.setuptools, "metadata", cache)
                )
    n = len(sdists)
    rates = {name: n / statistics.median(values) for name, values in times.items()}
    base = rates["naive pip wheel"]
    print(
        f"{n} sdists x {args.rounds} rounds, setuptools {args.setuptools}, "
        f"pip --build-constraint: {_pip_has_build_constraint()}, "
        f"builds in {tempfile.gettempdir()}"
    )
    for name, rate in rates.items():
        print(f"  {name:<38} {rate:6.2f} builds/s   {rate / base:5.2f}x the naive loop")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
