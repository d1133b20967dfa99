"""SP007 `setuppy-description-newline`: setup() description contains a newline."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_py import (
    PATH,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _finding,
)


def _check_description_newline(ctx: Context) -> Iterable[Finding]:
    for kw in ctx.setup_py.keywords:
        if kw.name != "description" or not isinstance(kw.value, str):
            continue
        # setuptools' single_line() looks for "\n" only; a lone "\r" passes every release.
        if "\n" not in kw.value.strip():
            continue
        failing = change("ST15").failing(ctx.catalogue)
        return [
            _finding(
                ctx,
                "SP007",
                "`description` (the one-line Summary) contains a newline: setuptools "
                "51.3.0-51.3.2 and 59.0.1-59.3.0 fail with `ValueError: Newlines are not "
                "allowed`; later ones keep only the first line with a deprecation warning",
                kw.line,
                kw.column,
                failing,
                fix="put a one-line summary in `description` and the rest in `long_description`",
            )
        ]
    return []


register(
    Rule(
        code="SP007",
        slug="setuppy-description-newline",
        family="setup.py",
        summary="setup() description contains a newline",
        doc="""
## What it does
Finds a `description=` in `setup()` whose value (read statically) spans several lines.

## Why is this bad?
`description` becomes the one-line `Summary` of the core metadata. setuptools 51.3.0 made
a newline an error (`ValueError: newlines not allowed`) and 51.3.3 relaxed it; 59.0.1 made
it an error again and 59.4.0 relaxed it again, keeping only the first line with a
deprecation warning that says it will break in the future.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", description="An example.\\nIt does things.")
```

## Use instead
```python
from setuptools import setup

setup(
    name="example",
    version="1.0",
    description="An example.",
    long_description="It does things.",
)
```

## References
- setuptools 51.3.0 changelog (#1390), 51.3.3 (#2539)
- setuptools 59.0.0 changelog (#2870), 59.4.0 (#2893)
""".strip(),
        references=(
            Reference(
                title="setuptools 51.3.0 changelog (#1390): newlines in Summary rejected",
                url="https://setuptools.pypa.io/en/latest/history.html#v51-3-0",
            ),
            Reference(
                title="setuptools 59.4.0 changelog (#2893): newlines in Summary tolerated",
                url="https://setuptools.pypa.io/en/latest/history.html#v59-4-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                'description="An example.\\nIt does things.")\n',
            ),
        ),
        check=_check_description_newline,
        needs="setup.py",
    )
)
