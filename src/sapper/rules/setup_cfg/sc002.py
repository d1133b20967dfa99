"""SC002 `setupcfg-uppercase-key`: Uppercase key in a setuptools section of setup.cfg."""

from __future__ import annotations

from collections.abc import Iterable

from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _REF_4870,
    _REF_4911,
    _REF_5011,
    KEY_FIX,
    judge_key,
    key_finding,
    key_occurrences,
)

_REF_2592 = Reference(
    title="setuptools 54.1.1 changelog (#2592): uppercase keys in [metadata] deprecated",
    url="https://setuptools.pypa.io/en/latest/history.html#v54-1-1",
)


def _check(ctx: Context) -> Iterable[Finding]:
    """Keys with capitals that an era checks, and no dash (SC001 reports those)."""
    found = []
    for occ in key_occurrences(ctx):
        acc = judge_key(ctx, occ)
        if acc.upper and not acc.dash:
            finding = key_finding(ctx, "SC002", occ, acc)
            if finding is not None:
                found.append(finding)
    return sorted(found, key=lambda f: (f.line or 0, f.column or 0))


register(
    Rule(
        code="SC002",
        slug="setupcfg-uppercase-key",
        family="setup.cfg",
        summary="Uppercase key in a setuptools section of setup.cfg",
        doc="""
## What it does
Finds keys that are not all lowercase (Python's `str.islower()` is false) in the sections
setuptools checks: `[metadata]`, `[options*]` and command sections, except the data
subsections (`[options.extras_require]`, `[options.entry_points]`, ...).

## Why is this bad?
Since 53.1.0 setuptools keeps the case of setup.cfg keys. 78.0.1 raised
`InvalidConfigError: Invalid uppercase key 'Name' in 'metadata'`; every other version since
54.1.1 warns (only for `[metadata]` before 78), with a due date of 2026-03-03 that has
passed.

## Example
```ini
[metadata]
Name = example
Version = 1.0
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- setuptools 54.1.1 changelog, #2592; 78.0.0, #4870; 78.0.2, #4911
- `Distribution._enforce_option_lowercase` in `setuptools/dist.py`
""",
        references=(_REF_2592, _REF_4870, _REF_4911, _REF_5011),
        example=((PATH, "[metadata]\nName = example\nversion = 1.0\n"),),
        check=_check,
        reads=frozenset({PATH}),
        fix=KEY_FIX,
    )
)
