"""SP001 `setuppy-removed-module`: setup.py imports a module that setuptools removed."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ...facts.setup_py import (
    PATH,
    import_sites,
    local_files,
    relative_import_files,
    sys_path_modified,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register

_ADVICE = {
    "pkg_resources": (
        "use importlib.metadata (versions, entry points), importlib.resources (package "
        "data) and packaging.version; or pin `setuptools<82` in build-system.requires"
    ),
    "setuptools.command.test": "drop the `test` command; run the tests with pytest or tox",
    "setuptools.extern": "import `packaging` (add it to build-system.requires) directly",
    "setuptools.dep_util": "use `setuptools.modified`",
    "setuptools.sandbox": "run the code in a subprocess instead of `setuptools.sandbox`",
    "setuptools.package_index": "nothing replaces it; download with pip or urllib",
}


def _check_removed_imports(ctx: Context) -> Iterable[Finding]:
    tree = ctx.setup_py.tree
    if tree is None:
        return []
    sites = list(ctx.setup_py.import_sites)  # a guard whose fallback fails does not count
    bootstrap = ctx.setup_py.ez_setup_bootstrap
    if bootstrap is not None:
        sites.insert(0, bootstrap)
    cat = ctx.catalogue
    findings: list[Finding] = []
    seen: set[str] = set()
    lines: set[int] = set()
    for site in sites:
        top = site.module.split(".")[0]
        if top not in ("setuptools", "pkg_resources", "distutils"):
            continue
        if site.module in seen or site.line in lines:
            continue
        missing = ctx.missing_in(site.module)
        if not missing:
            continue
        seen.add(site.module)
        lines.add(site.line)
        fails = cat.to_specifiers(missing)
        advice = next(
            (text for mod, text in _ADVICE.items() if site.module.startswith(mod)),
            "remove the import or pin a setuptools that ships it in build-system.requires",
        )
        what = f"setup.py imports `{site.module}`, which"
        if site is bootstrap:
            what = (
                "setup.py calls ez_setup's `use_setuptools()`, which imports `pkg_resources` "
                "(without it, it downloads an old setuptools that cannot be fetched), which"
            )
            advice = "drop ez_setup.py and the `use_setuptools()` call"
        findings.append(
            ctx.report(
                code="SP001",
                message=(
                    f"{what} not every setuptools release ships (ModuleNotFoundError); {advice}"
                ),
                path=PATH,
                line=site.line,
                column=site.column,
                fails=fails,
                fails_enforced=fails,
                fix=None,
            )
        )
    findings.extend(_removed_through_local_imports(ctx, tree, seen))
    return findings


def _removed_through_local_imports(ctx: Context, tree: ast.Module, seen: set[str]) -> list[Finding]:
    """setup.py imports the project's own package (``from mypkg import __version__``),
    and that package imports a removed module at module level: the build fails the same.

    Followed only where setup.py's directory is on ``sys.path``: with the legacy backend
    (no ``build-backend``), or when setup.py edits ``sys.path`` itself."""
    from ...facts.pyproject import LEGACY_BACKEND

    legacy = ctx.pyproject.build_system.backend == LEGACY_BACKEND
    if not (legacy or sys_path_modified(tree)):
        return []
    roots = ("", "src", "lib")
    cat = ctx.catalogue
    findings: list[Finding] = []
    available, target = ctx.setup_py.available, ctx.setup_py.target
    visited: set[str] = set()  # every project module is read once, to any depth
    for site in import_sites(tree, available, target):
        top = site.module.split(".")[0]
        if top in ("setuptools", "pkg_resources", "distutils"):
            continue
        todo = list(local_files(ctx.files.files, site.module, roots))
        while todo:
            path = todo.pop(0)
            if path in visited:
                continue
            visited.add(path)
            module_tree = ctx.setup_py.module(path)
            if module_tree is None:
                continue
            # `from . import x` runs only in a package (a directory with an __init__.py);
            # in a top-level module Python raises ImportError, whatever setuptools is.
            package = path.rpartition("/")[0]
            in_package = f"{package}/__init__.py" in ctx.files.files
            for inner in import_sites(module_tree, available, target):
                name = inner.module
                inner_top = name.split(".")[0]
                if inner_top in ("setuptools", "pkg_resources", "distutils"):
                    if name in seen:
                        continue
                    missing = ctx.missing_in(name)
                    if not missing:
                        continue
                    seen.add(name)
                    fails = cat.to_specifiers(missing)
                    findings.append(
                        ctx.report(
                            code="SP001",
                            message=(
                                f"setup.py imports `{site.module}`, and {path}:{inner.line} "
                                f"imports `{name}`, which not every setuptools release ships "
                                "(ModuleNotFoundError while setup.py runs); read the "
                                "version without importing the package, or guard the import"
                            ),
                            path=PATH,
                            line=site.line,
                            column=site.column,
                            fails=fails,
                            fails_enforced=fails,
                        )
                    )
                else:
                    todo.extend(local_files(ctx.files.files, name, roots))
            if in_package:
                todo.extend(relative_import_files(ctx.files.files, module_tree, package, target))
    return findings


register(
    Rule(
        code="SP001",
        slug="setuppy-removed-module",
        family="setup.py",
        summary="setup.py imports a module that setuptools removed",
        doc="""
## What it does
Finds module-level imports in setup.py (outside functions and classes, and not under a
`try`/`except ImportError`) of `setuptools`, `pkg_resources` or `distutils` modules that
some setuptools releases do not ship. Which releases ship which module comes from the
module inventory of every setuptools wheel. When setup.py imports the project's own
package (`from mypkg import __version__`) and the project directory is on `sys.path`
(legacy backend, or setup.py edits `sys.path`), the package's own module-level imports
are followed too, to any depth; an `except ImportError` fallback that fails itself
(`sys.exit`, `raise SystemExit`, an import of a module the sdist does not ship) does not
count as a guard. Branches are read for the build's Python and platform (`--python`,
`--platform`). The classic `ez_setup.use_setuptools()` bootstrap (an `ez_setup.py`
shipped in the sdist that imports `pkg_resources` and, without it, downloads setuptools)
is reported as needing `pkg_resources` too.

## Why is this bad?
setup.py runs inside the build, so the import fails with `ModuleNotFoundError` and so does
the build: `pkg_resources` is gone since 82.0.0, `setuptools.extern` since 71.0.0,
`setuptools.dep_util` since 70.0.0, `setuptools.command.test` was missing from 72.0.0,
`distutils.msvccompiler` from 74.0.0.

## Example
```python
from setuptools import setup
import pkg_resources

setup(name="example", version="1.0")
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0")
```
Use `importlib.metadata`, `importlib.resources` and `packaging` instead of
`pkg_resources`, or pin `setuptools<82` in `build-system.requires`.

## References
- setuptools 82.0.0 changelog (#3085): pkg_resources removed
- setuptools 72.0.0 changelog (#931): test command removed
""".strip(),
        references=(
            Reference(
                title="setuptools 82.0.0 changelog (#3085): pkg_resources removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v82-0-0",
            ),
            Reference(
                title="setuptools 72.0.0 changelog (#931): test command removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v72-0-0",
            ),
        ),
        example=(
            (
                PATH,
                "from setuptools import setup\nimport pkg_resources\n\n"
                'setup(name="example", version="1.0")\n',
            ),
        ),
        check=_check_removed_imports,
        needs="setup.py",
    )
)
