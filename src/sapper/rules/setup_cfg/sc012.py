"""SC012 `setupcfg-description-newline`: setup.cfg [metadata] description spans several lines."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _value_finding,
)


def _check_description(ctx: Context) -> Iterable[Finding]:
    for item in ctx.setup_cfg.values:
        if item.section != "metadata" or item.key not in {"description", "summary"}:
            continue
        if "\n" not in item.value.strip():
            continue
        failing = change("ST15").failing(ctx.catalogue)
        return [
            _value_finding(
                ctx,
                "SC012",
                item,
                "the one-line summary spans several lines: setuptools 51.3.0-51.3.2 and "
                "59.0.1-59.3.0 fail with `ValueError: Newlines are not allowed`; later ones "
                "keep only the first line with a deprecation warning",
                failing,
                fix="one line in `description`, the rest in `long_description`",
            )
        ]
    return []


register(
    Rule(
        code="SC012",
        slug="setupcfg-description-newline",
        family="setup.cfg",
        summary="setup.cfg [metadata] description spans several lines",
        doc="""
## What it does
Finds a `description` (or `summary`) in `[metadata]` that continues over several lines.

## Why is this bad?
It becomes the one-line `Summary` of the core metadata. setuptools 51.3.0 to 51.3.2 and
59.0.1 to 59.3.0 fail with `ValueError: Newlines are not allowed`; other releases keep
only the first line and warn that it will break in the future.

## Example
```ini
[metadata]
name = example
description = An example
    that does things.
```

## Use instead
```ini
[metadata]
name = example
description = An example that does things.
```

## References
- setuptools 51.3.0 changelog (#1390); 59.0.0 (#2870); 59.4.0 (#2893)
""",
        references=(
            Reference(
                title="setuptools 59.4.0 changelog (#2893): newlines in Summary tolerated",
                url="https://setuptools.pypa.io/en/latest/history.html#v59-4-0",
            ),
        ),
        example=(
            (
                PATH,
                (
                    "[metadata]\nname = example\nversion = 1.0\ndescription = An "
                    "example\n    that does things.\n"
                ),
            ),
        ),
        check=_check_description,
        reads=frozenset({PATH}),
    )
)
