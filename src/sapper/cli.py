"""The ``sapper`` command line: parse arguments, call the library, render, pick an exit code.

Exit codes (also in ``sapper --help`` and docs/cli.md):
  0  no findings
  1  findings (``--exit-zero``: 0)
  2  usage error
  3  a target could not be analysed
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ._cli_common import add_index_options, add_rule_selection, progress_enabled
from ._exceptions import SapperError, UsageError
from ._version import __version__

__all__ = ["main"]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_TARGET_ERROR = 3

#: Modules that add a sub-command: each has ``add_parser(subparsers)``, which registers the
#: sub-command with ``set_defaults(handler=...)``; the handler takes the parsed arguments and
#: returns the exit code. They import their heavy dependencies inside the handler.
_SUBCOMMAND_MODULES: tuple[str, ...] = (
    "sapper._cli_scan",
    "sapper._cli_fix",
    "sapper._cli_report",
    "sapper._cli_canary",
    "sapper._cli_audit",
    "sapper._cli_wheelhouse",
)

_EPILOG = """\
exit codes:
  0  no findings
  1  findings (0 with --exit-zero)
  2  usage error
  3  a target could not be analysed (damaged archive, download failed, ...)
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sapper",
        description=(
            "Find deprecated and removed setuptools practices in Python projects and sdists, "
            "and tell which setuptools versions fail to build them."
        ),
        epilog=(
            "Each command's --help lists its exit codes; in short: 0 success, 1 findings "
            "(check) or files rewritten (fix), 2 usage error, 3 a target (check, fix) or "
            "the result store (report) could not be read; scan records bad targets in its "
            "database and exits 0."
        ),
    )
    parser.add_argument("--version", action="version", version=f"sapper {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
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

    rules = sub.add_parser("rules", help="list every rule")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rule = sub.add_parser("rule", help="explain one rule: what, why, example, fix, references")
    rule.add_argument("code")
    for name in _SUBCOMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def _run_check(args: argparse.Namespace) -> int:
    from .check import Options, check_targets
    from .render.text import Style, render_text, use_color
    from .versions import catalogue

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
        from .render.json import render_json

        sys.stdout.write(render_json(results, newest=cat.newest))
    else:
        style = Style(color=use_color(args.color, sys.stdout.isatty()))
        sys.stdout.write(render_text(results, style, show_fix=args.show_fix))
    if any(r.errors and r.verdict is None for r in results):
        return EXIT_TARGET_ERROR
    if any(r.findings for r in results) and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_OK


def _run_rules(args: argparse.Namespace) -> int:
    from .rules import all_rules

    rules = all_rules()
    if args.format == "json":
        import json

        doc = [
            {
                "code": r.code,
                "slug": r.slug,
                "family": r.family,
                "summary": r.summary,
                "fixable": r.fixable,
                "references": [{"title": x.title, "url": x.url} for x in r.references],
            }
            for r in rules
        ]
        sys.stdout.write(json.dumps({"version": 1, "rules": doc}, indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.slug) for r in rules)
    for r in rules:
        sys.stdout.write(f"{r.code}  {r.slug:<{width}}  {r.summary}\n")
    return EXIT_OK


def _run_rule(args: argparse.Namespace) -> int:
    from .explain import explain
    from .rules import get_rule

    rule = get_rule(args.code)
    if rule is None:
        msg = f"no rule {args.code!r}; `sapper rules` lists them"
        raise UsageError(msg)
    sys.stdout.write(explain(rule))
    return EXIT_OK


def run(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "check":
        return _run_check(args)
    if args.command == "rules":
        return _run_rules(args)
    if args.command == "rule":
        return _run_rule(args)
    handler = getattr(args, "handler", None)
    if handler is not None:
        code: int = handler(args)
        return code
    parser.print_help()
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except UsageError as exc:
        sys.stderr.write(f"sapper: error: {exc}\n")
        return EXIT_USAGE
    except SapperError as exc:
        sys.stderr.write(f"sapper: error: {exc}\n")
        return EXIT_TARGET_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("sapper: interrupted\n")
        return 130
