"""PP900 `pyproject-invalid-toml`: pyproject.toml is not valid TOML (or not UTF-8).

Not a setuptools change: the installers read pyproject.toml before they install any
setuptools, and refuse a file they cannot parse. The 900s are the files sapper cannot read
at all (as pycodestyle's E9 codes).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import PATH


def _check_toml(ctx: Context) -> Iterable[Finding]:
    parsed = ctx.pyproject.parsed
    if parsed.error is None:
        return []
    return [
        ctx.report(
            code="PP900",
            message=f"{parsed.error}; pip reads pyproject.toml before it installs setuptools "
            "and stops there (TOMLDecodeError, UnicodeDecodeError), so the build fails with "
            "every setuptools",
            path=PATH,
            line=parsed.line,
            column=parsed.column,
            fails=ctx.catalogue.to_specifiers(set(ctx.catalogue.universe)),
            fails_enforced=ctx.catalogue.to_specifiers(set(ctx.catalogue.universe)),
            fix="fix the TOML at that line (a value is needed after `=`, strings are quoted, "
            "a table or key is declared once) and save the file as UTF-8",
        )
    ]


register(
    Rule(
        code="PP900",
        slug="pyproject-invalid-toml",
        family="pyproject.toml",
        summary="pyproject.toml is not valid TOML (or not UTF-8)",
        doc="""
## What it does
Parses pyproject.toml as UTF-8 TOML 1.0, as the installers do (pip's vendored `tomli`,
Python's `tomllib`), and reports the first error at its line and column.

## Why is this bad?
pip reads pyproject.toml to find the build backend and its requirements before it
installs anything; a file that is not TOML stops it with `TOMLDecodeError` (a file that is
not UTF-8, with `UnicodeDecodeError`), whatever the setuptools version and whether or not
the file has a `[build-system]` table: a pyproject.toml holding only a broken
`[tool.black]` section is enough. sapper's other pyproject.toml rules cannot read the file
either, so without this finding the verdict is `unknown`, never `builds`.

## Example
```toml
[tool.black]
line-length =
```

## Use instead
```toml
[tool.black]
line-length = 100
```

## References
- TOML 1.0.0 specification
- PEP 518: the pyproject.toml file
""",
        references=(
            Reference(title="TOML v1.0.0 specification", url="https://toml.io/en/v1.0.0"),
            Reference(
                title="PEP 518: specifying minimum build system requirements",
                url="https://peps.python.org/pep-0518/",
            ),
        ),
        example=((PATH, "[tool.black]\nline-length =\n"),),
        check=_check_toml,
        reads=frozenset({PATH}),
    )
)
