"""PEP 508 requirements, parsed without importing ``packaging.requirements`` when it can be.

``packaging.requirements`` imports ``packaging.markers``, ``packaging.tags``, ``platform``,
``sysconfig``, ``subprocess`` and ``logging``: more than the rest of a cold ``sapper check``
spends on imports. Almost every requirement a check reads (``setuptools>=61``,
``requests >= 2, <3``, ``pkg[extra]==1.*``) is a name, maybe extras, maybe version clauses:
:func:`parse_requirement` parses those itself, with ``packaging.specifiers.SpecifierSet``
for the clauses, and hands everything else (markers, URLs, ``===``, anything unusual) to
``packaging.requirements.Requirement``. For every text the fast path accepts, the result has
the same ``name``, ``extras``, ``specifier``, ``marker`` and ``url`` as packaging's
(``tests/test_requirement.py`` compares them over generated texts).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from packaging.markers import Marker
    from packaging.specifiers import SpecifierSet

__all__ = ["ParsedRequirement", "canonical_name", "parse_requirement"]

_WS = r"[ \t]*"
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
# One version clause: an operator (not ``===``, whose arbitrary string packaging treats
# apart) and a version made of the characters PEP 440 versions and ``.*`` use.
_CLAUSE = rf"(?:==|!=|<=|>=|~=|<|>){_WS}[A-Za-z0-9][A-Za-z0-9.*+!_-]*"
_SIMPLE = re.compile(
    rf"{_WS}(?P<name>{_NAME}){_WS}"
    rf"(?:\[{_WS}(?P<extras>{_NAME}(?:{_WS},{_WS}{_NAME})*)?{_WS}\])?{_WS}"
    rf"(?P<spec>{_CLAUSE}(?:{_WS},{_WS}{_CLAUSE})*)?{_WS}"
)
_SEPARATORS = re.compile(r"[-_.]+")


class ParsedRequirement(Protocol):
    """What sapper reads of a requirement (``packaging.requirements.Requirement`` has it)."""

    name: str
    url: str | None
    extras: set[str]
    specifier: SpecifierSet
    marker: Marker | None


class _Simple:
    """A requirement without marker or URL (see :func:`parse_requirement`)."""

    __slots__ = ("extras", "marker", "name", "specifier", "url")

    def __init__(self, name: str, extras: set[str], specifier: SpecifierSet) -> None:
        self.name = name
        self.url: str | None = None
        self.extras = extras
        self.specifier = specifier
        self.marker: Marker | None = None


def parse_requirement(text: str) -> ParsedRequirement | None:
    """The requirement ``text`` (PEP 508, as ``packaging`` reads it), or None if it is not one."""
    match = _SIMPLE.fullmatch(text)
    if match is not None:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            specifier = SpecifierSet(match["spec"] or "")
        except InvalidSpecifier:
            pass  # packaging words the error; its parser decides
        else:
            extras = match["extras"]
            names = {e.strip() for e in extras.split(",")} if extras else set()
            return _Simple(match["name"], names, specifier)
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def canonical_name(name: str) -> str:
    """PEP 503 normalised project name (``packaging.utils.canonicalize_name``, which imports
    ``packaging.tags``)."""
    return _SEPARATORS.sub("-", name).lower()
