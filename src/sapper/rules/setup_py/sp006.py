"""SP006 `setuppy-invalid-requirement`:
Requirement or python_requires that modern packaging rejects.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_py import (
    PATH,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _REQUIREMENT_KEYWORDS,
    _finding,
)


def _check_invalid_requirements(ctx: Context) -> Iterable[Finding]:
    from ...facts._values import requirement_lines, requirement_problem, specifier_problem

    findings: list[Finding] = []
    everywhere = ctx.catalogue.between()
    strict = change("ST30").failing(ctx.catalogue)
    for kw in ctx.setup_py.keywords:
        value = kw.value
        if kw.name == "python_requires" and isinstance(value, str):
            problem = specifier_problem(value.strip())
            if problem:
                findings.append(
                    _finding(
                        ctx,
                        "SP006",
                        f"`python_requires={value!r}` is not a valid specifier for "
                        f"`packaging` ({problem}); setuptools 67 and later fail with "
                        "\"'python_requires' must be a string containing valid version "
                        'specifiers"',
                        kw.line,
                        kw.column,
                        strict,
                        fix="write a PEP 440 specifier such as `>=3.6`",
                    )
                )
            continue
        groups: list[tuple[str, object]] = []
        if kw.name in _REQUIREMENT_KEYWORDS and isinstance(value, str | list):
            groups.append((kw.name, value))
        elif kw.name == "extras_require" and isinstance(value, dict):
            groups.extend((f"extras_require[{k!r}]", v) for k, v in value.items())
        for where, reqs in groups:
            if not isinstance(reqs, str | list) or not all(isinstance(r, str) for r in reqs):
                continue
            for req in requirement_lines(reqs):
                problem = requirement_problem(req)
                if problem is None:
                    continue
                findings.append(
                    _finding(
                        ctx,
                        "SP006",
                        f"{where} holds {req!r}, which is not a PEP 508 requirement "
                        f"({problem}); setuptools 67 and later reject it, and so does "
                        "the `wheel` package that builds the metadata with older setuptools",
                        kw.line,
                        kw.column,
                        everywhere,
                        fix="write PEP 440/508 requirements (no pip options, no "
                        "`-r`/`-e` lines, versions such as `>=2012.6`)",
                    )
                )
                break
    return findings


register(
    Rule(
        code="SP006",
        slug="setuppy-invalid-requirement",
        family="setup.py",
        summary="Requirement or python_requires that modern packaging rejects",
        doc="""
## What it does
Parses every string of `install_requires`, `setup_requires`, `extras_require` and
`python_requires` in `setup()` with `packaging`, as setuptools does since 67.0.0. Values
are followed as setup.py binds them: literals, names bound at module level or in the
function that calls `setup()`, dicts built step by step (`extras["cv"] = [...]`),
`setup(**kwargs)`, and requirement files read with `open(...).read()`.

## Why is this bad?
setuptools 67.0.0 vendored packaging 23, which only accepts PEP 508 requirements and PEP
440 specifiers: `pytz>=2012f`, `foo>=1.0.*`, `-r requirements.txt` or a bare URL fail the
build with `'install_requires' must be a string or list of strings containing valid
project/version requirement specifiers`. With older setuptools, pip installs the newest
`wheel` package next to it, and wheel's own (strict) packaging rejects the same
requirements when it writes the metadata; `python_requires` was only checked leniently
before 67.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires=["pytz>=2012f"])
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires=["pytz>=2012.6"])
```

## References
- setuptools 67.0.0 changelog (#3790): strict requirement parsing
""".strip(),
        references=(
            Reference(
                title="setuptools 67.0.0 changelog (#3790): strict requirement parsing",
                url="https://setuptools.pypa.io/en/latest/history.html#v67-0-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                'install_requires=["pytz>=2012f"])\n',
            ),
        ),
        check=_check_invalid_requirements,
        needs="setup.py",
    )
)
