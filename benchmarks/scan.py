"""Throughput of ``sapper scan`` against a naive scan and the decompression floor.

On the fixed corpus of ``benchmarks/corpus-300.txt`` (300 real sdists from the top-15,000
PyPI list, newest and pre-2020 releases, see ``benchmarks/corpus.py``), all in one run and on
the same cached files:

* ``sapper scan -j 1`` and ``-j 2`` (each a fresh process writing a fresh DuckDB file, as a
  user runs it, so start-up and cold caches count) with every rule, which
  needs the whole archive (the layout rules read its listing); the same with ``--select SC``
  (the setup.cfg rules: the same work as the naive scan), where reading stops once
  setup.cfg, pyproject.toml and PKG-INFO are read; and that with ``--no-early-stop`` to show
  what stopping early buys;
* naive: extract each sdist to a temporary folder and call setuptools'
  ``Distribution().parse_config_files()`` on its setup.cfg;
* floor: only decompress every byte of every archive with the standard library (and the same
  with zlib-ng and with ISA-L for the gzip streams: sapper uses ISA-L when it is installed);
* the reader alone, in this process: ``read_sdist`` of every archive (every file the rules
  may need) with sapper's lean tar reader, and with ``tarfile``'s reader (the reference);
* the least work any scan with every rule must do, in this process, without start-up: the
  fastest inflater installed, tar headers walked with no check at all, and setup.py,
  setup.cfg, pyproject.toml and PKG-INFO each parsed once (``ast``, ``configparser``,
  ``tomllib``, a split of the header lines), no rule, no store: a lower bound, set against
  what the aim of 1.5x the floor allows;
* the fixed cost of a scan: ``sapper scan -j 1`` and ``-j 2`` of one small sdist (start-up,
  imports, store; with ``-j 2`` the worker processes too), to tell the serial part of
  ``-j 2`` over ``-j 1`` from the parallel one.

Prints sdists per second and the ratios. Each contender runs ``--repeat`` times (best kept),
in turn, so that a busy machine penalises them alike. Needs the corpus in the cache (the
first run downloads what is missing).

    python benchmarks/scan.py [--repeat 3] [--limit N]
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import io
import lzma
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

_CHUNK = 1 << 20
# bytecode caching on, as on a user's machine where pip compiled sapper: the first run writes it
_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
J1 = "sapper scan -j 1 (all rules)"
J2 = "sapper scan -j 2 (all rules)"
SC1 = "sapper scan -j 1 --select SC"
SC2 = "sapper scan -j 2 --select SC"
SC1_FULL = "sapper scan -j 1 --select SC --no-early-stop"
NAIVE = "naive (extract + parse_config_files)"
FLOOR = "floor (decompress every byte)"
FLOOR_NG = "floor with zlib-ng (decompress every byte)"
FLOOR_ISAL = "floor with ISA-L (decompress every byte)"
READ_LEAN = "read_sdist, lean tar reader (in process)"
READ_TARFILE = "read_sdist, tarfile reader (in process)"
LEAST = "least work (in process): inflate, walk headers, parse 4 files"
START1 = "sapper scan -j 1 of one sdist (start-up, store)"
START2 = "sapper scan -j 2 of one sdist (start-up, store, workers)"


def floor(paths: list[Path], inflater: object = zlib) -> None:
    """Decompress every byte of every archive, and nothing else."""
    for path in paths:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            inflate = inflater.decompressobj(wbits=31)  # type: ignore[attr-defined]
            for at in range(0, len(data), _CHUNK):
                inflate.decompress(data[at : at + _CHUNK])
        elif data[:3] == b"BZh":
            with bz2.BZ2File(io.BytesIO(data)) as f:
                while f.read(_CHUNK):
                    pass
        elif data[:6] == b"\xfd7zXZ\x00":
            with lzma.LZMAFile(io.BytesIO(data)) as f:
                while f.read(_CHUNK):
                    pass
        elif zipfile.is_zipfile(io.BytesIO(data)):
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for info in z.infolist():
                    with z.open(info) as f:
                        while f.read(_CHUNK):
                            pass


def read_all(reader: str) -> Callable[[list[Path]], None]:
    """``read_sdist`` of every archive with the given tar reader (``lean`` or ``tarfile``)."""

    def run(paths: list[Path]) -> None:
        from sapper._exceptions import ArchiveError
        from sapper.inputs import sources

        sources._tar_reader = reader  # the switch the tests use too
        try:
            for path in paths:
                with contextlib.suppress(ArchiveError):
                    sources.read_sdist(path)
        finally:
            sources._tar_reader = "lean"

    return run


_ROOT_FILES = frozenset({"setup.py", "setup.cfg", "pyproject.toml", "PKG-INFO"})


def _inflate_all(data: bytes) -> bytes:
    """The whole tar stream of a compressed sdist, with the fastest inflater installed."""
    if data[:2] == b"\x1f\x8b":
        fast: Any = zlib
        with contextlib.suppress(ImportError):
            from zlib_ng import zlib_ng as fast
        with contextlib.suppress(ImportError):
            from isal import isal_zlib as fast
        inflated: bytes = fast.decompressobj(wbits=31).decompress(data)
        return inflated
    if data[:3] == b"BZh":
        return bz2.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(data)
    return data


def _root_files(data: bytes) -> dict[str, bytes]:
    """setup.py, setup.cfg, pyproject.toml and PKG-INFO at the root: no check at all."""
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return {
                name.partition("/")[2]: z.read(name)
                for name in z.namelist()
                if name.count("/") == 1 and name.partition("/")[2] in _ROOT_FILES
            }
    tar = _inflate_all(data)
    found: dict[str, bytes] = {}
    at, end = 0, len(tar)
    while at + 512 <= end and tar[at]:
        size = int(tar[at + 124 : at + 136].partition(b"\0")[0].strip() or b"0", 8)
        name = tar[at : at + 100].partition(b"\0")[0]
        rest = name.partition(b"/")[2]
        if rest in (b"setup.py", b"setup.cfg", b"pyproject.toml", b"PKG-INFO"):
            found[rest.decode()] = tar[at + 512 : at + 512 + size]
        at += 512 + (size + 511) // 512 * 512
    return found


def least(paths: list[Path]) -> None:
    """The least work a scan with every rule must do: see the module's docstring."""
    import ast
    import configparser

    import tomllib

    for path in paths:
        with contextlib.suppress(Exception):  # a damaged archive or file is a result too
            files = _root_files(path.read_bytes())
            if "setup.py" in files:
                with contextlib.suppress(SyntaxError, ValueError):
                    ast.parse(files["setup.py"])
            if "setup.cfg" in files:
                with contextlib.suppress(configparser.Error):
                    parser = configparser.ConfigParser(interpolation=None)
                    parser.read_string(files["setup.cfg"].decode("utf-8", "replace"))
            if "pyproject.toml" in files:
                with contextlib.suppress(tomllib.TOMLDecodeError, UnicodeDecodeError):
                    tomllib.loads(files["pyproject.toml"].decode())
            if "PKG-INFO" in files:
                for line in files["PKG-INFO"].decode("utf-8", "replace").splitlines():
                    if not line:
                        break
                    line.partition(": ")


