"""sapper's reader of tar archives through :mod:`tarfile`: the reference for the lean reader.

:mod:`sapper.inputs.sources` reads tar archives with its lean header reader
(:mod:`sapper.inputs._tar`); this one reads them through ``tarfile``'s stream mode. It is the
reference the lean reader is tested against, and the fallback for what the lean reader
leaves to ``tarfile`` (sparse members). Both feed the same
:class:`~sapper.inputs._collect._Collector`, which makes every hostile-archive check.
"""

from __future__ import annotations

import tarfile
from typing import IO, Final, Protocol

from sapper.inputs import _tar
from sapper.inputs._collect import _Collector, _human, _Where
from sapper.inputs.sources import _Archive, _opened

__all__ = ["scan_tar"]

_DRAIN_CHUNK: Final = 256 * 1024
_TAR_BUFSIZE: Final = 16 * 1024

_HeaderError: Final = tarfile.HeaderError
_ReadError: Final = tarfile.ReadError
_END_OF_TAR: Final[tuple[type[Exception], ...]] = tuple(
    getattr(tarfile, name) for name in ("EOFHeaderError", "EmptyHeaderError")
)
_TAR_METADATA_TYPES: Final = frozenset(
    {
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
    }
)


class _TarInfo(tarfile.TarInfo):
    """A TarInfo that does not let tarfile silently stop at a damaged header, nor load a
    huge metadata header into memory."""

    __slots__ = ()

    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> _TarInfo:
        info = super().frombuf(buf, encoding, errors)
        if info.type in _TAR_METADATA_TYPES and info.size > _tar._MAX_METADATA:
            msg = (
                f"a metadata header (type {info.type!r}) claims {_human(info.size)}, "
                f"more than {_human(_tar._MAX_METADATA)}"
            )
            raise _ReadError(msg)
        return info

    @classmethod
    def fromtarfile(cls, tarfile: tarfile.TarFile) -> _TarInfo:
        try:
            return super().fromtarfile(tarfile)
        except _END_OF_TAR:
            raise  # the end of the archive, with or without its end-of-archive marker
        except _HeaderError as exc:  # tarfile would stop here silently
            msg = f"damaged header at offset {tarfile.offset}: {exc}"
            raise _ReadError(msg) from None


class _Reader(Protocol):
    def read(self, size: int, /) -> bytes: ...


class _Guard:
    """Hand decompressed bytes to tarfile, enforcing the total-size and ratio limits."""

    __slots__ = ("_compressed", "_inner", "_where")

    def __init__(self, inner: _Reader, compressed: IO[bytes], where: _Where) -> None:
        self._inner = inner
        self._compressed = compressed
        self._where = where

    def read(self, size: int) -> bytes:
        data = self._inner.read(size)
        if data:
            where = self._where
            if not where.total:
                where.head = data[:16]
            where.total += len(data)
            where.check(where.total, where.total, self._compressed.tell())
        return data


def _open_decompressor(fmt: str, compressed: IO[bytes]) -> _Reader:
    if fmt == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=compressed, mode="rb")
    if fmt == "bzip2":
        import bz2

        return bz2.BZ2File(compressed)
    if fmt == "xz":
        import lzma

        return lzma.LZMAFile(compressed)
    return compressed


def _kind(member: tarfile.TarInfo) -> str:
    if member.isreg():
        return _tar.REGULAR
    if member.isdir():
        return _tar.DIR
    if member.issym():
        return _tar.SYMLINK
    if member.islnk():
        return _tar.HARDLINK
    if member.ischr() or member.isblk():
        return _tar.DEVICE
    if member.isfifo():
        return _tar.FIFO
    return _tar.OTHER


def scan_tar(
    data: _Archive, fmt: str, collector: _Collector, where: _Where, stop_after: frozenset[str]
) -> None:
    """Stream the tar archive through ``tarfile`` into ``collector``.

    ``data`` is the archive's bytes or its file, read on demand. Errors of the archive
    propagate as the standard library raises them, for the caller to word; ``where`` tells
    where reading was.
    """
    compressed = _opened(data)
    guard = _Guard(_open_decompressor(fmt, compressed), compressed, where)
    files = collector.project.files
    with tarfile.open(
        fileobj=guard,  # type: ignore[call-overload]  # _Guard only needs read()
        mode="r|",
        tarinfo=_TarInfo,
        encoding="utf-8",
        errors="surrogateescape",
        bufsize=_TAR_BUFSIZE,
    ) as archive:
        # tarfile keeps every member it has read; forget them as we go
        seen: list[tarfile.TarInfo] = vars(archive)["members"]
        while (member := archive.next()) is not None:
            seen.clear()
            where.member = member.name
            where.data_end = member.offset_data + member.size
            rel = collector.member(member.name, _kind(member), member.size, member.linkname)
            if rel is not None:
                extracted = archive.extractfile(member)
                assert extracted is not None
                files[rel] = extracted.read()
                if stop_after and rel in stop_after and stop_after.issubset(files):
                    return  # everything asked for is read: stop early
        where.ended = True
        if fmt != "tar":  # check the integrity of the rest of the compressed stream
            while guard.read(_DRAIN_CHUNK):
                pass
