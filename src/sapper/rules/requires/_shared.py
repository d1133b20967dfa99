"""Build requirements: plugins a build installs next to setuptools.

What releases of the plugins setuptools loads (setuptools-scm, pbr) or setup.py imports
(scikit-build) need from setuptools is read from the plugins' own wheels by
``scripts/gen_plugin_facts.py`` into ``data/plugins.json``: the setuptools,
``pkg_resources`` and ``distutils`` modules each release imports at module level, and the
``setuptools.command.easy_install`` attributes it reads.

RQ001: a build requirement gets a plugin release that imports ``pkg_resources``.
RQ002: a build requirement gets a plugin release that imports another module, or reads an
attribute, that some setuptools releases lack.

What the rules of this family share; each rule lives in its own module."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...facts.setup_cfg import PATH as CFG_PATH
from ...facts.setup_cfg import split_requirements
from .._base import Context

if TYPE_CHECKING:
    from ..._requirement import ParsedRequirement

#: What one plugin release needs: ``imports``, ``attributes`` and ``commands`` (see
#: scripts/gen_plugin_facts.py).
Needs = Mapping[str, Sequence[str]]


@functools.lru_cache(maxsize=1)
def plugins() -> Mapping[str, Mapping[str, Needs]]:
    """Plugin name (canonical) -> release -> what it needs from setuptools."""
    import json

    from ... import _data

    data: Mapping[str, Mapping[str, Needs]] = json.loads(_data.read_bytes("plugins.json"))[
        "plugins"
    ]
    return data


class Requirement(NamedTuple):
    text: str
    where: str
    path: str
    line: int | None


def build_requirements(ctx: Context) -> Iterator[Requirement]:
    """``build-system.requires``, and ``setup_requires`` of setup.py and setup.cfg (which
    setuptools' PEP 517 backend hands to the frontend to install)."""
    data = ctx.pyproject.data
    table = data.get("build-system") if isinstance(data, dict) else None
    if isinstance(table, dict) and isinstance(table.get("requires"), list):
        for item in table["requires"]:
            if isinstance(item, str):
                yield Requirement(item, "build-system.requires", "pyproject.toml", None)
    for kw in ctx.setup_py.keywords:
        if kw.name == "setup_requires":
            values = [kw.value] if isinstance(kw.value, str) else kw.value
            if isinstance(values, list):
                for item in values:
                    if isinstance(item, str):
                        yield Requirement(item, "setup_requires", "setup.py", kw.line)
    for value in ctx.setup_cfg.values:
        if value.section == "options" and value.key == "setup_requires":
            for item in split_requirements(value.value):
                yield Requirement(item, "[options] setup_requires", CFG_PATH, value.line)


def chosen(releases: Mapping[str, Needs], req: ParsedRequirement) -> str | None:
    """The release pip would install: the newest that the specifier allows."""
    from packaging.version import Version

    allowed = [v for v in releases if req.specifier.contains(v, prereleases=False)]
    return max(allowed, key=Version) if allowed else None


class PluginPin(NamedTuple):
    """A build requirement naming a known plugin, and the release a frontend installs."""

    requirement: Requirement
    name: str
    version: str
    needs: Needs


def plugin_pins(ctx: Context, *, pinned_only: bool) -> Iterator[PluginPin]:
    """The build requirements that name a plugin of ``plugins.json`` (each plugin once),
    with the release a frontend would install (markers evaluated for this interpreter);
    with ``pinned_only``, requirements without a specifier are left out."""
    from ..._requirement import canonical_name, parse_requirement

    table = plugins()
    seen: set[str] = set()
    for item in build_requirements(ctx):
        req = parse_requirement(item.text)
        if req is None:
            continue  # SP006/SC010 report it
        name = canonical_name(req.name)
        releases = table.get(name)
        if releases is None or name in seen or (pinned_only and not req.specifier):
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        version = chosen(releases, req)
        if version is None:
            continue
        seen.add(name)
        yield PluginPin(item, name, version, releases[version])
