"""SP900 `setuppy-syntax-error`: setup.py does not compile on the build's Python.

Not a setuptools change: the build backend runs setup.py, and Python stops at the syntax
before setuptools does anything, whatever its version. The 900s are the files sapper
cannot read at all (as pycodestyle's E9 codes).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...facts.setup_py import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import _finding


def _check_syntax(ctx: Context) -> Iterable[Finding]:
    problem = ctx.setup_py.syntax_error(ctx.target_python)
    if problem is None or not problem.certain:
        return _check_imported_modules(ctx)
    where = f"line {problem.line}: " if problem.line is not None else ""
    return [
        _finding(
            ctx,
            "SP900",
            f"setup.py does not compile on Python {problem.python} ({where}SyntaxError: "
            f"{problem.message}); every build runs setup.py, so it fails with every "
            f"setuptools on Python {problem.python}",
            problem.line,
            problem.column,
            set(ctx.catalogue.universe),
            fix="port setup.py to Python 3 (`print(...)`, `except E as e`, `0o777`), or "
            "build with a Python whose grammar it uses (`--python`)",
        )
    ]


def _check_imported_modules(ctx: Context) -> list[Finding]:
    """The project modules setup.py imports (and the build therefore runs) that do not
    compile on the build's Python: the import raises SyntaxError, which no ``except
    ImportError`` catches."""
    from ...facts.project_modules import project_modules
    from ...facts.setup_py import syntax_problem

    for module in project_modules(ctx.setup_py, ctx.pyproject):
        problem = syntax_problem(ctx.files.files.get(module.path), ctx.target_python)
        if problem is None or not problem.certain:
            continue
        where = f"{module.path}:{problem.line}" if problem.line is not None else module.path
        return [
            _finding(
                ctx,
                "SP900",
                f"setup.py imports `{module.site.module}`, and {where} does not compile on "
                f"Python {problem.python} (SyntaxError: {problem.message}); every build runs "
                f"setup.py, so it fails with every setuptools on Python {problem.python}",
                module.site.line,
                module.site.column,
                set(ctx.catalogue.universe),
                fix=f"port {module.path} to Python {problem.python[0]}, or read what setup.py "
                "needs from it without importing it (a regular expression over its text)",
            )
        ]
    return []


register(
    Rule(
        code="SP900",
        slug="setuppy-syntax-error",
        family="setup.py",
        summary="setup.py does not compile on the build's Python",
        doc="""
## What it does
Compiles setup.py, without running it, with the grammar of the Python the verdict is for
(`--python X.Y`; by default the interpreter sapper runs on). For an older Python it uses
`ast.parse(feature_version=...)`, which rejects the syntax that Python lacks (`:=` before
3.8, `match` before 3.10, parenthesised context managers before 3.9, ...); it is best
effort, and a file that passes is not proof. When the Python is newer than the one
sapper runs on, a rejection is not certain: no finding, and the verdict is `unknown`.
Python 2 grammar is not modelled (a verdict for `--python 2.7` on a file Python 3 cannot
read is `unknown`).

The project modules setup.py imports are compiled the same way (`from mypkg import
__version__` runs `mypkg/__init__.py`, and what it imports in turn), where setup.py's
directory is on `sys.path` (the legacy backend, or setup.py edits `sys.path`) and the import
surely runs (module level, the branch that runs on the target, no working `except
ImportError` guard): the finding is at the import in setup.py and names the module's
file:line.

## Why is this bad?
Every PEP 517 build of a setuptools project runs setup.py (`setuptools.build_meta` and
its `__legacy__` backend `exec` its text), so a `SyntaxError` stops the build before
setuptools reads anything: the build fails with every setuptools release on that Python.
The usual cause is an old sdist whose setup.py is Python 2 (`print "..."`,
`except Error, e:`, `0777`), often beside `use_2to3=True`. Since the build fails
before any other rule's practice matters, the other setup.py rules cannot read the file:
the verdict never says "builds" for such a tree. A project module that does not compile
raises `SyntaxError` when setup.py imports it, which an `except ImportError` does not catch.

## Example
```python
from setuptools import setup

print "building"
setup(name="example", version="1.0")
```

## Use instead
```python
from setuptools import setup

print("building")
setup(name="example", version="1.0")
```

## References
- What's New In Python 3.0: print is a function
- `ast.parse` and its `feature_version` argument
""",
        references=(
            Reference(
                title="What's New In Python 3.0: print is a function",
                url="https://docs.python.org/3/whatsnew/3.0.html#print-is-a-function",
            ),
            Reference(
                title="Python documentation: ast.parse and feature_version",
                url="https://docs.python.org/3/library/ast.html#ast.parse",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nprint "building"\n'
                'setup(name="example", version="1.0")\n',
            ),
        ),
        check=_check_syntax,
        needs="setup.py",
    )
)
