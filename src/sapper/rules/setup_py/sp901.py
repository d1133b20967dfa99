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
    fix = (
        "the sdist cannot be built: install the project as its error says (another "
        "index, a wheel), or build another release"
    )
    if found.missing is not None:
        where = (
            f"setup.py reads `{found.missing}` ({found.path}:{found.line}), a file the sdist "
            "does not ship, so it raises FileNotFoundError"
        )
        if found.via_line != found.line or found.via_module is not None:
            where += f" (reached from setup.py:{found.via_line})"
        fix = (
            f"the sdist lacks `{found.missing}`: ship it (MANIFEST.in, or the project's "
            "include list) in a new release; meanwhile build from the project's repository"
        )
    elif found.via_module is None and found.path == PATH and found.line == found.via_line:
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
            fix=fix,
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

What a statement surely evaluates before its body counts as well: a `with` header, an
`if` test, a `for` iterable, an assigned value (`VERSION = get_version()` follows the
function). There, reading a file the sdist does not ship (`open("version.sbt")`,
`io.open`, `codecs.open`, `Path(p).open()`, `read_text()`, `read_bytes()`, with a mode
that neither writes nor creates) raises `FileNotFoundError`, when sapper knows the path:
a string, relative to the project root (the build's working directory), or joined to
`os.path.dirname(__file__)` / `Path(__file__).parent`. This is judged in sdists only
(a tree with `PKG-INFO`): a checkout may lack files its VCS ignores and sapper skips
`build/`, `.git/` and the like, so a directory without `PKG-INFO` is never reported. Not
reported either: a read under `try` or an undecided `if` (`os.path.exists(...)`), a
directory, a path outside the root, a read in a project module below the root, and any
module that may create files first (a write, a copy, a subprocess, `os.chdir`).

## Why is this bad?
Every PEP 517 build runs setup.py (`get_requires_for_build_wheel` first), so an exception
it always raises fails the build with every setuptools release: pip, uv and build all stop
there. Placeholder releases do this on purpose (the `nvidia-*-cu12 0.0.1.dev5` sdists tell
the user to install from NVIDIA's index); the verdict says so instead of "builds". A file
left out of the sdist does it by accident (delta-spark 4.4.1 reads `version.sbt`, which
lives in its repository only).

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
