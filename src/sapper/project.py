"""Facts about a project that decide which backend builds it and with which setuptools."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .facts.pyproject import (
    LEGACY_BACKEND,
    BuildSystem,
    PyProject,
    build_system,
    load_pyproject,
)
from .model import Project

if TYPE_CHECKING:
    from .inputs.sources import ProjectFiles

# email.parser is imported where it is needed: start-up time matters.

__all__ = [
    "LEGACY_BACKEND",
    "BuildSystem",
    "PyProject",
    "build_system",
    "identify",
    "load_pyproject",
]

_SDIST_NAME = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^-]*)$")


#: A header line as the email package's feed parser knows it (``email.feedparser.headerRE``).
_HEADER_LINE = re.compile(r"([\041-\071\073-\176]+):")
_LINE_END = re.compile(r"\r\n|\r|\n")


def _name_and_version(text: str) -> tuple[str | None, str | None]:
    """The first ``Name`` and ``Version`` headers of PKG-INFO, as
    ``email.parser.HeaderParser().parsestr(text).get(...)`` gives them.

    The header block of a PKG-INFO file is a few simple ``Key: value`` lines, and reading
    them directly skips parsing the long description after them. Folded lines of other
    headers (a long ``License``) are walked over; a header block with anything less simple
    (a folded ``Name`` or ``Version``, a line that is not a header, a mailbox ``From`` line)
    is left to the email package itself.
    """
    found: dict[str, str] = {}
    key: str | None = None  # the header being read
    taken: str | None = None  # the same, when its value is the one returned
    pos = 0
    while True:
        end = _LINE_END.search(text, pos)
        line = text[pos : end.start()] if end is not None else text[pos:]
        if not line:  # the end of the headers
            return found.get("name"), found.get("version")
        if line[0] in " \t":  # a folded line continues the header before it
            if key is None or key == taken:
                break  # it belongs to Name or Version, or to nothing: the email package decides
        else:
            mo = _HEADER_LINE.match(line)
            if mo is None:  # a "From " line, a defect: the email package decides
                break
            key = mo.group(1).lower()
            taken = None
            if key in ("name", "version") and key not in found:
                found[key] = line[mo.end() :].lstrip(" \t")
                taken = key
        if end is None:
            return found.get("name"), found.get("version")
        pos = end.end()
    from email.parser import HeaderParser

    headers = HeaderParser().parsestr(text)
    name, version = headers.get("Name"), headers.get("Version")
    return (str(name) if name is not None else None, str(version) if version is not None else None)


def identify(files: ProjectFiles, pp: PyProject, fallback: str | None = None) -> Project:
    """Name and version: PKG-INFO, then pyproject.toml, then setup.cfg, then the file name."""
    pkg_info = files.files.get("PKG-INFO")
    if pkg_info is not None:
        name, version = _name_and_version(pkg_info.decode("utf-8", errors="replace"))
        if name:
            return Project(
                name=str(name).strip(), version=str(version).strip() if version else None
            )
    project = pp.data.get("project") if pp.data else None
    if isinstance(project, dict) and isinstance(project.get("name"), str):
        version = project.get("version")
        return Project(name=project["name"], version=version if isinstance(version, str) else None)
    cfg = files.files.get("setup.cfg")
    if cfg is not None:
        from .facts.setup_cfg import parse_setup_cfg

        metadata = {
            key.replace("-", "_").lower(): value.strip()
            for section, key, value in parse_setup_cfg(
                cfg, optionxform_str=True, encoding="utf-8"
            ).options
            if section == "metadata"
        }
        name = metadata.get("name")
        cfg_version = metadata.get("version")
        if cfg_version and cfg_version.startswith(("attr:", "file:")):
            cfg_version = None
        if name:
            return Project(name=name, version=cfg_version or None)
    if fallback:
        stem = re.sub(
            r"\.(tar\.gz|tgz|tar\.bz2|tbz2?|tar\.xz|txz|tar|zip)$", "", fallback, flags=re.I
        )
        mo = _SDIST_NAME.match(stem)
        if mo:
            return Project(name=mo.group("name"), version=mo.group("version"))
        return Project(name=stem or None)
    return Project()
