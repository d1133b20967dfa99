"""The ``sapper`` command line: parse arguments, call the library, render, pick an exit code.

One module per sub-command. Each exposes ``add_parser(subparsers)``, which registers the
sub-command and sets ``handler`` with ``set_defaults``; the handler takes the parsed arguments
and returns an :class:`ExitCode` (or a plain int). Modules import their heavy dependencies
inside the handler, so that ``sapper --help`` stays fast. Exit codes are defined once, in
:class:`sapper.cli._common.ExitCode`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .._exceptions import SapperError, UsageError
from .._version import __version__
from ._common import EXIT_MEANINGS, ExitCode, HelpFormatter, exit_codes_epilog

__all__ = ["SUBCOMMAND_MODULES", "ExitCode", "main", "run"]

#: The modules that add a sub-command, in the order ``sapper --help`` lists them. A new
#: sub-command is a module with ``add_parser(subparsers)`` plus one line here.
SUBCOMMAND_MODULES: list[str] = [
    "sapper.cli.check",
    "sapper.cli.rules",
    "sapper.cli.fix",
    "sapper.cli.scan",
    "sapper.cli.report",
    "sapper.cli.cache",
    "sapper.cli.canary",
    "sapper.cli.audit",
    "sapper.cli.wheelhouse",
]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sapper",
        description=(
            "Find deprecated and removed setuptools practices in Python projects and sdists, "
            "and tell which setuptools versions fail to build them."
        ),
        epilog=exit_codes_epilog(EXIT_MEANINGS)
        + "\nEach command's --help says what its codes mean for it; scan records bad targets "
        "in its database and exits 0.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"sapper {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the sub-command; exceptions propagate (see :func:`main`)."""
    parser = _parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return ExitCode.USAGE
    return int(handler(args))


def main(argv: Sequence[str] | None = None) -> int:
    """The ``sapper`` console script: :func:`run` with errors turned into exit codes."""
    try:
        return run(argv)
    except UsageError as exc:
        sys.stderr.write(f"sapper: error: {exc}\n")
        return ExitCode.USAGE
    except SapperError as exc:
        sys.stderr.write(f"sapper: error: {exc}\n")
        return ExitCode.TARGET_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("sapper: interrupted\n")
        return ExitCode.INTERRUPTED
