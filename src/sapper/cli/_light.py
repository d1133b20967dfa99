"""What ``sapper check``'s handler needs from the command-line layer (exit codes, the cache
cap, progress, ``--select`` values) and the option groups several commands share (they only
call ``add_argument``). Nothing here imports ``argparse``; :mod:`sapper.cli._common`
re-exports all of it."""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import UsageError

if TYPE_CHECKING:
    import argparse

__all__ = [
    "ExitCode",
    "add_config_options",
    "add_index_options",
    "add_rule_selection",
    "apply_cache_cap",
    "cache_cap",
    "cap_note",
    "format_size",
    "progress_enabled",
    "rule_codes",
]


class ExitCode(enum.IntEnum):
    """The exit codes of every sub-command; what each means for each command is
    ``COMMAND_EXIT_CODES`` in :mod:`sapper.cli._common` (``--help`` and docs/cli.md)."""

    #: success: no findings, nothing to rewrite, done
    OK = 0
    #: findings or failures found (findings, files rewritten, a failing build, a regression)
    FINDINGS = 1
    #: the command line is wrong: unknown option, missing path, bad value
    USAGE = 2
    #: could not analyse or build: a target or store could not be read (damaged or refused
    #: archive, network), no working sandbox
    TARGET_ERROR = 3
    #: interrupted with Ctrl-C
    INTERRUPTED = 130


def rule_codes(text: str) -> tuple[str, ...]:
    """``--select``/``--ignore`` values: comma-separated codes or prefixes, upper-cased."""
    return tuple(c.strip().upper() for c in text.split(",") if c.strip())


def progress_enabled() -> bool:
    """Progress output on stderr: only on a terminal, never in CI logs."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def format_size(size: float) -> str:
    """``1234567`` -> ``1.2 MB`` (decimal units, as pip and uv print them)."""
    for unit in ("B", "kB", "MB", "GB"):
        if abs(size) < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError  # pragma: no cover


def cache_cap(args: argparse.Namespace, config_cap: int | None = None) -> int | None:
    """The cache size cap in bytes: ``--cache-max-size``, else ``$SAPPER_CACHE_MAX_SIZE``, else
    the configured one; a malformed size is a usage error (call it before doing any work)."""
    from ..config import parse_size

    option = getattr(args, "cache_max_size", None)
    env = os.environ.get("SAPPER_CACHE_MAX_SIZE")
    try:
        if option:
            return parse_size(option)
        if env:
            return parse_size(env)
    except UsageError as exc:
        where = "--cache-max-size" if option else "$SAPPER_CACHE_MAX_SIZE"
        msg = f"{where}: {exc}"
        raise UsageError(msg) from exc
    return config_cap


def apply_cache_cap(args: argparse.Namespace, cap: int | None) -> None:
    """Evict least recently used downloads from the cache the run used until it holds at
    most ``cap`` bytes (see :func:`cache_cap`); says on stderr what it evicted."""
    if cap is None or getattr(args, "no_cache", False):
        return
    from ..cache import enforce_max_size
    from ..pypi import default_cache_dir

    cache_dir = getattr(args, "cache_dir", None) or default_cache_dir()
    done = enforce_max_size(cache_dir, cap)
    if done.removed_files:
        sys.stderr.write(
            f"cache: evicted {done.removed_files} least recently used download(s), "
            f"{format_size(done.removed_bytes)}, to stay under {format_size(cap)}\n"
        )
    if done.kept_bytes > cap:
        sys.stderr.write(cap_note(done.kept_bytes, cap, cache_dir) + "\n")


def cap_note(kept: int, cap: int, cache_dir: Path) -> str:
    """Why the cache stays above its cap, and what to do."""
    return (
        f"cache: {cache_dir} still holds {format_size(kept)}, above the {format_size(cap)} "
        "cap: only downloaded sdists are evicted (build environments and index pages are "
        "not); `sapper cache info` shows the kinds, `sapper cache clean --kind KIND` removes one"
    )


def add_rule_selection(
    parser: argparse.ArgumentParser, *, select_help: str, ignore_help: str
) -> None:
    parser.add_argument("--select", metavar="CODES", type=rule_codes, default=(), help=select_help)
    parser.add_argument("--ignore", metavar="CODES", type=rule_codes, default=(), help=ignore_help)


def add_index_options(parser: argparse.ArgumentParser, *, no_cache: bool = True) -> None:
    """``--index-url``, ``--cache-dir`` (shared by check, fix and scan) and ``--no-cache``."""
    parser.add_argument(
        "--index-url",
        metavar="URL",
        default=os.environ.get("SAPPER_INDEX_URL"),
        help="simple-API index to resolve requirements on (default: $SAPPER_INDEX_URL or "
        "https://pypi.org/simple)",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=Path,
        help="download cache, shared by check, fix and scan (default: $SAPPER_CACHE_DIR or "
        "the user cache directory)",
    )
    if no_cache:
        parser.add_argument(
            "--no-cache", action="store_true", help="neither read nor write the cache"
        )
    parser.add_argument(
        "--cache-max-size",
        metavar="SIZE",
        help="after the run, evict the least recently used downloads until the cache holds "
        "at most SIZE ('2 GB', '500M'; default: $SAPPER_CACHE_MAX_SIZE or [tool.sapper] "
        "cache-max-size, else no cap)",
    )


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--isolated`` (how ``[tool.sapper]`` is found)."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="read settings from FILE (a pyproject.toml's [tool.sapper], or a .toml file's "
        "top level) instead of the nearest .sapper.toml, sapper.toml or pyproject.toml with "
        "a [tool.sapper] table",
    )
    parser.add_argument(
        "--isolated",
        action="store_true",
        help="ignore every configuration file ([tool.sapper], sapper.toml)",
    )
