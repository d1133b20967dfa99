"""Repaired sdists: same members in the same order, same modes and mtimes, PKG-INFO untouched."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile

import pytest

from sapper._exceptions import ArchiveError
from sapper.fix import fix_files
from sapper.fix.sdist import rewrite_sdist
from sapper.inputs.sources import read_sdist

CFG = b"[metadata]\nname = x\n# keep\nauthor-email = a@b\n"
FIXED_CFG = b"[metadata]\nname = x\n# keep\nauthor_email = a@b\n"
PKG_INFO = b"Metadata-Version: 1.1\nName: x\nVersion: 1.0\n"
MEMBERS = [
    ("x-1.0/", None, 0o755, 1_500_000_000),
    ("x-1.0/PKG-INFO", PKG_INFO, 0o644, 1_500_000_001),
    ("x-1.0/setup.py", b"from setuptools import setup\nsetup()\n", 0o755, 1_500_000_002),
    ("x-1.0/setup.cfg", CFG, 0o600, 1_500_000_003),
    ("x-1.0/x/__init__.py", b"", 0o644, 1_500_000_004),
]


def _tar(compression: str, fmt: int) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt) as tf:
        for name, data, mode, mtime in MEMBERS:
            info = tarfile.TarInfo(name.rstrip("/"))
            info.mode, info.mtime, info.uname, info.gname = mode, mtime, "dev", "staff"
            if data is None:
                info.type = tarfile.DIRTYPE
                tf.addfile(info)
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    if compression == "gz":
        out = io.BytesIO()
        with gzip.GzipFile(filename="x-1.0.tar", mode="wb", fileobj=out, mtime=1_600_000_000) as gz:
            gz.write(raw.getvalue())
        return out.getvalue()
    if compression == "bz2":
        import bz2

        return bz2.compress(raw.getvalue())
    if compression == "xz":
        import lzma

        return lzma.compress(raw.getvalue())
    return raw.getvalue()


def _zip() -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, mode, _ in MEMBERS:
            info = zipfile.ZipInfo(name, date_time=(2017, 7, 14, 2, 40, 0))
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data or b"")
    return raw.getvalue()


def _tar_members(data: bytes) -> list[tuple[str, int, int, str, bytes | None]]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
        out = []
        for m in tf.getmembers():
            content = tf.extractfile(m).read() if m.isreg() else None  # type: ignore[union-attr]
            out.append((m.name, m.mode, int(m.mtime), m.uname, content))
        return out


@pytest.mark.parametrize(
    ("compression", "fmt"),
    [
        ("gz", tarfile.GNU_FORMAT),
        ("gz", tarfile.PAX_FORMAT),
        ("bz2", tarfile.GNU_FORMAT),
        ("xz", tarfile.USTAR_FORMAT),
        ("", tarfile.GNU_FORMAT),
    ],
)
def test_tar_rewritten_member_by_member(compression: str, fmt: int) -> None:
    data = _tar(compression, fmt)
    files = read_sdist(data, label="x-1.0.tar")
    result = fix_files(files)
    assert result.files == {"setup.cfg": FIXED_CFG}
    repaired = rewrite_sdist(data, files, result.files)
    before, after = _tar_members(data), _tar_members(repaired)
    assert [m[:4] for m in before] == [m[:4] for m in after]
    expected = [m[4] if not m[0].endswith("setup.cfg") else FIXED_CFG for m in before]
    assert [m[4] for m in after] == expected
    assert repaired[:2] == data[:2]  # same compression
    if compression == "gz":
        assert repaired[4:8] == data[4:8]  # gzip header mtime kept
    # The repaired archive is clean and a second fix changes nothing.
    again = read_sdist(repaired, label="x-1.0.tar")
    assert not fix_files(again).changed
    assert again.files["PKG-INFO"] == PKG_INFO


def test_zip_rewritten_member_by_member() -> None:
    data = _zip()
    files = read_sdist(data, label="x-1.0.zip")
    result = fix_files(files)
    repaired = rewrite_sdist(data, files, result.files)
    with zipfile.ZipFile(io.BytesIO(data)) as a, zipfile.ZipFile(io.BytesIO(repaired)) as b:
        ia, ib = a.infolist(), b.infolist()
        assert [(i.filename, i.date_time, i.external_attr) for i in ia] == [
            (i.filename, i.date_time, i.external_attr) for i in ib
        ]
        assert b.read("x-1.0/setup.cfg") == FIXED_CFG
        assert b.read("x-1.0/PKG-INFO") == a.read("x-1.0/PKG-INFO")


def test_zip_with_data_before_it_is_rewritten() -> None:
    """A zip behind a stub (which read_sdist accepts) is recognised as a zip here too."""
    data = b"#!/bin/sh\nexit 0\n" + _zip()
    files = read_sdist(data, label="x-1.0.zip")
    result = fix_files(files)
    repaired = rewrite_sdist(data, files, result.files)
    with zipfile.ZipFile(io.BytesIO(repaired)) as b:
        assert b.read("x-1.0/setup.cfg") == FIXED_CFG


def test_file_that_is_a_link_in_the_archive_is_refused() -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tf:
        for name, data in (("x-1.0/real.cfg", CFG), ("x-1.0/PKG-INFO", PKG_INFO)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("x-1.0/setup.cfg")
        link.type, link.linkname = tarfile.SYMTYPE, "real.cfg"
        tf.addfile(link)
    data = raw.getvalue()
    files = read_sdist(data, label="x-1.0.tar")
    with pytest.raises(ArchiveError, match=r"setup\.cfg is not a regular member"):
        rewrite_sdist(data, files, {"setup.cfg": FIXED_CFG})


def test_every_member_of_a_repeated_name_is_replaced() -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tf:
        for name, data in (
            ("x-1.0/PKG-INFO", PKG_INFO),
            ("x-1.0/setup.cfg", b"[metadata]\nname = old\n"),
            ("x-1.0/setup.cfg", CFG),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    data = raw.getvalue()
    files = read_sdist(data, label="x-1.0.tar")
    result = fix_files(files)
    assert result.files == {"setup.cfg": FIXED_CFG}
    contents = [m[4] for m in _tar_members(rewrite_sdist(data, files, result.files))]
    assert contents == [PKG_INFO, FIXED_CFG, FIXED_CFG]
