"""SP901 `setuppy-always-raises`: setup.py raises (or exits with a failure) on every build.

Not a setuptools change: the error comes from the project's own code, before or after
setuptools does its part, so every release fails (placeholder sdists that tell the user to
install from another index are the usual case). Like SP900, the verdict says "fails with
every setuptools" on the target.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...facts.raises import sure_failure
from ...facts.setup_py import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import _finding


def _check_raises(ctx: Context) -> Iterable[Finding]:
    if ctx.setup_py.tree is None:
        return []
    found = sure_failure(ctx.setup_py, ctx.pyproject)
    if found is None:
        return []
    python = ".".join(map(str, ctx.target_python))
    said = f": {found.message}" if found.message else ""
    if found.via_module is None and found.path == PATH and found.line == found.via_line:
        where = f"setup.py raises {found.exception} at module level"
    elif found.via_module is None:
        where = (
            f"setup.py calls a function that raises {found.exception} ({found.path}:{found.line})"
        )
    else:
        where = (
            f"setup.py imports `{found.via_module}`, whose module body raises "
            f"{found.exception} ({found.path}:{found.line})"
        )
    return [
        _finding(
            ctx,
            "SP901",
            f"{where} on every wheel build{said}; so every build fails, with every "
            f"setuptools on Python {python}",
            found.via_line,
            found.via_column,
            set(ctx.catalogue.universe),
            fix="the sdist cannot be built: install the project as its error says (another "
            "index, a wheel), or build another release",
        )
    ]


register(
    Rule(
        code="SP901",
        slug="setuppy-always-raises",
        family="setup.py",
        summary="setup.py raises on every build",
        doc="""
## What it does
Finds a `raise` (or `sys.exit()` with a failure status: a non-zero number or a message)
that runs every time a wheel is built from the tree: in setup.py's module body, in a
function setup.py defines and calls at module level, or in the module body of a project
module setup.py imports there (where setup.py's directory is on `sys.path`). Only code
that surely runs counts: an `if` is followed into the branch its test decides on the
target (`sys.platform`, `sys.version_info`, `__name__ == "__main__"`, true when
setuptools' backend runs setup.py, and `sys.argv[1] == "sdist"` or `"sdist" in sys.argv`,
false in a wheel build, whose commands are `egg_info`, `dist_info` and `bdist_wheel`);
nothing under `try`, `with`, a loop, or a branch whose test is not decided; the search
stops at the first statement that may end the module early. The message is read where it
is a string or a file the sdist ships (`open("ERROR.txt").read()`).

## Why is this bad?
Every PEP 517 build runs setup.py (`get_requires_for_build_wheel` first), so an exception
it always raises fails the build with every setuptools release: pip, uv and build all stop
there. Placeholder releases do this on purpose (the `nvidia-*-cu12 0.0.1.dev5` sdists tell
the user to install from NVIDIA's index); the verdict says so instead of "builds".

## Example
```python
from setuptools import setup

raise RuntimeError("install this package from https://pypi.example.org/simple")
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0")
```

## References
- setuptools' PEP 517 backend runs setup.py with `__name__ == "__main__"`
""",
        references=(
            Reference(
                title="setuptools: build_meta, the PEP 517 backend that runs setup.py",
                url="https://setuptools.pypa.io/en/latest/build_meta.html",
            ),
        ),
        example=(
            (
                PATH,
                "from setuptools import setup\n\n"
                'raise RuntimeError("install this package from '
                'https://pypi.example.org/simple")\n',
            ),
        ),
        check=_check_raises,
        needs="setup.py",
    )
)
