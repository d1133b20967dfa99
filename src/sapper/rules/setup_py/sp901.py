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
    if found.module is not None:
        where = (
            f"setup.py imports `{found.module}`"
            if found.path == PATH
            else f"setup.py imports `{found.via_module}`, and {found.path}:{found.line} "
            f"imports `{found.module}`"
        )
        where += (
            ", which the isolated build environment does not have (pip, uv and build install "
            "only build-system.requires there: setuptools>=40.8.0 without a pyproject.toml), "
            "so it raises ModuleNotFoundError"
        )
        said = ""
        fix = (
            f"list `{found.module}`'s distribution in build-system.requires (pyproject.toml), "
            "or stop importing it from setup.py (read the version from a file instead)"
        )
    elif found.missing is not None:
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

An import that surely runs there of a module the isolated build environment lacks raises
`ModuleNotFoundError`: pip (25.3 on, which dropped the non-isolated `setup.py bdist_wheel`
path), uv and build install only `build-system.requires` (`setuptools>=40.8.0` without a
pyproject.toml). The imports of setup.py are followed into the project's modules (with
their `from . import x`, up to three modules deep): weaviate-client 3.2.1 imports its
package for the version, whose modules import `requests`; junitparser 2.1.1's import
`future`. A module counts as there when it is in the standard library, shipped at the
root or under `src/`, what setuptools brings (`pkg_resources`, `distutils`, `wheel`, and
what setuptools 71.0.0 on vendors onto `sys.path`, such as `packaging`), or named by
`build-system.requires`; with any other build requirement, any module may come with it.
Judged in sdists only, and not when setup.py changes `sys.path` or may write files; a
pyproject.toml without `[build-system]` is PP009's.

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
