"""Read the files of one project, from a directory or from an sdist archive, into memory.

Archives are never extracted: tar archives are decompressed as a stream (gzip with the
fastest inflater installed, :mod:`sapper.inputs._inflate`) and their headers parsed by a lean
reader (:mod:`sapper.inputs._tar`; ``tarfile`` is its reference in the tests and reads what it
leaves, sparse members); zip archives through their central directory. An sdist file is
read as a stream, a slice at a time, never whole: what is kept in memory is the files the
rules want (each under ``max_member_size``), so reading costs about the same memory
whatever the archive's size.
Nothing is ever written to disk.
Every archive is treated as hostile until read: member names, link targets, member types,
claimed and actual sizes and the compression ratio are all checked, and every problem becomes
an :class:`~sapper._exceptions.ArchiveError` naming the archive and the member at fault.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from types import ModuleType
from typing import IO, Final, Protocol, TypeAlias

from sapper._exceptions import ArchiveError, TargetError
from sapper.inputs import _inflate, _tar
from sapper.inputs._collect import (
    _RATIO_FLOOR,
    _Collector,
    _hostile,
    _member_path,
    _Project,
    _Where,
    _WrongRoot,
)
from sapper.inputs._directory import read_directory
from sapper.inputs._files import (
    DEFAULT_LIMITS,
    Limits,
    ProjectFiles,
    default_wanted,
    is_sdist_filename,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Limits",
    "ProjectFiles",
    "archive_format",
    "default_wanted",
    "is_sdist_filename",
    "read_directory",
    "read_sdist",
]


def __dir__() -> list[str]:
    return __all__


# --------------------------------------------------------------------------- archives


_COMPRESSED_MAGIC: Final[tuple[tuple[bytes, str], ...]] = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x1f\x9d", "Unix compress"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip"),
    (b"Rar!\x1a\x07", "RAR"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
)
_SPECIAL_FILE_TYPES: Final = frozenset({stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK})
_MAX_LINK_TARGET: Final = 4096


_human = _tar._human  # one way to write a size in messages: the tar reader's

#: An archive being read: its bytes, or its file read on demand (never whole).
_Archive: TypeAlias = "bytes | _inflate.FileBytes"


def archive_format(data: bytes) -> str | None:
    """``gzip``, ``bzip2``, ``xz``, ``tar`` or ``zip`` (also with data before the zip, such
    as a self-extracting stub), or None when ``data`` is none of them."""
    fmt = _format_of(data[:1024])
    if fmt is None and _is_zip(data):
        fmt = "zip"
    return fmt


def _is_zip(data: _Archive) -> bool:
    """A zip archive behind a stub (found from its end-of-central-directory record)."""
    import zipfile  # rare

    return zipfile.is_zipfile(_opened(data))


def _format_of(head: bytes) -> str | None:
    """Name the format of an archive from its first bytes, or None when unknown."""
    for magic, name in _COMPRESSED_MAGIC:
        if head.startswith(magic):
            return name
    if len(head) >= _tar.BLOCK:
        block = head[: _tar.BLOCK]
        if block[257:262] == b"ustar":
            return "tar"
        return "tar" if _tar.is_header(block) else None
    return None


def _damaged(label: str, fmt: str, where: object, exc: BaseException) -> ArchiveError:
    """Word an exception raised by a damaged archive (the same whichever inflater ran)."""
    detail = str(exc) or type(exc).__name__
    kind = "tar" if fmt == "tar" else "zip" if fmt == "zip" else f"{fmt}-compressed tar"
    if isinstance(exc, EOFError):
        problem = f"is truncated{where} ({detail})"
    elif isinstance(exc, _inflate.InflateError) and not isinstance(exc, _inflate.GzipFormatError):
        problem = f"has corrupt compressed data{where} ({fmt}: {detail})"
    elif _is_codec_error(exc):
        problem = f"has corrupt compressed data{where} ({_codec_detail(detail)})"
    else:
        problem = f"is a damaged {kind} archive{where} ({detail})"
    return ArchiveError(f"{label}: {problem}; download or build the sdist again")


def _is_codec_error(exc: BaseException) -> bool:
    """A zlib or lzma error (checked by name: neither module need be imported)."""
    name = type(exc).__module__, type(exc).__name__
    return name in {("zlib", "error"), ("_lzma", "LZMAError"), ("lzma", "LZMAError")}


def _codec_detail(detail: str) -> str:
    """zlib's "Error -3 while decompressing data: invalid block type" as sapper words it."""
    if detail.startswith("Error ") and "decompressing data: " in detail:
        return _inflate.reason(detail)
    return detail


