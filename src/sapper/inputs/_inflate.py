"""Inflate gzip streams with the fastest inflater installed, with sapper's own error messages.

zlib-ng (a regular dependency, wheels for every supported platform) inflates about twice as
fast as the standard library's zlib. ISA-L (``isal``, optional) was measured against it in
the same runs over the 300-sdist benchmark corpus: within 10% either way, run to run
(sdists are small, so per-call costs weigh as much as the inflate loop), so zlib-ng stays the
first choice: it is one dependency fewer, reports zlib's own errors and checks everything zlib
checks. ISA-L is used when zlib-ng is missing and it is installed; the standard library is the
fallback.

Whichever inflater runs, a damaged stream raises :class:`InflateError` with the same message,
zlib's: ISA-L words errors more coarsely ("Invalid deflate block found" for any damaged block,
one "Incorrect checksum" for both trailer checks) and does not check a gzip header's reserved
flag bits, so before ISA-L inflates a member the standard library reads its header, and when
ISA-L fails inside a member the standard library inflates that member again from its start
and takes over (skipping what was already produced): the error, or the data should the two
ever disagree, is the standard library's. The message is sapper's wording of zlib's reason.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Generator, Iterator
from typing import IO, Final, Protocol

__all__ = [
    "INFLATERS",
    "Bytes",
    "Counter",
    "FileBytes",
    "GzipFormatError",
    "InflateError",
    "TruncatedError",
    "gzip_chunks",
    "inflater_name",
    "reason",
    "set_inflater",
]

#: Compressed bytes handed to the inflater at a time.
_IN_CHUNK: Final = 64 * 1024
#: Decompressed bytes one inflate call may produce (bounds memory on a decompression bomb).
_OUT_CHUNK: Final = 1024 * 1024
_GZIP_WBITS: Final = 31  # a gzip header and trailer around raw deflate data


class _Decompressor(Protocol):
    @property
    def eof(self) -> bool: ...
    @property
    def unused_data(self) -> bytes: ...
    @property
    def unconsumed_tail(self) -> bytes: ...
    def decompress(self, data: bytes, /, max_length: int = ...) -> bytes: ...


class _Module(Protocol):
    """What sapper uses of a zlib-compatible module."""

    @property
    def error(self) -> type[Exception]: ...
    def decompressobj(self, wbits: int = ...) -> _Decompressor: ...


class Bytes(Protocol):
    """What the inflater reads compressed data from: ``bytes``, or a :class:`FileBytes`
    (only its length and slices are used)."""

    def __len__(self) -> int: ...
    def __getitem__(self, key: slice, /) -> bytes: ...


class FileBytes:
    """The bytes of an open binary file, read on demand: its length and slices, as ``bytes``
    gives them, without ever holding the whole file (the archive readers stream from it)."""

    __slots__ = ("file", "size")

    def __init__(self, file: IO[bytes], size: int) -> None:
        #: The open, seekable file; whoever reads it directly seeks first.
        self.file = file
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: slice, /) -> bytes:
        start, stop, step = key.indices(self.size)
        if step != 1:
            msg = "FileBytes: only contiguous slices"
            raise ValueError(msg)
        if stop <= start:
            return b""
        file = self.file
        file.seek(start)
        return file.read(stop - start)


class InflateError(Exception):
    """A gzip stream is damaged; the message is the same whichever inflater ran."""


class GzipFormatError(InflateError):
    """The bytes around the deflate data are not a gzip member."""


class TruncatedError(InflateError, EOFError):
    """The gzip stream ends before its end-of-stream marker."""


_TRUNCATED: Final = "Compressed file ended before the end-of-stream marker was reached"

# The reasons zlib's inflate gives (zlib-ng keeps them): anything else is worded generically.
_REASONS: Final = frozenset(
    {
        "incorrect header check",
        "unknown compression method",
        "invalid window size",
        "unknown header flags set",
        "header crc mismatch",
        "invalid block type",
        "invalid stored block lengths",
        "too many length or distance symbols",
        "invalid code lengths set",
        "invalid bit length repeat",
        "invalid code -- missing end-of-block",
        "invalid literal/lengths set",
        "invalid distances set",
        "invalid literal/length code",
        "invalid distance code",
        "invalid distance too far back",
        "incorrect data check",
        "incorrect length check",
    }
)
# the gzip trailer's checks, worded as the gzip module words them
_CHECKS: Final = {
    "incorrect data check": "CRC check failed",
    "incorrect length check": "Incorrect length of data produced",
}


def reason(text: str) -> str:
    """sapper's wording of an inflater's error message ``text``."""
    reason = text.rpartition(": ")[2].strip()
    if reason not in _REASONS:
        reason = "invalid deflate data"
    return _CHECKS.get(reason, reason)


def _load_isal() -> _Module | None:
    try:
        from isal import isal_zlib  # optional: the test extra installs it
    except ImportError:  # pragma: no cover  # not installed
        return None
    module: _Module = isal_zlib  # type: ignore[assignment]
    return module


def _load_zlib_ng() -> _Module | None:
    try:
        from zlib_ng import zlib_ng  # optional at run time
    except ImportError:  # pragma: no cover  # a platform without zlib-ng wheels
        return None
    module: _Module = zlib_ng  # type: ignore[assignment]
    return module


#: The inflaters sapper can use, by name, in order of preference; "zlib" (the standard
#: library) is always there.
INFLATERS: Final[dict[str, Callable[[], _Module | None]]] = {
    "zlib-ng": _load_zlib_ng,
    "isal": _load_isal,
    "zlib": lambda: zlib,
}
_active: list[tuple[str, _Module]] = []


def set_inflater(name: str | None) -> str:
    """Choose the inflater (None: the fastest installed); return the name of the one chosen.

    :raises ValueError: for an unknown name or an inflater that is not installed.
    """
    names = [name] if name is not None else list(INFLATERS)
    for candidate in names:
        if candidate not in INFLATERS:
            msg = f"unknown inflater {candidate!r}; choose one of {', '.join(INFLATERS)}"
            raise ValueError(msg)
        module = INFLATERS[candidate]()
        if module is not None:
            _active[:] = [(candidate, module)]
            return candidate
    msg = f"the inflater {name!r} is not installed"
    raise ValueError(msg)


def _module() -> tuple[str, _Module]:
    if not _active:
        set_inflater(None)
    return _active[0]


def inflater_name() -> str:
    """The name of the inflater in use: ``zlib-ng``, ``isal`` or ``zlib``."""
    return _module()[0]


class Counter:
    """How many compressed bytes the inflater has consumed (for the compression ratio)."""

    __slots__ = ("consumed",)

    def __init__(self) -> None:
        self.consumed = 0


def gzip_chunks(data: Bytes, counter: Counter | None = None) -> Iterator[bytes]:
    """Yield the decompressed bytes of the gzip stream ``data`` (``bytes``, or a file read
    on demand: :class:`FileBytes`), chunk by chunk.

    Several gzip members follow each other as one stream; zero bytes after a member are
    padding, as for :mod:`gzip`. ``counter.consumed`` follows the compressed bytes used.

    :raises InflateError: if the stream is damaged or truncated.
    """
    _, module = _module()
    fast = module is not zlib
    end = len(data)
    at = 0  # where the next member starts
    while True:
        # the member header: checked here, so that its errors read alike for every inflater
        magic = data[at : at + 2]
        if not magic:
            return
        if magic != b"\x1f\x8b":
            msg = f"Not a gzipped file ({magic!r})"
            raise GzipFormatError(msg)
        if end - at < 10:  # the fixed part of a gzip header
            raise TruncatedError(_TRUNCATED)
        if data[at + 2 : at + 3] != b"\x08":  # deflate
            msg = "Unknown compression method"
            raise GzipFormatError(msg)
        produced = [0]  # bytes of this member yielded so far
        try:
            if fast:
                _check_header(data, at)
                try:
                    at = yield from _member(module, data, at, counter, produced)
                except module.error:
                    # the standard library reads the member again, and takes over from
                    # where the fast inflater stopped: its error, or its data
                    at = yield from _member(zlib, data, at, counter, produced, skip=produced[0])
            else:
                at = yield from _member(zlib, data, at, counter, produced)
        except zlib.error as exc:
            text = reason(str(exc))
            if text in _CHECKS.values():  # the data inflate, but not to what the trailer says
                raise GzipFormatError(text) from None
            raise InflateError(text) from None
        # zero bytes after a member are padding; anything else must be another member
        if at < end and data[at : at + 1] == b"\x00":
            at = _skip_zeros(data, at)
        if counter is not None:
            counter.consumed = at


def _check_header(data: Bytes, at: int) -> None:
    """Read the gzip header at ``at`` with the standard library, for its checks and words.

    It stops at the first byte of output: only the header (and the start of the first
    deflate block) is read.

    :raises zlib.error: as the standard library would for this header.
    """
    check = zlib.decompressobj(wbits=_GZIP_WBITS)
    end = len(data)
    while at < end and not check.eof:
        if check.decompress(data[at : at + _IN_CHUNK], 1) or check.unconsumed_tail:
            return  # past the header
        at += _IN_CHUNK


def _member(
    module: _Module,
    data: Bytes,
    start: int,
    counter: Counter | None,
    produced: list[int],
    *,
    skip: int = 0,
) -> Generator[bytes, None, int]:
    """Yield the inflated bytes of the gzip member at ``start`` but the first ``skip``;
    return where the member ends. ``produced[0]`` counts the bytes yielded.

    :raises TruncatedError: if the data end before the member does.
    :raises module.error: if the member is damaged.
    """
    end = len(data)
    at = start
    inflate = module.decompressobj(wbits=_GZIP_WBITS)
    pending = b""
    while not inflate.eof:
        if not pending:
            if at >= end:
                raise TruncatedError(_TRUNCATED)
            pending = data[at : at + _IN_CHUNK]
            if not pending:  # a file that shrank while it was read
                raise TruncatedError(_TRUNCATED)
            at += len(pending)
        out = inflate.decompress(pending, _OUT_CHUNK)
        pending = inflate.unconsumed_tail
        if counter is not None:
            counter.consumed = at - len(pending)
        if out:
            if skip:
                if len(out) <= skip:
                    skip -= len(out)
                    continue
                out = out[skip:]
                skip = 0
            produced[0] += len(out)
            yield out
    # what follows the member is the end of the input handed in (which always ends at
    # ``at``); zlib also leaves it in ``unconsumed_tail`` when output was capped, ISA-L not
    return at - len(inflate.unused_data)


def _skip_zeros(data: Bytes, at: int) -> int:
    """The offset of the first non-zero byte of ``data`` at or after ``at`` (or its length)."""
    end = len(data)
    while at < end:
        chunk = data[at : at + _IN_CHUNK]
        if not chunk:  # the file ended early
            break
        stripped = chunk.lstrip(b"\x00")
        if stripped:
            return at + len(chunk) - len(stripped)
        at += len(chunk)
    return end
