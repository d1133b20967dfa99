"""SC005 `setupcfg-duplicate`: Duplicate section or key in setup.cfg."""

from __future__ import annotations

import configparser
from collections.abc import Iterable

from ...facts.setup_cfg import PATH
from ...model import Finding
from .._base import Context, Rule, register
from ._shared import (
    _REF_CONFIGPARSER,
    error_findings,
)


def _describe(exc: Exception, data: bytes) -> tuple[str, str] | None:
    if isinstance(exc, configparser.DuplicateSectionError):
        return (
            f"section [{exc.section}] appears twice; configparser rejects the file "
            "(DuplicateSectionError)",
            f"merge the two [{exc.section}] sections into one",
        )
    if isinstance(exc, configparser.DuplicateOptionError):
        return (
            f"key `{exc.option}` appears twice in [{exc.section}]; configparser rejects the "
            "file (DuplicateOptionError)",
            f"keep one `{exc.option}` in [{exc.section}]",
        )
    return None


def _check(ctx: Context) -> Iterable[Finding]:
    return error_findings(ctx, "SC005", _describe)


register(
    Rule(
        code="SC005",
        slug="setupcfg-duplicate",
        family="setup.cfg",
        summary="Duplicate section or key in setup.cfg",
        doc="""
## What it does
Finds a section that appears twice, or a key that appears twice in one section. Before
setuptools 53.1.0 keys were compared case-insensitively (`Name` and `name` clash).

## Why is this bad?
configparser is strict: `DuplicateSectionError` or `DuplicateOptionError` fails the build
in every setuptools version.

## Example
```ini
[metadata]
name = example

[metadata]
version = 1.0
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- Python documentation: configparser, `strict`
""",
        references=(_REF_CONFIGPARSER,),
        example=((PATH, "[metadata]\nname = example\n\n[metadata]\nversion = 1.0\n"),),
        check=_check,
        reads=frozenset({PATH}),
    )
)
