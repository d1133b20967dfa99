"""SC006 `setupcfg-interpolation`: Unresolvable % interpolation in setup.cfg."""

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
    if isinstance(exc, configparser.InterpolationError):
        return (
            f"value of `{exc.option}` in [{exc.section}] uses `%` interpolation that "
            f"configparser cannot resolve ({type(exc).__name__}); setuptools reads every "
            "value through it",
            "write a literal percent sign as `%%`",
        )
    return None


def _check(ctx: Context) -> Iterable[Finding]:
    return error_findings(ctx, "SC006", _describe)


register(
    Rule(
        code="SC006",
        slug="setupcfg-interpolation",
        family="setup.cfg",
        summary="Unresolvable % interpolation in setup.cfg",
        doc="""
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
        references=(_REF_CONFIGPARSER,),
        example=(
            (PATH, "[metadata]\nname = example\n\n[tool:pytest]\nlog_format = %(asctime)s\n"),
        ),
        check=_check,
        reads=frozenset({PATH}),
    )
)
