"""``sapper report``: summarise a scan's result store in the terminal, as JSON and as HTML."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ._common import DEFAULT_STORE, ExitCode, HelpFormatter, command_epilog, positive_int

__all__ = ["add_parser"]

_DESCRIPTION = """\
Summarise the results `sapper scan` stored: sdists affected per rule and status (removed,
overdue, deprecated = pending, requires-newer = a forward constraint), weighted by downloads
and by the downloads that build the sdist; by upload year; what breaks if an overdue or
pending deprecation became an error; breakage over setuptools versions, also as it happened
(setuptools 78.0.1 on 2025-03-24); the projects most at risk. Prints a summary (or JSON with
--format json) and writes a self-contained HTML page (no network needed to view it)."""

_EPILOG = command_epilog("report")


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "report",
        help="summarise a scan's results (terminal, JSON, HTML)",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "store",
        nargs="?",
        type=Path,
        default=DEFAULT_STORE,
        metavar="DB_OR_DIR",
        help="DuckDB file or Parquet directory written by `sapper scan` "
        f"(default: {DEFAULT_STORE})",
    )
    p.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="write the HTML page here (default with --format text: report.html next to the "
        "store; with --format json: no page unless --html is given)",
    )
    p.add_argument("--no-html", action="store_true", help="do not write the HTML page")
    p.add_argument(
        "--canary",
        nargs="?",
        const="",
        metavar="RUN",
        help="report a `sapper canary` run of the store instead (default: the newest run; "
        "the HTML page is canary.html next to the store)",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="terminal summary (default) or the versioned JSON summary (docs/report.md)",
    )
    p.add_argument(
        "--top",
        type=positive_int,
        default=20,
        metavar="K",
        help="how many at-risk projects to list (default: 20; the terminal shows at most 10)",
    )
    p.add_argument(
        "--as-of",
        type=_iso_date,
        metavar="YYYY-MM-DD",
        help="count each project by the release that was current that day (its newest "
        "scanned sdist uploaded before it) instead of its newest scanned sdist; for stores "
        "scanned with --versions before:DATE, newest-per-year or all",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour in text output (auto honours NO_COLOR and FORCE_COLOR)",
    )
    p.set_defaults(handler=_run)


def _iso_date(text: str) -> str:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        msg = f"invalid date {text!r}: write it as YYYY-MM-DD, such as 2025-03-24"
        raise argparse.ArgumentTypeError(msg) from None


def default_html_path(store: Path) -> Path:
    """``.sapper/scan.duckdb`` -> ``.sapper/report.html``; ``out/`` -> ``out/report.html``."""
    return (store if store.is_dir() else store.parent) / "report.html"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _run(args: argparse.Namespace) -> int:
    from .._exceptions import UsageError
    from ..render.text import Style, use_color
    from ..report import open_store, summarize

    if args.no_html and args.html:
        msg = "--html and --no-html contradict each other: pass one of them"
        raise UsageError(msg)
    if args.canary is not None:
        return _run_canary(args)
    store = open_store(args.store)
    try:
        summary = summarize(store, top=args.top, as_of=args.as_of)
    finally:
        store.close()
    html_path: Path | None = args.html
    if html_path is None and not args.no_html and args.format == "text":
        html_path = default_html_path(args.store)
    if html_path is not None:
        from ..report.html import render_html

        try:
            _write_atomic(html_path, render_html(summary))
        except OSError as exc:
            msg = f"cannot write the HTML page to {html_path}: {exc.strerror}; pass --html FILE"
            raise UsageError(msg) from exc
    if args.format == "json":
        from ..report.json import render_json

        sys.stdout.write(render_json(summary))
    else:
        from ..report.text import render_text

        style = Style(color=use_color(args.color, sys.stdout.isatty()))
        sys.stdout.write(render_text(summary, style, top=min(args.top, 10)))
    if html_path is not None:
        sys.stderr.write(f"HTML report: {html_path}\n")
    return ExitCode.OK


def _run_canary(args: argparse.Namespace) -> int:
    from ..report.canary import write_report

    html_path: Path | None = args.html
    if html_path is None and not args.no_html and args.format == "text":
        html_path = args.store.parent / "canary.html"
    text, _ = write_report(args.store, args.canary or None, args.format, html_path)
    sys.stdout.write(text)
    if html_path is not None:
        sys.stderr.write(f"HTML report: {html_path}\n")
    return ExitCode.OK
