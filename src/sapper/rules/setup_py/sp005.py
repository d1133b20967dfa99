"""SP005 `setuppy-invalid-version`: setup() version is not a PEP 440 version."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_py import (
    PATH,
    Keyword,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _finding,
)


def _version_value(ctx: Context) -> tuple[Keyword, str] | None:
    for kw in ctx.setup_py.keywords:
        if kw.name != "version":
            continue
        # A computed value is not checked; that includes setuptools.sic(...), which
        # bypasses normalisation on purpose (resolve() never sees through a sic() call).
        if isinstance(kw.value, bool) or not isinstance(kw.value, str | int | float):
            return None
        return kw, str(kw.value)
    return None


def _check_invalid_version(ctx: Context) -> Iterable[Finding]:
    from ...facts._values import version_problem

    found = _version_value(ctx)
    if found is None:
        return []
    kw, text = found
    problem = version_problem(text.strip())
    if problem is None:
        return []
    return [
        _finding(
            ctx,
            "SP005",
            f"version {text.strip()!r} is not a PEP 440 version: setuptools 66 and later fail "
            f"with `InvalidVersion: {problem}`",
            kw.line,
            kw.column,
            change("ST21").failing(ctx.catalogue),
            fix="use a PEP 440 version (1.0.0.dev1, 1.0.0+local, 1.0.0rc1, ...)",
        )
    ]


register(
    Rule(
        code="SP005",
        slug="setuppy-invalid-version",
        family="setup.py",
        summary="setup() version is not a PEP 440 version",
        doc="""
## What it does
Finds a `version=` in `setup()` that is not a valid PEP 440 version. The value is read
statically, followed as setup.py binds it: literals, names bound at module level or in
the function that calls `setup()`, `exec()` of a version file the sdist ships, and text
read from files in the tree.

## Why is this bad?
setuptools 66.0.0 removed support for versions that do not comply with PEP 440; the
build fails with `InvalidVersion: Invalid version: '1.0.0-SNAPSHOT'` (from 69.0.0 already
in `Distribution.__init__`). Before 66 the version was kept with a warning.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0.0-SNAPSHOT")
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0.0.dev0")
```

## References
- setuptools 66.0.0 changelog (#2497): non-PEP 440 versions removed
- setuptools 69.0.0 changelog (#4066)
""".strip(),
        references=(
            Reference(
                title="setuptools 66.0.0 changelog (#2497): non-PEP 440 versions removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v66-0-0",
            ),
            Reference(
                title="setuptools 69.0.0 changelog (#4066)",
                url="https://setuptools.pypa.io/en/latest/history.html#v69-0-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0.0-SNAPSHOT")\n',
            ),
        ),
        check=_check_invalid_version,
        needs="setup.py",
    )
)
