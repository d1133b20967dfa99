"""Argument types and option groups shared by the sub-commands (imports nothing heavy)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from .._defaults import DEFAULT_STORE
from ._light import (
    ExitCode,
    add_config_options,
    add_index_options,
    add_rule_selection,
    apply_cache_cap,
    cache_cap,
    cap_note,
    format_size,
    progress_enabled,
    rule_codes,
)

__all__ = [
    "COMMAND_EXIT_CODES",
    "DEFAULT_STORE",
    "EXIT_MEANINGS",
    "ExitCode",
    "HelpFormatter",
    "add_config_options",
    "add_envs_max_size_option",
    "add_index_options",
    "add_rule_selection",
    "apply_cache_cap",
    "cache_cap",
    "cap_note",
    "command_epilog",
    "exit_codes_epilog",
    "format_size",
    "positive_int",
    "progress_enabled",
    "rule_codes",
    "validate_rule_selection",
]


#: What each exit code means for every command (``sapper --help`` and docs/cli.md list it;
#: :data:`COMMAND_EXIT_CODES` says what it means for each command).
EXIT_MEANINGS: Mapping[ExitCode, str] = {
    ExitCode.OK: "success: no findings, nothing to rewrite, done",
    ExitCode.FINDINGS: "findings or failures found (check: findings; fix: files rewritten; "
    "audit, canary, wheelhouse, doctor: a build that fails, a regression, a problem)",
    ExitCode.USAGE: "usage error: unknown option, missing path, bad value (rule code, "
    "version, requirement, configuration); the command's usage is printed",
    ExitCode.TARGET_ERROR: "could not analyse or build: a target or store could not be read "
    "(damaged or refused archive, network), no working sandbox",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}

_INTERRUPTED = "interrupted (Ctrl-C)"
_RESUMES = "interrupted (what is stored stays; a rerun resumes)"
_USAGE = "usage error (bad option or value)"
_DONE: Mapping[ExitCode, str] = {
    ExitCode.OK: "done",
    ExitCode.USAGE: _USAGE,
    ExitCode.INTERRUPTED: _INTERRUPTED,
}

#: What each exit code means for each sub-command: the one source of the "exit codes:"
#: block of every ``sapper COMMAND --help`` (see :func:`command_epilog`) and of the
#: per-command table in docs/cli.md; tests/test_exit_codes.py checks both, and runs each
#: command's error paths against it.
COMMAND_EXIT_CODES: Mapping[str, Mapping[ExitCode, str]] = {
    "check": {
        ExitCode.OK: "no findings",
        ExitCode.FINDINGS: "findings (0 with --exit-zero)",
        ExitCode.USAGE: "usage error (bad option, missing path, a file that is no sdist, "
        "unknown rule code, malformed requirement, setuptools version that does not exist or "
        "does not run on --python); nothing is checked",
        ExitCode.TARGET_ERROR: "a target could not be analysed (damaged or refused archive, "
        "download failed, nothing to build, ...); the other targets are checked",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "rules": _DONE,
    "rule": {**_DONE, ExitCode.USAGE: "no such rule, or a bad option"},
    "fix": {
        ExitCode.OK: "nothing was (or would be) rewritten",
        ExitCode.FINDINGS: "files were rewritten (with --diff: would be rewritten)",
        ExitCode.USAGE: "usage error (bad option, missing path, a file that is no sdist, "
        "unknown rule code); nothing is rewritten",
        ExitCode.TARGET_ERROR: "a target could not be read or written (damaged or refused "
        "archive, download failed)",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "migrate": {
        ExitCode.OK: "migrated (with --diff: would be), or nothing to migrate",
        ExitCode.USAGE: "usage error (an sdist without -o DIR or --diff, bad option)",
        ExitCode.TARGET_ERROR: "refused, could not be verified, or the wheel would differ: "
        "nothing written; or the target could not be read",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "scan": {
        ExitCode.OK: "done (bad targets are rows with an error)",
        ExitCode.USAGE: "usage error (bad option or value, a SOURCE that does not exist)",
        ExitCode.TARGET_ERROR: "could not analyse: the store cannot be opened (not a DuckDB "
        "file, or another sapper is writing it), the Dask scheduler cannot be reached or was "
        "lost",
        ExitCode.INTERRUPTED: _RESUMES,
    },
    "report": {
        ExitCode.OK: "report written",
        ExitCode.USAGE: "usage error (no result store at the given path, bad option)",
        ExitCode.TARGET_ERROR: "the store cannot be read (damaged, foreign, newer schema)",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "cache": {**_DONE, ExitCode.USAGE: "no ACTION given (the help is printed), or a bad option"},
    "cache info": _DONE,
    "cache clean": _DONE,
    "cache warm": {
        ExitCode.OK: "every validator asked for is in the cache",
        ExitCode.USAGE: "usage error (an unknown setuptools version, a bad option)",
        ExitCode.TARGET_ERROR: "a wheel could not be downloaded (network, index, sha256)",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "canary": {
        ExitCode.OK: "no regression",
        ExitCode.FINDINGS: "regressions found",
        ExitCode.USAGE: "usage error (bad option or value, --no-sandbox without "
        "--i-trust-the-corpus)",
        ExitCode.TARGET_ERROR: "could not build: no working sandbox (bubblewrap; `sapper "
        "doctor` says why), a backend that cannot be fetched or built, a store that cannot "
        "be opened",
        ExitCode.INTERRUPTED: _RESUMES,
    },
    "audit": {
        ExitCode.OK: "nothing that gets built from source would fail",
        ExitCode.FINDINGS: "at least one sdist would fail with the setuptools a build gets "
        "today (also with --emit: the emitted file is the remedy, the input still fails "
        "without it)",
        ExitCode.USAGE: "usage error (missing or unreadable input, bad option)",
        ExitCode.TARGET_ERROR: "the audit is incomplete: a distribution could not be looked "
        "up (index unreachable, no such project), or --verify has no working sandbox; wins "
        "over 1",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "wheelhouse": {
        ExitCode.OK: "every distribution is in DIR and the set installed offline from it",
        ExitCode.FINDINGS: "something could not be built or downloaded, or the offline "
        "install failed",
        ExitCode.USAGE: "usage error (missing or unreadable input, bad option)",
        ExitCode.TARGET_ERROR: "could not build: no working sandbox (bubblewrap; `sapper "
        "doctor` says why): use --no-sandbox to build unconfined",
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
    "doctor": {
        ExitCode.OK: "the sandbox starts and the index answers",
        ExitCode.FINDINGS: "a problem: no working sandbox (its cause and fix are printed) or "
        "the index does not answer",
        ExitCode.USAGE: _USAGE,
        ExitCode.INTERRUPTED: _INTERRUPTED,
    },
}


def command_epilog(command: str) -> str:
    """The "exit codes:" block of ``sapper COMMAND --help``, from :data:`COMMAND_EXIT_CODES`."""
    return exit_codes_epilog(COMMAND_EXIT_CODES[command])


def exit_codes_epilog(meanings: Mapping[ExitCode, str]) -> str:
    """An ``exit codes:`` block for a sub-command's epilog, numbers taken from :class:`ExitCode`
    (wrapped to 79 columns, continuation lines under the text)."""
    import textwrap

    lines = ["exit codes:"]
    for code, text in meanings.items():
        lines.extend(
            textwrap.wrap(
                text,
                width=79,
                initial_indent=f"  {int(code):<3d} ",
                subsequent_indent=" " * 6,
                break_on_hyphens=False,  # never in an option's name
            )
        )
    return "\n".join(lines) + "\n"


def _terminal_columns(env: str | None) -> int:
    """The terminal width as ``shutil.get_terminal_size`` gives it ($COLUMNS when it is a
    positive number, else the width of stdout's terminal, else 80), without importing
    ``shutil`` (and the ``bz2`` and ``lzma`` modules it loads) at every start-up."""
    try:
        columns = int(env or 0)
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns or 80


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps prose paragraphs of descriptions and epilogs to the terminal, as argparse's
    default does, and keeps blocks whose lines are indented (tables, lists) as written."""

    #: Terminal width per $COLUMNS value: argparse builds a formatter for every option it
    #: adds, and asking the terminal each time is most of the cost of ``sapper --help``.
    _widths: ClassVar[dict[str | None, int]] = {}

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            key = os.environ.get("COLUMNS")
            if key not in self._widths:
                self._widths[key] = _terminal_columns(key) - 2
            width = self._widths[key]
        super().__init__(prog, indent_increment, max_help_position, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        def fill(prose: str, at: str) -> str:
            return textwrap.fill(
                " ".join(prose.split()), width, initial_indent=at, subsequent_indent=at
            )

        out: list[str] = []
        for para in text.split("\n\n"):
            lines = para.splitlines()
            head, *rest = lines or [""]
            if any(line[:1].isspace() for line in rest):
                out.append("\n".join(indent + line for line in lines))  # a table: as written
            elif rest and head.rstrip().endswith(":"):  # "heading:" then prose, indented by 2
                out.append(indent + head + "\n" + fill(" ".join(rest), indent + "  "))
            else:
                out.append(fill(para, indent))
        return "\n\n".join(out)


def size_value(text: str) -> int:
    """An option's size (``"10GiB"``, ``"500 MB"``), parsed as ``[tool.sapper]`` sizes are."""
    from .._exceptions import UsageError
    from ..config import parse_size

    try:
        return parse_size(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_envs_max_size_option(parser: argparse.ArgumentParser) -> None:
    """``--build-envs-max-size`` (canary and wheelhouse: the commands that build)."""
    parser.add_argument(
        "--build-envs-max-size",
        metavar="SIZE",
        type=size_value,
        default=None,
        help="bound the build environments kept in the cache (CACHE/build/envs): after "
        "making one, remove the least recently used until they hold at most SIZE, never one "
        "a build is using ('10GiB', '500M'; default: $SAPPER_BUILD_ENVS_MAX_SIZE, else 10 GiB)",
    )


def work_directory(text: str) -> Path:
    """A folder for builds to unpack in: made (with its parents) when missing."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        msg = f"{text!r} is not a directory"
        raise argparse.ArgumentTypeError(msg)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"cannot create {text!r}: {exc.strerror or exc}"
        raise argparse.ArgumentTypeError(msg) from exc
    return path


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"{text!r} is not a positive whole number"
        raise argparse.ArgumentTypeError(msg)
    return value


@functools.cache
def top_list_date() -> str:
    """The date of the top-PyPI-packages list shipped with sapper, read from the head of the
    file only (``--help`` must stay fast)."""
    import json
    from importlib import resources

    with resources.files("sapper").joinpath("data/top-pypi-packages.json").open("rb") as f:
        head = f.read(200).decode("utf-8", "replace")
    try:
        return str(json.loads(head.split(',"rows"', 1)[0] + "}")["date"])
    except (ValueError, KeyError):  # pragma: no cover - the file is ours
        return "unknown"


def add_corpus_options(parser: argparse.ArgumentParser, *, versions_help: str) -> None:
    """``--top`` and ``--versions``: how scan and canary take their corpus beyond SOURCE."""
    parser.add_argument(
        "--top",
        metavar="N",
        type=positive_int,
        help=f"add the N most-downloaded projects on PyPI (list of {top_list_date()})",
    )
    parser.add_argument(
        "--versions",
        metavar="WHICH",
        default="newest",
        help=f"{versions_help}: newest (default), all, before:YYYY-MM-DD (the newest uploaded "
        "before that day) or newest-per-year",
    )


def add_progress_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--progress auto|always|never`` (auto: when stderr is a terminal)."""
    parser.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help=f"{what} (auto: when stderr is a terminal)",
    )


def validate_rule_selection(args: argparse.Namespace) -> None:
    """Unknown codes in ``--select``/``--ignore`` are usage errors (exit 2)."""
    from ..rules import all_rules
    from ..selection import validate_selectors

    codes = [r.code for r in all_rules()]
    validate_selectors(getattr(args, "select", ()) or (), codes, option="--select")
    validate_selectors(getattr(args, "ignore", ()) or (), codes, option="--ignore")
