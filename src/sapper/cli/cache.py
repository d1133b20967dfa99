"""``sapper cache info|clean|warm``: see, bound and fill the download cache."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._common import ExitCode, HelpFormatter, cap_note, command_epilog, format_size

__all__ = ["add_parser"]

_DESCRIPTION = """\
The download cache holds the sdists check, fix and scan download (verified by sha256,
content-addressed) and the resolutions of exact pins. It lives in $SAPPER_CACHE_DIR,
--cache-dir, or the user cache directory. `sapper cache info` shows its size per kind;
`sapper cache clean` removes everything, or what has not been used for DAYS days, or the
least recently used downloads above a size. A removed file is downloaded again when needed.
To cap the cache for good, pass --cache-max-size to check, fix and scan, or set
$SAPPER_CACHE_MAX_SIZE or cache-max-size in [tool.sapper].

`sapper cache warm` downloads the pyproject.toml validator of every setuptools release
(the code each release vendors in setuptools/config/_validate_pyproject/, read from its
wheel; one download per distinct validator) so that `sapper check` judges [project] and
[tool.setuptools] with setuptools' own validator, offline. `sapper check` never downloads a
validator itself: for a release whose validator is not cached it falls back to its own
checks of PP001 and PP007. check reads the validators from $SAPPER_CACHE_DIR or the user
cache directory."""


def _cache_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=Path,
        help="the cache to work on (default: $SAPPER_CACHE_DIR or the user cache directory)",
    )


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "cache",
        help="show the download cache's size, clean it, or warm it with setuptools' "
        "pyproject.toml validators",
        description=_DESCRIPTION,
        epilog=command_epilog("cache"),
        formatter_class=HelpFormatter,
    )
    sub = parser.add_subparsers(dest="cache_command", metavar="ACTION")
    info = sub.add_parser(
        "info",
        help="location, size and files per kind",
        description="Show where the cache is, and its files and size per kind.",
        epilog=command_epilog("cache info"),
        formatter_class=HelpFormatter,
    )
    _cache_dir_option(info)
    info.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or versioned JSON",
    )
    info.set_defaults(handler=_run_info)
    clean = sub.add_parser(
        "clean",
        help="remove cached files (all, by age, or down to a size)",
        description="Remove every cached file, or only those not used for DAYS days "
        "(--older-than), or the least recently used downloads above SIZE (--max-size).",
        epilog=command_epilog("cache clean"),
        formatter_class=HelpFormatter,
    )
    _cache_dir_option(clean)
    clean.add_argument(
        "--older-than",
        metavar="DAYS",
        type=float,
        help="only files not used for DAYS days",
    )
    clean.add_argument(
        "--max-size",
        metavar="SIZE",
        help="evict the least recently used downloads until the cache holds at most SIZE "
        "('2 GB', '500M', '1.5GiB')",
    )
    clean.add_argument(
        "--kind",
        action="append",
        default=[],
        metavar="KIND",
        help="only this kind (a folder `cache info` lists, such as sdists or resolve); repeatable",
    )
    clean.add_argument(
        "--dry-run", action="store_true", help="say what would be removed, remove nothing"
    )
    clean.set_defaults(handler=_run_clean)
    warm = sub.add_parser(
        "warm",
        help="download setuptools' own pyproject.toml validators for offline checks",
        description="Download the pyproject.toml validator of each setuptools release "
        "(from its wheel, sha256-checked; releases sharing a validator share one download) "
        "into the cache, so that `sapper check` runs setuptools' own validation offline.",
        epilog=command_epilog("cache warm"),
        formatter_class=HelpFormatter,
    )
    _cache_dir_option(warm)
    warm.add_argument(
        "--index-url",
        metavar="URL",
        default=None,
        help="simple-API index to download from (default: $SAPPER_INDEX_URL or "
        "https://pypi.org/simple)",
    )
    warm.add_argument(
        "--setuptools",
        metavar="VERSION",
        action="append",
        default=[],
        help="only the validator of this release (repeatable; default: every release "
        "from 61.0.0 on)",
    )
    warm.set_defaults(handler=_run_warm)
    parser.set_defaults(handler=_run_help, cache_parser=parser)


def _run_help(args: argparse.Namespace) -> int:
    args.cache_parser.print_help()
    return ExitCode.USAGE


def _cache_dir(args: argparse.Namespace) -> Path:
    from ..pypi import default_cache_dir

    path: Path = args.cache_dir or default_cache_dir()
    return path


def _run_info(args: argparse.Namespace) -> int:
    import datetime as dt

    from ..cache import info

    result = info(_cache_dir(args))
    if args.format == "json":
        import json

        doc = {
            "version": 1,
            "location": str(result.location),
            "exists": result.exists,
            "files": result.files,
            "bytes": result.bytes,
            "kinds": [
                {
                    "kind": k.kind,
                    "files": k.files,
                    "bytes": k.bytes,
                    "oldest_use": None
                    if k.oldest is None
                    else dt.datetime.fromtimestamp(k.oldest, tz=dt.timezone.utc).isoformat(),
                }
                for k in result.kinds
            ],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return ExitCode.OK
    out = [f"location: {result.location}" + ("" if result.exists else " (does not exist yet)")]
    out.append(f"size: {format_size(result.bytes)} in {result.files} file(s)")
    for k in result.kinds:
        oldest = ""
        if k.oldest is not None:
            day = dt.datetime.fromtimestamp(k.oldest, tz=dt.timezone.utc).date()
            oldest = f", least recently used {day}"
        out.append(f"  {k.kind:<10} {k.files:>7} file(s) {format_size(k.bytes):>10}{oldest}")
    sys.stdout.write("\n".join(out) + "\n")
    return ExitCode.OK


def _run_clean(args: argparse.Namespace) -> int:
    from .._exceptions import UsageError
    from ..cache import clean, enforce_max_size
    from ..config import parse_size

    cache_dir = _cache_dir(args)
    if args.max_size is not None and (args.older_than is not None or args.kind):
        msg = "--max-size evicts downloads by last use; it does not combine with --older-than "
        msg += "or --kind: run them one after the other"
        raise UsageError(msg)
    if args.older_than is not None and args.older_than < 0:
        msg = f"--older-than {args.older_than:g}: pass a number of days, 0 or more"
        raise UsageError(msg)
    if args.max_size is not None:
        cap = parse_size(args.max_size)
        result = enforce_max_size(cache_dir, cap, dry_run=args.dry_run)
        if result.kept_bytes > cap:
            sys.stderr.write(cap_note(result.kept_bytes, cap, cache_dir) + "\n")
    else:
        result = clean(
            cache_dir,
            older_than_days=args.older_than,
            kinds=tuple(args.kind),
            dry_run=args.dry_run,
        )
    verb = "would remove" if args.dry_run else "removed"
    sys.stdout.write(
        f"{verb} {result.removed_files} file(s), {format_size(result.removed_bytes)}; "
        f"{format_size(result.kept_bytes)} left in {cache_dir}\n"
    )
    return ExitCode.OK


def _run_warm(args: argparse.Namespace) -> int:
    import os

    from ..facts.validator import warm
    from ..pypi import DEFAULT_INDEX_URL, Index
    from ..versions import catalogue

    cat = catalogue()
    wanted = [cat.validate_version(v) for v in args.setuptools] or sorted(
        cat.between("61.0.0"), key=cat.parsed
    )
    url = args.index_url or os.environ.get("SAPPER_INDEX_URL") or DEFAULT_INDEX_URL
    index = Index(url, cache_dir=_cache_dir(args))
    done = warm(index, wanted)
    fetched = sum(not w.cached for w in done)
    for w in done:
        state = "cached" if w.cached else "downloaded"
        span = w.releases[0] if len(w.releases) == 1 else f"{w.releases[0]}..{w.releases[-1]}"
        sys.stdout.write(f"  {w.digest[:12]}  {state:<10}  setuptools {span}\n")
    sys.stdout.write(
        f"{len(done)} validator(s) for {sum(len(w.releases) for w in done)} release(s) "
        f"in {index.cache_dir}; {fetched} downloaded\n"
    )
    return ExitCode.OK
