"""The ``sapper`` command line: parse arguments, call the library, render, pick an exit code.

One module per sub-command, all parsed by argparse (a hand-written parser for ``sapper
check`` saved 7 ms of CPU and was removed, issue 23: ``benchmarks/check_parser.py``). Each
exposes ``add_parser(subparsers)``, which registers the sub-command and sets ``handler`` with
``set_defaults``; the handler takes the parsed arguments and returns an :class:`ExitCode`.
Modules import their heavy dependencies inside the handler, so that ``sapper --help`` stays
fast. Exit codes are defined once, in :class:`sapper.cli._light.ExitCode`, and what each
means for each command once, in ``COMMAND_EXIT_CODES`` (:mod:`sapper.cli._common`), which
every ``--help`` and docs/cli.md list. Every usage error shows the usage of the command that
got it (:func:`usage_error`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._exceptions import BuildError, SapperError, UsageError
from ._light import ExitCode

if TYPE_CHECKING:
    import argparse

__all__ = ["SUBCOMMANDS", "SUBCOMMAND_MODULES", "ExitCode", "main", "run", "usage_error"]

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
    _name_command_parsers(parser)
    return parser


def _name_command_parsers(parser: argparse.ArgumentParser) -> None:
    """Set ``command_parser`` to each (nested) sub-command's own parser in the namespace it
    gives (the innermost wins, as argparse applies a nested sub-parser's defaults last), so
    that a usage error prints the usage of the command that got it."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.set_defaults(command_parser=sub)
                _name_command_parsers(sub)


def usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """Write a usage error as argparse does (the command's usage, then ``PROG: error:
    MESSAGE``) and return :attr:`ExitCode.USAGE`: the one way every usage error is told."""
    parser.print_usage(sys.stderr)
    sys.stderr.write(f"{parser.prog}: error: {message}\n")
    return ExitCode.USAGE


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the sub-command; a usage error (argparse's, or a
    :class:`UsageError` the command raises) is written with the usage of the command that
    got it and gives :attr:`ExitCode.USAGE`; other exceptions propagate (see :func:`main`)."""
    if argv is None:
        argv = sys.argv[1:]
    check = bool(argv) and argv[0] == "check"
    if check:  # no garbage collection until the first target is checked (see pause_gc)
        from ._checkrun import pause_gc, resume_gc

        pause_gc()
    try:
        parser = _parser(argv)
        args, extra = parser.parse_known_args(argv)
        command_parser = getattr(args, "command_parser", parser)
        if extra:  # as parse_args, but with the usage of the command that got them
            command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return ExitCode.USAGE
        try:
            return int(handler(args))
        except UsageError as exc:
            return usage_error(command_parser, str(exc))
    finally:
        if check:
            resume_gc()


def main(argv: Sequence[str] | None = None) -> int:
    """The ``sapper`` console script: :func:`run` with errors turned into exit codes (a
    :class:`SapperError` that is no usage error: the command could not analyse or build, 3)."""
    try:
        return run(argv)
    except UsageError as exc:  # raised before a command was chosen
        sys.stderr.write(f"sapper: error: {exc}\n")
        return ExitCode.USAGE
    except BuildError as exc:  # no working sandbox, a backend that cannot be built
        sys.stderr.write(f"sapper: error: could not build: {exc}\n")
        return ExitCode.TARGET_ERROR
    except SapperError as exc:
        sys.stderr.write(f"sapper: error: {exc}\n")
        return ExitCode.TARGET_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("sapper: interrupted\n")
        return ExitCode.INTERRUPTED
