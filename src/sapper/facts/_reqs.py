"""Requirement, specifier and version strings checked as modern ``packaging`` does
(setuptools >= 67, and before 70.1 the ``wheel`` package pip installs next to it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["requirement_lines", "requirement_problem", "specifier_problem", "version_problem"]


def requirement_lines(value: str | Iterable[str]) -> Iterator[str]:
    """Requirement strings as setuptools splits them: lines, without blank lines,
    ``#`` comment lines and `` #`` trailing comments, backslash continuations joined."""
    raw: list[str] = []
    for item in [value] if isinstance(value, str) else value:
        raw.extend(str(item).splitlines())
    pending = ""
    for raw_line in raw:
        stripped = raw_line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        line = stripped.partition(" #")[0].strip()
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        yield pending + line
        pending = ""
    if pending.strip():
        yield pending.strip()


def requirement_problem(text: str) -> str | None:
    # packaging.requirements is imported only for a requirement the fast path cannot read
    # (markers, URLs) or to word the error: its grammar costs more start-up time than the
    # rest of a check.
    from .._requirement import parse_requirement

    if parse_requirement(text) is not None:
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(text)
    except InvalidRequirement as exc:
        return str(exc).splitlines()[0]
    return None


def specifier_problem(text: str) -> str | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(text)
    except InvalidSpecifier as exc:
        return str(exc).splitlines()[0]
    return None


def version_problem(text: str) -> str | None:
    from packaging.version import InvalidVersion, Version

    try:
        Version(text)
    except InvalidVersion as exc:
        return str(exc).splitlines()[0]
    return None
