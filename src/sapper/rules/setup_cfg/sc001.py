"""SC001 `setupcfg-dash-separated-key`: Dash-separated key in a setuptools section of setup.cfg."""

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

_REF_1608 = Reference(
    title="setuptools 54.1.0 changelog (#1608): dash-separated keys deprecated",
    url="https://setuptools.pypa.io/en/latest/history.html#v54-1-0",
)


def _check(ctx: Context) -> Iterable[Finding]:
    """Keys with a dash that an era checks (and their capitals, if any: one finding)."""
    found = []
    for occ in key_occurrences(ctx):
        acc = judge_key(ctx, occ)
        if acc.dash and (finding := key_finding(ctx, "SC001", occ, acc)) is not None:
            found.append(finding)
    return sorted(found, key=lambda f: (f.line or 0, f.column or 0))


register(
    Rule(
        code="SC001",
        slug="setupcfg-dash-separated-key",
        family="setup.cfg",
        summary="Dash-separated key in a setuptools section of setup.cfg",
        doc="""
## What it does
Finds keys with a `-` in `[metadata]`, in `[options]` and its subsections, and in sections
named after a setuptools or distutils command (`[egg_info]`, `[sdist]`, `[bdist_wheel]`
from 70.1.0 ...). The subsections whose keys are data, not option names
(`[options.extras_require]`, `[options.entry_points]`, `[options.package_data]`,
`[options.exclude_package_data]`, `[options.data_files]`) and other tools' sections
(`[flake8]`, `[tool:pytest]`) are not checked, as in setuptools.

## Why is this bad?
setuptools 78.0.1 raised `InvalidConfigError` on every such key and broke thousands of
sdists until 78.0.2 reverted it hours later. Every other version since 54.1.0 warns; the
warning's due date (2026-03-03) has passed, so the next release may make it an error
again, and `SETUPTOOLS_ENFORCE_DEPRECATION=1` already does. Some of these keys were never
read at all: `description-file` is pbr's, so setuptools ignores it and the project has no
long description.

## Example
```ini
[metadata]
name = example
author-email = dev@example.org
description-file = README.rst
```

## Use instead
```ini
[metadata]
name = example
author_email = dev@example.org
long_description = file: README.rst
long_description_content_type = text/x-rst
```

## References
- setuptools 78.0.0 changelog, #4870; 78.0.2, #4911; discussion #5011
- `Distribution._enforce_underscore` in `setuptools/dist.py`
""",
        references=(_REF_4870, _REF_4911, _REF_5011, _REF_1608),
        example=((PATH, "[metadata]\nname = example\nauthor-email = dev@example.org\n"),),
        check=_check,
        reads=frozenset({PATH}),
        fix=KEY_FIX,
    )
)
