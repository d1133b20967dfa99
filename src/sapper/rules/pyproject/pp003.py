"""PP003 `pyproject-license-classifier-with-expression`:
License classifiers next to a PEP 639 license expression.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...changes import change
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import make_finding
from ._shared import (
    _REF_77,
    _REF_PEP639,
    PATH,
)


def _license_classifiers(ctx: Context, project: Mapping[str, Any]) -> list[str]:
    """The ``License ::`` classifiers setuptools would see (static or dynamic)."""
    raw: Any = project.get("classifiers")
    dynamic = project.get("dynamic")
    if raw is None and isinstance(dynamic, list) and "classifiers" in dynamic:
        other = ctx.config
        raw = other.keywords.get("classifiers")
        if not isinstance(raw, list | tuple):
            text = other.cfg.get(("metadata", "classifiers")) or other.cfg.get(
                ("metadata", "classifier")
            )
            raw = text.splitlines() if text else []
    if not isinstance(raw, list | tuple):
        return []
    return [c.strip() for c in raw if isinstance(c, str) and c.strip().startswith("License ::")]


def _check_classifier_conflict(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if project is None or not isinstance(project.get("license"), str):
        return []
    classifiers = _license_classifiers(ctx, project)
    if not classifiers:
        return []
    return [
        make_finding(
            ctx,
            "PP003",
            f"`project.license` is a license expression and the classifiers still say "
            f'{classifiers[0]!r}; setuptools >= 77.0.1 stops with "License classifiers have '
            'been superseded by license expressions"',
            line=ctx.pyproject.locate("project", "classifiers")
            or ctx.pyproject.locate("project", "license"),
            fails=change("ST51").failing(ctx.catalogue),
            fix="remove the `License ::` classifiers",
        )
    ]


register(
    Rule(
        code="PP003",
        slug="pyproject-license-classifier-with-expression",
        family="pyproject.toml",
        summary="License classifiers next to a PEP 639 license expression",
        doc="""
## What it does
Finds a `project.license` expression together with `License ::` classifiers (static, or
from setup.py/setup.cfg when `classifiers` is dynamic).

## Why is this bad?
PEP 639 deprecates license classifiers; setuptools 77.0.1 and later stop with
`InvalidConfigError: License classifiers have been superseded by license expressions`.
Before 77.0.1 the license string itself is rejected (PP002), so such a project builds with
no setuptools at all.

## Example
```toml
[project]
name = "example"
version = "1.0"
license = "MIT"
classifiers = ["License :: OSI Approved :: MIT License"]
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
license = "MIT"
```

## References
- setuptools 77.0.0 changelog (#4833); PEP 639, deprecate license classifiers
""",
        references=(_REF_77, _REF_PEP639),
        example=(
            (
                PATH,
                '[project]\nname = "example"\nversion = "1.0"\nlicense = "MIT"\n'
                'classifiers = ["License :: OSI Approved :: MIT License"]\n',
            ),
        ),
        check=_check_classifier_conflict,
    )
)
