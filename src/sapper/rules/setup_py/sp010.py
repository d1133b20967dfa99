"""SP010 `setuppy-distutils-build-py`: cmdclass build_py derives from distutils, not setuptools."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ...changes import change
from ...facts.setup_py import (
    _TRY_NODES,
    PATH,
    statements,
)
from ...facts.setup_py import (
    dotted as _dotted,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _finding,
    keyword_items,
)

if TYPE_CHECKING:
    from ...facts._values import Target


def _imports_only(body: list[ast.stmt], ships: Callable[[str], bool]) -> bool:
    """Whether ``body`` is nothing but imports of setuptools modules that ``ships``."""
    for stmt in body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            modules = [stmt.module]
        elif isinstance(stmt, ast.Import):
            modules = [alias.name for alias in stmt.names]
        else:
            return False
        if not all(m.split(".")[0] == "setuptools" and ships(m) for m in modules):
            return False
    return True


def _imported_names(
    tree: ast.Module, ships: Callable[[str], bool], target: Target | None = None
) -> dict[str, str]:
    """Local name -> dotted origin for module-level imports that run on ``target`` (an
    ``if`` branch that cannot run there is not read).

    The imports of an ``except`` clause are left out when its ``try`` body only imports
    setuptools modules that ``ships``: that body never fails, so the clause never runs
    (``try: from setuptools.command.build_py import build_py`` / ``except ImportError:
    from distutils.command.build_py import build_py``)."""
    unreached = {
        id(n)
        for t in ast.walk(tree)
        if isinstance(t, _TRY_NODES) and _imports_only(t.body, ships)
        for handler in t.handlers
        for n in ast.walk(handler)
    }
    names: dict[str, str] = {}
    for node in statements(tree.body, imports=False, target=target):
        if id(node) in unreached:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
    return names


def _origin(node: ast.expr, imported: Mapping[str, str]) -> str | None:
    """The dotted name ``node`` stands for, through the module's imports (None: no name)."""
    dotted = _dotted(node)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    return imported.get(head, head) + (f".{rest}" if rest else "")


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(
        isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == name for s in cls.body
    )


def _check_distutils_build_py(ctx: Context) -> Iterable[Finding]:
    tree = ctx.setup_py.tree
    if tree is None:
        return []
    include = any(
        kw.name == "include_package_data" and kw.value is True for kw in ctx.setup_py.keywords
    )
    if not include:
        include = any(
            item.section == "options"
            and item.key == "include_package_data"
            and item.value.strip().lower() in {"1", "true", "yes", "on"}
            for item in ctx.setup_cfg.values_partial
        )
    if not include:
        return []
    failing = change("ST20").failing(ctx.catalogue)
    imported = _imported_names(tree, lambda m: not ctx.missing_in(m) & failing, ctx.setup_py.target)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def lacks_manifest_method(value: ast.expr) -> bool:
        """Whether ``value`` is distutils' build_py or derives from it, without
        `get_data_files_without_manifest` (which setuptools calls, 58.5.3 on if hasattr()):
        setuptools' build_py defines it, so a class that also derives from that, or defines
        the method itself, is fine. Local base classes are followed up to 8 levels."""
        reached = [value]
        local: list[ast.ClassDef] = []
        visited: set[str] = set()
        frontier = [value]
        for _ in range(8):
            names = [n.id for n in frontier if isinstance(n, ast.Name) and n.id in classes]
            frontier = []
            for name in names:
                if name not in visited:
                    visited.add(name)
                    local.append(classes[name])
                    frontier.extend(classes[name].bases)
            reached.extend(frontier)
        origins = {_origin(n, imported) for n in reached}
        return (
            "distutils.command.build_py.build_py" in origins
            and "setuptools.command.build_py.build_py" not in origins
            and not any(_defines(c, "get_data_files_without_manifest") for c in local)
        )

    for pairs in keyword_items(ctx, "cmdclass"):
        for key, value in pairs:
            if key != "build_py":
                continue
            if lacks_manifest_method(value):
                return [
                    _finding(
                        ctx,
                        "SP010",
                        "cmdclass['build_py'] is distutils' build_py (not setuptools') with "
                        "include_package_data: setuptools 58.5.0-58.5.2 fail with "
                        "`AttributeError: get_data_files_without_manifest`; later releases "
                        "warn that custom commands must inherit from setuptools",
                        value.lineno,
                        value.col_offset + 1,
                        failing,
                        fix="derive the command from `setuptools.command.build_py.build_py`",
                    )
                ]
    return []


register(
    Rule(
        code="SP010",
        slug="setuppy-distutils-build-py",
        family="setup.py",
        summary="cmdclass build_py derives from distutils, not setuptools",
        doc="""
## What it does
Finds a `cmdclass={"build_py": ...}` entry that is, or derives from,
`distutils.command.build_py.build_py` instead of setuptools' `build_py`, in a project that
sets `include_package_data`. A class that also has setuptools' `build_py` among its bases,
or defines `get_data_files_without_manifest` itself, is fine.

## Why is this bad?
setuptools 58.5.0 made `sdist`/`egg_info` call `get_data_files_without_manifest` on the
`build_py` command, which distutils' class lacks: the build fails with
`AttributeError: get_data_files_without_manifest` in 58.5.0 to 58.5.2. 58.5.3 added a
fallback, and later releases deprecate custom commands that inherit straight from
distutils ("`build_py` command does not inherit from setuptools' `build_py`").

## Example
```python
from distutils.command.build_py import build_py

from setuptools import setup

setup(name="example", version="1.0", include_package_data=True,
      cmdclass={"build_py": build_py})
```

## Use instead
```python
from setuptools import setup
from setuptools.command.build_py import build_py

setup(name="example", version="1.0", include_package_data=True,
      cmdclass={"build_py": build_py})
```

## References
- setuptools 58.5.0 changelog (#1461); 58.5.3 (#2849); 59.0.0 (#2856)
""".strip(),
        references=(
            Reference(
                title="setuptools 58.5.3 changelog (#2849): fallback for distutils build_py",
                url="https://setuptools.pypa.io/en/latest/history.html#v58-5-3",
            ),
        ),
        example=(
            (
                PATH,
                "from distutils.command.build_py import build_py\n\nfrom setuptools import "
                'setup\n\nsetup(name="example", version="1.0", packages=["example"],\n'
                '      include_package_data=True, cmdclass={"build_py": build_py})\n',
            ),
            # setuptools 58.5.0-58.5.2 fail only when there is a package to collect data for.
            ("example/__init__.py", ""),
        ),
        check=_check_distutils_build_py,
        needs="setup.py",
    )
)
