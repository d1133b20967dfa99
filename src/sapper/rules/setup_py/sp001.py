"""SP001 `setuppy-removed-module`: setup.py imports a module that setuptools removed."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ...facts.setup_py import (
    PATH,
    import_sites,
    local_files,
    relative_import_files,
    sys_path_modified,
)
from ...model import Finding, Reference
from .._base import Context, Fix, Rule, register

if TYPE_CHECKING:
    from ...fix.setup_py import PyEditor

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


_PKG_REWRITES = {
    "get_distribution": ("importlib.metadata", True),
    "parse_version": ("packaging.version", False),
    "resource_filename": ("importlib.resources", False),
}


_UNSAFE_WHY = {
    "packaging.version": (
        "; `packaging` must be in build-system.requires, and a legacy (non-PEP 440) version "
        "string now raises InvalidVersion"
    ),
    "importlib.resources": (
        "; importlib.resources imports the package (Python >= 3.9) where resource_filename did not"
    ),
}


def _fix(editor: PyEditor, findings: Sequence[Finding]) -> None:
    """At each finding's line: drop ``from setuptools.command.test import test`` when the
    class is only a ``cmdclass`` value (safe: setuptools has no ``test`` command since 72),
    and rewrite the ``pkg_resources`` uses that have a direct equivalent
    (:func:`_fix_pkg_resources`). A file with any other ``pkg_resources`` use is left alone
    and reported."""
    import libcst as cst

    from ...fix import Edit
    from ...fix.setup_py import comments, dotted, is_setup_call

    lines = {f.line for f in findings if f.line is not None}
    body = editor.body

    # SP001: from setuptools.command.test import test [as X], used only as a cmdclass value,
    # or only as the base of module-level classes that are only used as cmdclass values.
    def inside(node: Any, container: Any) -> bool:
        while node is not None:
            if node is container:
                return True
            node = editor.parents.get(node)
        return False

    def cmdclass_element(use: Any) -> tuple[Any, int] | None:
        element: Any = editor.parents.get(use)
        mapping: Any = editor.parents.get(element) if element is not None else None
        keyword: Any = editor.parents.get(mapping) if mapping is not None else None
        owner: Any = editor.parents.get(keyword) if keyword is not None else None
        if (
            isinstance(element, cst.DictElement)
            and element.value is use
            and isinstance(mapping, cst.Dict)
            and isinstance(keyword, cst.Arg)
            and keyword.keyword is not None
            and keyword.keyword.value == "cmdclass"
            and isinstance(owner, cst.Call)
            and is_setup_call(owner)
        ):
            return mapping, list(mapping.elements).index(element)
        return None

    for stmt in body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        if editor.line(stmt) not in lines:
            continue  # no finding here
        imp = stmt.body[0]
        if not (
            isinstance(imp, cst.ImportFrom)
            and not imp.relative
            and imp.module is not None
            and dotted(imp.module) == "setuptools.command.test"
            and not isinstance(imp.names, cst.ImportStar)
            and len(imp.names) == 1
        ):
            continue
        alias = imp.names[0]
        local = dotted(alias.asname.name) if alias.asname is not None else dotted(alias.name)
        classes = [
            c
            for c in body
            if isinstance(c, cst.ClassDef)
            and any(isinstance(b.value, cst.Name) and b.value.value == local for b in c.bases)
        ]
        elements: list[tuple[Any, int]] = []
        usable = True
        for name in [local, *(c.name.value for c in classes)]:
            for use in editor.refs.get(name, []):
                if any(inside(use, c) for c in classes):
                    continue
                element = cmdclass_element(use)
                if element is None:
                    usable = False
                    break
                elements.append(element)
        line = editor.line(stmt)
        if not usable:
            editor.add(
                Edit(
                    code="SP001",
                    path=PATH,
                    line=line,
                    message=(
                        f"`{local}` from setuptools.command.test is used outside "
                        "setup(cmdclass=...); remove the test command by hand"
                    ),
                    status="skipped",
                )
            )
            continue
        safe = not classes
        class_names = ", ".join(f"`{c.name.value}`" for c in classes)
        st = editor.status(safe)
        edit = Edit(
            code="SP001",
            path=PATH,
            line=line,
            message=(
                "setuptools.command.test import"
                + (f", the class {class_names} built on it" if classes else "")
                + " and the `cmdclass` entry removed (setuptools has no test command "
                "since 72)" + ("" if safe else "; the class's code and comments go with it")
            ),
            safe=safe,
            status=st,
        )
        touched = [stmt, *classes, *(m.elements[i] for m, i in elements)]
        if editor.hold(edit, editor.span(touched)):
            continue
        editor.add(edit)
        if st != "applied":
            continue
        editor.plan.statements[stmt] = []
        for cls in classes:
            editor.plan.statements[cls] = []
            editor.plan.allowed_lost.extend(comments(editor.module.code_for_node(cls)))
        for mapping, index in elements:
            editor.plan.drop_elements.setdefault(mapping, set()).add(index)

    _fix_pkg_resources(editor, lines)


def _fix_pkg_resources(editor: PyEditor, lines: set[int]) -> None:
    """Rewrite the module's ``pkg_resources`` uses that have a direct equivalent, when a
    finding is at one of its ``pkg_resources`` imports; any other use leaves them all."""
    import libcst as cst

    from ...fix import Edit
    from ...fix.setup_py import dotted

    body = editor.body
    parents = editor.parents

    stmts: list[tuple[Any, str | None, dict[str, str]]] = []  # (stmt, module alias, names)
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if dotted(alias.name) == "pkg_resources":
                        local = dotted(alias.asname.name) if alias.asname else "pkg_resources"
                        stmts.append((stmt, local, {}))
            elif (
                isinstance(small, cst.ImportFrom)
                and not small.relative
                and small.module is not None
                and dotted(small.module) == "pkg_resources"
            ):
                if isinstance(small.names, cst.ImportStar):
                    stmts.append((stmt, None, {"*": "*"}))
                else:
                    stmts.append(
                        (
                            stmt,
                            None,
                            {
                                (dotted(a.asname.name) if a.asname else dotted(a.name)): dotted(
                                    a.name
                                )
                                for a in small.names
                            },
                        )
                    )
    if not stmts or not any(editor.line(stmt) in lines for stmt, _, _ in stmts):
        return

    def skip(stmt: Any, why: str) -> None:
        editor.add(
            Edit(
                code="SP001",
                path=PATH,
                line=editor.line(stmt),
                message=f"pkg_resources kept: {why}; rewrite it by hand or pin setuptools<82",
                status="skipped",
            )
        )

    first = stmts[0][0]
    for stmt, _, mapping in stmts:
        if len(stmt.body) != 1 or (
            isinstance(stmt.body[0], cst.Import) and len(stmt.body[0].names) != 1
        ):
            skip(stmt, "the import statement imports other modules too")
            return
        if "*" in mapping:
            skip(stmt, "`from pkg_resources import *`")
            return
    replace: dict[Any, Any] = {}
    modules: dict[str, bool] = {}  # new module -> safe
    for _stmt, module_alias, mapping in stmts:
        for local, real in [(module_alias, None)] if module_alias else list(mapping.items()):
            for use in editor.refs.get(local, []):
                if real is None:  # pkg_resources.<func>(...)
                    attr = parents.get(use)
                    if not (isinstance(attr, cst.Attribute) and attr.value is use):
                        skip(first, f"`{local}` is used as a value")
                        return
                    func_name = attr.attr.value
                    func_node: Any = attr
                else:
                    func_name = real
                    func_node = use
                call = parents.get(func_node)
                if func_name not in _PKG_REWRITES or not (
                    isinstance(call, cst.Call) and call.func is func_node
                ):
                    skip(first, f"`{func_name}` has no direct modern equivalent here")
                    return
                new_module, safe = _PKG_REWRITES[func_name]
                if func_name == "get_distribution":
                    outer = parents.get(call)
                    if not (
                        isinstance(outer, cst.Attribute)
                        and outer.value is call
                        and outer.attr.value == "version"
                        and len(call.args) == 1
                    ):
                        skip(first, "get_distribution() is used for more than `.version`")
                        return
                    replace[outer] = call.with_changes(
                        func=cst.parse_expression("importlib.metadata.version")
                    )
                elif func_name == "parse_version":
                    replace[call] = call.with_changes(
                        func=cst.parse_expression("packaging.version.Version")
                    )
                else:
                    if len(call.args) != 2 or any(a.keyword or a.star for a in call.args):
                        skip(first, "resource_filename() is called with unusual arguments")
                        return
                    package, resource = call.args
                    files_call = cst.Call(
                        func=cst.parse_expression("importlib.resources.files"),
                        args=[package.with_changes(comma=cst.MaybeSentinel.DEFAULT)],
                    )
                    replace[call] = cst.Call(
                        func=cst.Name("str"),
                        args=[
                            cst.Arg(
                                cst.BinaryOperation(
                                    left=files_call,
                                    operator=cst.Divide(),
                                    right=resource.value,
                                )
                            )
                        ],
                    )
                modules[new_module] = modules.get(new_module, True) and safe
    if not replace:
        return
    if any(name == "DistributionNotFound" for _, _, m in stmts for name in m.values()):
        skip(first, "DistributionNotFound is caught; importlib.metadata raises another error")
        return
    safe = all(modules.values())
    st = editor.status(safe)
    what = ", ".join(sorted(modules))
    edit = Edit(
        code="SP001",
        path=PATH,
        line=editor.line(first),
        message=f"pkg_resources uses rewritten with {what}"
        + "".join(_UNSAFE_WHY[m] for m in sorted(modules) if not modules[m]),
        safe=safe,
        status=st,
    )
    if editor.hold(edit, editor.span([*(s for s, _, _ in stmts), *replace])):
        return
    editor.add(edit)
    if st != "applied":
        return
    editor.plan.replace.update(replace)
    new_imports = [cst.parse_statement(f"import {m}\n") for m in sorted(modules)]
    for i, (stmt, _, _) in enumerate(stmts):
        if i == 0:
            head = new_imports[0].with_changes(
                leading_lines=stmt.leading_lines, trailing_whitespace=stmt.trailing_whitespace
            )
            editor.plan.statements[stmt] = [head, *new_imports[1:]]
        else:
            editor.plan.statements[stmt] = []


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
        fix=Fix(
            path="setup.py",
            help=(
                "setup.py: the setuptools.command.test import and its cmdclass",
                "entry; pkg_resources get_distribution(x).version, parse_version,",
                "resource_filename",
            ),
            safety=(
                "Safe: dropping `from setuptools.command.test import test` when the class is only"
                " a `cmdclass` value (setuptools has no `test` command since 72.0.0), and "
                "`get_distribution(x).version` -> `importlib.metadata.version(x)`. Unsafe (only "
                "with `--unsafe-fixes`): `parse_version(x)` -> `packaging.version.Version(x)` "
                "(`packaging` must be in `build-system.requires`, and legacy versions no longer "
                "parse) and `resource_filename(p, r)` -> `str(importlib.resources.files(p) / r)` "
                "(the package must be importable). A file with any other `pkg_resources` use is "
                "left alone and reported; an edit that would lose a comment is not made."
            ),
            apply=_fix,
        ),
    )
)
