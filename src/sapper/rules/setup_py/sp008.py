"""SP008 `setuppy-dry-run`:
setup.py passes dry_run= to a distutils helper (removed in setuptools 81).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ...changes import change
from ...facts.setup_py import (
    PATH,
    index_of,
    statements,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _finding,
    caught_nodes,
    keyword_items,
)

#: distutils helpers and Command methods that took ``dry_run`` until setuptools 81.
_DRY_RUN_CALLEES = frozenset(
    {
        "byte_compile",
        "copy_file",
        "copy_tree",
        "create_tree",
        "execute",
        "make_archive",
        "make_file",
        "make_tarball",
        "make_zipfile",
        "mkpath",
        "move_file",
        "new_compiler",
        "remove_tree",
        "spawn",
    }
)


#: Commands a PEP 517 wheel build runs (get_requires/metadata/build_wheel).
_BUILD_COMMANDS = frozenset(
    {
        "bdist_wheel",
        "build",
        "build_clib",
        "build_ext",
        "build_py",
        "build_scripts",
        "dist_info",
        "egg_info",
        "install",
        "install_data",
        "install_egg_info",
        "install_headers",
        "install_lib",
        "install_scripts",
    }
)


def _build_command_classes(ctx: Context, tree: ast.Module) -> set[str]:
    """Names of setup.py classes a wheel build runs: the ``cmdclass`` entries for build
    commands and the setup.py classes they derive from."""
    direct: set[str] = set()
    for pairs in keyword_items(ctx, "cmdclass"):
        for command, value in pairs:
            if command in _BUILD_COMMANDS and isinstance(value, ast.Name):
                direct.add(value.id)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    todo, seen = list(direct), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in classes:
            continue
        seen.add(name)
        todo.extend(b.id for b in classes[name].bases if isinstance(b, ast.Name))
    return seen


#: What an ``except`` clause names to catch a TypeError.
_CATCHES_TYPE_ERROR = frozenset({"TypeError", "Exception", "BaseException"})


def _check_dry_run(ctx: Context) -> Iterable[Finding]:
    from ...facts._values import func_name

    tree = ctx.setup_py.tree
    if tree is None:
        return []
    # what runs on the target: a branch that cannot run there is not read
    roots: list[ast.AST] = list(statements(tree.body, imports=False, target=ctx.setup_py.target))
    build_classes = _build_command_classes(ctx, tree)
    roots.extend(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in build_classes)
    failing = change("ST61").failing(ctx.catalogue)
    findings: list[Finding] = []
    index = index_of(tree)
    caught: set[int] | None = None
    for root in roots:
        for node in index.under(root, ast.Call):
            assert isinstance(node, ast.Call)
            name = func_name(node.func)
            if name is None or not (name in _DRY_RUN_CALLEES or name.endswith("CCompiler")):
                continue
            kw = next((k for k in node.keywords if k.arg == "dry_run"), None)
            if kw is None:
                continue
            if caught is None:
                caught = caught_nodes(tree, _CATCHES_TYPE_ERROR)
            if id(node) in caught:
                continue  # the TypeError is caught: the build goes on
            findings.append(
                _finding(
                    ctx,
                    "SP008",
                    f"`{name}(..., dry_run=...)`: setuptools 81 removed the dry_run "
                    f"parameter, so the build fails with `TypeError: {name}() got an "
                    "unexpected keyword argument 'dry_run'`",
                    kw.value.lineno,
                    kw.value.col_offset + 1,
                    failing,
                    fix="drop the `dry_run=` argument",
                )
            )
    return findings


register(
    Rule(
        code="SP008",
        slug="setuppy-dry-run",
        family="setup.py",
        summary="setup.py passes dry_run= to a distutils helper (removed in setuptools 81)",
        doc="""
## What it does
Finds calls with a `dry_run=` argument to the distutils helpers and `Command` methods that
used to take it (`copy_file`, `copy_tree`, `mkpath`, `execute`, `spawn`, `make_archive`,
`new_compiler`, compiler classes, ...). It looks at code that runs during a wheel build:
module-level code (of an `if`, the branch that runs on the target: `--python`,
`--platform`), and the classes setup.py registers in `cmdclass` for build commands
(`build_py`, `build_ext`, `egg_info`, `bdist_wheel`, `install*`, ...). A custom `clean`
command that passes `dry_run` is not reported: a wheel build never runs it; nor is a call
inside a `try` whose `except` catches the `TypeError` (`TypeError`, `Exception`, bare).

## Why is this bad?
setuptools 81.0.0 removed support for `--dry-run` and the `dry_run` parameter of the
distutils helpers (and 83.0.0 synced the same removal from pypa/distutils). Every such
call now fails with `TypeError: copy_file() got an unexpected keyword argument
'dry_run'`. Reading `self.dry_run` still works.

## Example
```python
from distutils.dir_util import mkpath

from setuptools import setup

mkpath("build/generated", dry_run=0)
setup(name="example", version="1.0")
```

## Use instead
```python
from distutils.dir_util import mkpath

from setuptools import setup

mkpath("build/generated")
setup(name="example", version="1.0")
```

## References
- setuptools 81.0.0 changelog (#4872): dry_run removed
- setuptools 83.0.0 changelog (pypa/distutils#334)
""".strip(),
        references=(
            Reference(
                title="setuptools 81.0.0 changelog (#4872): --dry-run removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v81-0-0",
            ),
            Reference(
                title="pypa/setuptools#5184: dry_run removal not in the changelog for helpers",
                url="https://github.com/pypa/setuptools/issues/5184",
            ),
        ),
        example=(
            (
                PATH,
                "from distutils.dir_util import mkpath\n\nfrom setuptools import setup\n\n"
                'mkpath("build/generated", dry_run=0)\nsetup(name="example", version="1.0")\n',
            ),
        ),
        check=_check_dry_run,
        needs="setup.py",
    )
)
