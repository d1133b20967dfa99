"""Static values of a project's metadata, and the checks modern ``packaging`` applies to them.

setup.py is never executed: ``resolve`` evaluates only literals, module-level constants
assigned once, and reads of files shipped in the tree (``open(path).read()``,
``Path(path).read_text()``, ``.splitlines()``, ``.strip()``), and gives ``UNKNOWN`` for
anything else. Requirement lists are split like setuptools' ``_reqs.parse_strings`` (lines,
``#`` comments, backslash continuations) and checked with ``packaging``, as setuptools
>= 67 (and, before 70.1, the ``wheel`` package pip installs next to it) does.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

__all__ = [
    "UNKNOWN",
    "func_name",
    "module_constants",
    "requirement_lines",
    "requirement_problem",
    "resolve",
    "specifier_problem",
    "version_problem",
]


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


#: A value that cannot be known without running the code.
UNKNOWN: Final = _Unknown()

#: Marks the project root (``os.path.dirname(__file__)`` and friends).
_ROOT: Final = "\x00root"


_REBINDERS: Final = frozenset({"exec", "eval", "execfile", "globals", "vars", "locals"})


def module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound exactly once by a plain assignment, with their value.

    None at all when the module calls ``exec``/``eval`` or touches ``globals()``/``vars()``:
    those can rebind any name (``exec(line)`` with a ``__version__ = ...`` line is common).
    """
    from .setup_py import index_of  # the tree's nodes by type, from one walk shared by rules

    index = index_of(tree)
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for call in index.of_type(ast.Call):
        assert isinstance(call, ast.Call)
        func = call.func
        if isinstance(func, ast.Name) and func.id in _REBINDERS:
            return {}
    binders = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.comprehension, ast.With)
    for node in index.of_type(*binders, ast.Import, ast.ImportFrom):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.comprehension):
            targets = [node.target]
        elif isinstance(node, ast.With):
            targets = [item.optional_vars for item in node.items if item.optional_vars]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                name = (alias.asname or alias.name).split(".")[0]
                counts[name] = counts.get(name, 0) + 1
            continue
        for target in targets:
            if isinstance(target, ast.Name):  # the common case, without a walk
                counts[target.id] = counts.get(target.id, 0) + 1
                continue
            for sub in index.under(target, ast.Name):
                assert isinstance(sub, ast.Name)
                counts[sub.id] = counts.get(sub.id, 0) + 1
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            values[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            values[node.target.id] = node.value
    return {k: v for k, v in values.items() if counts.get(k) == 1}


def _is_file_dunder(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "__file__"


def _root_expr(node: ast.expr, consts: Mapping[str, ast.expr], depth: int) -> bool:
    """``os.path.dirname(__file__)``, ``Path(__file__).parent`` and similar: the root."""
    if depth > 8:
        return False
    if isinstance(node, ast.Name) and node.id in consts:
        return _root_expr(consts[node.id], consts, depth + 1)
    if isinstance(node, ast.Call):
        name = func_name(node.func)
        if name in {"dirname", "abspath", "realpath", "normpath", "resolve", "absolute"}:
            if isinstance(node.func, ast.Attribute) and name in {"resolve", "absolute"}:
                return _root_expr(node.func.value, consts, depth + 1)
            return bool(node.args) and (
                _is_file_dunder(node.args[0]) or _root_expr(node.args[0], consts, depth + 1)
            )
        if name in {"Path", "PurePath"} and node.args:
            return _is_file_dunder(node.args[0]) or _root_expr(node.args[0], consts, depth + 1)
        if name == "getcwd":
            return True
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        return _is_file_dunder_path(node.value, consts, depth + 1)
    return False


def _is_file_dunder_path(node: ast.expr, consts: Mapping[str, ast.expr], depth: int) -> bool:
    """``Path(__file__)`` or ``Path(__file__).resolve()``: the parent of it is the root."""
    if isinstance(node, ast.Call):
        name = func_name(node.func)
        if name in {"Path", "PurePath"} and node.args:
            return _is_file_dunder(node.args[0])
        if name in {"resolve", "absolute"} and isinstance(node.func, ast.Attribute):
            return _is_file_dunder_path(node.func.value, consts, depth + 1)
    return False


def func_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _path(node: ast.expr, consts: Mapping[str, ast.expr], depth: int) -> str | None:
    """A path relative to the project root, or None when it cannot be known."""
    if depth > 8:
        return None
    if _root_expr(node, consts, depth):
        return _ROOT
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in consts:
        return _path(consts[node.id], consts, depth + 1)
    if isinstance(node, ast.Call) and func_name(node.func) == "join" and node.args:
        parts = [_path(a, consts, depth + 1) for a in node.args]
        if any(p is None for p in parts):
            return None
        return _join([p for p in parts if p is not None])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left = _path(node.left, consts, depth + 1)
        right = _path(node.right, consts, depth + 1)
        if left is None or right is None:
            return None
        return _join([left, right])
    return None


def _join(parts: list[str]) -> str | None:
    out = ""
    for part in parts:
        if part == _ROOT:
            out = ""
        elif part.startswith("/"):
            return None
        else:
            out = posixpath.join(out, part) if out else part
    return posixpath.normpath(out) if out else None


def resolve(
    node: ast.expr,
    consts: Mapping[str, ast.expr],
    files: Mapping[str, bytes],
    depth: int = 0,
) -> Any:
    """The value of ``node`` if it is knowable without running code, else ``UNKNOWN``.

    Strings, numbers, booleans, ``None``, lists/tuples (as lists), sets (as ``set``), dicts
    (as ``dict``), constants, and text read from files in ``files``.
    """
    if depth > 16:
        return UNKNOWN
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in consts:
            return resolve(consts[node.id], consts, files, depth + 1)
        return UNKNOWN
    if isinstance(node, ast.List | ast.Tuple):
        items = [resolve(e, consts, files, depth + 1) for e in node.elts]
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(node, ast.Set):
        items = [resolve(e, consts, files, depth + 1) for e in node.elts]
        return UNKNOWN if any(i is UNKNOWN for i in items) else set(items)
    if isinstance(node, ast.Dict):
        keys = [None if k is None else resolve(k, consts, files, depth + 1) for k in node.keys]
        values = [resolve(v, consts, files, depth + 1) for v in node.values]
        if any(k is UNKNOWN or k is None for k in keys) or any(v is UNKNOWN for v in values):
            return UNKNOWN
        try:
            return dict(zip(keys, values, strict=True))
        except TypeError:
            return UNKNOWN
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = resolve(node.left, consts, files, depth + 1)
        right = resolve(node.right, consts, files, depth + 1)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        return UNKNOWN
    if isinstance(node, ast.Call):
        return _resolve_call(node, consts, files, depth)
    return UNKNOWN


def _resolve_call(
    node: ast.Call, consts: Mapping[str, ast.expr], files: Mapping[str, bytes], depth: int
) -> Any:
    name = func_name(node.func)
    if isinstance(node.func, ast.Attribute):
        if name in {"strip", "rstrip", "lstrip"} and not node.args:
            base = resolve(node.func.value, consts, files, depth + 1)
            return getattr(base, name)() if isinstance(base, str) else UNKNOWN
        if name == "splitlines" and not node.args:
            base = resolve(node.func.value, consts, files, depth + 1)
            return base.splitlines() if isinstance(base, str) else UNKNOWN
        if name == "readlines" and not node.args:
            base = _opened(node.func.value, consts, files, depth + 1)
            return base.splitlines(keepends=True) if isinstance(base, str) else UNKNOWN
        if name == "read" and not node.args:
            base = _opened(node.func.value, consts, files, depth + 1)
            return base if isinstance(base, str) else UNKNOWN
        if name == "read_text":
            path = _path(node.func.value, consts, depth + 1)
            if path is None:
                # Path("x").read_text(): the receiver is a Path call
                inner = node.func.value
                if isinstance(inner, ast.Call) and func_name(inner.func) in {"Path", "PurePath"}:
                    path = _path(inner.args[0], consts, depth + 1) if inner.args else None
            return _read(path, files)
    if name in {"set", "frozenset"} and len(node.args) <= 1 and not node.keywords:
        items = resolve(node.args[0], consts, files, depth + 1) if node.args else []
        return set(items) if isinstance(items, list | set) else UNKNOWN
    if name == "dict" and not node.args:
        return {kw.arg: resolve(kw.value, consts, files, depth + 1) for kw in node.keywords}
    if name in {"list", "tuple"} and len(node.args) == 1:
        items = resolve(node.args[0], consts, files, depth + 1)
        return list(items) if isinstance(items, list) else UNKNOWN
    if name == "str" and len(node.args) == 1:
        value = resolve(node.args[0], consts, files, depth + 1)
        return str(value) if isinstance(value, str | int | float) else UNKNOWN
    return UNKNOWN


def _opened(
    node: ast.expr, consts: Mapping[str, ast.expr], files: Mapping[str, bytes], depth: int
) -> Any:
    """The text of ``open(path)`` / ``io.open(path)`` / ``codecs.open(path)`` /
    ``Path(path).open()``."""
    if not isinstance(node, ast.Call):
        return UNKNOWN
    name = func_name(node.func)
    if name == "open" and node.args and isinstance(node.func, ast.Name | ast.Attribute):
        if isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, ast.Name):
            target = node.func.value  # Path(...).open()
            if isinstance(target, ast.Call) and func_name(target.func) in {"Path", "PurePath"}:
                path = _path(target.args[0], consts, depth + 1) if target.args else None
                return _read(path, files)
            return UNKNOWN
        mode = node.args[1] if len(node.args) > 1 else None
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "b" in mode.value:
            return UNKNOWN
        return _read(_path(node.args[0], consts, depth + 1), files)
    return UNKNOWN


def _read(path: str | None, files: Mapping[str, bytes]) -> Any:
    if path is None or path == _ROOT:
        return UNKNOWN
    data = files.get(path)
    if data is None:
        return UNKNOWN
    try:
        return data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return UNKNOWN


def requirement_lines(value: str | Iterable[str]) -> Iterator[str]:
    """Requirement strings as setuptools splits them: lines, without blank lines,
    ``#`` comment lines and `` #`` trailing comments, backslash continuations joined."""
    raw: list[str] = []
    for item in [value] if isinstance(value, str) else value:
        raw.extend(str(item).splitlines())
    pending = ""
    for raw_line in raw:
        stripped = raw_line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        line = stripped.partition(" #")[0].strip()
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        yield pending + line
        pending = ""
    if pending.strip():
        yield pending.strip()


def requirement_problem(text: str) -> str | None:
    # packaging.requirements is imported only for a requirement the fast path cannot read
    # (markers, URLs) or to word the error: its grammar costs more start-up time than the
    # rest of a check.
    from .._requirement import parse_requirement

    if parse_requirement(text) is not None:
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(text)
    except InvalidRequirement as exc:
        return str(exc).splitlines()[0]
    return None


def specifier_problem(text: str) -> str | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(text)
    except InvalidSpecifier as exc:
        return str(exc).splitlines()[0]
    return None


def version_problem(text: str) -> str | None:
    from packaging.version import InvalidVersion, Version

    try:
        Version(text)
    except InvalidVersion as exc:
        return str(exc).splitlines()[0]
    return None
