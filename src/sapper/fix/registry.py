"""Which rules ``sapper fix`` repairs, keyed by rule code: the one list that ``Rule.fixable``,
``sapper fix --help``, the rule docs' "Fix safety" section and the README derive from.

Importing this module is cheap (no libcst): ``sapper check`` and ``sapper rule`` read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["FIXERS", "Fixer", "epilog", "fixable_codes"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Fixer:
    """The repair of one rule code (``codes`` lists the codes fixed together)."""

    codes: tuple[str, ...]
    #: The file the fix edits.
    path: str
    #: Lines for ``sapper fix --help`` (after the codes).
    help: tuple[str, ...]
    #: Markdown for the rule doc's "Fix safety" section.
    safety: str


_FIXERS = (
    Fixer(
        codes=("SC001", "SC002"),
        path="setup.cfg",
        help=(
            "setup.cfg keys with dashes or capitals, renamed to what",
            "setuptools reads (description-file -> long_description = file:",
            "..., home-page -> url, ...); a [metadata] key setuptools ignores",
            "anyway (a misspelt decsription-file) is commented out under a",
            "one-line note. Edited line by line: comments, order and",
            "indentation stay.",
        ),
        safety=(
            "Safe: a key is renamed to the name setuptools already reads it under (or to "
            "the key setuptools maps it to: `home-page` becomes `url`, `license-file` "
            "`license_files`), so the built metadata does not change; `description-file` "
            "becomes `long_description = file: ...`, which adds the long description "
            "setuptools silently dropped. Unsafe (only with `--unsafe-fixes`): moving pbr's "
            "`requires-dist`, `provides-extra` or `requires-python` to `[options]`, which "
            "changes the declared requirements. A `[metadata]` key setuptools ignores "
            "anyway (a misspelt `decsription-file`) is commented out under a one-line note: "
            "setuptools never read it, so the built metadata does not change. A "
            "conflicting key is reported and left alone."
        ),
    ),
    Fixer(
        codes=("SC008",),
        path="setup.cfg",
        help=("license = file: X in setup.cfg -> license_files = X",),
        safety=(
            "Safe: `license = file: X` never built since setuptools 40.7.0; "
            "`license_files = X` ships the same file."
        ),
    ),
    Fixer(
        codes=("SC009",),
        path="setup.cfg",
        help=(
            "universal = 1 removed from [bdist_wheel] (or the old [wheel]",
            "section)",
        ),
        safety=(
            "Safe: the option is removed (and its section when it becomes empty); a "
            "pure-Python wheel of a Python 3 project is `py3-none-any` either way."
        ),
    ),
    Fixer(
        codes=("SP001",),
        path="setup.py",
        help=(
            "setup.py: the setuptools.command.test import and its cmdclass",
            "entry; pkg_resources get_distribution(x).version, parse_version,",
            "resource_filename",
        ),
        safety=(
            "Safe: dropping `from setuptools.command.test import test` when the class is "
            "only a `cmdclass` value (setuptools has no `test` command since 72.0.0), and "
            "`get_distribution(x).version` -> `importlib.metadata.version(x)`. Unsafe (only "
            "with `--unsafe-fixes`): `parse_version(x)` -> `packaging.version.Version(x)` "
            "(`packaging` must be in `build-system.requires`, and legacy versions no longer "
            "parse) and `resource_filename(p, r)` -> `str(importlib.resources.files(p) / r)` "
            "(the package must be importable). A file with any other `pkg_resources` use is "
            "left alone and reported; an edit that would lose a comment is not made."
        ),
    ),
    Fixer(
        codes=("SP002",),
        path="setup.py",
        help=("setup.py: use_2to3= in setup()",),
        safety=(
            "Safe for a false literal, which setuptools ignored (the keyword is removed); "
            "unsafe otherwise: the code was converted by 2to3 before setuptools 58.0.0 and "
            "may not run on Python 3 as it is."
        ),
    ),
)

#: Rule code -> its fixer.
FIXERS: Mapping[str, Fixer] = MappingProxyType({c: f for f in _FIXERS for c in f.codes})


def fixable_codes(path: str | None = None) -> tuple[str, ...]:
    """The codes ``sapper fix`` repairs (only those editing ``path``, if given), sorted."""
    return tuple(sorted(c for c, f in FIXERS.items() if path is None or f.path == path))


def epilog() -> str:
    """The "what is fixed" block of ``sapper fix --help``."""
    lines = ["what is fixed:"]
    for fixer in _FIXERS:
        label = ", ".join(fixer.codes)
        for i, text in enumerate(fixer.help):
            lines.append(f"  {(label if i == 0 else ''):<14}{text}")
    return "\n".join(lines) + "\n"
