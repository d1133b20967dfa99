"""The ``sapper`` command line: parse arguments, call the library, render, pick an exit code.

One module per sub-command (``sapper check`` in its common forms is parsed without argparse,
by :mod:`sapper.cli._fastcheck`). Each exposes ``add_parser(subparsers)``, which registers the
sub-command and sets ``handler`` with ``set_defaults``; the handler takes the parsed arguments
and returns an :class:`ExitCode` (or a plain int). Modules import their heavy dependencies
inside the handler, so that ``sapper --help`` stays fast. Exit codes are defined once, in
:class:`sapper.cli._light.ExitCode` (re-exported by ``sapper.cli._common``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._exceptions import SapperError, UsageError
from ._light import ExitCode

if TYPE_CHECKING:
    import argparse

__all__ = ["SUBCOMMANDS", "SUBCOMMAND_MODULES", "ExitCode", "main", "run"]

#: The modules that add a sub-command, in the order ``sapper --help`` lists them. A new
#: sub-command is a module with ``add_parser(subparsers)`` plus one line here.
SUBCOMMAND_MODULES: list[str] = [
    "sapper.cli.check",
    "sapper.cli.rules",
    "sapper.cli.fix",
    "sapper.cli.migrate",
    "sapper.cli.scan",
    "sapper.cli.report",
    "sapper.cli.cache",
    "sapper.cli.canary",
    "sapper.cli.audit",
    "sapper.cli.wheelhouse",
    "sapper.cli.doctor",
]

#: Sub-command name -> the module that registers it: ``sapper check ...`` imports and builds
#: only the ``check`` parser, not the other nine (a cold ``sapper check`` in pre-commit pays
#: for one sub-command's options, not for every one's). ``tests/test_cli_package.py`` checks
#: this table against what the modules register.
SUBCOMMANDS: dict[str, str] = {
    "check": "sapper.cli.check",
    "rules": "sapper.cli.rules",
    "rule": "sapper.cli.rules",
    "fix": "sapper.cli.fix",
    "migrate": "sapper.cli.migrate",
    "scan": "sapper.cli.scan",
    "report": "sapper.cli.report",
    "cache": "sapper.cli.cache",
    "canary": "sapper.cli.canary",
    "audit": "sapper.cli.audit",
    "wheelhouse": "sapper.cli.wheelhouse",
    "doctor": "sapper.cli.doctor",
}


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``sapper`` parser; when ``argv`` starts with a sub-command's name, only that
    sub-command's module is imported and registered (``None``: every sub-command)."""
    import argparse

    from .._version import __version__
    from ._common import EXIT_MEANINGS, HelpFormatter, exit_codes_epilog

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
    only = SUBCOMMANDS.get(argv[0]) if argv else None
    for name in SUBCOMMAND_MODULES:
        if only is None or name == only:
            importlib.import_module(name).add_parser(sub)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the sub-command; exceptions propagate (see :func:`main`)."""
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "check":  # the common forms without argparse (a cold start)
        from ._fastcheck import parse_check

        fast = parse_check(argv[1:])
        if fast is not None:
            # no garbage collection until the first target is checked (see pause_gc)
            from ._checkrun import pause_gc, resume_gc

            pause_gc()
            try:
                return int(fast.handler(fast))
            finally:
                resume_gc()
    parser = _parser(argv)
    args, extra = parser.parse_known_args(argv)
    if extra:  # as parse_args, but with the usage of the command that got them, if it says
        getattr(args, "command_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
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
