"""PP004 `pyproject-license-table`:
`project.license` as a TOML table, deprecated since setuptools 77.0.1.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import due_sets, make_finding
from ._shared import (
    _REF_77,
    _REF_PEP639,
    PATH,
)


def _check_license_table(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if project is None or not isinstance(project.get("license"), dict):
        return []
    table = project["license"]
    warns, enforced, due = due_sets(ctx, change("ST53").due)
    if "file" in table:
        fix = f"license-files = [{str(table['file'])!r}] and an SPDX `license` string"
    else:
        fix = 'license = "<SPDX expression>" (with setuptools>=77.0.1)'
    return [
        make_finding(
            ctx,
            "PP004",
            "`project.license` is a TOML table; setuptools >= 77.0.1 warns that this is "
            "deprecated in favour of an SPDX expression and `license-files`",
            line=ctx.pyproject.locate("project", "license"),
            warns=warns,
            enforced=enforced,
            due=due,
            fix=fix,
        )
    ]


register(
    Rule(
        code="PP004",
        slug="pyproject-license-table",
        family="pyproject.toml",
        summary="`project.license` as a TOML table, deprecated since setuptools 77.0.1",
        doc="""
## What it does
Finds `license = {text = "..."}` or `license = {file = "..."}` in `[project]`.

## Why is this bad?
setuptools 77.0.1 deprecated the table form (`SetuptoolsDeprecationWarning:
project.license as a TOML table is deprecated`). The due date was 2026-02-18 in 77.0.1 to
80.10.1 (so those releases fail today under `SETUPTOOLS_ENFORCE_DEPRECATION=1`) and is
2027-02-18 since 80.10.2: a release after that date may turn it into an error.

## Example
```toml
[project]
name = "example"
version = "1.0"
license = {text = "MIT"}
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
license = "MIT"
license-files = ["LICENSE"]
```
with `setuptools>=77.0.1` in `build-system.requires`.

## References
- setuptools 77.0.0 changelog (#4840)
- `_license` in `setuptools/config/_apply_pyprojecttoml.py`
""",
        references=(_REF_77, _REF_PEP639),
        example=(
            (PATH, '[project]\nname = "example"\nversion = "1.0"\nlicense = {text = "MIT"}\n'),
        ),
        check=_check_license_table,
    )
)
