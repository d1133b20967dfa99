"""Which release and which file a requirement designates, as pip would choose them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import FetchError
from ._pages import SDIST_SUFFIXES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from ._models import SdistFile
    from ._pages import Page

__all__ = [
    "SHA256_RE",
    "choose",
    "exact_pin",
    "looks_like_requirement",
    "parse_requirement",
    "preferred_sdist",
]

#: Suffixes that mark a command-line target as an archive on disk, never a requirement.
_ARCHIVE_SUFFIXES = (*SDIST_SUFFIXES, ".whl", ".egg", ".tbz", ".tar.zst")

SHA256_RE = re.compile(r"[0-9a-f]{64}")
_NAME_START_RE = re.compile(r"[A-Za-z0-9]")


def looks_like_requirement(text: str) -> bool:
    """Tell whether a command-line target names a project on an index rather than a file.

    Existing paths, anything containing a path separator and archive filenames are not
    requirements; ``stringcase``, ``stringcase==1.2.0``, ``requests>=2`` and
    ``zope.interface`` are. A URL requirement (``name @ https://...``) counts as one, so
    that :meth:`Index.resolve` can explain why it is not fetched.
    """
    text = text.strip()
    if not text or not _NAME_START_RE.match(text):
        return False
    try:
        if Path(text).exists():
            return False
    except (OSError, ValueError):  # e.g. a name too long for the filesystem
        pass
    separators = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    is_url_requirement = "@" in text
    if not is_url_requirement and (
        text.lower().endswith(_ARCHIVE_SUFFIXES) or any(sep in text for sep in separators)
    ):
        return False
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return False
    return (requirement.url is not None) == is_url_requirement


def parse_requirement(text: str) -> Requirement:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        detail = str(exc).splitlines()[0]
        msg = (
            f"{text!r} is not a valid requirement ({detail}); "
            "write it as NAME, NAME==VERSION or NAME>=VERSION"
        )
        raise FetchError(msg, permanent=True) from None
    if req.url is not None:
        msg = (
            f"{text}: sapper does not fetch URL requirements; "
            "download the file and pass its path instead"
        )
        raise FetchError(msg, permanent=True)
    return req


def exact_pin(specifier: SpecifierSet) -> str | None:
    """Return ``==X``/``===X`` when the specifier is one exact pin (pip's notion), else None."""
    specs = list(specifier)
    if len(specs) != 1:
        return None
    spec = specs[0]
    if spec.operator == "===" or (spec.operator == "==" and not spec.version.endswith(".*")):
        return f"{spec.operator}{spec.version}"
    return None


def parse_version(text: str) -> Version | None:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def _legacy_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key for non-PEP 440 versions: numbers compare as numbers, the rest as text."""
    parts = re.split(r"(\d+)", text.lower())
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts if part)


def preferred_sdist(files: Iterable[SdistFile]) -> SdistFile:
    """The sdist pip would take among the files of one release (not yanked, hashed, .tar.gz)."""
    return min(files, key=lambda f: file_preference(f.filename, f.sha256, yanked=f.yanked))


def file_preference(filename: str, sha256: str, *, yanked: bool) -> tuple[bool, bool, int]:
    """Sort key of the files of one release: smaller is better."""
    lower = filename.lower()
    rank = next((i for i, s in enumerate(SDIST_SUFFIXES) if lower.endswith(s)), 99)
    return (yanked, not SHA256_RE.fullmatch(sha256), rank)


def preferred_position(page: Page, positions: Iterable[int]) -> int:
    """Among sdists of one release on ``page``, the position of the one pip would take."""

    def key(position: int) -> tuple[bool, bool, int]:
        filename, sha256, _, yanked = page.sdist_meta(position)
        return file_preference(filename, sha256, yanked=yanked)

    return min(positions, key=key)


def choose(
    page: Page, text: str, name: str, specifier: SpecifierSet, *, pinned: bool, index_url: str
) -> SdistFile:
    """The sdist ``text`` designates on ``page``, or a :class:`FetchError` that says why not."""
    valid: dict[Version, list[int]] = {}
    legacy: dict[str, list[int]] = {}
    for version_text, positions in page.sdist_positions().items():
        version = parse_version(version_text)
        if version is None:
            legacy.setdefault(version_text, []).extend(positions)
        else:
            valid.setdefault(version, []).extend(positions)

    def usable(positions: list[int]) -> bool:
        return pinned or any(not page.sdist_meta(p)[3] for p in positions)

    def pick(positions: list[int]) -> SdistFile:
        return page.sdist_at(preferred_position(page, positions))

    matches = list(specifier.filter(v for v, files in valid.items() if usable(files)))
    if matches:
        return pick(valid[max(matches)])
    legacy_matches = [
        v for v, files in legacy.items() if usable(files) and _legacy_matches(specifier, v)
    ]
    if legacy_matches:
        return pick(legacy[max(legacy_matches, key=_legacy_key)])

    # Nothing to choose: explain why, from the most specific reason to the least.
    versions = page.all_versions()
    if not versions:
        msg = f"no files for {name!r} on {index_url}; the project has no releases there"
        raise FetchError(msg, permanent=True)
    yanked = [str(v) for v in sorted(specifier.filter(valid), reverse=True)]
    yanked += sorted((v for v in legacy if _legacy_matches(specifier, v)), key=_legacy_key)[::-1]
    if yanked:
        shown = ", ".join(yanked[:5])
        msg = (
            f"{text}: every matching sdist is yanked ({shown}); "
            f"pin one with '{'==' if parse_version(yanked[0]) else '==='}{yanked[0]}' "
            "to use it anyway"
        )
        raise FetchError(msg, permanent=True)
    all_valid = [v for v in (parse_version(s) for s in versions) if v is not None]
    others = sorted(specifier.filter(all_valid), reverse=True)
    if others:
        newest_match = str(others[0])
        wheels = newest_match in page.wheel_versions()[0]
        has = "only wheels" if wheels else "only files that are not sdists"
        if pinned or len(others) == 1:
            msg = (
                f"no sdist for {name} {newest_match} on {index_url} ({has}); "
                "sapper reads source distributions"
            )
        else:
            msg = (
                f"{text}: no matching release has an sdist on {index_url} "
                f"(the newest, {newest_match}, has {has}); sapper reads source distributions"
            )
        raise FetchError(msg, permanent=True)
    newest = _newest(all_valid, versions)
    advice = "check the version or drop the pin" if pinned else "check the version range"
    msg = (
        f"{text}: no release of {name!r} matches {str(specifier)!r} (newest is {newest}); {advice}"
    )
    raise FetchError(msg, permanent=True)


def _newest(valid: list[Version], everything: Iterable[str]) -> str:
    finals = [v for v in valid if not v.is_prerelease]
    if finals or valid:
        return str(max(finals or valid))
    return max(everything, key=_legacy_key)


def _legacy_matches(specifier: SpecifierSet, version: str) -> bool:
    """A legacy version matches no specifier but an empty one or ``===`` with its text."""
    return all(s.operator == "===" and s.version.lower() == version.lower() for s in specifier)
