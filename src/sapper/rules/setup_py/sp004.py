"""SP004 `setuppy-unordered-requires`: install_requires or setup_requires is a set or dict."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ...changes import change
from ...facts.setup_py import (
    PATH,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _REQUIREMENT_KEYWORDS,
    _finding,
)


def _check_unordered_requires(ctx: Context) -> Iterable[Finding]:
    findings = []
    for kw in ctx.setup_py.keywords:
        if kw.name not in _REQUIREMENT_KEYWORDS:
            continue
        kind_of = _container_kind(kw.value, kw.node)
        if kind_of == "set":
            failing = ctx.catalogue.between()
            kind = "a set"
        elif kind_of == "dict":
            failing = change("ST01").failing(ctx.catalogue)
            kind = "a dict"
        else:
            continue
        findings.append(
            _finding(
                ctx,
                "SP004",
                f"`{kw.name}` is {kind}: setuptools rejects unordered types ('{kw.name}' must "
                "be a string or list of strings ...; Unordered types are not allowed); pass a "
                "list",
                kw.line,
                kw.column,
                failing,
                fix=f"pass `{kw.name}` as a list (sorted(...) of the set)",
            )
        )
    return findings


def _container_kind(value: object, node: ast.expr) -> str | None:
    """``set`` or ``dict`` when the keyword's value (or, unknown, the expression it comes
    from) is one."""
    if isinstance(value, set | frozenset):
        return "set"
    if isinstance(value, dict):
        return "dict"
    if isinstance(node, ast.Set | ast.SetComp):
        return "set"
    if isinstance(node, ast.Dict | ast.DictComp):
        return "dict"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return {"set": "set", "frozenset": "set", "dict": "dict"}.get(node.func.id)
    return None


register(
    Rule(
        code="SP004",
        slug="setuppy-unordered-requires",
        family="setup.py",
        summary="install_requires or setup_requires is a set or dict",
        doc="""
## What it does
Finds `install_requires=` or `setup_requires=` given a set (`{...}`, `set(...)`,
`frozenset(...)`, a set comprehension) or a dict, directly or through a module-level
name.

## Why is this bad?
For deterministic builds setuptools 38.0.0 started rejecting unordered types: the build
fails with `'install_requires' must be a string or list of strings containing valid
project/version requirement specifiers; Unordered types are not allowed`. setuptools
75.3.0 accepts a dict again; a set still fails.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires={"requests", "six"})
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires=["requests", "six"])
```

## References
- setuptools 38.0.0 changelog (#458): unordered install_requires rejected
- setuptools 75.3.0 changelog (#4575): dicts accepted again
""".strip(),
        references=(
            Reference(
                title="setuptools 38.0.0 changelog (#458): unordered install_requires rejected",
                url="https://setuptools.pypa.io/en/latest/history.html#v38-0-0",
            ),
            Reference(
                title="setuptools 75.3.0 changelog (#4575): dicts accepted again",
                url="https://setuptools.pypa.io/en/latest/history.html#v75-3-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                'install_requires={"requests", "six"})\n',
            ),
        ),
        check=_check_unordered_requires,
        needs="setup.py",
    )
)
