"""The ``modules``, ``names`` and ``getattr`` facts: what a wheel lets one import."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence

from ._base import NAMES_MODULES, ExtractionError
from .cfg_keys import _walk_calls
from .wheel import (
    WheelView,
    dotted,
    fmt,
    module_path_for,
    resolve_import,
    str_constant,
    str_sequence,
)


def wheel_modules(view: WheelView) -> set[str]:
    """Dotted names of every importable module and package in the wheel.

    ``setuptools._distutils.X`` is also listed as ``distutils.X``, and the names the
    ``*.extern`` vendor importers serve (``setuptools.extern.packaging.version``)
    are listed when the vendored module is in the wheel.
    """
    modules: set[str] = set()
    for name in view.names:
        if not name.endswith(".py"):
            continue
        parts = name[:-3].split("/")
        if not all(p.isidentifier() for p in parts):
            continue  # *.dist-info, *.data, vendored metadata, ...
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(1, len(parts) + 1):  # parents (regular or namespace packages)
            modules.add(".".join(parts[:i]))
    modules.update(extern_modules(view, modules))
    modules.update(
        "distutils" + m.removeprefix("setuptools._distutils")
        for m in list(modules)
        if m == "setuptools._distutils" or m.startswith("setuptools._distutils.")
    )
    return modules


def extern_modules(view: WheelView, modules: set[str]) -> set[str]:
    out: set[str] = set()
    for package in ("setuptools.extern", "pkg_resources.extern"):
        path = package.replace(".", "/") + "/__init__.py"
        if not view.has(path):
            continue
        names, vendor = _vendor_importer(view.tree(path), package, path)
        for vendored in names:
            real = f"{vendor}.{vendored}"
            out.update(
                package + "." + vendored + m.removeprefix(real)
                for m in modules
                if m == real or m.startswith(real + ".")
            )
    return out


def _vendor_importer(tree: ast.Module, package: str, path: str) -> tuple[list[str], str]:
    """(vendored names, vendor package) of ``VendorImporter(__name__, names, ...).install()``."""
    env: dict[str, list[str]] = {}
    result: tuple[list[str], str] | None = None
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            values = str_sequence(stmt.value)
            if values is not None:
                env[stmt.targets[0].id] = values
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        install = stmt.value
        if not (isinstance(install.func, ast.Attribute) and install.func.attr == "install"):
            continue
        ctor = install.func.value
        if not (isinstance(ctor, ast.Call) and dotted(ctor.func) == "VendorImporter"):
            raise ExtractionError(f"{path}: unrecognised importer {fmt(stmt)}")
        args = list(ctor.args)
        if (
            len(args) < 2
            or dotted(args[0]) != "__name__"
            or not isinstance(args[1], ast.Name)
            or args[1].id not in env
        ):
            raise ExtractionError(f"{path}: unrecognised VendorImporter call {fmt(ctor)}")
        vendor = package.replace("extern", "_vendor")
        if len(args) > 2:
            given = str_constant(args[2])
            if given is None:
                raise ExtractionError(f"{path}: unrecognised vendor package {fmt(args[2])}")
            vendor = given
        if ctor.keywords:
            raise ExtractionError(f"{path}: unrecognised VendorImporter keywords {fmt(ctor)}")
        result = env[args[1].id], vendor
    if result is None:
        raise ExtractionError(f"{path}: no VendorImporter(...).install()")
    return result


def _is_type_checking(test: ast.expr) -> bool:
    return dotted(test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def _target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def module_names(
    tree: ast.Module,
    *,
    star: Callable[[str], set[str]] | None = None,
    module_path: str = "",
) -> tuple[set[str], bool]:
    """Public names bound at module level, and whether a module ``__getattr__`` exists.

    Counts imports, defs, classes, assignments (also inside module-level ``if``/
    ``try``/``with``/``for`` blocks, except ``if TYPE_CHECKING:``), the names listed
    in ``__all__`` and the locals of ``@_call_aside`` functions that end with
    ``globals().update(locals())`` (pkg_resources' master working set).  Top-level
    ``del`` removes names.
    """
    names: set[str] = set()
    has_getattr = False

    def visit(body: Sequence[ast.stmt], top: bool) -> None:
        nonlocal has_getattr
        for stmt in body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    names.add(alias.asname or alias.name.partition(".")[0])
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if alias.name == "*":
                        if star is None:
                            raise ExtractionError(f"{module_path}: star import {fmt(stmt)}")
                        names.update(star(resolve_import(module_path, stmt.level, stmt.module)))
                    else:
                        names.add(alias.asname or alias.name)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(stmt.name)
                if stmt.name == "__getattr__":
                    has_getattr = True
                if _publishes_locals(stmt):
                    for node in ast.walk(stmt):
                        if isinstance(node, ast.Assign):
                            for target in node.targets:
                                names.update(_target_names(target))
                        elif (
                            isinstance(node, (ast.AnnAssign, ast.AugAssign))
                            and node.value is not None
                        ):
                            names.update(_target_names(node.target))
            elif isinstance(stmt, ast.ClassDef):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    names.update(_target_names(target))
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
                    names.update(_all_entries(stmt.value))
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                names.update(_target_names(stmt.target))
            elif isinstance(stmt, ast.AugAssign):
                names.update(_target_names(stmt.target))
                if dotted(stmt.target) == "__all__":
                    names.update(_all_entries(stmt.value))
            elif isinstance(stmt, ast.If):
                if not _is_type_checking(stmt.test):
                    visit(stmt.body, top=False)
                visit(stmt.orelse, top=False)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body, top=False)
                for handler in stmt.handlers:
                    if handler.name:
                        names.add(handler.name)
                    visit(handler.body, top=False)
                visit(stmt.orelse, top=False)
                visit(stmt.finalbody, top=False)
            elif isinstance(stmt, (ast.With, ast.For, ast.While)):
                if isinstance(stmt, ast.For):
                    names.update(_target_names(stmt.target))
                visit(stmt.body, top=False)
                visit(getattr(stmt, "orelse", []), top=False)
            elif isinstance(stmt, ast.Delete) and top:
                for target in stmt.targets:
                    names.difference_update(_target_names(target))
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                if dotted(call.func) == "__all__.extend" and call.args:
                    names.update(_all_entries(call.args[0]))
                elif dotted(call.func) == "__all__.append" and call.args:
                    value = str_constant(call.args[0])
                    if value:
                        names.add(value)

    visit(tree.body, top=True)
    return {n for n in names if not n.startswith("_")}, has_getattr


def _all_entries(node: ast.expr) -> list[str]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _all_entries(node.left) + _all_entries(node.right)
    values = str_sequence(node)
    return values or []


def _publishes_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    called_aside = any(dotted(d) == "_call_aside" for d in fn.decorator_list)
    updates = any(
        (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "update"
            and isinstance(call.func.value, ast.Call)
            and dotted(call.func.value.func) == "globals"
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Call)
            and dotted(call.args[0].func) == "locals"
        )
        for call in _walk_calls(fn)
    )
    return called_aside and updates


def extract_names(view: WheelView) -> tuple[dict[str, set[str]], set[str]]:
    """Public names of NAMES_MODULES and the set of modules with a module __getattr__."""
    names: dict[str, set[str]] = {}

    def star(module: str) -> set[str]:
        path = module_path_for(view, module)
        if path is None and (module == "distutils" or module.startswith("distutils.")):
            # setuptools' own distutils imports itself by its public name
            path = module_path_for(view, "setuptools._" + module)
        if path is None:
            raise ExtractionError(f"star import from {module}, which is not in the wheel")
        return module_names(view.tree(path), star=star, module_path=path)[0]

    for path in NAMES_MODULES:
        if view.has(path):
            module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            if module.startswith("setuptools._distutils."):
                module = "distutils" + module.removeprefix("setuptools._distutils")
            names[module] = module_names(view.tree(path), star=star, module_path=path)[0]

    getattr_modules: set[str] = set()
    for path in view.names:
        if not path.endswith(".py") or "/_vendor/" in path or "/tests/" in path:
            continue
        parts = path[:-3].split("/")
        if not all(p.isidentifier() for p in parts):
            continue
        text = view.text(path)
        if "def __getattr__" not in text:
            continue
        tree = ast.parse(text, filename=path)
        if module_names(tree, star=lambda _module: set(), module_path=path)[1]:
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            getattr_modules.add(module)
            if module.startswith("setuptools._distutils"):
                getattr_modules.add("distutils" + module.removeprefix("setuptools._distutils"))
    return names, getattr_modules
