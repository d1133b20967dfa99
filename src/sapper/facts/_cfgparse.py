"""Read setup.cfg exactly as ``Distribution._parse_config_files`` does, per setuptools era.

setuptools opens setup.cfg as text (UTF-8 since 41.0.0, universal newlines), feeds it to
``configparser.ConfigParser`` (``optionxform = str`` since 53.1.0, lowercasing before), and
then calls ``parser.get()`` on every option of every section, which runs ``%`` interpolation.
This module does the same with the standard library's configparser, so a file fails here
exactly when it fails there, and adds what configparser does not keep: line numbers.
"""

from __future__ import annotations

import configparser
import functools
import io
import re
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["KeyLocation", "ParsedCfg", "locate_keys", "parse_setup_cfg"]

_SECTCRE = configparser.RawConfigParser.SECTCRE
_OPTCRE = configparser.RawConfigParser.OPTCRE
_CODING_RE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class KeyLocation(NamedTuple):
    section: str
    key: str
    line: int
    column: int


class ParsedCfg(NamedTuple):
    """One era's reading of setup.cfg.

    ``error`` is the exception setuptools would get (decoding, syntax, duplicates or
    interpolation); ``options`` lists ``(section, key, value)`` in setuptools' order, as far
    as it got before the error.
    """

    options: tuple[tuple[str, str, str], ...]
    error: Exception | None
    #: Section names in file order (empty when the file could not be read).
    sections: tuple[str, ...] = ()


def _decode(data: bytes, encoding: str) -> str:
    """Decode like ``open(path, encoding=...)`` in text mode: universal newlines.

    Raises :class:`UnicodeDecodeError` for bytes the codec cannot decode, and
    :class:`LookupError` for a ``coding:`` comment naming no text encoding of Python's.
    """
    codec = "utf-8"
    if encoding == "coding-header":
        # setuptools' ``detect_encoding`` matches the first line only (``fp.readline()``
        # of the binary file: up to the first b"\n"), unlike PEP 263's two lines, and
        # hands the name to ``io.TextIOWrapper`` as it is: a name no codec has ("unknown
        # encoding: X") or a codec that is not a text encoding (hex, rot13: "'hex' is not a
        # text encoding; ...") raises LookupError there, and the build stops (40.7.0-40.9.0).
        mo = _CODING_RE.match(data.split(b"\n", 1)[0])
        if mo:
            # the pattern is a bytes one: ``\w`` matches ASCII only, so this decodes
            codec = mo.group(1).decode("ascii")
    wrapper = io.TextIOWrapper(io.BytesIO(data), encoding=codec, newline=None)
    return wrapper.read()


def parse_setup_cfg(
    data: bytes,
    *,
    optionxform_str: bool,
    encoding: str,
    skip: frozenset[str] = frozenset(),
) -> ParsedCfg:
    """Parse and walk ``data`` as one setuptools era would.

    ``skip`` holds the option names setuptools ignores (inside a virtual environment,
    the ``install-*`` directory options); they are neither interpolated nor checked.

    The eras differ only in how they decode the file, transform option names and skip
    options, so one process asks for the same file several times (once per era group):
    the configparser reading of a text is shared between those calls (:func:`_read`).
    """
    try:
        text = _decode(data, encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        return ParsedCfg(options=(), error=exc)
    return _walk(text, optionxform_str, skip)


@functools.lru_cache(maxsize=8)
def _walk(text: str, optionxform_str: bool, skip: frozenset[str]) -> ParsedCfg:
    """``parser.get()`` on every option of every section, as setuptools does."""
    parser, error = _read(text, optionxform_str)
    if error is not None:
        return ParsedCfg(options=(), error=error)
    options: list[tuple[str, str, str]] = []
    sections = tuple(parser.sections())
    try:
        for section in sections:
            for opt in parser.options(section):
                if opt == "__name__" or opt in skip:
                    continue
                value = parser.get(section, opt)
                options.append((section, opt, value))
    except configparser.Error as exc:
        return ParsedCfg(options=tuple(options), error=exc, sections=sections)
    return ParsedCfg(options=tuple(options), error=None, sections=sections)


@functools.lru_cache(maxsize=8)
def _read(
    text: str, optionxform_str: bool
) -> tuple[configparser.ConfigParser, configparser.Error | None]:
    """``ConfigParser.read_file`` of ``text``; the parser is shared, so never changed.

    With configparser's default ``optionxform`` (lowercasing, setuptools before 53.1.0),
    a file whose option names are all lowercase already and that has no ``%(name)s``
    reference (whose name the transform would lowercase) reads exactly as with
    ``optionxform = str``: the same names, the same duplicates, the same values. That
    reading is then shared rather than done again.
    """
    if not optionxform_str and "%(" not in text:
        parser, error = _read(text, True)
        if error is None and all(
            opt == opt.lower()
            for opts in (parser.defaults(), *map(parser.options, parser.sections()))
            for opt in opts
        ):
            return parser, None
    parser = configparser.ConfigParser()
    if optionxform_str:
        parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_file(io.StringIO(text), source="setup.cfg")
    except configparser.Error as exc:
        return parser, exc
    return parser, None


def _lines(data: bytes) -> Iterator[tuple[int, str]]:
    text = data.decode("utf-8", errors="replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    yield from enumerate(text.split("\n"), start=1)


def locate_keys(data: bytes) -> list[KeyLocation]:
    """Every ``key = value`` line of the file with its section, line and column (1-based).

    It follows configparser's line rules (full-line ``#``/``;`` comments, indented
    continuation lines, permissive section and option patterns).
    """
    found: list[KeyLocation] = []
    section: str | None = None
    option_indent: int | None = None
    for lineno, raw in _lines(data):
        stripped = raw.strip()
        if not stripped or stripped[0] in "#;":
            continue
        indent = len(raw) - len(raw.lstrip())
        if section is not None and option_indent is not None and indent > option_indent:
            continue  # continuation of the previous value
        mo = _SECTCRE.match(stripped)
        if mo:
            section = mo.group("header")
            option_indent = None
            continue
        mo = _OPTCRE.match(stripped)
        if mo and section is not None:
            key = mo.group("option").rstrip()
            found.append(KeyLocation(section, key, lineno, indent + 1))
            option_indent = indent
    return found


def locate_sections(data: bytes) -> dict[str, int]:
    """The line of each section header (the first one, for duplicates)."""
    found: dict[str, int] = {}
    for lineno, raw in _lines(data):
        if raw[:1].isspace():
            continue
        mo = _SECTCRE.match(raw.strip())
        if mo:
            found.setdefault(mo.group("header"), lineno)
    return found


def line_of_offset(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of a byte offset."""
    before = data[:offset]
    line = before.count(b"\n") + 1
    column = offset - (before.rfind(b"\n") + 1) + 1
    return line, column
