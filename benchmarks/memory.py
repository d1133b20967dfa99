"""Peak memory of ``sapper check`` and ``sapper scan`` on large sdists, before and after the
archives were read as streams, side by side in one run.

The baseline is sapper at ``--baseline`` (a git revision; default 8a62316, the last commit
that read each sdist whole into memory), extracted with ``git archive`` into a temporary
folder and run with ``PYTHONPATH``; the code measured is the working tree's ``src``. The
inputs are:

* generated sdists: ``--size`` MB of incompressible data behind PKG-INFO, setup.cfg and
  setup.py, as ``.tar.gz`` and stored zip (and ``.tar.xz``, ``.tar.bz2`` with ``--formats``;
  slow to generate);
* the ``--real`` largest sdists of sapper's download cache (real projects), and any sdist
  given with ``--sdist``.

For each, the peak RSS (``ru_maxrss``) of ``python -m sapper check FILE`` is measured by a
fresh interpreter that starts nothing else, and for the whole set that of
``sapper scan -j 1`` and ``-j 2`` (the scan process and its workers: the peak of the largest).
Prints MiB and the ratio of the baseline's peak to the new one. A bound, not a timing.

    python benchmarks/memory.py [--size 300] [--real 5] [--formats gz,zip] [--sdist FILE]
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import IO

HERE = Path(__file__).parent
ROOT = HERE.parent
MiB = 1024 * 1024
_SMALL = {
    "PKG-INFO": b"Metadata-Version: 2.1\nName: big\nVersion: 1.0\n",
    "setup.cfg": b"[metadata]\nname = big\nauthor = Jos\xe9\n",
    "setup.py": b"from setuptools import setup\nsetup()\n",
}
_PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak * (1 if sys.platform == "darwin" else 1024))
"""


class _Noise(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size
        self.random = random.Random(25)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        count = min(len(buffer), self.left, MiB)
        buffer[:count] = self.random.randbytes(count)
        self.left -= count
        return count


def generate(folder: Path, size: int, fmt: str) -> Path:
    """An sdist with ``size`` bytes of incompressible data, in format ``fmt``."""
    root = "big-1.0"
    if fmt == "zip":
        path = folder / f"{root}.zip"
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
            for name, data in _SMALL.items():
                archive.writestr(f"{root}/{name}", data)
            with archive.open(f"{root}/data/blob.bin", "w", force_zip64=True) as out:
                noise = _Noise(size)
                while chunk := noise.read(MiB):
                    out.write(chunk)
        return path
    path = folder / f"{root}.tar.{fmt}"
    with (
        path.open("wb") as out,
        _compressor(fmt, out) as compressed,
        tarfile.open(fileobj=compressed, mode="w") as tar,
    ):
        for name, data in _SMALL.items():
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo(f"{root}/data/blob.bin")
        info.size = size
        tar.addfile(info, io.BufferedReader(_Noise(size), MiB))
    return path


def _compressor(fmt: str, out: IO[bytes]) -> io.BufferedIOBase:
    """A file that compresses into ``out`` (fast levels: the data are incompressible)."""
    if fmt == "gz":
        return gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0)
    if fmt == "bz2":
        import bz2

        return bz2.BZ2File(out, "wb", compresslevel=1)
    import lzma

    return lzma.LZMAFile(out, "wb", preset=0)


def largest_cached(count: int) -> list[Path]:
    """The ``count`` largest sdists of sapper's download cache."""
    from sapper.pypi import default_cache_dir

    folder = default_cache_dir() / "sdists"
    if not folder.is_dir():
        return []
    files = [path for path in folder.glob("*/*/*") if path.is_file()]
    files.sort(key=lambda path: path.stat().st_size, reverse=True)
    return files[:count]


def baseline_tree(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "src"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def peak(src: Path, *args: str) -> int:
    """The peak RSS of ``python -m sapper ARGS`` (and its workers) with sapper from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "sapper", *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return int(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="8a62316", help="git revision of the baseline")
    parser.add_argument("--size", type=int, default=300, help="MB of the generated member")
    parser.add_argument("--formats", default="gz,zip", help="of the generated sdists")
    parser.add_argument("--real", type=int, default=5, help="largest sdists of the cache")
    parser.add_argument("--sdist", type=Path, action="append", default=[], help="another sdist")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sapper-memory-") as tmp_name:
        tmp = Path(tmp_name)
        sources = {"baseline": baseline_tree(args.baseline, tmp / "baseline"), "new": ROOT / "src"}
        inputs = [generate(tmp, args.size * 1000 * 1000, fmt) for fmt in args.formats.split(",")]
        inputs += largest_cached(args.real) + args.sdist
        print(f"{'input':<44} {'MB':>7} {'baseline MiB':>13} {'new MiB':>8} {'ratio':>6}")
        worst = 0
        for path in inputs:
            before = peak(sources["baseline"], "check", str(path))
            after = peak(sources["new"], "check", str(path))
            worst = max(worst, after)
            size = path.stat().st_size / 1e6
            print(
                f"check {path.name[:38]:<38} {size:7.1f} {before / MiB:13.1f} "
                f"{after / MiB:8.1f} {before / after:5.1f}x"
            )
        for jobs in ("1", "2"):
            measured = {}
            for name, src in sources.items():
                db = tmp / f"scan-{name}-{jobs}.duckdb"
                measured[name] = peak(
                    src,
                    "scan",
                    *map(str, inputs),
                    "-j",
                    jobs,
                    "--db",
                    str(db),
                    "--progress",
                    "never",
                )
            before, after = measured["baseline"], measured["new"]
            print(
                f"scan -j {jobs} of the {len(inputs)} inputs{'':<20} {'':>7} "
                f"{before / MiB:13.1f} {after / MiB:8.1f} {before / after:5.1f}x"
            )
        print(f"largest peak of the new check: {worst / MiB:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
