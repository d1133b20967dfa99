"""SP009 `setuppy-imports-wheel`:
setup.py imports wheel, which setuptools 70.1-70.3 build environments lack.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_py import (
    PATH,
    import_sites,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _finding,
)


def _requires_wheel(ctx: Context) -> bool:
    from ..._requirement import canonical_name, parse_requirement

    for text in ctx.pyproject.build_system.requires:
        req = parse_requirement(text)
        if req is not None and canonical_name(req.name) == "wheel":
            return True
    return False


def _check_wheel_import(ctx: Context) -> Iterable[Finding]:
    tree = ctx.setup_py.tree
    if tree is None or _requires_wheel(ctx):
        return []
    for site in import_sites(tree, target=ctx.setup_py.target):
        if site.module != "wheel" and not site.module.startswith("wheel."):
            continue
        # 70.1.0 stopped asking for wheel; 71.0.0 puts its vendored copy on sys.path.
        failing = change("ST40").failing(ctx.catalogue)
        return [
            _finding(
                ctx,
                "SP009",
                f"setup.py imports `{site.module}`, but `wheel` is not in "
                "build-system.requires: setuptools 70.1.0 stopped asking the frontend for "
                "`wheel` and only 71.0.0 put its vendored copy on sys.path, so the isolated "
                "build environment of 70.1.x-70.3.x lacks it (ModuleNotFoundError)",
                site.line,
                site.column,
                failing,
                fix="import `bdist_wheel` from `setuptools.command.bdist_wheel` (setuptools "
                ">= 70.1), or add `wheel` to build-system.requires",
            )
        ]
    return []


register(
    Rule(
        code="SP009",
        slug="setuppy-imports-wheel",
        family="setup.py",
        summary="setup.py imports wheel, which setuptools 70.1-70.3 build environments lack",
        doc="""
## What it does
Finds module-level, unguarded imports of the `wheel` package in setup.py (typically
`from wheel.bdist_wheel import bdist_wheel` to set platform tags) when `wheel` is not
listed in `build-system.requires`.

## Why is this bad?
Up to 70.0.0, setuptools' `get_requires_for_build_wheel` asked the frontend for `wheel`,
so pip installed it into the isolated build environment. setuptools 70.1.0 adopted
`bdist_wheel` and stopped asking; pip's default for projects without pyproject.toml is
only `setuptools>=40.8.0`. In 70.1.0 to 70.3.0 the import fails with
`ModuleNotFoundError: No module named 'wheel'`; from 71.0.0 setuptools appends its
vendored packages (a copy of `wheel` among them) to `sys.path`, which hides the problem
for as long as setuptools keeps vendoring `wheel`. A build capped at `setuptools<71`
(or pinned to 70.x) breaks.

## Example
```python
from setuptools import setup
from wheel.bdist_wheel import bdist_wheel

setup(name="example", version="1.0", cmdclass={"bdist_wheel": bdist_wheel})
```

## Use instead
```python
from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

setup(name="example", version="1.0", cmdclass={"bdist_wheel": bdist_wheel})
```
with `requires = ["setuptools>=70.1"]` in `[build-system]`, or keep the import and add
`wheel` to `build-system.requires`.

## References
- setuptools 70.1.0 changelog (#1386): bdist_wheel adopted, wheel no longer requested
""".strip(),
        references=(
            Reference(
                title="setuptools 70.1.0 changelog (#1386): bdist_wheel adopted from wheel",
                url="https://setuptools.pypa.io/en/latest/history.html#v70-1-0",
            ),
        ),
        example=(
            (
                PATH,
                "from setuptools import setup\nfrom wheel.bdist_wheel import bdist_wheel\n\n"
                'setup(name="example", version="1.0", cmdclass={"bdist_wheel": bdist_wheel})\n',
            ),
        ),
        check=_check_wheel_import,
        needs="setup.py",
    )
)
