"""SC008 `setupcfg-license-file-directive`: `license = file:` in setup.cfg [metadata]."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _value_finding,
)


def _check_license_file(ctx: Context) -> Iterable[Finding]:
    return [
        _value_finding(
            ctx,
            "SC008",
            item,
            "`license = file:` is rejected since setuptools 40.7.0 (`ValueError: Only "
            "strings are accepted for the license field, files are not accepted`)",
            change("ST04").failing(ctx.catalogue),
            fix=f"license_files = {item.value.strip()[5:].strip()}",
        )
        for item in ctx.setup_cfg.values
        if item.section == "metadata"
        and item.key == "license"
        and item.value.strip().startswith("file:")
    ]


register(
    Rule(
        code="SC008",
        slug="setupcfg-license-file-directive",
        family="setup.cfg",
        summary="`license = file:` in setup.cfg [metadata]",
        doc="""
## What it does
Finds `license = file: ...` in the `[metadata]` section of setup.cfg.

## Why is this bad?
The `license` field is a short license name. setuptools 40.7.0 made a `file:` directive
there an error: `ValueError: Only strings are accepted for the license field, files are
not accepted`. The build fails in every later release.

## Example
```ini
[metadata]
name = example
license = file: LICENSE
```

## Use instead
```ini
[metadata]
name = example
license_files = LICENSE
```

## References
- setuptools 40.7.0 changelog (#1551)
""",
        references=(
            Reference(
                title="setuptools 40.7.0 changelog (#1551): file: rejected for license",
                url="https://setuptools.pypa.io/en/latest/history.html#v40-7-0",
            ),
        ),
        example=((PATH, "[metadata]\nname = example\nversion = 1.0\nlicense = file: LICENSE\n"),),
        check=_check_license_file,
        reads=frozenset({PATH}),
    )
)
