"""``sapper fix``: apply the fixes of ``sapper check``'s rules."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import (
    ExitCode,
    HelpFormatter,
    add_config_options,
    add_index_options,
    add_rule_selection,
    apply_cache_cap,
    cache_cap,
    command_epilog,
)

if TYPE_CHECKING:
    from ..config import Config

from ..fix.registry import epilog as fix_epilog

__all__ = ["add_parser"]

_EPILOG = (
    fix_epilog()
    + """
An edit that changes the built package's requirements, or deletes or rewrites code with
another behaviour, is unsafe and needs --unsafe-fixes; a conflict is reported and left
alone. A finding suppressed by a "# sapper: ignore[CODE]" comment or per-file-ignores
(see sapper check --help) is never fixed, finding by finding: in setup.py an edit that
would change a line whose finding is suppressed is not made. With SAP100 selected
(--select ALL), comments that suppress nothing lose their stale codes, or go.

"""
    + command_epilog("fix")
)


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "fix",
        help="fix what `sapper check` finds in source trees and sdists",
        description=(
            "Fix each TARGET: a source tree (changed in place), an sdist archive or a "
            "requirement resolved on the package index (a repaired copy is written with -o "
            "DIR, with the same members, modes and mtimes, and PKG-INFO untouched)."
        ),
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "targets",
        nargs="+",
        metavar="TARGET",
        help="directory (fixed in place), sdist file or requirement (copy written with -o)",
    )
    parser.add_argument(
        "--diff", action="store_true", help="print a unified diff and write nothing"
    )
    parser.add_argument(
        "-o",
        "--output-dir",
        metavar="DIR",
        type=Path,
        help="write repaired copies of sdist targets into DIR (same file name)",
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also make the edits that change requirements or code (marked unsafe)",
    )
    add_rule_selection(
        parser,
        select_help="only fix these rule codes or prefixes (comma-separated)",
        ignore_help="do not fix these rule codes or prefixes (comma-separated)",
    )
    add_index_options(parser)
    add_config_options(parser)
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print errors (and the diff) only: no line per edit, no summary",
    )
    parser.add_argument(
        "--ignore-suppressions",
        action="store_true",
        help="also fix findings that a '# sapper: ignore[...]' comment or per-file-ignores "
        "suppresses",
    )
    parser.set_defaults(handler=_run)


def _directory_prefix(target: str) -> str:
    """Diff paths of a directory target: relative to the current directory, so that
    ``git apply`` and ``patch -p1`` apply the diff where it was made; relative to the
    target when it lies outside the current directory (apply it there)."""
    import os

    rel = os.path.relpath(target)
    if rel in {".", ".."} or rel.startswith(f"..{os.sep}"):
        return ""
    return Path(rel).as_posix() + "/"


def _write_diff(stream: Any, text: str) -> None:
    """Write the diff as the files' own bytes (undecodable bytes included)."""
    data = text.encode("utf-8", "surrogateescape")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (tests): no undecodable bytes can be written there
        stream.write(data.decode("utf-8", "replace"))


_LABELS = {"applied": "fixed", "unsafe": "unsafe (needs --unsafe-fixes)", "skipped": "not fixed"}


def _run(args: argparse.Namespace) -> int:
    from .._exceptions import TargetError, UsageError
    from ..check import classify_target
    from ..fix import fix_files, load_target, write_result

    # Refuse bad option combinations before doing any work.
    kinds = {target: classify_target(target) for target in args.targets}
    if not args.diff:
        for target, kind in kinds.items():
            if kind != "directory" and args.output_dir is None:
                msg = (
                    f"{target}: an sdist is never changed in place; pass -o DIR to write a "
                    "repaired copy, or --diff to see the changes"
                )
                raise UsageError(msg)
    if args.output_dir is not None and all(k == "directory" for k in kinds.values()):
        msg = "-o is for sdist and requirement targets; a directory is fixed in place"
        raise UsageError(msg)

    from ._settings import config_for, settings_for

    configs: dict[Path, Config] = {}
    settings = {}
    for target in args.targets:
        config = config_for(args, target, configs)
        settings[target] = (config, settings_for(args, config))
    cap = cache_cap(
        args, next((c.cache_max_size for c in configs.values() if c.cache_max_size), None)
    )

    out = sys.stdout
    notes = sys.stderr if args.diff else sys.stdout
    rewritten = 0
    failed = False
    counts = {"applied": 0, "unsafe": 0, "skipped": 0}
    for target in args.targets:
        try:
            loaded = load_target(
                target, index_url=args.index_url, cache_dir=args.cache_dir, no_cache=args.no_cache
            )
        except TargetError as exc:
            sys.stderr.write(f"sapper: error: {exc}\n")
            failed = True
            continue
        config, chosen = settings[target]
        result = fix_files(
            loaded.files,
            select=chosen.select,
            ignore=chosen.ignore,
            unsafe_fixes=args.unsafe_fixes,
            suppressions=not args.ignore_suppressions,
            per_file_ignores=() if args.ignore_suppressions else config.per_file_ignores,
            unused_suppressions=chosen.unused_suppressions,
        )
        for edit in result.edits:
            counts[edit.status] += 1
            where = f"{edit.path}:{edit.line}" if edit.line else edit.path
            if not args.quiet:
                notes.write(
                    f"{target}: {where}: {edit.code} {_LABELS[edit.status]}: {edit.message}\n"
                )
        if not result.changed:
            continue
        rewritten += 1
        if args.diff:
            if loaded.kind == "directory":
                prefix = _directory_prefix(target)
            else:
                prefix = f"{loaded.files.root}/" if loaded.files.root else ""
            _write_diff(out, result.diff(prefix=prefix))
            continue
        try:
            if loaded.kind == "directory":
                write_result(loaded, result)
            else:
                written = write_result(loaded, result, out_dir=args.output_dir)
                for path in written:
                    if not args.quiet:
                        notes.write(f"{target}: wrote {path}\n")
        except TargetError as exc:
            sys.stderr.write(f"sapper: error: {exc}\n")
            failed = True
        except OSError as exc:
            sys.stderr.write(f"sapper: error: {target}: cannot write ({exc.strerror})\n")
            failed = True
    apply_cache_cap(args, cap)
    verb = "would rewrite" if args.diff else "rewrote"
    if not args.quiet:
        sys.stderr.write(
            f"{verb} {rewritten} of {len(args.targets)} target(s): {counts['applied']} fixed, "
            f"{counts['unsafe']} need --unsafe-fixes, {counts['skipped']} left to fix by hand\n"
        )
    if failed:
        return ExitCode.TARGET_ERROR
    return ExitCode.FINDINGS if rewritten else ExitCode.OK
