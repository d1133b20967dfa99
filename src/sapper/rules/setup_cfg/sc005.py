"""SC005 `setupcfg-duplicate`: Duplicate section or key in setup.cfg."""

from __future__ import annotations

from ...facts.setup_cfg import PATH
from .._base import Rule, register
from ._shared import (
    _REF_CONFIGPARSER,
    _Check,
)

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
        check=_Check("SC005"),
        reads=frozenset({PATH}),
    )
)
