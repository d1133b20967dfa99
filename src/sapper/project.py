"""Facts about a project that decide which backend builds it and with which setuptools."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .model import Project

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from .sources import ProjectFiles

# packaging.requirements, tomllib and email.parser are imported where they are needed:
# most checks never touch them and start-up time matters.

__all__ = ["BuildSystem", "PyProject", "build_system", "identify", "load_pyproject"]

#: What pip uses for a project without ``[build-system]`` (PEP 517 fallback).
LEGACY_BACKEND = "setuptools.build_meta:__legacy__"

#: Backends that run setuptools (and so read setup.cfg) themselves.
_SETUPTOOLS_BACKENDS = frozenset(
    {
        "setuptools.build_meta",
        "setuptools.build_meta:__legacy__",
        "pbr.build",
        "jupyter_packaging.build_api",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildSystem:
    backend: str
    requires: tuple[str, ...]
    in_tree: bool
    #: Combined specifier of the setuptools requirements in ``requires`` (None: unconstrained).
    setuptools: SpecifierSet | None
    #: ``yes``: the backend is setuptools; ``assumed``: an unknown backend that requires
    #: setuptools; ``no``: another backend.
    uses_setuptools: str
    #: A problem reading pyproject.toml, if any.
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PyProject:
    """pyproject.toml as parsed once per project: its tables, or why it could not be read."""

    data: dict[str, Any] | None
    error: str | None = None


def load_pyproject(files: ProjectFiles) -> PyProject:
    data = files.files.get("pyproject.toml")
    if data is None:
        return PyProject(None)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return PyProject(tomllib.loads(data.decode("utf-8")))
    except UnicodeDecodeError as exc:
        return PyProject(None, f"pyproject.toml is not valid UTF-8 ({exc.reason})")
    except tomllib.TOMLDecodeError as exc:
        return PyProject(None, f"pyproject.toml is not valid TOML: {exc}")


def build_system(pp: PyProject) -> BuildSystem:
    pyproject, error = pp.data, pp.error
    table = pyproject.get("build-system") if isinstance(pyproject, dict) else None
    if not isinstance(table, dict):
        # pip's fallback for projects without [build-system]: setuptools>=40.8.0, which
        # every release sapper models satisfies.
        return BuildSystem(
            backend=LEGACY_BACKEND,
            requires=("setuptools>=40.8.0",),
            in_tree=False,
            setuptools=None,
            uses_setuptools="yes",
            error=error,
        )
    raw = table.get("requires")
    requires = tuple(str(r) for r in raw) if isinstance(raw, list) else ()
    backend = str(table.get("build-backend") or LEGACY_BACKEND)
    in_tree = bool(table.get("backend-path"))
    spec: SpecifierSet | None = None
    wants_setuptools = False
    if requires:
        from packaging.requirements import InvalidRequirement, Requirement
        from packaging.utils import canonicalize_name
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != "setuptools":
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        wants_setuptools = True
        if req.specifier:
            spec = req.specifier if spec is None else spec & req.specifier
    if backend in _SETUPTOOLS_BACKENDS or backend.startswith("setuptools.build_meta"):
        uses = "yes"
    elif wants_setuptools and in_tree:
        uses = "assumed"
    else:
        uses = "no"
    return BuildSystem(
        backend=backend,
        requires=requires,
        in_tree=in_tree,
        setuptools=spec,
        uses_setuptools=uses,
        error=error,
    )


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
        from .rules._cfgread import parse_setup_cfg

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
