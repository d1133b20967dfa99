"""``sapper check``: check source trees, sdists and requirements; render the findings."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import (
    ExitCode,
    add_index_options,
    add_rule_selection,
    exit_codes_epilog,
    progress_enabled,
)

__all__ = ["add_parser"]

_EPILOG = exit_codes_epilog(
    {
        ExitCode.OK: "no findings",
        ExitCode.FINDINGS: "findings (0 with --exit-zero)",
        ExitCode.USAGE: "usage error",
        ExitCode.TARGET_ERROR: "a target could not be analysed (damaged archive, download "
        "failed, ...)",
    }
)


def add_parser(subparsers: Any) -> None:
    check: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="check source trees, sdists or PyPI requirements",
        description=(
            "Check each TARGET: a source tree (directory), an sdist archive (.tar.gz, .tgz, "
            ".tar.bz2, .tar.xz, .zip) or a requirement resolved on the package index "
            "('stringcase==1.2.0'; a bare name means the newest release with an sdist). "
            "Nothing is executed and archives are never extracted."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("targets", nargs="+", metavar="TARGET")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument(
        "--setuptools",
        metavar="VERSION",
        help="give the verdict for this setuptools version (default: the newest release the "
        "project's build-system.requires allows)",
    )
    check.add_argument(
        "--enforce-deprecations",
        action="store_true",
        help="evaluate as setuptools does with SETUPTOOLS_ENFORCE_DEPRECATION=1 "
        "(overdue deprecations become errors)",
    )
    check.add_argument(
        "--python",
        metavar="X.Y",
        help="build Python version: caps setuptools at the newest release supporting it",
    )
    add_index_options(check)
    add_rule_selection(
        check,
        select_help="only these rule codes or prefixes (comma-separated)",
        ignore_help="skip these rule codes or prefixes (comma-separated)",
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    check.add_argument(
        "--show-fix", action="store_true", help="print the suggested fix under each finding"
    )
    check.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour in text output (auto honours NO_COLOR and FORCE_COLOR)",
    )
    check.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from .._exceptions import UsageError
    from ..check import Options, check_targets
    from ..render.text import Style, render_text, use_color
    from ..versions import catalogue

    cat = catalogue()
    if args.setuptools:
        cat.validate_version(args.setuptools)
    if args.python:
        parts = args.python.split(".")
        if not (1 < len(parts) <= 3 and all(p.isdigit() for p in parts)):
            msg = f"--python {args.python!r}: write a version such as 3.12"
            raise UsageError(msg)
    options = Options(
        setuptools=args.setuptools,
        enforce_deprecations=args.enforce_deprecations,
        python=args.python,
        index_url=args.index_url,
        select=args.select,
        ignore=args.ignore,
        cache_dir=args.cache_dir,
        no_cache=args.no_cache,
    )
    total = len(args.targets)
    show = progress_enabled() and total > 1

    def progress(i: int, target: str) -> None:
        sys.stderr.write(f"\r\x1b[K[{i + 1}/{total}] checking {target}")
        sys.stderr.flush()

    results = check_targets(args.targets, options, on_target=progress if show else None)
    if show:
        sys.stderr.write("\r\x1b[K")
    if args.format == "json":
        from ..render.json import render_json

        sys.stdout.write(render_json(results, newest=cat.newest))
    else:
        style = Style(color=use_color(args.color, sys.stdout.isatty()))
        sys.stdout.write(render_text(results, style, show_fix=args.show_fix))
    if any(r.errors and r.verdict is None for r in results):
        return ExitCode.TARGET_ERROR
    if any(r.findings for r in results) and not args.exit_zero:
        return ExitCode.FINDINGS
    return ExitCode.OK
