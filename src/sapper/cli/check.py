"""``sapper check``: check source trees, sdists and requirements; render the findings."""

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
    progress_enabled,
)

if TYPE_CHECKING:
    from ..check import Options
    from ..config import Config
    from ..model import TargetResult

__all__ = ["add_parser"]

FORMATS = ("text", "concise", "json", "sarif", "github")

_EPILOG = """\
output formats:
  text     findings grouped per target, with a verdict per target (default)
  concise  one line per finding: path:line:col: CODE [status] message
  json     the versioned JSON report (docs/json.md)
  sarif    SARIF 2.1.0, for code scanning (GitHub, GitLab, IDEs)
  github   GitHub Actions annotations (::error/::warning/::notice)

configuration:
The nearest .sapper.toml, sapper.toml or pyproject.toml with a [tool.sapper] table, in
the checked directory or above it (above the current directory for sdists and
requirements), sets select, ignore, per-file-ignores,
setuptools, python, enforce-deprecations and cache-max-size; options on the command line
win.

suppressions:
A comment "# sapper: ignore[SC001]" (codes or prefixes, comma-separated) suppresses
findings: in setup.py and pyproject.toml on its own line, or on the next line when it
stands alone; in setup.cfg (full-line comments only, since configparser keeps a trailing
comment in the value) on the option below it, or on the whole section below it. Rule
SAP100 reports comments that suppress nothing; it runs only when selected (--select ALL,
or --select SC,SP,SAP100), never by default. See docs/cli.md.

""" + command_epilog("check")


def add_parser(subparsers: Any) -> None:
    check: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="check source trees, sdists or PyPI requirements",
        description=(
            "Check each TARGET (default: the current directory): a source tree (directory), "
            "an sdist archive (.tar.gz, .tgz, .tar.bz2, .tar.xz, .zip) or a requirement "
            "resolved on the package index ('stringcase==1.2.0'; a bare name means the newest "
            "release with an sdist). Nothing is executed and archives are never extracted."
        ),
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    check.add_argument(
        "targets",
        nargs="*",
        metavar="TARGET",
        help="directory, sdist file or requirement (default: .)",
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format (default: text; see below)",
    )
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
        select_help="only these rule codes or prefixes (comma-separated; ALL for every rule); "
        "a more specific code wins over a broader one in --ignore",
        ignore_help="skip these rule codes or prefixes (comma-separated)",
    )
    add_config_options(check)
    check.add_argument(
        "--ignore-suppressions",
        action="store_true",
        help="report findings even where a '# sapper: ignore[...]' comment or "
        "per-file-ignores suppresses them",
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    check.add_argument(
        "--show-fix", action="store_true", help="print the suggested fix under each finding"
    )
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print how many findings each rule has instead of the findings (JSON with "
        "--format json)",
    )
    check.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print findings and errors only: no progress, no summary, nothing about targets "
        "without findings",
    )
    check.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour in text output (auto honours NO_COLOR and FORCE_COLOR)",
    )
    check.set_defaults(handler=_run)


def _options(args: argparse.Namespace, config: Config) -> Options:
    from ..check import Options
    from ._settings import settings_for

    settings = settings_for(args, config)
    suppress = not args.ignore_suppressions
    return Options(
        setuptools=settings.setuptools,
        enforce_deprecations=settings.enforce_deprecations,
        python=settings.python,
        index_url=args.index_url,
        select=settings.select,
        ignore=settings.ignore,
        cache_dir=args.cache_dir,
        no_cache=args.no_cache,
        suppressions=suppress,
        per_file_ignores=config.per_file_ignores if suppress else (),
        unused_suppressions=settings.unused_suppressions,
    )


def _render(args: argparse.Namespace, results: list[TargetResult]) -> str:
    if args.statistics:
        if args.format not in ("text", "json"):
            from .._exceptions import UsageError

            msg = f"--statistics prints text or JSON, not --format {args.format}"
            raise UsageError(msg)
        from ..render.statistics import render_statistics

        return render_statistics(results, as_json=args.format == "json")
    if args.format == "json":
        from ..render.json import render_json
        from ..versions import catalogue

        return render_json(results, newest=catalogue().newest)
    if args.format == "sarif":
        from ..render.sarif import render_sarif

        return render_sarif(results)
    if args.format == "github":
        from ..render.github import render_github

        return render_github(results)
    if args.format == "concise":
        from ..render.concise import render_concise

        return render_concise(results, quiet=args.quiet)
    from ..render.text import Style, render_text, use_color

    style = Style(color=use_color(args.color, sys.stdout.isatty()))
    shown = [r for r in results if r.findings or r.errors] if args.quiet else results
    if args.quiet and not shown:
        return ""
    text = render_text(shown, style, show_fix=args.show_fix)
    if args.quiet:  # drop the summary line
        text = text.rstrip("\n").rsplit("\n", 1)[0] + "\n"
    return text


def _run(args: argparse.Namespace) -> int:
    from .._exceptions import UsageError
    from ..check import check_target, classify_target
    from ._settings import config_for

    targets: list[str] = args.targets or ["."]
    if args.statistics and args.show_fix:
        msg = "--statistics prints counts, not findings: drop --show-fix"
        raise UsageError(msg)
    for target in targets:  # a malformed requirement is a usage error (exit 2), before any work
        try:
            classify_target(target)
        except UsageError:
            from .._reqtext import requirement_problem

            if requirement_problem(target) is not None:
                raise
    configs: dict[Path, Config] = {}
    options_by_config: dict[Path | None, Options] = {}
    per_target: list[Options] = []
    for target in targets:
        config = config_for(args, target, configs)
        if config.path not in options_by_config:
            options_by_config[config.path] = _options(args, config)
        per_target.append(options_by_config[config.path])

    cap = cache_cap(
        args, next((c.cache_max_size for c in configs.values() if c.cache_max_size), None)
    )
    total = len(targets)
    show = progress_enabled() and total > 1 and not args.quiet
    results = []
    for i, (target, options) in enumerate(zip(targets, per_target, strict=True)):
        if show:
            sys.stderr.write(f"\r\x1b[K[{i + 1}/{total}] checking {target}")
            sys.stderr.flush()
        results.append(check_target(target, options))
    if show:
        sys.stderr.write("\r\x1b[K")
    sys.stdout.write(_render(args, results))
    apply_cache_cap(args, cap)
    if any(r.errors and r.verdict is None for r in results):
        return ExitCode.TARGET_ERROR
    if any(r.findings for r in results) and not args.exit_zero:
        return ExitCode.FINDINGS
    return ExitCode.OK
