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
    from .sources import ProjectFiles

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


def identify(files: ProjectFiles, pp: PyProject, fallback: str | None = None) -> Project:
    """Name and version: PKG-INFO, then pyproject.toml, then setup.cfg, then the file name."""
    pkg_info = files.files.get("PKG-INFO")
    if pkg_info is not None:
        from email.parser import HeaderParser

        headers = HeaderParser().parsestr(pkg_info.decode("utf-8", errors="replace"))
        name, version = headers.get("Name"), headers.get("Version")
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