#: Exceptions a damaged archive may raise from the standard library's readers.
_ARCHIVE_ERRORS: Final = (
    _tar.ReadError,
    _inflate.InflateError,
    EOFError,
    OSError,  # tarfile.TarError is not one; the caller adds it when tarfile ran
    ValueError,
    OverflowError,
    NotImplementedError,
    RuntimeError,
    zlib.error,
)
_CHUNK: Final = 256 * 1024  # decompressed bytes read at a time from bz2, xz and plain tar


def _chunks(fmt: str, data: _Archive) -> tuple[Iterator[bytes], Callable[[], int]]:
    """The decompressed chunks of ``data`` (the archive's bytes, or its file read on demand)
    and a function telling the compressed bytes used."""
    if fmt == "gzip":
        counter = _inflate.Counter()
        return _inflate.gzip_chunks(data, counter), lambda: counter.consumed
    if fmt == "tar":
        return (data[at : at + _CHUNK] for at in range(0, len(data), _CHUNK)), lambda: 0
    compressed = _opened(data)
    if fmt == "bzip2":
        import bz2  # rare: only for .tar.bz2

        stream: _Readable = bz2.BZ2File(compressed)  # read to the end
    else:
        import lzma  # rare: only for .tar.xz

        stream = lzma.LZMAFile(compressed)  # noqa: SIM115  # read to the end
    return iter(lambda: stream.read(_CHUNK), b""), compressed.tell


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def _opened(data: _Archive) -> IO[bytes]:
    """The archive as a binary file at its start: its own file, or its bytes in a buffer."""
    if isinstance(data, bytes):
        return io.BytesIO(data)
    data.file.seek(0)
    return data.file


def _scan_lean(
    data: _Archive, fmt: str, collector: _Collector, where: _Where, stop_after: frozenset[str]
) -> None:
    """Stream the tar archive through the lean header reader into ``collector``."""
    chunks, consumed = _chunks(fmt, data)
    ratio = fmt != "tar"

    def check(done: int, total: int) -> None:
        # the size limit applies to the bytes the reader reached; the ratio to all bytes
        # inflated so far, against the compressed bytes that gave them
        where.head = stream.head
        where.total = done
        where.check(done, total, consumed() if ratio else total)

    stream = _tar.Stream(chunks, check)
    files = collector.project.files
    for member in _tar.members(stream):
        where.member = member.name
        where.data_end = member.data_end
        rel = collector.member(member.name, member.kind, member.size, member.linkname)
        if rel is not None:
            content = stream.read(member.size)
            if len(content) != member.size:
                msg = "unexpected end of data"
                raise _tar.ReadError(msg)
            files[rel] = content
            if stop_after and rel in stop_after and stop_after.issubset(files):
                return  # everything asked for is read: stop early
    where.ended = True
    stream.drain()  # check the integrity of the rest of the compressed stream


#: The tar reader: ``lean`` (used) or ``tarfile`` (the reference, and the fallback).
_tar_reader = "lean"


def _read_tar(
    data: _Archive,
    fmt: str,
    label: str,
    wanted: Callable[[str], bool],
    limits: Limits,
    *,
    stop_after: frozenset[str] = frozenset(),
) -> ProjectFiles:
    reader = _tar_reader
    root: str | None = None  # guessed from the first member, then "" if proved wrong
    while True:
        collector = _Collector(label, wanted, limits, root)
        where = _Where(label, limits)
        try:
            if reader == "lean":
                try:
                    _scan_lean(data, fmt, collector, where, stop_after)
                except _tar.Unsupported:
                    reader = "tarfile"  # sparse members: left to tarfile
                    continue
            else:
                from sapper.inputs import _tarfile_reader  # the reference

                _tarfile_reader.scan_tar(data, fmt, collector, where, stop_after)
        except _WrongRoot:
            assert root is None
            root = ""
            continue
        except ArchiveError:
            raise
        except _tar_errors() as exc:
            inner = _format_of(where.head) if where.head else None
            if collector.count == 0 and fmt != "tar" and inner is not None and inner != "tar":
                msg = (
                    f"{label}: the {fmt} stream holds {inner} data, not a tar archive; an sdist "
                    "is a tar archive compressed once (rebuild the sdist)"
                )
                raise ArchiveError(msg) from exc
            raise _damaged(label, fmt, where, exc) from exc
        return collector.project.result()


