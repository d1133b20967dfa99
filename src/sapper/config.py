"""``[tool.sapper]`` in pyproject.toml: settings that command-line options override.

Found as ruff finds its configuration: the nearest ``.sapper.toml`` or ``sapper.toml``
(settings at the top level) or ``pyproject.toml`` with a ``[tool.sapper]`` table, in the
directory checked or one of its parents (for sdists and
requirements, the current directory or one of its parents; an sdist's own settings are never
used, since they are the author's, not yours). ``--config FILE`` names the file;
``--isolated`` uses none. Keys::

    [tool.sapper]
    select = ["SC", "SP"]            # rule codes or prefixes ("ALL" for every rule)
    ignore = ["SC009"]
    setuptools = "78.0.1"            # the verdict's setuptools version
    python = "3.12"                  # the build's Python version
    platform = "linux"               # the build's sys.platform
    enforce-deprecations = false
    cache-max-size = "2 GB"          # evict least recently used downloads above this size

    [tool.sapper.per-file-ignores]
    "setup.py" = ["SP001"]           # glob (relative to the project root) -> codes
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from ._exceptions import UsageError

__all__ = ["Config", "find_config", "load_config", "parse_size"]

_KEYS = (
    "select",
    "ignore",
    "setuptools",
    "python",
    "platform",
    "enforce-deprecations",
    "per-file-ignores",
    "cache-max-size",
)


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class Config(NamedTuple):
    """The settings of one ``[tool.sapper]`` table (``path`` None: no configuration)."""

    path: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    setuptools: str | None = None
    python: str | None = None
    platform: str | None = None
    enforce_deprecations: bool | None = None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: bytes
    cache_max_size: int | None = None


def _has_table(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "tool" not in text or "sapper" not in text:
        return False
    from ._toml import TOMLDecodeError, loads  # only when a configuration file is read

    try:
        doc = loads(text)
    except TOMLDecodeError:
        return False
    tool = doc.get("tool")
    return isinstance(tool, dict) and isinstance(tool.get("sapper"), dict)


def find_config(start: Path) -> Path | None:
    """The nearest configuration at or above ``start``: in each folder, ``.sapper.toml``,
    then ``sapper.toml`` (settings at the top level), then a ``pyproject.toml`` that has a
    ``[tool.sapper]`` table, as ruff looks for ``.ruff.toml``, ``ruff.toml`` and
    ``pyproject.toml``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        for name in (".sapper.toml", "sapper.toml"):
            if (folder / name).is_file():
                return folder / name
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _has_table(candidate):
            return candidate
    return None


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def parse_size(text: str) -> int:
    """``"500 MB"``, ``"2G"``, ``"1.5 GiB"``, ``"1000000"`` -> bytes."""
    match = _SIZE.match(text)
    if match is None:
        msg = f"{text!r} is not a size: write a number with an optional unit, such as '2 GB'"
        raise UsageError(msg)
    number = float(match.group(1))
    unit = (match.group(2) or "").lower()
    base = _UNITS.get(unit[:1], 1)
    if unit[1:2] == "i":
        base = 1024 ** ("kmgt".index(unit[0]) + 1)
    return int(number * base)


def _codes(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f'{where} must be a list of rule codes, such as ["SC001", "SP"]'
        raise UsageError(msg)
    return tuple(v.strip().upper() for v in value if v.strip())


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        msg = f"{where} must be a string"
        raise UsageError(msg)
    return value


def load_config(path: Path) -> Config:
    """Read ``[tool.sapper]`` of ``path`` (a pyproject.toml; other .toml files: top level).

    :raises UsageError: the file cannot be read, or a key or value is wrong (the message
        names the file and the key).
    """
    from ._toml import TOMLDecodeError, loads

    try:
        doc = loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        msg = f"{path}: cannot read the configuration ({exc.strerror})"
        raise UsageError(msg) from exc
    except (TOMLDecodeError, UnicodeDecodeError) as exc:
        msg = f"{path}: not valid TOML ({exc})"
        raise UsageError(msg) from exc
    if path.name == "pyproject.toml":
        tool = doc.get("tool", {})
        table = tool.get("sapper", {}) if isinstance(tool, dict) else {}
        prefix = f"{path}: [tool.sapper]"
    else:
        table, prefix = doc, f"{path}:"
    if not isinstance(table, dict):
        msg = f"{prefix} must be a table"
        raise UsageError(msg)
    for key in table:
        if key not in _KEYS:
            import difflib

            close = difflib.get_close_matches(key.replace("_", "-"), _KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            msg = f"{prefix} unknown key {key!r}{hint}; known: {', '.join(_KEYS)}"
            raise UsageError(msg)

    def where(key: str) -> str:
        return f"{prefix} {key}"

    select = _codes(table["select"], where("select")) if "select" in table else None
    ignore = _codes(table.get("ignore", []), where("ignore"))
    setuptools = python = None
    if "setuptools" in table:
        setuptools = _string(table["setuptools"], where("setuptools"))
    if "python" in table:
        python = _string(table["python"], where("python"))
    platform = _string(table["platform"], where("platform")) if "platform" in table else None
    enforce = table.get("enforce-deprecations")
    if enforce is not None and not isinstance(enforce, bool):
        msg = f"{where('enforce-deprecations')} must be true or false"
        raise UsageError(msg)
    pfi_raw = table.get("per-file-ignores", {})
    if not isinstance(pfi_raw, dict):
        msg = f"{where('per-file-ignores')} must be a table of glob = [codes]"
        raise UsageError(msg)
    pfi = tuple(
        (pattern, _codes(codes, where(f"per-file-ignores.{pattern!r}")))
        for pattern, codes in pfi_raw.items()
    )
    size: int | None = None
    if "cache-max-size" in table:
        raw = table["cache-max-size"]
        if isinstance(raw, int) and not isinstance(raw, bool):
            size = raw
        else:
            try:
                size = parse_size(_string(raw, where("cache-max-size")))
            except UsageError as exc:
                msg = f"{where('cache-max-size')}: {exc}"
                raise UsageError(msg) from exc
    return Config(
        path=path,
        select=select,
        ignore=ignore,
        setuptools=setuptools,
        python=python,
        platform=platform,
        enforce_deprecations=enforce,
        per_file_ignores=pfi,
        cache_max_size=size,
    )
