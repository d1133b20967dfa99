"""What ``sapper check`` needs from the command-line layer on its fast path (see
:mod:`sapper.cli._fastcheck`): exit codes, the cache cap, progress, ``--select`` values.
Nothing here imports ``argparse``; :mod:`sapper.cli._common` re-exports all of it."""

from __future__ import annotations

import enum
import os
import sys
from typing import TYPE_CHECKING

from .._exceptions import UsageError

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = [
    "ExitCode",
    "apply_cache_cap",
    "cache_cap",
    "cap_note",
    "format_size",
    "progress_enabled",
    "rule_codes",
]


class ExitCode(enum.IntEnum):
    """The exit codes of every sub-command (``sapper --help`` and README list them)."""

    #: success: no findings (check), nothing to rewrite (fix), done (scan, report, rules)
    OK = 0
    #: check: findings (0 with ``--exit-zero``); fix: files were (or would be) rewritten
    FINDINGS = 1
    #: the command line is wrong: unknown option or rule code, bad version, ...
    USAGE = 2
    #: a target (check, fix) or the result store (report) could not be read; wheelhouse: no
    #: working sandbox (bubblewrap) and no --no-sandbox (canary says so with 2 instead)
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
