"""``sapper check``: check source trees, sdists and requirements; render the findings.

The options are defined once, in :mod:`sapper.cli._checkopts` (the fast path of
:mod:`sapper.cli._fastcheck` reads the same definition); this module adds the texts of
``--help``."""

from __future__ import annotations

import argparse
from typing import Any

from . import _checkopts
from ._common import HelpFormatter, command_epilog

__all__ = ["add_parser"]

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
    _checkopts.define(check)
