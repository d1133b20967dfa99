"""PP007 `pyproject-invalid-tool-setuptools`:
`[tool.setuptools]` key that the setuptools schema rejects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ...changes import DYNAMIC_KEYS_SINCE, PROJECT_TABLE_SINCE, TOOL_KEYS_SINCE, change
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import make_finding, versions
from ._shared import (
    _REF_61,
    PATH,
    _ref,
)
from ._validation import locate, validation, validator_fix
from ._validation import message as validator_message

_TOOL_KEYS = frozenset(
    {
        "cmdclass", "data-files", "dynamic", "eager-resources", "exclude-package-data",
        "include-package-data", "license-files", "namespace-packages", "obsoletes",
        "package-data", "package-dir", "packages", "platforms", "provides", "py-modules",
        "script-files", "zip-safe",
    }
)  # fmt: skip


_LATER_TOOL_KEYS = TOOL_KEYS_SINCE


_DYNAMIC_KEYS = frozenset({"version", "classifiers", "description", "entry-points", "readme"})


_LATER_DYNAMIC_KEYS = DYNAMIC_KEYS_SINCE


# Names under [tool.setuptools] are checked by formats of the vendored validate-pyproject
# (`setuptools/config/_validate_pyproject/formats.py`). Before the releases below the only
# accepted form is an importable dotted name (`python-module-name`), plus `"*"` as a
# package-data key. The bounds come from the changes table (measured with the real wheels).


def _accepted_since(ident: str) -> str:
    """The first release that accepts what change ``ident`` rejects."""
    (_, stop), *_ = change(ident).fails
    assert stop is not None
    return stop


#: `packages` items and `package-dir` keys also accept PEP 561 stub names (`x-stubs`,
#: `x-stubs.sub`; `pep561-stub-name`).
_STUB_PACKAGES = _accepted_since("ST73")
#: `packages` items, `package-dir` keys, `py-modules` and `namespace-packages` also accept
#: dashed names (`python-module-name-relaxed`: no leading/trailing dash, not `*-stubs`;
#: a `*-stubs` name stays rejected in `py-modules` and `namespace-packages`).
_RELAXED_NAMES = _accepted_since("ST74")
#: `package-data`/`exclude-package-data` keys accept any package name, stub or dashed.
_PACKAGE_DATA_NAMES = _accepted_since("ST75")

#: The first release at 61.0.0 or later: a name accepted from the start.
_ALWAYS = PROJECT_TABLE_SINCE


def _module_name(name: str) -> bool:
    """`python-module-name`: identifiers joined by dots."""
    return all(part.isidentifier() for part in name.split("."))


def _relaxed_name(name: str) -> bool:
    """`python-module-name-relaxed`."""
    if name.startswith("-") or name.endswith("-") or name.endswith("-stubs"):
        return False
    return _module_name(name.replace("-", "_"))


def _stub_name(name: str) -> bool:
    """`pep561-stub-name`: `<package>-stubs`, optionally with submodules."""
    top, *children = name.split(".")
    if not top.endswith("-stubs"):
        return False
    return _module_name(".".join([top[: -len("-stubs")], *children]))


def _accepted_from(field: str, name: str) -> str | None:
    """The first release whose schema accepts ``name`` in ``field`` (None: none does)."""
    if _module_name(name):
        return _ALWAYS
    if field in ("package-data", "exclude-package-data"):
        if name == "*":
            return _ALWAYS
        return _PACKAGE_DATA_NAMES if _stub_name(name) or _relaxed_name(name) else None
    if field in ("packages", "package-dir") and _stub_name(name):
        return _STUB_PACKAGES
    return _RELAXED_NAMES if _relaxed_name(name) else None


def _names(tool: dict[str, Any]) -> Iterable[tuple[str, str, str]]:
    """(field, where setuptools reports it, name) of each name the schema checks."""
    for field in ("packages", "py-modules", "namespace-packages"):
        value = tool.get(field)
        if isinstance(value, list):
            for i, name in enumerate(value):
                if isinstance(name, str):
                    yield field, field if field == "packages" else f"{field}[{i}]", name
    for field in ("package-dir", "package-data", "exclude-package-data"):
        value = tool.get(field)
        if isinstance(value, dict):
            for name in value:
                if not (field == "package-dir" and name == ""):
                    yield field, field, name


def _name_fix(field: str, name: str, since: str | None) -> str:
    if since is not None:
        return f"require `setuptools>={since}` in build-system.requires"
    if field in ("package-data", "exclude-package-data") and name == "":
        return 'use `"*"` for all packages'
    if field in ("py-modules", "namespace-packages") and _stub_name(name):
        return f"list `{name}` in `packages` (stub-only packages are packages)"
    return f"rename `{name}` to an importable name"


def _check_names(ctx: Context, tool: dict[str, Any], schema: set[str]) -> Iterable[Finding]:
    for field, where, name in _names(tool):
        since = _accepted_from(field, name)
        if since == _ALWAYS:
            continue
        failing = versions(ctx, _ALWAYS, since) if since else versions(ctx, _ALWAYS)
        failing &= schema
        if not failing:
            continue
        what = "key" if field.endswith(("-data", "-dir")) else "name"
        label = f"`tool.setuptools.{field}` {what} {json.dumps(name)}"
        said = f'"invalid pyproject.toml config: `tool.setuptools.{where}`"'
        message = (
            f"{label} is only accepted by setuptools >= {since}: {said}"
            if since
            else f"{label} is rejected by setuptools' schema: {said}"
        )
        line = None
        if what == "key":
            line = ctx.pyproject.locate(f"tool.setuptools.{field}", name)
        yield make_finding(
            ctx,
            "PP007",
            message,
            line=line or ctx.pyproject.locate("tool.setuptools", field),
            fails=failing,
            fix=_name_fix(field, name, since),
        )


def _check_tool_table(ctx: Context) -> Iterable[Finding]:
    _, tool = ctx.pyproject.tables
    val = validation(ctx)
    judged = [
        make_finding(
            ctx,
            "PP007",
            validator_message(rejection),
            line=locate(ctx, rejection),
            fails=set(releases),
            fix=validator_fix(rejection),
        )
        for releases, rejection in val.rejected_at("tool")
    ]
    if tool is None:
        return judged
    # the hand-written checks stand for the releases whose validator is not cached
    schema = set(val.unavailable)
    since61 = versions(ctx, PROJECT_TABLE_SINCE) & schema
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
                    versions(ctx, PROJECT_TABLE_SINCE, intro) & schema,
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
                    versions(ctx, PROJECT_TABLE_SINCE, intro) & schema if intro else since61,
                    f"require `setuptools>={intro}` in build-system.requires"
                    if intro
                    else f"remove `{key}`",
                )
            )
    found = [
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
    return judged + found + list(_check_names(ctx, tool, schema))


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
Runs each setuptools release's own vendored validator on `[tool.setuptools]` and reports
its rejections in its own words (`sapper cache warm` puts the validators in the cache;
see docs/cli.md). Where a release's validator is not cached, it checks
`[tool.setuptools]` against setuptools' schema itself: unknown keys (underscores instead of
dashes, typos), keys only newer releases know (`ext-modules` before 74.1.0,
`dynamic.dependencies`/`dynamic.optional-dependencies` before 62.6.0), a `packages`
value that is neither a list nor a `find` table, and names the schema rejects in each
release (measured with the real wheels of 61.0.0 to 84.2.1):

| name | where | rejected by |
|---|---|---|
| PEP 561 stub name (`x-stubs`, `x-stubs.sub`) | `packages`, `package-dir` keys | <67.1.0 |
| `my-pkg` (dashed) | `packages`, `package-dir` keys, `py-modules`, `namespace-packages` | <73.0.0 |
| stub or dashed name | `package-data`, `exclude-package-data` keys | <82.0.1 |
| `""` | `package-data`, `exclude-package-data` keys | every release (write `"*"`) |
| `*-stubs` | `py-modules`, `namespace-packages` | every release |
| other non-importable names (`a.b-stubs`) | all of these | every release |

## Why is this bad?
Since 61.0.0 the table is validated and the build stops with
"`tool.setuptools` must not contain {...} properties" or, for a name,
"invalid pyproject.toml config: `tool.setuptools.package-data`" (the metadata hook fails, so
pip stops at "Preparing metadata"); a build pinned below the release that introduced a key
or accepted a name fails the same way. A stub-only package (`types-*`) listing its
`*-stubs` package under `package-data` fails with every setuptools before 82.0.1.

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
- setuptools 61.0.0 changelog (#3067); 62.6.0 (#3255); 67.1.0 (#3798, stub names in
  `packages`/`package-dir`); 74.1.0 (#4568)
- validate-pyproject #248 (stub names as package-data keys, in setuptools 82.0.1)
- `setuptools/config/setuptools.schema.json`
""",
        references=(
            _REF_61,
            _ref("67.1.0", "PEP 561 stub names in packages and package-dir (#3798)"),
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
