"""The options of ``sapper check``: the one definition both parsers read.

:func:`define` calls ``add_argument`` on what it is given: the ``check`` sub-parser argparse
builds (:mod:`sapper.cli.check`, for ``--help`` and every unusual command line), or the
recorder of :mod:`sapper.cli._fastcheck`, which reads the common forms without importing
``argparse``. An option added here is known to both; nothing here imports ``argparse``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._checkrun import FORMATS, _run
from ._light import add_config_options, add_index_options, add_rule_selection

if TYPE_CHECKING:
    import argparse

__all__ = ["define"]


def define(check: argparse.ArgumentParser) -> None:
    """Add the arguments of ``sapper check`` to ``check`` and set its handler."""
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
