"""What the hand-written parser of ``sapper check`` (``cli/_fastcheck.py``) gains over argparse.

``sapper check . --exit-zero`` on a small tree, as a fresh process each time, in three
variants that alternate in every round (so that machine noise hits them alike):

- ``fast path``: ``sapper.cli.main`` as it is (the hand parser reads the arguments and the
  garbage collector is paused until the first target is checked);
- ``argparse``: the same call with the hand parser switched off (``parse_check`` returns
  None, so ``run`` builds the ``check`` parser with argparse);
- ``argparse + gc pause``: argparse, with the garbage collector paused as the fast path does
  (what ``check`` keeps if the hand parser goes but the pause stays).

Each variant is a ``python -c`` that calls ``main``, so that the three differ only in the
parsing, on the code of ``--src`` (a ``src`` folder that still has ``cli/_fastcheck.py``,
such as a checkout of the commit before issue 23 removed it); a fourth, ``installed``, runs
the installed sapper (this checkout) the same way. The report gives median and minimum
wall and CPU (user + system: less sensitive to the machine's load) times, the ratio to
the fast path and the absolute difference in ms;
``--instructions`` also counts each variant's instructions under valgrind's callgrind
(independent of the machine's load). Issue 23's rule: under 10 ms of
gain, the hand parser goes. The gain that counts is over ``argparse + gc pause``: the pause
does not need the hand parser, and ``check`` keeps it. Measured on 2026-12-05 (load 20-26):
CPU 71.7 ms with the hand parser, 78.9 ms with argparse and the pause (+7.1 ms; +23.4 M
instructions of 348.8 M), 98.8 ms without the pause; so the hand parser was removed, and
``installed`` is argparse with the pause (docs/cli.md, "Start-up of sapper check").

    git worktree add /tmp/before 6cf56ed    # main before the hand parser was removed
    python benchmarks/check_parser.py --src /tmp/before/src [--rounds 30] [--instructions]
"""

from __future__ import annotations

import argparse
import os
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

[options]
packages = find:
install_requires =
    requests>=2
"""
PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
"""

_MAIN = "import sys\nfrom sapper.cli import main\nsys.exit(main(['check', '.', '--exit-zero']))\n"
_NO_FAST = (
    "import sapper.cli._fastcheck as fast\nfast.parse_check = lambda argv: None\n"  # argparse
)
_PAUSE = "from sapper.cli._checkrun import pause_gc\npause_gc()\n"

VARIANTS: dict[str, str] = {
    "fast path": _MAIN,
    "argparse": _NO_FAST + _MAIN,
    "argparse + gc pause": _NO_FAST + _PAUSE + _MAIN,
}
#: Issue 23: a gain under this keeps argparse alone.
THRESHOLD_MS = 10.0

_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _env(name: str, src: Path) -> dict[str, str]:
    return _ENV if name == "installed" else {**_ENV, "PYTHONPATH": str(src)}


def _run(code: str, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run; CPU time depends less on the load."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"exit {proc.returncode}: {err.decode()}")
    return took, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--instructions", action="store_true", help="also count instructions")
    parser.add_argument(
        "--src", type=Path, required=True, help="a src folder with sapper/cli/_fastcheck.py"
    )
    args = parser.parse_args()
    if not (args.src / "sapper" / "cli" / "_fastcheck.py").is_file():
        parser.error(f"{args.src}: no sapper/cli/_fastcheck.py in it")
    variants = {**VARIANTS, "installed": _MAIN}
    print(f"load average (1, 5, 15 min) at the start: {os.getloadavg()}")
    samples: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        (tree / "setup.cfg").write_text(SETUP_CFG)
        (tree / "pyproject.toml").write_text(PYPROJECT)
        for name, code in variants.items():  # warm the file cache, write bytecode
            _run(code, tree, _env(name, args.src))
        for _ in range(args.rounds):
            for name, code in variants.items():
                wall, used = _run(code, tree, _env(name, args.src))
                samples[name].append(wall)
                cpu[name].append(used)
        if args.instructions:
            for name, code in variants.items():
                cmd = [sys.executable, "-c", code]
                if (count := instructions(cmd, tree, _env(name, args.src))) is not None:
                    counts[name] = count
    medians = {name: statistics.median(v) * 1000 for name, v in samples.items()}
    cpus = {name: statistics.median(v) * 1000 for name, v in cpu.items()}
    fast, fast_cpu = medians["fast path"], cpus["fast path"]
    print(f"{args.rounds} rounds of `sapper check . --exit-zero` on a two-file tree")
    print(
        f"{'variant':<22}{'wall ms':>9}{'min ms':>8}{'/ fast':>8}{'- fast ms':>10}"
        f"{'CPU ms':>8}{'/ fast':>8}{'- fast ms':>10}"
    )
    for name, med in medians.items():
        low = min(samples[name]) * 1000
        used = cpus[name]
        print(
            f"{name:<22}{med:>9.1f}{low:>8.1f}{med / fast:>8.3f}{med - fast:>+10.1f}"
            f"{used:>8.1f}{used / fast_cpu:>8.3f}{used - fast_cpu:>+10.1f}"
        )
    if counts:
        print(f"{'variant':<22}{'instructions (M)':>17}{'/ fast path':>12}{'- fast (M)':>11}")
        base = counts["fast path"]
        for name, count in counts.items():
            print(
                f"{name:<22}{count / 1e6:>17.1f}{count / base:>12.3f}{(count - base) / 1e6:>+11.1f}"
            )
    for other in ("argparse", "argparse + gc pause"):
        gain = cpus[other] - fast_cpu
        verdict = "over" if gain >= THRESHOLD_MS else "under"
        print(
            f"CPU saved by the fast path over {other}: {gain:+.1f} ms "
            f"({verdict} the {THRESHOLD_MS:.0f} ms of issue 23)"
        )
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
