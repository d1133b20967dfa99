"""The failure each rule predicts, as real setuptools reports it: exception class(es) and a
message pattern (see harness.Reason). An oracle comparison where sapper says "fails" passes
only if setuptools failed with one of the reasons of a rule in the verdict's ``because``.

A rule's reasons are DERIVED from the changes table first: the ``error`` of every entry of
``sapper.changes`` whose ``covered`` names the rule (:func:`_from_changes`). ``OTHER`` holds
only the failures no entry's ``error`` describes (older wordings, crashes of single
releases, errors raised by Python or the frontend); the texts come from the setuptools
sources and from running the oracle cases. ``reasons_for`` is the one place the oracle
tests ask.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sapper.changes import CHANGES

from .harness import Reason

_DEPRECATION = ("SetuptoolsDeprecationWarning",)
_CONFIG = ("InvalidConfigError", "SetuptoolsDeprecationWarning")


def _from_changes() -> dict[str, tuple[Reason, ...]]:
    """Rule code -> the errors of the changes entries that name it in ``covered``."""
    out: dict[str, list[Reason]] = {}
    for entry in CHANGES:
        if entry.error is None:
            continue
        reason = Reason(tuple(entry.error.type.split("|")), entry.error.message)
        for code in re.findall(r"\b[A-Z]{2}[0-9]{3}\b", entry.covered):
            out.setdefault(code, []).append(reason)
    return {code: tuple(reasons) for code, reasons in out.items()}


#: The failures no changes entry's ``error`` describes, per rule.
OTHER: dict[str, tuple[Reason, ...]] = {
    # -- setup.cfg ---------------------------------------------------------------------
    "SC001": (Reason(_CONFIG, r"Invalid dash-separated (key|options)"),),
    "SC002": (Reason(_CONFIG, r"Invalid uppercase (key|configuration)"),),
    "SC003": (
        Reason(("UnicodeDecodeError",), r"codec can't decode"),
        # 40.7.0-40.9.0: the first line's `coding:` names no text codec
        Reason(("LookupError",), r"^unknown encoding: |is not a text encoding"),
    ),
    "SC004": (
        Reason(("MissingSectionHeaderError",), r"File contains no section headers"),
        Reason(("ParsingError",), r"Source contains parsing errors"),
    ),
    "SC005": (
        Reason(("DuplicateOptionError",), r"option '.*' in section '.*' already exists"),
        Reason(("DuplicateSectionError",), r"section '.*' already exists"),
    ),
    "SC006": (
        Reason(("InterpolationMissingOptionError",), r"Bad value substitution"),
        Reason(("InterpolationSyntaxError",), r"'%' must be followed by '%' or '\('"),
    ),
    "SC007": (Reason(("DistutilsOptionError",), r"Unsupported distribution option section: \["),),
    "SC010": (
        Reason(("InvalidRequirement",), r"Expected|Parse error|Ambiguous requirement marker"),
        Reason(("InvalidSpecifier",), r"Invalid specifier"),
        Reason(("SystemExit",), r"must be a string .*valid"),
    ),
    # -- setup.py ----------------------------------------------------------------------
    "SP001": (
        Reason(
            ("ModuleNotFoundError",), r"^No module named '(pkg_resources|setuptools|distutils)\b"
        ),
    ),
    "SP003": (
        Reason(
            ("ImportError",),
            r"^cannot import name '\w+' from '(setuptools|pkg_resources|distutils)\b",
        ),
        Reason(("AttributeError",), r"^module '(setuptools|pkg_resources)[\w.]*' has no attribute"),
        Reason(_DEPRECATION, r"(?i)deprecated|disabled"),
    ),
    "SP004": (Reason(("SystemExit",), r"'(install|setup)_requires' must be .*Unordered types"),),
    "SP006": (
        Reason(("SystemExit",), r"must be a string .*valid"),
        Reason(("InvalidRequirement",), r"Expected|Parse error"),
    ),
    # Python itself, compiling setup.py before setuptools does anything.
    "SP900": (Reason(("SyntaxError", "TabError", "IndentationError", "ValueError"), r"."),),
    # the project's own code: the exception setup.py raises (the oracle's cases raise these)
    "SP901": (
        Reason(("RuntimeError", "SystemExit"), r"."),
        # a file setup.py reads that the sdist does not ship
        Reason(("FileNotFoundError",), r"No such file or directory"),
        # a module the isolated build environment lacks
        Reason(("ModuleNotFoundError",), r"^No module named '\w+'"),
    ),
    # -- pyproject.toml ----------------------------------------------------------------
    "PP001": (
        Reason(("ValueError",), r"^invalid pyproject\.toml config: (`project|\w+ - )"),
        Reason(
            ("DistutilsOptionError", "InvalidConfigError"),
            r"No configuration found for dynamic|Impossible to expand dynamic value",
        ),
        # 61.0.0-61.1.1 crash on a dynamic field nothing fills.
        Reason(("AttributeError",), r"'NoneType' object has no attribute 'items'"),
        # the extra validations of the 62.6.0-65.4.1 validators escape setuptools' handler
        Reason(("RedefiningStaticFieldAsDynamic",), r"^You cannot provide a value for"),
        # an author/maintainer table with neither name nor email (_apply_pyprojecttoml)
        Reason(("KeyError",), r"^'email'$"),
    ),
    "PP002": (
        Reason(("ValueError",), r"^invalid pyproject\.toml config: `project\.license`"),
        # 61.x crash on a license string instead of validating it.
        Reason(("TypeError",), r"string indices must be integers"),
    ),
    "PP004": (Reason(_DEPRECATION, r"`project\.license` as a TOML table is deprecated"),),
    "PP005": (
        Reason(("RemovedConfigError",), r"`tool\.setuptools\.namespace-packages`"),
        Reason(_DEPRECATION, r"Deprecated config"),
    ),
    "PP006": (
        Reason(_DEPRECATION, r"'tool\.setuptools\.license-files' is deprecated"),
        Reason(("InvalidConfigError",), r"'project\.license-files' is defined already"),
    ),
    "PP007": (Reason(("ValueError",), r"^invalid pyproject\.toml config: `tool\.setuptools"),),
    "PP008": (
        Reason(("_WouldIgnoreField",), r"defined outside of `pyproject\.toml` would be ignored"),
        # 69.0.0+ crash on some fields that [project] does not list in `dynamic`.
        Reason(("AttributeError",), r"^'NoneType' object has no attribute '(get|split)'"),
        Reason(
            ("TypeError",), r"^'NoneType' object is not iterable|'list' object is not a mapping"
        ),
        Reason(("KeyError",), r"^'text'$"),
    ),
    # 82.0.1+ raise before validating (PEP 794 keys in [project] or its `dynamic`).
    "PP010": (
        Reason(
            ("NotImplementedError",), r"does not support `import-names` and `import-namespaces`"
        ),
    ),
    # A module the isolated build environment lacks (not setuptools' own).
    "PP009": (
        Reason(
            ("ModuleNotFoundError",), r"^No module named '(?!pkg_resources|setuptools|distutils)"
        ),
    ),
    # A build requirement (pbr, scikit-build) that uses what the release removed (ST78, ST42).
    "RQ002": (
        Reason(("AttributeError",), r"module 'setuptools\.command\.easy_install' has no attribute"),
        Reason(("ModuleNotFoundError",), r"^No module named 'setuptools\.command\.test'"),
        Reason(("AttributeError",), r"module 'setuptools\.dist' has no attribute '_get_unpatched'"),
        Reason(("SystemExit",), r"invalid command 'bdist_wininst'"),
        Reason(("AttributeError",), r"^ignore_egg_info_in_manifest$"),
    ),
    # The frontend (pip) parsing pyproject.toml, before any setuptools runs.
    "PP900": (Reason(("TOMLDecodeError", "UnicodeDecodeError"), r"."),),
    # -- layout ------------------------------------------------------------------------
    # setup() turns the PackageDiscoveryError into SystemExit("error: ...").
    "LY001": (
        Reason(
            ("SystemExit",), r"^error: Multiple top-level (packages|modules) discovered in a flat"
        ),
    ),
    "LY002": (
        Reason(("InvalidConfigError",), r"(?i)pattern .*(cannot|must not)|absolute|\.\."),
        Reason(_DEPRECATION, r"Cannot find any files for the given pattern|\.\.|pattern"),
    ),
}


_CHANGES = _from_changes()

#: Rule code -> every failure it predicts: the changes table's, then the others.
REASONS: dict[str, tuple[Reason, ...]] = {
    code: (*_CHANGES.get(code, ()), *OTHER.get(code, ())) for code in sorted({*_CHANGES, *OTHER})
}


def reasons_for(because: Iterable[str]) -> tuple[Reason, ...]:
    """Every reason that the rules in a verdict's ``because`` stand for."""
    out: list[Reason] = []
    for code in because:
        out.extend(REASONS.get(code, ()))
    return tuple(out)
