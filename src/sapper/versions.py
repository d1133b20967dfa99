"""What sapper knows about setuptools releases, and version-range arithmetic.

The facts come from ``data/setuptools.json``, written by ``scripts/gen_setuptools_facts.py``
from the real setuptools wheels and PyPI's release data. Nothing here is typed by hand.

A set of setuptools versions travels as a tuple of PEP 440 specifier strings, each one a
contiguous range over the releases sapper knows; a version is in the set if any range
contains it (``("==78.0.1",)``, ``(">=67.7.0",)``, ``("<41.0.0", ">=60.0.0,<60.1.0")``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from . import _data
from ._exceptions import UsageError

__all__ = [
    "Catalogue",
    "CfgFacts",
    "KeyCheck",
    "Release",
    "catalogue",
    "contains",
]


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class Release(NamedTuple):
    version: str
    date: str | None
    yanked: bool
    yanked_reason: str | None
    requires_python: str | None


class KeyCheck(NamedTuple):
    """How one setuptools version treats dash-separated or uppercase keys in setup.cfg."""

    #: ``convert``/``none``: silently accepted; ``warn``: warning; ``raise``: build error.
    action: str
    #: ``all``, ``setuptools`` (metadata, options*, command sections) or ``metadata``.
    checked: str
    exempt: frozenset[str]
    warning: str | None
    due_date: str | None
    enforceable: bool
    #: dash only: what happens to dashed keys in sections that are not checked.
    outside: str = "convert"


class CfgFacts(NamedTuple):
    """How one setuptools version reads setup.cfg (``Distribution._parse_config_files``)."""

    optionxform_str: bool
    encoding: str
    venv_ignored: frozenset[str]
    dash: KeyCheck
    upper: KeyCheck
    commands: frozenset[str]

    def is_setuptools_section(self, section: str) -> bool:
        return section == "metadata" or section.startswith("options") or section in self.commands

    def checks(self, check: KeyCheck, section: str) -> bool:
        """Whether ``check`` applies to keys of ``section`` in this version."""
        if check.action in ("convert", "none") or section in check.exempt:
            return False
        if check.checked == "all":
            return True
        if check.checked == "metadata":
            return section == "metadata"
        return self.is_setuptools_section(section)


def _key_check(raw: Mapping[str, Any]) -> KeyCheck:
    return KeyCheck(
        action=str(raw["action"]),
        checked=str(raw.get("checked") or "setuptools"),
        exempt=frozenset(raw.get("exempt") or ()),
        warning=raw.get("warning"),
        due_date=raw.get("due_date"),
        enforceable=bool(raw.get("enforceable")),
        outside=str(raw.get("outside") or "convert"),
    )


def _cfg_facts(raw: Mapping[str, Any]) -> CfgFacts:
    return CfgFacts(
        optionxform_str=bool(raw["optionxform_str"]),
        encoding=str(raw["encoding"]),
        venv_ignored=frozenset(raw.get("venv_ignored") or ()),
        dash=_key_check(raw["dash"]),
        upper=_key_check(raw["upper"]),
        commands=frozenset(raw.get("commands") or ()),
    )


class Catalogue:
    """The setuptools releases sapper knows and per-version facts about them."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        releases = [
            Release(
                version=r["version"],
                date=r.get("date"),
                yanked=bool(r.get("yanked")),
                yanked_reason=r.get("yanked_reason"),
                requires_python=r.get("requires_python"),
            )
            for r in data["releases"]
        ]
        # each version parsed once (a cold `sapper check` pays for every release)
        self._parsed: dict[str, Version] = {r.version: Version(r.version) for r in releases}
        releases.sort(key=lambda r: self._parsed[r.version])
        self.releases: tuple[Release, ...] = tuple(releases)
        #: Versions a verdict ranges over: every release except pre-releases, ascending.
        self.universe: tuple[str, ...] = tuple(
            r.version for r in releases if not self._parsed[r.version].is_prerelease
        )
        self._index = {v: i for i, v in enumerate(self.universe)}
        self._by_version = {r.version: r for r in releases}
        self.cfg_eras: tuple[tuple[tuple[str, ...], CfgFacts], ...] = tuple(
            (tuple(era["versions"]), _cfg_facts(era["cfg"])) for era in data.get("cfg_eras", ())
        )
        self.section_eras: tuple[tuple[tuple[str, ...], Mapping[str, Any]], ...] = tuple(
            (tuple(era["versions"]), era["cfg_sections"]) for era in data.get("section_eras", ())
        )
        #: Module name -> inclusive [first, last] runs of the releases whose wheel ships it.
        self.modules: Mapping[str, list[list[str]]] = data.get("modules", {})
        #: Module -> public name -> inclusive runs of the releases that define it.
        self.names: Mapping[str, Mapping[str, list[list[str]]]] = data.get("names", {})

    # -- lookups -------------------------------------------------------------------------

    @property
    def newest(self) -> str:
        return self.universe[-1]

    def release(self, version: str) -> Release | None:
        return self._by_version.get(version)

    def parsed(self, version: str) -> Version:
        return self._parsed.get(version) or Version(version)

    def validate_version(self, text: str) -> str:
        """Normalise a user-supplied setuptools version, or raise UsageError."""
        try:
            parsed = Version(text)
        except InvalidVersion:
            msg = f"--setuptools {text!r} is not a valid version; pass one such as 78.0.1"
            raise UsageError(msg) from None
        for v in self.universe:
            if self._parsed[v] == parsed:
                return v
        if parsed < self._parsed[self.universe[0]]:
            msg = (
                f"setuptools {text} is older than the oldest release sapper models "
                f"({self.universe[0]}); pass a newer version"
            )
            raise UsageError(msg)
        if parsed > self._parsed[self.newest]:
            msg = (
                f"setuptools {text} is newer than the newest release sapper knows "
                f"({self.newest}); upgrade sapper, or pass a known version"
            )
            raise UsageError(msg)
        before = max((v for v in self.universe if self._parsed[v] < parsed), key=self.parsed)
        after = min((v for v in self.universe if self._parsed[v] > parsed), key=self.parsed)
        msg = (
            f"setuptools {text} was never published on PyPI, so no build can get it; "
            f"the releases around it are {before} and {after}"
        )
        raise UsageError(msg)

    def select(
        self,
        requirement: SpecifierSet | None = None,
        *,
        python: str | None = None,
    ) -> str | None:
        """The setuptools a frontend would install: newest release matching both.

        Yanked releases are only chosen when pinned with ``==``, as pip does.
        """
        pinned = requirement is not None and any(s.operator in ("==", "===") for s in requirement)
        for release in reversed(self.releases):
            parsed = self._parsed[release.version]
            if parsed.is_prerelease and not (requirement and requirement.prereleases):
                continue
            if release.yanked and not pinned:
                continue
            if requirement is not None and not requirement.contains(parsed, prereleases=True):
                continue
            if python is not None and release.requires_python:
                try:
                    if not SpecifierSet(release.requires_python).contains(python):
                        continue
                except InvalidSpecifier:  # pragma: no cover - PyPI data is clean
                    pass
            return release.version
        return None

    # -- version sets --------------------------------------------------------------------

    def between(self, lo: str | None = None, hi: str | None = None) -> set[str]:
        """The known versions ``v`` with ``lo <= v < hi`` (either bound may be open)."""
        return set(_between(self, lo, hi))

    def to_specifiers(self, versions: Iterable[str]) -> tuple[str, ...]:
        """Compress a set of known versions into a union of specifier ranges."""
        members = {v for v in versions if v in self._index}
        if not members:
            return ()
        out: list[str] = []
        universe = self.universe
        i = 0
        n = len(universe)
        while i < n:
            if universe[i] not in members:
                i += 1
                continue
            start = i
            while i + 1 < n and universe[i + 1] in members:
                i += 1
            end = i
            lower = universe[start]
            upper = universe[end + 1] if end + 1 < n else None
            if start == 0 and upper is None:
                out.append(">=0")
            elif start == 0:
                out.append(f"<{upper}")
            elif upper is None:
                out.append(f">={lower}")
            elif start == end:
                out.append(f"=={lower}")
            else:
                out.append(f">={lower},<{upper}")
            i += 1
        return tuple(out)


@functools.lru_cache(maxsize=1024)
def _between(cat: Catalogue, lo: str | None, hi: str | None) -> frozenset[str]:
    low = cat.parsed(lo) if lo else None
    high = cat.parsed(hi) if hi else None
    return frozenset(
        v
        for v in cat.universe
        if (low is None or cat.parsed(v) >= low) and (high is None or cat.parsed(v) < high)
    )


@functools.lru_cache(maxsize=256)
def _specifier(text: str) -> SpecifierSet:
    return SpecifierSet(text)


def contains(specifiers: Sequence[str], version: str) -> bool:
    """Whether ``version`` is in the union of ``specifiers``."""
    return any(_specifier(s).contains(version, prereleases=True) for s in specifiers)


@functools.lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    """The catalogue shipped with sapper."""
    return Catalogue(json.loads(_data.read_bytes("setuptools.json")))
