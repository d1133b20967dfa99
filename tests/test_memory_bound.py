"""Memory is bounded by design: ``sapper check`` and ``sapper scan`` read an sdist as a stream,
so their peak RSS does not grow with the archive.

The archives are 300 MB of incompressible data behind the few files the rules read (a
``.tar.gz`` and a zip). Before sapper read sdist files as streams, ``sapper check`` peaked at
about 300 MiB on them and ``sapper scan -j 1`` at about 950 MiB; the bound here is 200 MiB.
The peak is the kernel's (``ru_maxrss``) for the sapper process and its workers, measured by
a fresh interpreter that starts nothing else, so that no other child counts. A bound, not a
timing.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

resource = pytest.importorskip("resource")

MiB = 1024 * 1024
BOUND = 200 * MiB
SIZE = 300 * 1000 * 1000  # the incompressible member
ROOT = "big-1.0"
SMALL = {
    "PKG-INFO": b"Metadata-Version: 2.1\nName: big\nVersion: 1.0\n",
    # a practice setuptools refuses today, so that the verdict proves setup.cfg was read
    "setup.cfg": b"[metadata]\nname = big\nauthor = Jos\xe9\n",
    "setup.py": b"from setuptools import setup\nsetup()\n",
}

#: Runs a command and prints the peak RSS of its process tree, in bytes (a fresh interpreter:
#: no other child of it has ever ended, so ``RUSAGE_CHILDREN`` is the command's alone).
_PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak * (1 if sys.platform == "darwin" else 1024))
print(done.returncode)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
"""


class _Noise(io.RawIOBase):
    """``size`` random bytes, produced a chunk at a time (never held whole)."""

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


def _tar_gz(path: Path) -> None:
    # level 0: the data are incompressible anyway, and the test should not spend its time
    # compressing them; the reader inflates every byte all the same
    with (
        path.open("wb") as out,
        gzip.GzipFile(fileobj=out, mode="wb", compresslevel=0, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name, data in SMALL.items():
            info = tarfile.TarInfo(f"{ROOT}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo(f"{ROOT}/data/blob.bin")
        info.size = SIZE
        tar.addfile(info, io.BufferedReader(_Noise(SIZE), MiB))


def _zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in SMALL.items():
            archive.writestr(f"{ROOT}/{name}", data)
        with archive.open(f"{ROOT}/data/blob.bin", "w", force_zip64=True) as out:
            noise = _Noise(SIZE)
            while chunk := noise.read(MiB):
                out.write(chunk)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    folder = tmp_path_factory.mktemp("big")
    paths = [folder / f"{ROOT}.tar.gz", folder / f"{ROOT}.zip"]
    _tar_gz(paths[0])
    _zip(paths[1])
    yield paths
    for path in paths:
        path.unlink()


def _peak(*args: str) -> tuple[int, int, str]:
    """The peak RSS of ``python -m sapper ARGS`` and its workers, its exit code, its stdout
    and its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "sapper", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    peak, code, out = done.stdout.split("\n", 2)
    return int(peak), int(code), out + done.stderr


@pytest.mark.parametrize("index", [0, 1], ids=["tar.gz", "zip"])
def test_check_of_a_300_mb_sdist_stays_under_the_bound(big: list[Path], index: int) -> None:
    path = big[index]
    assert path.stat().st_size > SIZE
    peak, code, out = _peak("check", str(path), "--format", "json")
    assert code == 1, out  # the setup.cfg that setuptools refuses
    (target,) = json.loads(out)["targets"]  # (nothing on stderr)
    assert not target["errors"]
    assert target["findings"], target
    assert peak <= BOUND, f"peak RSS {peak / MiB:.0f} MiB"


def test_scan_of_300_mb_sdists_stays_under_the_bound(big: list[Path], tmp_path: Path) -> None:
    db = tmp_path / "scan.duckdb"
    peak, code, out = _peak(
        "scan", *map(str, big), "-j", "2", "--db", str(db), "--progress", "never"
    )
    assert code == 0, out
    assert "2 fail" in out, out
    assert peak <= BOUND, f"peak RSS {peak / MiB:.0f} MiB"
