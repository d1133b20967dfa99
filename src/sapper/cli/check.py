"""``sapper check``: check source trees, sdists and requirements; render the findings."""

from __future__ import annotations

import argparse
from typing import Any

from ._checkrun import FORMATS, _run
from ._common import (
    HelpFormatter,
    add_config_options,
    add_index_options,
    add_rule_selection,
    command_epilog,
)

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
        help="give the verdict for this setuptools version, with every finding, even one "
        "build-system.requires rules out (the verdict then says so: a build without "
        "isolation gets it) (default: the newest release the project's "
        "build-system.requires allows)",
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
        help="build Python version: caps setuptools at the newest release supporting it, "
        "and decides setup.py's sys.version_info tests (default: this interpreter's)",
    )
    check.add_argument(
        "--platform",
        metavar="PLATFORM",
        help="the build's sys.platform (linux, darwin, win32...): decides setup.py's "
        "sys.platform, os.name and platform.system() tests (default: this interpreter's)",
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
