"""Compatibility alias: the shared CLI options moved to :mod:`sapper.cli._common`.

Sub-command modules written before the ``cli`` package (``_cli_*.py``) keep importing from
here until they move into :mod:`sapper.cli`.
"""

from __future__ import annotations

from .cli._common import (
    DEFAULT_STORE,
    ExitCode,
    add_index_options,
    add_rule_selection,
    exit_codes_epilog,
    positive_int,
    progress_enabled,
    rule_codes,
)

__all__ = [
    "DEFAULT_STORE",
    "ExitCode",
    "add_index_options",
    "add_rule_selection",
    "exit_codes_epilog",
    "positive_int",
    "progress_enabled",
    "rule_codes",
]