def _zip_errors(zipfile: ModuleType) -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (zipfile.BadZipFile, zipfile.LargeZipFile)
    return errors + _tar_errors()


def _tar_errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = _ARCHIVE_ERRORS
    if "tarfile" in sys.modules:
        errors += (sys.modules["tarfile"].TarError,)
    if "lzma" in sys.modules:
        errors += (sys.modules["lzma"].LZMAError,)
    return errors


def _read_zip(
    data: _Archive, label: str, wanted: Callable[[str], bool], limits: Limits
) -> ProjectFiles:
    import zipfile  # only for zip sdists

    where = ""
    try:
        with zipfile.ZipFile(_opened(data)) as archive:
            infos = archive.infolist()
            if len(infos) > limits.max_members:
                msg = (
                    f"{label}: has more than {limits.max_members} members; refusing to read a "
                    "likely hostile archive (raise `max_members` if it is genuine)"
                )
                raise ArchiveError(msg)
            claimed = sum(info.file_size for info in infos)
            if claimed > limits.max_total_size:
                msg = (
                    f"{label}: its members claim {_human(claimed)} in all, more than "
                    f"{_human(limits.max_total_size)}; refusing to read a likely decompression "
                    "bomb (raise `max_total_size` if it is genuine)"
                )
                raise ArchiveError(msg)
            # (path, is a directory, info) of every member
            members: list[tuple[str, bool, zipfile.ZipInfo]] = []
            tops: set[str] = set()
            top_is_file = False
            for info in infos:
                raw = info.orig_filename
                path = _member_path(label, raw)
                is_dir = raw.endswith(("/", "\\")) or (
                    info.create_system == 3 and stat.S_ISDIR(info.external_attr >> 16)
                )
                members.append((path, is_dir, info))
                top, slash, _ = path.partition("/")
                if top:
                    tops.add(top)
                    top_is_file = top_is_file or not (slash or is_dir)
                elif not is_dir:
                    raise _hostile(label, raw, "has an empty name")
            root = tops.pop() if len(tops) == 1 and not top_is_file else ""
            cut = len(root) + 1 if root else 0
            project = _Project(label, root, wanted)
            names = project.names
            files = project.files
            total = 0
            consumed = 0
            for path, is_dir, info in members:
                if is_dir or len(path) < cut:
                    continue
                raw = info.orig_filename
                rel = path[cut:]
                mode = info.external_attr >> 16 if info.create_system == 3 else 0
                if stat.S_ISLNK(mode):
                    if info.file_size > _MAX_LINK_TARGET:
                        raise _hostile(label, raw, "is a link with an overlong target")
                    where = f" in member {raw!r}"
                    target = archive.read(info).decode("utf-8", "surrogateescape")
                    project.add_symlink(rel, raw, target)
                    continue
                if stat.S_IFMT(mode) in _SPECIAL_FILE_TYPES:
                    raise _hostile(label, raw, "is a device file, FIFO or socket")
                if rel in names or project.symlinks:
                    project.forget(rel)
                names.add(rel)
                if not wanted(rel):
                    continue
                if info.file_size > limits.max_member_size:
                    msg = (
                        f"{label}: member {raw!r} claims {_human(info.file_size)}, more than "
                        f"the {_human(limits.max_member_size)} limit; refusing to read a likely "
                        "decompression bomb (raise `max_member_size` if it is genuine)"
                    )
                    raise ArchiveError(msg)
                if info.flag_bits & 0x1:
                    msg = f"{label}: member {raw!r} is encrypted; an sdist cannot be read then"
                    raise ArchiveError(msg)
                where = f" in member {raw!r}"
                with archive.open(info) as member:
                    content = member.read(limits.max_member_size + 1)
                total += len(content)
                consumed += info.compress_size
                if total > limits.max_total_size or len(content) > limits.max_member_size:
                    msg = (
                        f"{label}: decompresses to more than the limits{where}; refusing to "
                        "read a likely decompression bomb"
                    )
                    raise ArchiveError(msg)
                if total > _RATIO_FLOOR and total > limits.max_ratio * max(consumed, 1):
                    msg = (
                        f"{label}: {_human(consumed)} of compressed data expand to "
                        f"{_human(total)}{where}, a ratio over {limits.max_ratio:g}:1; refusing "
                        "to read a likely decompression bomb (raise `max_ratio` if it is genuine)"
                    )
                    raise ArchiveError(msg)
                files[rel] = content
    except _zip_errors(zipfile) as exc:
        raise _damaged(label, "zip", where, exc) from exc
    return project.result()


