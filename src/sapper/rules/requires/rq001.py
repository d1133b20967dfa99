"""RQ001 `requires-plugin-imports-pkg-resources`:
A build requirement pins a setuptools plugin release that imports pkg_resources.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import plugin_pins

_FIX = {
    "setuptools-scm": "allow setuptools-scm>=6.3 (it no longer imports pkg_resources)",
    "pbr": "allow pbr>=7 (it no longer imports pkg_resources)",
}


def _check(ctx: Context) -> Iterable[Finding]:
    failing = ctx.missing_in("pkg_resources")
    if not failing:
        return []
    fails = ctx.catalogue.to_specifiers(failing)
    findings: list[Finding] = []
    for pin in plugin_pins(ctx, pinned_only=True):
        imports = pin.needs.get("imports", ())
        if not any(m.partition(".")[0] == "pkg_resources" for m in imports):
            continue
        item = pin.requirement
        findings.append(
            ctx.report(
                code="RQ001",
                message=(
                    f"{item.where} asks for `{item.text}`, so the build gets {pin.name} "
                    f"{pin.version}, which imports `pkg_resources` when setuptools loads it: "
                    "not every setuptools release ships it (ModuleNotFoundError)"
                ),
                path=item.path,
                line=item.line,
                fails=fails,
                fails_enforced=fails,
                fix=f"{_FIX.get(pin.name, 'allow a newer release')}, or pin `setuptools<82` in "
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
