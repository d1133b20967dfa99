"""SC004 `setupcfg-syntax-error`: setup.cfg has INI syntax configparser rejects."""

from __future__ import annotations

from ...facts.setup_cfg import PATH
from .._base import Rule, register
from ._shared import (
    _REF_CONFIGPARSER,
    _Check,
)

register(
    Rule(
        code="SC004",
        slug="setupcfg-syntax-error",
        family="setup.cfg",
        summary="setup.cfg has INI syntax configparser rejects",
        doc="""
## What it does
Parses setup.cfg with Python's configparser, as setuptools does, and reports lines before
any section header, lines that are not `key = value`, and a UTF-8 byte-order mark.

## Why is this bad?
configparser raises `MissingSectionHeaderError` or `ParsingError` and the build fails in
every setuptools version.

## Example
```ini
name = example
[metadata]
version
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- Python documentation: configparser, supported INI file structure
""",
        references=(_REF_CONFIGPARSER,),
        example=((PATH, "[metadata]\nname = example\nversion\n"),),
        check=_Check("SC004"),
        reads=frozenset({PATH}),
    )
)
