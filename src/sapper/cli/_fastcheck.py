"""The common forms of ``sapper check`` parsed without ``argparse``.

A cold ``sapper check`` in pre-commit spent about a tenth of its time importing ``argparse``
and building the ``check`` parser (issue 13). :func:`parse_check` reads the arguments of
``sapper check`` when they use only options spelled in full, each once or more (the last
wins, as in argparse), values given as ``--opt VALUE`` or ``--opt=VALUE``, and targets in one
run; for anything else (``--help``, an abbreviated or unknown option, a missing or invalid
value, a value or target starting with ``-``, ``--``, targets on both sides of an option) it
returns ``None`` and :func:`sapper.cli.run` lets argparse parse, which also writes the usage
errors. ``tests/test_cli_fastcheck.py`` checks that both give the same namespace on a table of
command lines and that the two know the same options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ._checkrun import FORMATS, _run
from ._light import rule_codes

__all__ = ["FLAGS", "VALUES", "parse_check"]

#: ``store_true`` options -> destination.
FLAGS: dict[str, str] = {
    "--enforce-deprecations": "enforce_deprecations",
    "--no-cache": "no_cache",
    "--isolated": "isolated",
    "--ignore-suppressions": "ignore_suppressions",
    "--exit-zero": "exit_zero",
    "--show-fix": "show_fix",
    "--statistics": "statistics",
    "-q": "quiet",
    "--quiet": "quiet",
}


def _text(value: str) -> str:
    return value


#: Options that take a value -> (destination, conversion, allowed values or None).
VALUES: dict[str, tuple[str, Callable[[str], Any], tuple[str, ...] | None]] = {
    "--format": ("format", _text, FORMATS),
    "--setuptools": ("setuptools", _text, None),
    "--python": ("python", _text, None),
    "--platform": ("platform", _text, None),
    "--index-url": ("index_url", _text, None),
    "--cache-dir": ("cache_dir", Path, None),
    "--cache-max-size": ("cache_max_size", _text, None),
    "--select": ("select", rule_codes, None),
    "--ignore": ("ignore", rule_codes, None),
    "--config": ("config", Path, None),
    "--color": ("color", _text, ("auto", "always", "never")),
}


def _defaults() -> dict[str, Any]:
    values: dict[str, Any] = dict.fromkeys(FLAGS.values(), False)
    values.update(dict.fromkeys(dest for dest, _, _ in VALUES.values()))
    values.update(
        command="check",
        targets=[],
        format="text",
        index_url=os.environ.get("SAPPER_INDEX_URL"),
        select=(),
        ignore=(),
        color="auto",
        handler=_run,
    )
    return values


def parse_check(argv: Sequence[str]) -> SimpleNamespace | None:
    """The namespace argparse would give for ``sapper check ARGV``, or None when ``argv``
    is not one of the simple forms (argparse then parses it, and reports any error)."""
    values = _defaults()
    targets: list[str] = []
    ended = False  # targets were given and an option followed them
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-"):
            if ended:
                return None  # argparse rejects targets on both sides of an option
            targets.append(arg)
            continue
        ended = bool(targets)
        name, eq, value = arg.partition("=")
        if name in FLAGS and not eq:
            values[FLAGS[name]] = True
            continue
        if name not in VALUES or not name.startswith("--"):
            return None
        if not eq:
            if i == len(argv) or argv[i].startswith("-"):
                return None
            value = argv[i]
            i += 1
        dest, convert, choices = VALUES[name]
        if choices is not None and value not in choices:
            return None
        values[dest] = convert(value)
    values["targets"] = targets
    return SimpleNamespace(**values)
