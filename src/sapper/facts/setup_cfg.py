"""Facts about setup.cfg: every era's parse, the values current setuptools reads, locations."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from ._cfgparse import (
    KeyLocation,
    ParsedCfg,
    line_of_offset,
    locate_keys,
    locate_sections,
    parse_setup_cfg,
)

if TYPE_CHECKING:
    from ..inputs.sources import ProjectFiles
    from ..versions import Catalogue, CfgFacts

__all__ = [
    "PATH",
    "CfgValue",
    "EraParse",
    "KeyLocation",
    "ParsedCfg",
    "SetupCfgFacts",
    "line_of_offset",
    "locate_keys",
    "locate_sections",
    "parse_setup_cfg",
    "split_requirements",
]

PATH = "setup.cfg"


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class CfgValue(NamedTuple):
    section: str
    key: str
    value: str
    line: int | None
    column: int | None


class EraParse(NamedTuple):
    """setup.cfg as one group of setuptools eras reads it (same encoding, key case and
    options skipped in a virtual environment): parsed once for all of them."""

    #: (the releases of the era that the catalogue knows, the era's facts), per era.
    eras: tuple[tuple[tuple[str, ...], CfgFacts], ...]
    parsed: ParsedCfg

    @property
    def versions(self) -> list[str]:
        """Every release of the group."""
        return [v for versions, _ in self.eras for v in versions]


def split_requirements(value: str) -> list[str]:
    """``_parse_requirements_list``: lines if the value has several, else ``;``-separated
    items (which is how a one-line `foo; python_version<"3"` loses its marker), then what
    ``_reqs.parse_strings`` keeps of them."""
    from ._values import requirement_lines

    items = value.splitlines() if "\n" in value else value.split(";")
    # setuptools then parses them with `_reqs.parse_strings`: `#` comment lines and
    # ` #` trailing comments are dropped, backslash continuations joined.
    return list(requirement_lines(items))


class SetupCfgFacts:
    """setup.cfg of one project, each view computed on first use."""

    def __init__(self, files: ProjectFiles) -> None:
        self._files = files

    @property
    def data(self) -> bytes | None:
        """The raw bytes, None when the project has no setup.cfg."""
        return self._files.files.get(PATH)

    @cached_property
    def locations(self) -> tuple[KeyLocation, ...]:
        """Where every key is, in file order (independent of configparser's verdict)."""
        data = self.data
        return () if data is None else tuple(locate_keys(data))

    @cached_property
    def section_lines(self) -> dict[str, int]:
        data = self.data
        return {} if data is None else locate_sections(data)

    @cached_property
    def _current(self) -> tuple[tuple[CfgValue, ...], bool]:
        data = self.data
        if data is None:
            return (), False
        parsed = parse_setup_cfg(data, optionxform_str=True, encoding="utf-8")
        where: dict[tuple[str, str], KeyLocation] = {}
        for found in self.locations:
            where.setdefault((found.section, found.key.strip()), found)
        out = []
        for section, key, value in parsed.options:
            loc = where.get((section, key))
            norm = key
            if section == "metadata" or section.startswith("options"):
                norm = key.replace("-", "_").lower()
            out.append(
                CfgValue(
                    section,
                    norm,
                    value,
                    loc.line if loc is not None else None,
                    loc.column if loc is not None else None,
                )
            )
        return tuple(out), parsed.error is not None

    @property
    def values(self) -> tuple[CfgValue, ...]:
        """setup.cfg options as current setuptools reads them (keys with underscores and
        lowercased in setuptools sections), with their lines; () when configparser fails
        on the file."""
        values, failed = self._current
        return () if failed else values

    def unreadable_in(self, catalogue: Catalogue, version: str) -> bool:
        """Whether configparser fails on the file as setuptools ``version`` reads it (its
        era's encoding, key case and the options it skips in a virtual environment): a
        decoding, syntax, duplicate or interpolation error, which SC003-SC006 report."""
        data = self.data
        if data is None:
            return False
        for versions, facts in catalogue.cfg_eras:
            if version in versions:
                parsed = parse_setup_cfg(
                    data,
                    optionxform_str=facts.optionxform_str,
                    encoding=facts.encoding,
                    skip=facts.venv_ignored,
                )
                return parsed.error is not None
        return False

    def era_parses(self, catalogue: Catalogue) -> tuple[EraParse, ...]:
        """The file as every setuptools era reads it, parsed once per group of eras that
        read it alike (the replay of ``Distribution._parse_config_files`` the SC rules
        judge); () without setup.cfg."""
        cached: tuple[Catalogue, tuple[EraParse, ...]] | None = self.__dict__.get("_era_parses")
        if cached is not None and cached[0] is catalogue:
            return cached[1]
        data = self.data
        groups: dict[tuple[bool, str, frozenset[str]], list[tuple[tuple[str, ...], CfgFacts]]] = {}
        for versions, facts in catalogue.cfg_eras if data is not None else ():
            known = tuple(v for v in versions if catalogue.release(v) is not None)
            key = (facts.optionxform_str, facts.encoding, facts.venv_ignored)
            groups.setdefault(key, []).append((known, facts))
        out = tuple(
            EraParse(
                eras=tuple(eras),
                parsed=parse_setup_cfg(data, optionxform_str=xform, encoding=enc, skip=skip),
            )
            for (xform, enc, skip), eras in groups.items()
            if data is not None
        )
        self.__dict__["_era_parses"] = (catalogue, out)
        return out

    def key_location(self, section: str, opt: str) -> tuple[KeyLocation | None, str | None]:
        """Where configparser's option ``opt`` of ``section`` is written: (the last
        occurrence, "DEFAULT" when it is inherited from [DEFAULT], else None)."""
        by_key = self._locations_by_key
        for sec, inherited in ((section, None), ("DEFAULT", "DEFAULT")):
            locs = by_key.get((sec, opt))
            if locs:
                return locs[-1], inherited
            # configparser lowercased the key (setuptools < 53.1.0): match case-insensitively.
            for (s, k), found in by_key.items():
                if s == sec and k.lower() == opt:
                    return found[-1], inherited
        return None, None

    @cached_property
    def _locations_by_key(self) -> dict[tuple[str, str], list[KeyLocation]]:
        by_key: dict[tuple[str, str], list[KeyLocation]] = {}
        for loc in self.locations:
            by_key.setdefault((loc.section, loc.key), []).append(loc)
        return by_key

    def error_location(self, exc: Exception) -> tuple[int | None, int | None]:
        """(line, column) of what made configparser (or decoding) fail with ``exc``."""
        import configparser

        data = self.data or b""
        if isinstance(exc, UnicodeDecodeError):
            return line_of_offset(data, exc.start)
        if isinstance(exc, LookupError):  # the codec that the first line's `coding:` names
            return 1, 1
        lineno = getattr(exc, "lineno", None)
        if (
            isinstance(exc, configparser.ParsingError)
            and not isinstance(exc, configparser.MissingSectionHeaderError)
            and exc.errors
        ):
            lineno = exc.errors[0][0]
        if isinstance(lineno, int):
            return lineno, 1
        if isinstance(exc, configparser.InterpolationError):
            for loc in self.locations:
                if loc.section == exc.section and loc.key.lower() == exc.option.lower():
                    return loc.line, loc.column
        return None, None

    @property
    def values_partial(self) -> tuple[CfgValue, ...]:
        """Like :attr:`values`, but when configparser fails, the options read before the
        error."""
        return self._current[0]
