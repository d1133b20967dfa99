"""RQ001 `requires-plugin-imports-pkg-resources`:
A build requirement pins a setuptools plugin release that imports pkg_resources.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from ...facts.setup_cfg import PATH as CFG_PATH
from ...facts.setup_cfg import split_requirements
from ...model import Finding, Reference
from .._base import Context, Rule, register

if TYPE_CHECKING:
    from ..._requirement import ParsedRequirement

_FIX = {
    "setuptools-scm": "allow setuptools-scm>=6.3 (it no longer imports pkg_resources)",
    "pbr": "allow pbr>=7 (it no longer imports pkg_resources)",
}


@functools.lru_cache(maxsize=1)
def _plugins() -> Mapping[str, Mapping[str, bool]]:
    import json

    from ... import _data

    data: Mapping[str, Mapping[str, bool]] = json.loads(_data.read_bytes("plugins.json"))["plugins"]
    return data


class _Requirement(NamedTuple):
    text: str
    where: str
    path: str
    line: int | None


def _build_requirements(ctx: Context) -> Iterator[_Requirement]:
    data = ctx.pyproject.data
    table = data.get("build-system") if isinstance(data, dict) else None
    if isinstance(table, dict) and isinstance(table.get("requires"), list):
        for item in table["requires"]:
            if isinstance(item, str):
                yield _Requirement(item, "build-system.requires", "pyproject.toml", None)
    for kw in ctx.setup_py.keywords:
        if kw.name == "setup_requires":
            values = [kw.value] if isinstance(kw.value, str) else kw.value
            if isinstance(values, list):
                for item in values:
                    if isinstance(item, str):
                        yield _Requirement(item, "setup_requires", "setup.py", kw.line)
    for value in ctx.setup_cfg.values:
        if value.section == "options" and value.key == "setup_requires":
            for item in split_requirements(value.value):
                yield _Requirement(item, "[options] setup_requires", CFG_PATH, value.line)


def _chosen(releases: Mapping[str, bool], req: ParsedRequirement) -> str | None:
    """The release pip would install: the newest that the specifier allows."""
    from packaging.version import Version

    allowed = [v for v in releases if req.specifier.contains(v, prereleases=False)]
    return max(allowed, key=Version) if allowed else None


def _check(ctx: Context) -> Iterable[Finding]:
    plugins = _plugins()
    failing = ctx.missing_in("pkg_resources")
    if not failing:
        return []
    requirements = list(_build_requirements(ctx))
    if not requirements:
        return []
    from ..._requirement import canonical_name, parse_requirement

    fails = ctx.catalogue.to_specifiers(failing)
    findings: list[Finding] = []
    seen: set[str] = set()
    for item in requirements:
        req = parse_requirement(item.text)
        if req is None:
            continue  # SP006/SC010 report it
        name = canonical_name(req.name)
        releases = plugins.get(name)
        if releases is None or name in seen or not req.specifier:
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        version = _chosen(releases, req)
        if version is None or not releases[version]:
            continue
        seen.add(name)
        findings.append(
            ctx.report(
                code="RQ001",
                message=(
                    f"{item.where} asks for `{item.text}`, so the build gets {name} "
                    f"{version}, which imports `pkg_resources` when setuptools loads it: "
                    "not every setuptools release ships it (ModuleNotFoundError)"
                ),
                path=item.path,
                line=item.line,
                fails=fails,
                fails_enforced=fails,
                fix=f"{_FIX.get(name, 'allow a newer release')}, or pin `setuptools<82` in "
                "build-system.requires",
            )
        )
    return findings


register(
    Rule(
        code="RQ001",
        slug="requires-plugin-imports-pkg-resources",
        family="build requirements",
        summary="A build requirement pins a setuptools plugin release that imports pkg_resources",
        doc="""
## What it does
Reads `build-system.requires` and `setup_requires` (setup.py and setup.cfg) for setuptools
plugins that setuptools loads while it builds (`setuptools-scm`, `pbr`), works out the
release pip would install (the newest the specifier allows), and checks whether that
release imports `pkg_resources` at import time. Which releases do is read from every
wheel of those plugins: setuptools-scm before 6.3 and pbr before 7.0.

## Why is this bad?
setuptools 82.0.0 removed `pkg_resources`. A build that installs `setuptools_scm<6` or
`pbr<7` next to it fails as soon as setuptools loads the plugin:
`ModuleNotFoundError: No module named 'pkg_resources'` (tox 3.23.0, which requires
`setuptools_scm >= 2.0.0, <6`, no longer builds).

## Example
```toml
[build-system]
requires = ["setuptools>=40.8", "setuptools_scm>=2,<6"]
build-backend = "setuptools.build_meta"
```

## Use instead
```toml
[build-system]
requires = ["setuptools>=40.8", "setuptools_scm>=6.3"]
build-backend = "setuptools.build_meta"
```
or pin `setuptools<82` as long as the old plugin is needed.

## References
- setuptools 82.0.0 changelog (#3085): pkg_resources removed
- setuptools-scm changelog: pkg_resources dropped in 6.3; pbr 7.0.0
""".strip(),
        references=(
            Reference(
                title="setuptools 82.0.0 changelog (#3085): pkg_resources removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v82-0-0",
            ),
            Reference(
                title="setuptools-scm changelog",
                url="https://setuptools-scm.readthedocs.io/en/latest/changelog/",
            ),
        ),
        example=(
            (
                "pyproject.toml",
                '[build-system]\nrequires = ["setuptools>=40.8", "setuptools_scm>=2,<6"]\n'
                'build-backend = "setuptools.build_meta"\n',
            ),
            ("setup.py", "from setuptools import setup\n\nsetup(use_scm_version=True)\n"),
        ),
        check=_check,
    )
)
