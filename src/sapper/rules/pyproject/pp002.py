"""PP002 `pyproject-license-expression`:
`project.license` string (PEP 639 expression) unknown to setuptools < 77.0.1.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import LICENSE_EXPRESSION_SINCE, PROJECT_TABLE_SINCE
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import make_finding, versions
from ._shared import (
    _REF_77,
    _REF_PEP639,
    PATH,
)


def _license_expression_problem(text: str) -> str | None:
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    try:
        canonicalize_license_expression(text)
    except InvalidLicenseExpression as exc:
        return str(exc)
    return None


def _check_license_string(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if project is None or not isinstance(project.get("license"), str):
        return []
    text = project["license"]
    problem = _license_expression_problem(text)
    line = ctx.pyproject.locate("project", "license")
    if problem:
        return [
            make_finding(
                ctx,
                "PP002",
                f"`project.license = {text!r}` is not a valid SPDX license expression "
                f"({problem}); setuptools >= 77.0.1 rejects it and older releases accept no "
                "string at all",
                line=line,
                fails=versions(ctx, PROJECT_TABLE_SINCE),
                fix='write an SPDX expression such as `license = "MIT"`, or '
                '`license = {text = "..."}` for setuptools < 77',
            )
        ]
    return [
        make_finding(
            ctx,
            "PP002",
            f"`project.license = {text!r}` is a PEP 639 license expression, which setuptools "
            'before 77.0.1 rejects ("`project.license` must be valid exactly by one '
            'definition")',
            line=line,
            fails=versions(ctx, PROJECT_TABLE_SINCE, LICENSE_EXPRESSION_SINCE),
            fix="require `setuptools>=77.0.1` in build-system.requires",
        )
    ]


register(
    Rule(
        code="PP002",
        slug="pyproject-license-expression",
        family="pyproject.toml",
        summary="`project.license` string (PEP 639 expression) unknown to setuptools < 77.0.1",
        doc="""
## What it does
Finds `license = "..."` strings in `[project]`. A valid SPDX expression needs setuptools
77.0.1 or newer; a string that is not a valid SPDX expression (`"MIT License"`) fails in
every version.

## Why is this bad?
Before 77.0.1 setuptools' schema only accepts `license = {text = ...}` or
`{file = ...}` and the build stops with "`project.license` must be valid exactly by one
definition". A project that caps setuptools (`setuptools<77`), or is built on Python 3.8
(whose newest setuptools is 75.3.x), fails.

## Example
```toml
[build-system]
requires = ["setuptools<77"]
build-backend = "setuptools.build_meta"

[project]
name = "example"
version = "1.0"
license = "MIT"
```

## Use instead
```toml
[build-system]
requires = ["setuptools>=77.0.1"]
build-backend = "setuptools.build_meta"

[project]
name = "example"
version = "1.0"
license = "MIT"
```

## References
- setuptools 77.0.0 changelog (#4829, #4833, #4840); PEP 639
""",
        references=(_REF_77, _REF_PEP639),
        example=((PATH, '[project]\nname = "example"\nversion = "1.0"\nlicense = "MIT"\n'),),
        check=_check_license_string,
    )
)
