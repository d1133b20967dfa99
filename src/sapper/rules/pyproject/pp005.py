"""PP005 `pyproject-namespace-packages`:
`[tool.setuptools] namespace-packages`, removed in setuptools 69.0.0.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import make_finding
from ._shared import (
    _REF_69,
    PATH,
    _ref,
)


def _check_namespace_packages(ctx: Context) -> Iterable[Finding]:
    _, tool = ctx.pyproject.tables
    if tool is None:
        return []
    key = "namespace-packages"
    if key not in tool:
        return []  # `namespace_packages` is a schema error in every release (PP007)
    # TOOL_TABLE_DEPRECATIONS: warning since 62.3.0, due 2023-10-30 since 67.7.0;
    # TOOL_TABLE_REMOVALS: RemovedConfigError since 69.0.0 (#4066).
    st25 = change("ST25")
    warns = st25.warning(ctx.catalogue)
    enforced = st25.enforced(ctx.catalogue, ctx.today.isoformat())
    return [
        make_finding(
            ctx,
            "PP005",
            "`tool.setuptools.namespace-packages` was removed in setuptools 69.0.0 "
            "(RemovedConfigError)",
            line=ctx.pyproject.locate("tool.setuptools", key),
            fails=st25.failing(ctx.catalogue),
            enforced=enforced,
            warns=warns,
            fix="delete `namespace-packages` and the `__init__.py` of the namespace "
            "(PEP 420 implicit namespace packages); use `packages.find` with "
            "`namespaces = true`",
        )
    ]


register(
    Rule(
        code="PP005",
        slug="pyproject-namespace-packages",
        family="pyproject.toml",
        summary="`[tool.setuptools] namespace-packages`, removed in setuptools 69.0.0",
        doc="""
## What it does
Finds `namespace-packages` in `[tool.setuptools]`.

## Why is this bad?
The key was deprecated in 62.3.0 (due 2023-10-30 from 67.7.0, so 67.7.0-68.2.2 fail under
`SETUPTOOLS_ENFORCE_DEPRECATION=1`), and 69.0.0 removed it: the build stops with
`RemovedConfigError: The parameter tool.setuptools.namespace-packages was long deprecated
and has been removed from pyproject.toml`.

## Example
```toml
[project]
name = "example.ns"
version = "1.0"

[tool.setuptools]
namespace-packages = ["example"]
```

## Use instead
```toml
[project]
name = "example.ns"
version = "1.0"

[tool.setuptools.packages.find]
namespaces = true
```
and delete `example/__init__.py` (PEP 420 implicit namespace package).

## References
- setuptools 69.0.0 changelog (#4066); 62.3.0 (#3262)
""",
        references=(_REF_69, _ref("62.3.0", "namespace_packages formally deprecated (#3262)")),
        example=(
            (
                PATH,
                '[project]\nname = "example"\nversion = "1.0"\n\n[tool.setuptools]\n'
                'namespace-packages = ["example"]\n',
            ),
        ),
        check=_check_namespace_packages,
    )
)
