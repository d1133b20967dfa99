"""A lean reader of tar headers, straight from a stream of decompressed chunks.

It reads the formats sdists use (ustar, pax with its long names and global headers, GNU
longname/longlink, v7) the way :mod:`tarfile` reads them in stream mode, member for member,
without building a ``TarInfo`` per member or copying the data of members nobody reads. It
raises the same errors with the same words as sapper's ``tarfile`` reader (the reference in
the tests). Sparse members, which no sdist carries, raise :class:`Unsupported`: the caller
then reads the archive with ``tarfile``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final
from zlib import adler32

__all__ = [
    "BLOCK",
    "DEVICE",
    "DIR",
    "FIFO",
    "HARDLINK",
    "OTHER",
    "REGULAR",
    "SYMLINK",
    "Member",
    "ReadError",
    "Stream",
    "Unsupported",
    "is_header",
    "members",
    "mode_mtime",
]

BLOCK: Final = 512
_MAX_METADATA: Final = 1024 * 1024  # pax and GNU long-name headers larger than this: refused

# what a member is, for sapper (the values are tar type flags or sapper's own)
REGULAR: Final = "0"
DIR: Final = "5"
SYMLINK: Final = "2"
HARDLINK: Final = "1"
DEVICE: Final = "3"  # character or block device
FIFO: Final = "6"
OTHER: Final = "?"  # an unknown type, which extraction would turn into a file

_KINDS: Final = {
    b"0": REGULAR,
    b"\x00": REGULAR,
    b"7": REGULAR,  # contiguous file
    b"5": DIR,
    b"2": SYMLINK,
    b"1": HARDLINK,
    b"3": DEVICE,
    b"4": DEVICE,
    b"6": FIFO,
}
_SKIPS_DATA: Final = frozenset({b"0", b"\x00", b"7"})  # tarfile skips data of these and unknowns
_SUPPORTED: Final = frozenset({b"0", b"\x00", b"7", b"5", b"2", b"1", b"3", b"4", b"6"})
_GNU_LONG: Final = frozenset({b"L", b"K"})
_PAX: Final = frozenset({b"x", b"g", b"X"})
_METADATA: Final = _GNU_LONG | _PAX
_PAX_RECORD: Final = rb"(\d+) ([^=]+)="
_PAX_CHARSET: Final = rb"\d+ hdrcharset=([^\n]+)\n"


class ReadError(Exception):
    """The tar stream is damaged (worded as sapper's ``tarfile`` reader words it)."""


class Unsupported(Exception):  # a signal, not an error
    """The archive uses a feature this reader leaves to ``tarfile`` (sparse members)."""


class _HeaderError(Exception):
    """A header block cannot be read; ``args[0]`` is tarfile's wording."""


class _EndOfArchive(_HeaderError):
    """A block of zeros (``end of file header``) or no block at all (``empty header``)."""


class _Empty(_EndOfArchive):
    pass


def _human(size: float) -> str:
    unit = "bytes"
    for larger in ("KiB", "MiB", "GiB", "TiB"):
        if size < 1024:
            break
        size /= 1024
        unit = larger
    return f"{size:.4g} {unit}"


class Stream:
    """Decompressed bytes, read from an iterator of chunks, with a position.

    ``check`` is called before every new chunk is used, with the number of bytes used so far
    and the number decompressed with that chunk (for the size and ratio limits), and at the
    end of the stream with its size twice.
    """

    __slots__ = ("_buf", "_check", "_chunks", "_pos", "base", "head", "total")

    def __init__(self, chunks: Iterator[bytes], check: Callable[[int, int], None]) -> None:
        self._chunks = chunks
        self._check = check
        self._buf = b""
        self._pos = 0
        self.base = 0  # the offset of _buf[0] in the stream
        self.total = 0  # decompressed bytes pulled from the chunks so far
        self.head = b""  # the first bytes of the stream

    def tell(self) -> int:
        return self.base + self._pos

    def _more(self) -> bool:
        """Replace the buffer with the next chunk; False at the end of the stream."""
        for chunk in self._chunks:
            if chunk:
                if not self.total:
                    self.head = chunk[:16]
                self.base += len(self._buf)
                self._buf = chunk
                self._pos = 0
                self._check(self.total, self.total + len(chunk))
                self.total += len(chunk)
                return True
        return False

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes (fewer only at the end of the stream)."""
        pos = self._pos
        end = pos + size
        buf = self._buf
        if end <= len(buf):
            self._pos = end
            return buf[pos:end]
        parts = [buf[pos:]]
        need = end - len(buf)
        self._pos = len(buf)
        while need > 0 and self._more():
            buf = self._buf
            part = buf[:need]
            parts.append(part)
            self._pos = len(part)
            need -= len(part)
        return b"".join(parts)

    def skip(self, size: int) -> bool:
        """Skip ``size`` bytes without copying them; False when the stream ends first."""
        end = self._pos + size
        while end > len(self._buf):
            end -= len(self._buf)
            self._pos = len(self._buf)
            if not self._more():
                return False
        self._pos = end
        return True

    def drain(self) -> None:
        """Read the rest of the stream (to check it), keeping nothing."""
        while self._more():
            pass
        self._check(self.total, self.total)


def _nts(field: bytes) -> str:
    """A NUL-terminated string field, decoded as tarfile does (UTF-8, surrogateescape)."""
    nul = field.find(0)
    if nul != -1:
        field = field[:nul]
    return field.decode("utf-8", "surrogateescape")


def _nti(field: bytes) -> int:
    """A number field: octal text, or GNU base-256 (as :func:`tarfile.nti`)."""
    if field[0] in (0o200, 0o377):
        n = int.from_bytes(field[1:], "big")
        if field[0] == 0o377:
            n = -(256 ** (len(field) - 1) - n)
        return n
    nul = field.find(0)
    if nul != -1:
        field = field[:nul]
    try:
        return int(field.decode("ascii").strip() or "0", 8)
    except ValueError:
        raise _HeaderError("invalid header") from None


_NUMBER_FIELDS: Final = ((100, 108), (108, 116), (116, 124), (136, 148), (329, 337), (337, 345))
_ZERO_BLOCK: Final = bytes(BLOCK)
_DIGITS: Final = b"01234567\x00"


def _blocks(size: int) -> int:
    """``size`` rounded up to whole blocks (as ``TarInfo._block``)."""
    blocks, rest = divmod(size, BLOCK)
    return (blocks + 1) * BLOCK if rest else blocks * BLOCK


class Member:
    """One member of the archive, as sapper needs it (also each header while it is read)."""

    __slots__ = ("block", "data_end", "kind", "linkname", "name", "pax_mtime", "size", "type")

    def __init__(
        self, name: str, type_: bytes, size: int, linkname: str, block: bytes = b""
    ) -> None:
        self.name = name
        self.type = type_  # the tar type flag
        self.size = size
        self.linkname = linkname
        self.kind = OTHER  # what it is for sapper (REGULAR, DIR...), set once read
        self.data_end = 0  # where the member's data ends in the stream, set once read
        #: The member's own header block (mode, mtime... for an unpack: :func:`mode_mtime`).
        self.block = block
        self.pax_mtime: str | None = None  # a pax ``mtime`` record, for an unpack


def _frombuf(buf: bytes) -> Member:
    """Parse one header block (as ``TarInfo.frombuf``)."""
    if len(buf) != BLOCK:
        if not buf:
            raise _Empty("empty header")
        raise _HeaderError("truncated header")
    if buf == _ZERO_BLOCK:
        raise _EndOfArchive("end of file header")
    field = buf[148:156]
    try:  # the common case, with tarfile's rules as the fallback
        chksum = int(field.partition(b"\x00")[0] or b"0", 8)
    except ValueError:
        chksum = _nti(field)
    # The sum of the bytes, the checksum field counted as eight spaces (256): adler32's low
    # half is one plus the sum of the bytes modulo 65521, exact for 256 bytes (65280 at most).
    unsigned = (adler32(buf[:256]) & 0xFFFF) + (adler32(buf[256:]) & 0xFFFF)
    unsigned += 255 - (adler32(field) & 0xFFFF)
    if chksum != unsigned:
        signed = unsigned - 256 * sum(1 for byte in (buf[:148] + buf[156:]) if byte > 127)
        if chksum != signed:
            raise _HeaderError("bad checksum")
    if buf[100:148].translate(None, _DIGITS) or buf[329:345].translate(None, _DIGITS):
        for start, end in _NUMBER_FIELDS:  # not only octal digits: the full rules decide
            _nti(buf[start:end])
        size = _nti(buf[124:136])
    else:  # the common case: octal digits and NULs, which always parse
        size = int(buf[124:136].partition(b"\x00")[0] or b"0", 8)
    type_ = buf[156:157]
    if type_ in _METADATA:  # its name is not used
        if size > _MAX_METADATA:
            msg = (
                f"a metadata header (type {type_!r}) claims {_human(size)}, "
                f"more than {_human(_MAX_METADATA)}"
            )
            raise ReadError(msg)
        return Member("", type_, size, "")
    name = buf[:100].partition(b"\x00")[0].decode("utf-8", "surrogateescape")
    linkname = _nts(buf[157:257]) if buf[157] else ""
    if type_ == b"\x00" and name.endswith("/"):
        type_ = b"5"
    if type_ == b"S":
        msg = "a GNU sparse member"
        raise Unsupported(msg)
    if type_ == b"5":
        name = name.rstrip("/")
    if buf[345]:
        name = _nts(buf[345:500]) + "/" + name
    return Member(name, type_, size, linkname, buf)


def mode_mtime(member: Member) -> tuple[int, float]:
    """The permission bits and modification time of ``member``, as ``tarfile`` reads them:
    the header's fields (0 for a field it would refuse), the time from a pax ``mtime``
    record when there is one."""
    block = member.block
    fields = []
    for start, end in ((100, 108), (136, 148)):
        try:
            fields.append(_nti(block[start:end]) if block else 0)
        except _HeaderError:
            fields.append(0)
    mtime: float = fields[1]
    if member.pax_mtime is not None:
        try:
            mtime = float(member.pax_mtime)
        except ValueError:
            mtime = 0
    return fields[0], mtime


def is_header(block: bytes) -> bool:
    """Tell whether ``block`` reads as a tar header block (or the end-of-archive zeros)."""
    try:
        _frombuf(block)
    except _EndOfArchive:
        return True
    except _HeaderError:
        return False
    except (Unsupported, ReadError):
        return True
    return True


def _apply_pax(header: Member, pax: dict[str, str]) -> None:
    """Let pax records override the header's fields (as ``TarInfo._apply_pax_info``)."""
    for keyword, value in pax.items():
        if keyword.startswith("GNU.sparse."):
            msg = "a GNU sparse member"
            raise Unsupported(msg)
        if keyword == "path":
            header.name = value.rstrip("/")
        elif keyword == "linkpath":
            header.linkname = value
        elif keyword == "size":
            try:
                header.size = int(value)
            except ValueError:
                header.size = 0
        elif keyword == "mtime":
            header.pax_mtime = value


#: The pax keywords that change what sapper reads (``_apply_pax``); the others (``mtime``,
#: in most sdists) are walked over, as tarfile does, but not decoded.
_PAX_USED: Final = frozenset({b"path", b"linkpath", b"size"})
#: ... and for an unpack (``members(times=True)``), which also keeps the time.
_PAX_USED_TIMES: Final = _PAX_USED | {b"mtime"}


def _parse_pax(buf: bytes, records: dict[str, str], used: frozenset[bytes] = _PAX_USED) -> None:
    """Add the records of a pax header that sapper uses to ``records`` (read as
    ``TarInfo._proc_pax`` reads them, so that the same headers are refused)."""
    if b"hdrcharset=" in buf:
        match = re.search(_PAX_CHARSET, buf)
        if match is not None:
            records["hdrcharset"] = match.group(1).decode("utf-8")
    pos = 0
    record = re.compile(_PAX_RECORD)  # cached by re; compiled only when an archive has pax
    while (match := record.match(buf, pos)) is not None:
        length_text, keyword = match.groups()
        length = int(length_text)
        if length == 0:
            raise _HeaderError("invalid header")
        if keyword in used or keyword.startswith(b"GNU.sparse."):
            value = buf[match.end(2) + 1 : match.start(1) + length - 1]
            records[keyword.decode("utf-8", "surrogateescape")] = value.decode(
                "utf-8", "surrogateescape"
            )
        pos += length


class _Reader:
    """Reads headers the way ``TarInfo.fromtarfile`` does, sharing the global pax records."""

    __slots__ = ("glob", "next_offset", "stream", "used")

    def __init__(self, stream: Stream, used: frozenset[bytes] = _PAX_USED) -> None:
        self.stream = stream
        self.used = used  # the pax keywords decoded
        self.glob: dict[str, str] = {}
        self.next_offset = 0  # tarfile.offset: where the next header is

    def header(self) -> tuple[Member, int]:
        """The next member's header (after its metadata headers) and where its data starts."""
        stream = self.stream
        header = _frombuf(stream.read(BLOCK))
        type_ = header.type
        if type_ in _GNU_LONG:
            buf = stream.read(_blocks(header.size))
            try:
                member, data_start = self.header()
            except _HeaderError as exc:
                raise _HeaderError(*exc.args) from None  # not the end of the archive
            if type_ == b"L":
                member.name = _nts(buf)
            else:
                member.linkname = _nts(buf)
            if member.type == b"5":
                member.name = member.name.removesuffix("/")
            return member, data_start
        if type_ in _PAX:
            buf = stream.read(_blocks(header.size))
            records = self.glob if type_ == b"g" else dict(self.glob)
            _parse_pax(buf, records, self.used)
            try:
                member, data_start = self.header()
            except _HeaderError as exc:
                raise _HeaderError(*exc.args) from None
            if type_ != b"g":
                _apply_pax(member, records)
                if "size" in records:
                    self._set_next(member, data_start)
            return member, data_start
        data_start = stream.tell()
        if self.glob:
            _apply_pax(header, self.glob)
        if type_ == b"5":
            header.name = header.name.rstrip("/")
        self._set_next(header, data_start)
        return header, data_start

    def _set_next(self, header: Member, data_start: int) -> None:
        type_ = header.type
        if type_ in _SKIPS_DATA or type_ not in _SUPPORTED:  # rounded up to whole blocks
            self.next_offset = data_start + (header.size + BLOCK - 1) // BLOCK * BLOCK
        else:
            self.next_offset = data_start


def members(stream: Stream, *, times: bool = False) -> Iterator[Member]:
    """Yield the members of the tar archive in ``stream``, as ``tarfile``'s stream mode would.

    The caller may read a member's data (exactly ``member.size`` bytes) with ``stream.read``
    before asking for the next member; otherwise it is skipped. With ``times``, a pax
    ``mtime`` record is kept too (``member.pax_mtime``, for :func:`mode_mtime`).

    :raises ReadError: if the archive is damaged (truncated data, a bad header...).
    :raises Unsupported: for a sparse member.
    """
    reader = _Reader(stream, _PAX_USED_TIMES if times else _PAX_USED)
    header_of = reader.header
    first = True
    while True:
        offset = reader.next_offset
        here = stream.base + stream._pos  # stream.tell(), inlined: once a member
        if not first and offset != here and (offset < here or not stream.skip(offset - here)):
            msg = "unexpected end of data"
            raise ReadError(msg)
        first = False
        try:
            header, data_start = header_of()
        except _Empty:
            if offset == 0:
                msg = "empty file"
                raise ReadError(msg) from None
            return
        except _EndOfArchive:
            return
        except _HeaderError as exc:
            msg = f"damaged header at offset {offset}: {exc.args[0]}"
            raise ReadError(msg) from None
        header.kind = _KINDS.get(header.type, OTHER)
        header.data_end = data_start + header.size
        yield header