def read_sdist(
    source: str | os.PathLike[str] | bytes,
    *,
    label: str | None = None,
    wanted: Callable[[str], bool] = default_wanted,
    limits: Limits = DEFAULT_LIMITS,
    stop_after: Collection[str] = (),
) -> ProjectFiles:
    """Read the project in an sdist archive, given as a path or as the archive's bytes.

    A file is read as a stream, a slice at a time, never whole: memory holds the wanted
    files, not the archive (a pipe or a device is read into memory, up to
    ``max_archive_size``).

    Gzip-, bzip2- and xz-compressed tar, plain tar and zip archives are recognised by their
    content. The archive's single top-level directory (``pkg-1.0/``), if any, is stripped from
    the paths. Nothing is extracted or written to disk.

    ``stop_after`` names wanted paths (relative to the root) after which a tar archive need
    not be read further: reading stops as soon as all of them have been read, so ``names``
    then lists only the members seen so far, a later member of the same name is not seen, and
    the rest of the archive is neither decompressed nor checked. When one of them is missing,
    the whole archive is read. Zip archives are always listed whole (their central directory
    is at the end) and only wanted members are decompressed.

    :param label: names the archive in messages; by default the file name, or ``"<sdist>"``.
    :raises ArchiveError: if the archive is damaged, unsupported, hostile or over a limit.
    :raises TargetError: if the file is missing or cannot be read.
    """
    if isinstance(source, bytes | bytearray | memoryview):
        label = "<sdist>" if label is None else label
        return _read_archive(bytes(source), label, wanted, limits, stop_after)
    file = Path(source)
    label = file.name if label is None else label
    try:
        stream = file.open("rb")
    except FileNotFoundError:
        msg = f"{label}: no such file; check the path of the sdist to analyse"
        raise TargetError(msg) from None
    except OSError as exc:
        msg = f"{label}: cannot read the file ({exc.strerror}); check its path and permissions"
        raise TargetError(msg) from exc
    with stream:
        try:
            info = os.fstat(stream.fileno())
            # a pipe or a device is read in memory (bounded); a file, a slice at a time
            archive: _Archive = (
                _inflate.FileBytes(stream, info.st_size)
                if stat.S_ISREG(info.st_mode)
                else stream.read(limits.max_archive_size + 1)
            )
        except OSError as exc:
            msg = f"{label}: cannot read the file ({exc.strerror}); check its path and permissions"
            raise TargetError(msg) from exc
        return _read_archive(archive, label, wanted, limits, stop_after)


def _read_archive(
    data: _Archive,
    label: str,
    wanted: Callable[[str], bool],
    limits: Limits,
    stop_after: Collection[str],
) -> ProjectFiles:
    """Read the archive ``data`` (its bytes, or its file read on demand)."""
    size = len(data)
    if not size:
        msg = f"{label}: the file is empty; download or build the sdist again"
        raise ArchiveError(msg)
    if size > limits.max_archive_size:
        msg = (
            f"{label}: the archive is larger than {_human(limits.max_archive_size)}; refusing "
            "to read it (raise `max_archive_size` if it is genuine)"
        )
        raise ArchiveError(msg)
    head = data[:1024]
    fmt = _format_of(head)
    if fmt is None and _is_zip(data):
        fmt = "zip"
    if fmt == "zip":
        return _read_zip(data, label, wanted, limits)
    if fmt in ("gzip", "bzip2", "xz", "tar"):
        return _read_tar(data, fmt, label, wanted, limits, stop_after=frozenset(stop_after))
    if fmt is None:
        msg = (
            f"{label}: not an sdist archive (it starts with {head[:8]!r}); expected a tar "
            "archive, compressed with gzip, bzip2 or xz or not, or a zip archive"
        )
    else:
        msg = (
            f"{label}: is a {fmt} archive, which sdists cannot use; expected a tar archive, "
            "compressed with gzip, bzip2 or xz or not, or a zip archive"
        )
    raise ArchiveError(msg)
