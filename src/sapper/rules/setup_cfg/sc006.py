"""SC006 `setupcfg-interpolation`: Unresolvable % interpolation in setup.cfg."""

from __future__ import annotations

from ._shared import (
    _REF_CONFIGPARSER,
    _rule,
)

_rule(
    "SC006",
    "Unresolvable % interpolation in setup.cfg",
    """
## What it does
Reads every value with configparser's basic interpolation, as setuptools does for every
section (including `[flake8]` and `[tool:pytest]`), and reports `%` signs it cannot
resolve.

## Why is this bad?
`InterpolationSyntaxError` or `InterpolationMissingOptionError` fails the build in every
setuptools version, even when the value belongs to another tool.

## Example
```ini
[tool:pytest]
log_format = %(asctime)s %(message)s
```

## Use instead
```ini
[tool:pytest]
log_format = %%(asctime)s %%(message)s
```
or move the tool's settings to its own file (`pytest.ini`, `.flake8`).

## References
- Python documentation: configparser, interpolation of values
""",
    "[metadata]\nname = example\n\n[tool:pytest]\nlog_format = %(asctime)s\n",
    (_REF_CONFIGPARSER,),
)
