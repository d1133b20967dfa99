"""PP009 `pyproject-without-build-system`:
pyproject.toml declares no build requirements: a [build-system] table without `requires`
(which the installers refuse), or no table while setup.py imports a third-party module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...facts.pyproject import DEFAULT_REQUIRES
from ...facts.setup_py import condition, import_sites
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import make_finding
from ._shared import (
    PATH,
    _ref,
)

if TYPE_CHECKING:
    from ...facts._values import Target

#: What pip's PEP 517 fallback build environment holds (``setuptools>=40.8.0``, and
#: ``wheel`` for older pip; the SP rules cover ``wheel``), plus what setuptools brings along.
_FALLBACK_PROVIDES = frozenset(
    {"setuptools", "wheel", "pkg_resources", "distutils", "_distutils_hack"}
)


#: Standard-library modules removed in recent Pythons that an older build interpreter has.
_OLD_STDLIB = frozenset(
    {"imp", "asynchat", "asyncore", "smtpd", "distutils", "cgi", "cgitb", "crypt", "imghdr",
     "mailcap", "nntplib", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
     "aifc", "audioop", "chunk", "msilib", "nis", "ossaudiodev", "lib2to3", "tkinter"}
)  # fmt: skip


def _local_names(ctx: Context) -> set[str]:
    """Module names the project itself provides (top-level or one directory down, since
    setup.py often puts ``src`` or ``lib`` on sys.path)."""
    out: set[str] = set()
    for name in ctx.files.names:
        parts = name.split("/")
        for i, part in enumerate(parts[:3]):
            last = i == len(parts) - 1
            stem = part.rsplit(".", 1)[0] if last and "." in part else part
            if stem.isidentifier():
                out.add(stem)
            if last:
                break
    return out


def _decided_imports(body: list[ast.stmt], target: Target) -> list[ast.stmt]:
    """The module-level imports of ``body`` that run on ``target``, through the branches of
    the ``if`` statements whose test is decided there."""
    found: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            truth = condition(node.test, target)
            if truth is not None:
                found += _decided_imports(node.body if truth else node.orelse, target)
    return found


def _third_party_imports(ctx: Context) -> list[tuple[str, int]]:
    """(top-level module, line of its first import) of setup.py's unconditional module-level
    imports of modules that neither the standard library, nor pip's fallback build
    environment, nor the project itself provides."""
    import sys

    tree = ctx.setup_py.tree
    if tree is None:
        return []
    # Only imports that surely run on the target: unconditional ones, and those in the
    # branch of an `if` decided there (`if sys.platform == "win32":`); an `if` that cannot be
    # decided usually depends on the command (`if "py2exe" in sys.argv: import py2exe`).
    top_level = ast.Module(body=_decided_imports(tree.body, ctx.setup_py.target), type_ignores=[])
    stdlib = set(sys.stdlib_module_names) | _OLD_STDLIB
    local = _local_names(ctx)
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for site in import_sites(top_level):
        top = site.module.split(".")[0]
        if top in seen or top in stdlib or top in _FALLBACK_PROVIDES or top in local:
            continue
        seen.add(top)
        found.append((top, site.line))
    return found


def _check_without_build_system(ctx: Context) -> Iterable[Finding]:
    data = ctx.pyproject.data
    if not isinstance(data, dict):
        return []
    table = data.get("build-system")
    if isinstance(table, dict):
        # The frontends stop at the table before setup.py runs, so one finding is the whole
        # cause; the imports setup.py needs go into its fix.
        problem = _table_problem(table)
        return [] if problem is None else [_table_finding(ctx, table, problem)]
    return [
        make_finding(
            ctx,
            "PP009",
            f"setup.py imports `{top}` at module level and pyproject.toml has no "
            "[build-system] table: pip builds in an isolated environment holding only "
            f"setuptools (and wheel), so `import {top}` fails with ModuleNotFoundError "
            "whatever the setuptools version",
            path="setup.py",
            line=line,
            fails=set(ctx.catalogue.universe),
            fix=f'add [build-system] with requires = ["setuptools", "<the distribution '
            f'that provides {top}>"] and build-backend = "setuptools.build_meta"',
        )
        for top, line in _third_party_imports(ctx)
    ]


#: What the frontends say of a [build-system] table they stop at, whatever setuptools does.
_TABLE_PROBLEMS = {
    "missing": 'has a [build-system] table without `requires`, which pip ("The '
    '[build-system] table is missing the mandatory `requires` key"), uv ("missing field '
    '`requires`") and build ("`requires` is a required property") refuse',
    "not strings": "has a `build-system.requires` that is not a list of strings, which pip "
    '("It is not a list of strings"), uv ("invalid type ..., expected a sequence") and '
    'build ("`requires` must be an array of strings") refuse',
    "empty": "has an empty `build-system.requires`, so the isolated build environment holds "
    'no setuptools: pip and uv stop with "ModuleNotFoundError: No module named '
    "'setuptools'\"",
}


def _table_problem(table: dict[str, object]) -> str | None:
    """Which of :data:`_TABLE_PROBLEMS` the [build-system] table has, if any. An empty
    ``requires`` matters only with setuptools' backend, or none (which pip and uv take as
    setuptools' legacy backend): another backend, or one in the tree, may need nothing."""
    if "requires" not in table:
        return "missing"
    requires = table["requires"]
    if not (isinstance(requires, list) and all(isinstance(r, str) for r in requires)):
        return "not strings"
    backend = table.get("build-backend")
    setuptools = backend is None or (isinstance(backend, str) and backend.startswith("setuptools."))
    if not requires and setuptools and "backend-path" not in table:
        return "empty"
    return None


