"""PP006 `pyproject-tool-license-files`:
`[tool.setuptools] license-files`, deprecated since setuptools 77.0.1.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import due_sets, make_finding
from ._shared import (
    _REF_77,
    PATH,
    _ref,
)


def _check_tool_license_files(ctx: Context) -> Iterable[Finding]:
    project, tool = ctx.pyproject.tables
    if tool is None or "license-files" not in tool:
        return []
    line = ctx.pyproject.locate("tool.setuptools", "license-files")
    if project is not None and "license-files" in project:
        return [
            make_finding(
                ctx,
                "PP006",
                "`license-files` is set in both [project] and [tool.setuptools]; setuptools "
                ">= 77.0.1 stops with \"'project.license-files' is defined already\"",
                line=line,
                fails=change("ST55").failing(ctx.catalogue),
                fix="remove `license-files` from [tool.setuptools]",
            )
        ]
    warns, enforced, due = due_sets(ctx, change("ST55").due)
    return [
        make_finding(
            ctx,
            "PP006",
            "`tool.setuptools.license-files` is deprecated in favour of "
            "`project.license-files` since setuptools 77.0.1",
            line=line,
            warns=warns,
            enforced=enforced,
            due=due,
            fix="move `license-files` to [project] and require `setuptools>=77.0.1`",
        )
    ]


register(
    Rule(
        code="PP006",
        slug="pyproject-tool-license-files",
        family="pyproject.toml",
        summary="`[tool.setuptools] license-files`, deprecated since setuptools 77.0.1",
        doc="""
## What it does
Finds `license-files` in `[tool.setuptools]`, and reports it as an error when
`project.license-files` is set too.

## Why is this bad?
setuptools 77.0.1 moved the setting to `project.license-files` (PEP 639). Both together
stop the build with `InvalidConfigError: 'project.license-files' is defined already`; the
tool key alone warns, with the same due dates as the license table (2026-02-18 in
77.0.1-80.10.1, 2027-02-18 since 80.10.2).

## Example
```toml
[project]
name = "example"
version = "1.0"
license-files = ["LICENSE"]

[tool.setuptools]
license-files = ["LICENSE"]
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
license-files = ["LICENSE"]
```

## References
- setuptools 77.0.0 changelog (#4837); 77.0.3 (#4899)
""",
        references=(
            _REF_77,
            _ref("77.0.3", "no eager error for license-files outside pyproject (#4899)"),
        ),
        example=(
            (
                PATH,
                '[project]\nname = "example"\nversion = "1.0"\nlicense-files = ["LICENSE"]\n\n'
                '[tool.setuptools]\nlicense-files = ["LICENSE"]\n',
            ),
            ("LICENSE", "MIT\n"),
        ),
        check=_check_tool_license_files,
    )
)
