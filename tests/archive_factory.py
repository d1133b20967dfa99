"""Build sdist-like archives in memory for the tests of sapper.inputs.sources."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import struct
import tarfile
import zipfile
import zlib
from dataclasses import dataclass

__all__ = [
    "Entry",
    "compress",
    "corrupt_zip_sizes",
    "dir_",
    "file",
    "gzip_zero_bomb",
    "hardlink",
    "make_tar",
    "make_zip",
    "special",
    "symlink",
]

_MiB = 1024 * 1024


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str = "file"  # file, dir, symlink, hardlink, fifo, chr, blk
    data: bytes = b""
    target: str = ""
    size: int | None = None  # claimed size in the header, when it must lie


def file(name: str, data: bytes | str = b"", *, size: int | None = None) -> Entry:
    if isinstance(data, str):
        data = data.encode()
    return Entry(name, "file", data, size=size)


def dir_(name: str) -> Entry:
    return Entry(name, "dir")


def symlink(name: str, target: str) -> Entry:
    return Entry(name, "symlink", target=target)


def hardlink(name: str, target: str) -> Entry:
    return Entry(name, "hardlink", target=target)


def special(name: str, kind: str) -> Entry:
    return Entry(name, kind)


_TAR_TYPES = {
    "file": tarfile.REGTYPE,
    "dir": tarfile.DIRTYPE,
    "symlink": tarfile.SYMTYPE,
    "hardlink": tarfile.LNKTYPE,
    "fifo": tarfile.FIFOTYPE,
    "chr": tarfile.CHRTYPE,
    "blk": tarfile.BLKTYPE,
}


def _tar_bytes(entries: list[Entry], tar_format: int) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tar_format) as archive:
        for entry in entries:
            info = tarfile.TarInfo(entry.name)
            info.type = _TAR_TYPES[entry.kind]
            info.mtime = 1_700_000_000
            info.mode = 0o755 if entry.kind == "dir" else 0o644
            info.linkname = entry.target
            if entry.kind == "file":
                info.size = len(entry.data)
                archive.addfile(info, io.BytesIO(entry.data))
            else:
                archive.addfile(info)
    return out.getvalue()


def compress(data: bytes, compression: str) -> bytes:
    if compression == "gz":
        return gzip.compress(data, mtime=0)
    if compression == "bz2":
        return bz2.compress(data)
    if compression == "xz":
        return lzma.compress(data)
    assert compression == "", compression
    return data


def make_tar(
    entries: list[Entry], compression: str = "gz", *, tar_format: int = tarfile.PAX_FORMAT
) -> bytes:
    """A tar archive of ``entries``, compressed with ``gz``, ``bz2``, ``xz`` or nothing."""
    if any(entry.size is not None for entry in entries):
        data = _lying_tar(entries)
    else:
        data = _tar_bytes(entries, tar_format)
    return compress(data, compression)


def _lying_tar(entries: list[Entry]) -> bytes:
    """A tar archive whose headers may claim sizes their data do not have."""
    blocks = []
    for entry in entries:
        info = tarfile.TarInfo(entry.name)
        info.type = _TAR_TYPES[entry.kind]
        info.size = len(entry.data) if entry.size is None else entry.size
        blocks.append(info.tobuf(format=tarfile.GNU_FORMAT))
        blocks.append(entry.data + bytes(-len(entry.data) % tarfile.BLOCKSIZE))
    blocks.append(bytes(2 * tarfile.BLOCKSIZE))
    return b"".join(blocks)


def make_zip(entries: list[Entry], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive of ``entries``; symlinks and special files carry Unix modes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as archive:
        for entry in entries:
            name = entry.name
            if entry.kind == "dir" and not name.endswith("/"):
                name += "/"
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.compress_type = compression
            data = entry.data
            if entry.kind == "dir":
                info.external_attr = (stat.S_IFDIR | 0o755) << 16
            elif entry.kind == "symlink":
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                data = entry.target.encode()
            elif entry.kind == "fifo":
                info.external_attr = (stat.S_IFIFO | 0o644) << 16
            elif entry.kind == "chr":
                info.external_attr = (stat.S_IFCHR | 0o644) << 16
            else:
                assert entry.kind == "file", entry.kind
                info.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return out.getvalue()


def corrupt_zip_sizes(data: bytes, name: str, *, file_size: int) -> bytes:
    """Make the central directory claim ``file_size`` for the member ``name``."""
    encoded = name.encode()
    at = data.index(b"PK\x01\x02")
    while True:
        name_length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + name_length] == encoded:
            break
        extra, comment = struct.unpack_from("<HH", data, at + 30)
        at += 46 + name_length + extra + comment
    patched = bytearray(data)
    struct.pack_into("<I", patched, at + 24, file_size)
    return bytes(patched)


def gzip_zero_bomb(member: str, size: int) -> bytes:
    """A .tar.gz holding ``member``: ``size`` zero bytes (a multiple of 1 MiB), built fast.

    Each MiB of zeros is deflated once after a full flush, so the same compressed segment
    can be repeated instead of compressing ``size`` bytes.
    """
    assert size % _MiB == 0
    info = tarfile.TarInfo(member)
    info.size = size
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    trailer = bytes(2 * tarfile.BLOCKSIZE)
    chunk = bytes(_MiB)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    head = deflate.compress(header) + deflate.flush(zlib.Z_FULL_FLUSH)
    segment = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    again = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert segment == again
    tail = deflate.compress(trailer) + deflate.flush()
    crc = zlib.crc32(header)
    chunk_crc_state = crc
    for _ in range(size // _MiB):
        chunk_crc_state = zlib.crc32(chunk, chunk_crc_state)
    crc = zlib.crc32(trailer, chunk_crc_state)
    total = len(header) + size + len(trailer)
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return b"".join(
        [
            gzip_header,
            head,
            segment * (size // _MiB - 1),
            again,
            tail,
            struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF),
        ]
    )