def naive(paths: list[Path]) -> None:
    """Extract each sdist to a temporary folder; parse its setup.cfg with setuptools."""
    from setuptools.dist import Distribution

    for path in paths:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                if zipfile.is_zipfile(path):
                    with zipfile.ZipFile(path) as z:
                        z.extractall(tmp)
                else:
                    with tarfile.open(path) as t:
                        t.extractall(tmp, filter="data")
            except (tarfile.TarError, OSError, zipfile.BadZipFile, EOFError, zlib.error):
                continue
            cfgs = sorted(Path(tmp).glob("*/setup.cfg")) or sorted(Path(tmp).glob("setup.cfg"))
            if not cfgs:
                continue
            with (
                warnings.catch_warnings(),
                contextlib.redirect_stderr(io.StringIO()),
                contextlib.suppress(Exception),  # a broken setup.cfg is a result too
            ):
                warnings.simplefilter("ignore")
                Distribution().parse_config_files(filenames=[str(cfgs[0])])


def sapper_scan(
    list_file: Path,
    work: Path,
    jobs: int,
    *,
    select: str = "",
    early_stop: bool = True,
    count: int | None = None,
) -> Callable[[list[Path]], None]:
    """``sapper scan`` as a user runs it: a fresh process, a fresh database, cached files."""

    def run(paths: list[Path]) -> None:
        db = Path(tempfile.mkdtemp(dir=work)) / "scan.duckdb"
        argv = [sys.executable, "-m", "sapper", "scan", str(list_file), "--db", str(db)]
        argv += ["-j", str(jobs), "--progress", "never"]
        argv += ["--select", select] if select else []
        argv += [] if early_stop else ["--no-early-stop"]
        done = subprocess.run(argv, check=True, capture_output=True, text=True, env=_ENV)
        expected = len(paths) if count is None else count
        assert f"scanned {expected} sdists" in done.stderr, done.stderr

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N sdists")
    args = parser.parse_args()
    print(f"load average (1, 5, 15 min) at the start: {os.getloadavg()}")

    from corpus import cached_paths

    paths = cached_paths()
    if args.limit:
        paths = paths[: args.limit]
    size = sum(p.stat().st_size for p in paths)
    print(f"corpus: {len(paths)} sdists, {size / 2**20:.1f} MiB compressed")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        list_file = work / "corpus.txt"
        list_file.write_text("".join(f"{p}\n" for p in paths))
        one = min(paths, key=lambda p: p.stat().st_size)
        one_file = work / "one.txt"
        one_file.write_text(f"{one}\n")
        sc = "SC"
        contenders: dict[str, Callable[[list[Path]], None]] = {
            J1: sapper_scan(list_file, work, 1),
            J2: sapper_scan(list_file, work, 2),
            SC1: sapper_scan(list_file, work, 1, select=sc),
            SC2: sapper_scan(list_file, work, 2, select=sc),
            SC1_FULL: sapper_scan(list_file, work, 1, select=sc, early_stop=False),
            NAIVE: naive,
            FLOOR: floor,
            READ_LEAN: read_all("lean"),
            READ_TARFILE: read_all("tarfile"),
            LEAST: least,
            START1: sapper_scan(one_file, work, 1, count=1),
            START2: sapper_scan(one_file, work, 2, count=1),
        }
        try:
            from zlib_ng import zlib_ng
        except ImportError:
            print("zlib-ng not installed: its floor is skipped")
        else:
            contenders[FLOOR_NG] = lambda paths: floor(paths, zlib_ng)
        try:
            from isal import isal_zlib
        except ImportError:
            print("isal not installed: its floor is skipped")
        else:
            contenders[FLOOR_ISAL] = lambda paths: floor(paths, isal_zlib)
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for name, fn in contenders.items():
                start = time.perf_counter()
                fn(paths)
                elapsed = time.perf_counter() - start
                best[name] = min(best.get(name, elapsed), elapsed)
    width = max(map(len, best))
    for name, seconds in best.items():
        print(f"{name:<{width}}  {seconds:7.2f} s  {len(paths) / seconds:8.1f} sdists/s")
    print()
    for name in (J1, SC1):
        naive_x, floor_x = best[NAIVE] / best[name], best[FLOOR] / best[name]
        print(f"{name}: {naive_x:5.1f}x as fast as naive, {floor_x:5.2f}x as fast as the floor")
    print(f"lean tar reader over tarfile's: {best[READ_TARFILE] / best[READ_LEAN]:5.2f}x")
    for name, label in ((FLOOR_NG, "zlib-ng"), (FLOOR_ISAL, "ISA-L")):
        if name in best:
            print(f"{J1}: {best[name] / best[J1]:5.2f}x as fast as the {label} floor")
    if FLOOR_NG in best and FLOOR_ISAL in best:
        print(f"ISA-L over zlib-ng (floors): {best[FLOOR_NG] / best[FLOOR_ISAL]:5.2f}x")
    j1_x, sc_x = best[J1] / best[J2], best[SC1] / best[SC2]
    print(f"-j 2 over -j 1: {j1_x:5.2f}x with all rules, {sc_x:5.2f}x with SC only")
    print(f"early stop over a full read (SC only, -j 1): {best[SC1_FULL] / best[SC1]:5.2f}x")
    budget = best[FLOOR] / 1.5
    print(
        f"1.5x the floor allows {budget:.2f} s in all; the least work takes "
        f"{best[LEAST]:.2f} s of it ({best[LEAST] / budget:.0%}) before start-up, "
        f"checks, rules and the store (sapper -j 1's fixed cost alone: {best[START1]:.2f} s)"
    )
    fixed1, fixed2 = best[START1], best[START2]
    if best[J1] > fixed1 and best[J2] > fixed2:
        print(
            f"-j 2 over -j 1 without the fixed costs ({fixed1:.2f} s, {fixed2:.2f} s): "
            f"{(best[J1] - fixed1) / (best[J2] - fixed2):5.2f}x"
        )
    print("aims (issue 13): -j 1 all rules >= 1.5x the floor and >= 10x naive; -j 2 >= 1.8x -j 1")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
