"""SC011 `setupcfg-invalid-version`: setup.cfg [metadata] version is not a PEP 440 version."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _value_finding,
)


def _check_version(ctx: Context) -> Iterable[Finding]:
    from ...facts._values import version_problem

    for item in ctx.setup_cfg.values:
        if item.section != "metadata" or item.key != "version":
            continue
        value = item.value.strip()
        if value.startswith(("attr:", "file:")):
            return []
        problem = version_problem(value)
        if problem is None:
            return []
        return [
            _value_finding(
                ctx,
                "SC011",
                item,
                f"{value!r} is not a PEP 440 version: setuptools 66 and later fail with "
                f"`InvalidVersion: {problem}`",
                change("ST21").failing(ctx.catalogue),
                fix="use a PEP 440 version (1.0.0.dev1, 1.0.0+local, 1.0.0rc1, ...)",
            )
        ]
    return []


register(
    Rule(
        code="SC011",
        slug="setupcfg-invalid-version",
        family="setup.cfg",
        summary="setup.cfg [metadata] version is not a PEP 440 version",
        doc="""
## What it does
Finds a literal `version` in `[metadata]` that is not a valid PEP 440 version.

## Why is this bad?
setuptools 66.0.0 removed support for non-PEP 440 versions: the build fails with
`InvalidVersion: Invalid version: '...'`.

## Example
```ini
[metadata]
name = example
version = 1.0.0-SNAPSHOT
```

## Use instead
```ini
[metadata]
name = example
version = 1.0.0.dev0
```

## References
- setuptools 66.0.0 changelog (#2497)
""",
        references=(
            Reference(
                title="setuptools 66.0.0 changelog (#2497): non-PEP 440 versions removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v66-0-0",
            ),
        ),
        example=((PATH, "[metadata]\nname = example\nversion = 1.0.0-SNAPSHOT\n"),),
        check=_check_version,
        reads=frozenset({PATH}),
    )
)