def _table_finding(ctx: Context, table: dict[str, object], problem: str) -> Finding:
    needed = "".join(
        f', "<the distribution that provides {top}>"' for top, _ in _third_party_imports(ctx)
    )
    default = ", ".join(f'"{r}"' for r in DEFAULT_REQUIRES)
    requires = f"requires = [{default}{needed}]"
    return make_finding(
        ctx,
        "PP009",
        f"pyproject.toml {_TABLE_PROBLEMS[problem]} before any setuptools runs, whatever the "
        "setuptools version",
        line=("requires" in table and ctx.pyproject.locate("build-system", "requires"))
        or ctx.pyproject.locate("build-system"),
        fails=set(ctx.catalogue.universe),
        fix=f"add {requires} to [build-system]" if problem == "missing" else f"write {requires}",
    )


register(
    Rule(
        code="PP009",
        slug="pyproject-without-build-system",
        family="pyproject.toml",
        summary=(
            "pyproject.toml declares no build requirements: [build-system] without "
            "`requires` (or an empty one for setuptools), or none while setup.py imports a "
            "third-party module"
        ),
        doc="""
## What it does
Reports a `[build-system]` table without `requires` in pyproject.toml, at its header, and an
empty `requires` with setuptools' backend (or none), at its line. When
pyproject.toml has no `[build-system]` table, finds the module-level imports that surely
run in setup.py (not under `try` or a function; under an `if` only in the branch that runs
on the target, `--python` and `--platform`: `if sys.platform == "win32":`) of modules that
are neither in the standard library, nor setuptools itself, nor part of the project.

## Why is this bad?
A pyproject.toml, even one holding only `[tool.black]`, switches pip to PEP 517 builds in
an isolated environment that contains only what `build-system.requires` lists, by default
`setuptools>=40.8.0` (and `wheel` in older pip). setuptools 43.0.0 (#1634) started
shipping pyproject.toml in sdists, so many sdists got this switch without their authors
noticing: `import numpy` or `from Cython.Build import cythonize` in setup.py then fails
with `ModuleNotFoundError` before `setup()` runs, with every setuptools version.
`setup_requires` does not help, since the import comes first.

A `[build-system]` table without `requires` is worse: PEP 518 makes the key mandatory, and
the installers refuse the project before they install anything or run setup.py, whatever
setup.py does and whatever the setuptools version: pip ("The [build-system] table is
missing the mandatory `requires` key", pip 23.2.1), uv ("missing field `requires`", uv
0.13.9) and build ("`requires` is a required property", build 1.6.1). One finding is made
for the table; the third-party modules setup.py imports are named in its fix, since they
belong in the same `requires`. `requires = []` is a valid table, but with setuptools'
backend (or no `build-backend`, which pip and uv take as setuptools' legacy backend) the
isolated environment it makes holds no setuptools, and pip and uv stop with
`ModuleNotFoundError: No module named 'setuptools'` (pip 23.2.1, uv 0.13.9): reported too.
So is a `requires` that is not a list of strings (`requires = "setuptools"`), which pip ("It
is not a list of strings"), uv and build refuse outright.

## Example
```toml
[tool.black]
line-length = 100
```
with
```python
import numpy
from setuptools import setup

setup(name="example", version="1.0", include_dirs=[numpy.get_include()])
```

## Use instead
```toml
[build-system]
requires = ["setuptools", "numpy"]
build-backend = "setuptools.build_meta"
```

## References
- setuptools 43.0.0 changelog (#1634): pyproject.toml included in sdists
- PEP 518: build-system table and its default
""",
        references=(
            _ref("43.0.0", "pyproject.toml included in sdists (#1634)"),
            Reference(
                title="PEP 518: specifying minimum build system requirements",
                url="https://peps.python.org/pep-0518/",
            ),
        ),
        example=(
            (PATH, "[tool.black]\nline-length = 100\n"),
            (
                "setup.py",
                "import numpy\nfrom setuptools import setup\n\n"
                'setup(name="example", version="1.0", include_dirs=[numpy.get_include()])\n',
            ),
        ),
        check=_check_without_build_system,
        needs="pyproject.toml",
    )
)
