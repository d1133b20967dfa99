"""PP007 `pyproject-invalid-tool-setuptools`:
`[tool.setuptools]` key that the setuptools schema rejects.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import make_finding, versions
from ._shared import (
    _REF_61,
    PATH,
    _ref,
)

_TOOL_KEYS = frozenset(
    {
        "cmdclass", "data-files", "dynamic", "eager-resources", "exclude-package-data",
        "include-package-data", "license-files", "namespace-packages", "obsoletes",
        "package-data", "package-dir", "packages", "platforms", "provides", "py-modules",
        "script-files", "zip-safe",
    }
)  # fmt: skip


_LATER_TOOL_KEYS = {"ext-modules": "74.1.0"}


_DYNAMIC_KEYS = frozenset({"version", "classifiers", "description", "entry-points", "readme"})


_LATER_DYNAMIC_KEYS = {"dependencies": "62.6.0", "optional-dependencies": "62.6.0"}


def _check_tool_table(ctx: Context) -> Iterable[Finding]:
    _, tool = ctx.pyproject.tables
    if tool is None:
        return []
    since61 = versions(ctx, "61.0.0")
    problems: list[tuple[str, str, set[str], str]] = []
    for key in tool:
        if key in _TOOL_KEYS:
            continue
        intro = _LATER_TOOL_KEYS.get(key)
        if intro:
            problems.append(
                (
                    f"`tool.setuptools.{key}` is only known to setuptools >= {intro}",
                    key,
                    versions(ctx, "61.0.0", intro),
                    f"require `setuptools>={intro}` in build-system.requires",
                )
            )
            continue
        dashed = key.replace("_", "-")
        hint = (
            f"write `{dashed}`"
            if dashed in _TOOL_KEYS or dashed in _LATER_TOOL_KEYS
            else f"remove `{key}`"
        )
        problems.append(
            (
                f'[tool.setuptools] has the unknown key `{key}`: "`tool.setuptools` must not '
                f"contain {{'{key}'}} properties\"",
                key,
                since61,
                hint,
            )
        )
    packages = tool.get("packages")
    if "packages" in tool and not (
        (isinstance(packages, list) and all(isinstance(p, str) for p in packages))
        or (isinstance(packages, dict) and set(packages) == {"find"})
    ):
        problems.append(
            (
                "`tool.setuptools.packages` must be a list of names or a `{find = {...}}` table",
                "packages",
                since61,
                'write `packages = ["pkg"]` or a [tool.setuptools.packages.find] table',
            )
        )
    dynamic = tool.get("dynamic")
    if isinstance(dynamic, dict):
        for key in dynamic:
            if key in _DYNAMIC_KEYS:
                continue
            intro = _LATER_DYNAMIC_KEYS.get(key)
            problems.append(
                (
                    f"`tool.setuptools.dynamic.{key}` is only known to setuptools >= {intro}"
                    if intro
                    else f"`tool.setuptools.dynamic` has the unknown key `{key}`",
                    "dynamic",
                    versions(ctx, "61.0.0", intro) if intro else since61,
                    f"require `setuptools>={intro}` in build-system.requires"
                    if intro
                    else f"remove `{key}`",
                )
            )
    return [
        make_finding(
            ctx,
            "PP007",
            message,
            line=ctx.pyproject.locate("tool.setuptools", key),
            fails=failing,
            fix=fix,
        )
        for message, key, failing, fix in problems
        if failing
    ]


_REF_PYPROJECT = Reference(
    title="Python Packaging User Guide: writing your pyproject.toml",
    url="https://packaging.python.org/en/latest/guides/writing-pyproject-toml/",
)


register(
    Rule(
        code="PP007",
        slug="pyproject-invalid-tool-setuptools",
        family="pyproject.toml",
        summary="`[tool.setuptools]` key that the setuptools schema rejects",
        doc="""
## What it does
Checks `[tool.setuptools]` against setuptools' schema: unknown keys (underscores instead of
dashes, typos), keys only newer releases know (`ext-modules` before 74.1.0,
`dynamic.dependencies`/`dynamic.optional-dependencies` before 62.6.0) and a `packages`
value that is neither a list nor a `find` table.

## Why is this bad?
Since 61.0.0 the table is validated and the build stops with
"`tool.setuptools` must not contain {...} properties"; a build pinned below the release
that introduced a key fails the same way.

## Example
```toml
[project]
name = "example"
version = "1.0"

[tool.setuptools]
include_package_data = true
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"

[tool.setuptools]
include-package-data = true
```

## References
- setuptools 61.0.0 changelog (#3067); 62.6.0 (#3255); 74.1.0 (#4568)
- `setuptools/config/setuptools.schema.json`
""",
        references=(
            _REF_61,
            _ref("74.1.0", "ext-modules in pyproject.toml (#4568)"),
            _REF_PYPROJECT,
        ),
        example=(
            (
                PATH,
                '[project]\nname = "example"\nversion = "1.0"\n\n[tool.setuptools]\n'
                "include_package_data = true\n",
            ),
        ),
        check=_check_tool_table,
    )
)
