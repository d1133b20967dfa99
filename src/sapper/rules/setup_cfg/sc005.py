"""SC005 `setupcfg-duplicate`: Duplicate section or key in setup.cfg."""

from __future__ import annotations

from ._shared import (
    _REF_CONFIGPARSER,
    _rule,
)

_rule(
    "SC005",
    "Duplicate section or key in setup.cfg",
    """
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
    "[metadata]\nname = example\n\n[metadata]\nversion = 1.0\n",
    (_REF_CONFIGPARSER,),
)
