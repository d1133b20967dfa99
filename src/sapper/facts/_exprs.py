"""Expressions of setup.py whose value is knowable without running code: literals,
names bound to them, paths relative to the project root (``os.path.dirname(__file__)``,
``Path(__file__).parent``) and the text of files shipped in the tree.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "UNKNOWN",
    "dotted",
    "func_name",
    "json_value",
    "read_path",
    "resolve",
    "resolve_call",
    "writes",
]


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


#: A value that cannot be known without running the code.
UNKNOWN: Final = _Unknown()

#: Marks the project root (``os.path.dirname(__file__)`` and friends).
_ROOT: Final = "\x00root"


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
        return resolve_call(node, consts, files, depth)
    return UNKNOWN


def resolve_call(
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
    if name in {"loads", "load"} and dotted(node.func) in {"json.loads", "json.load"}:
        # package.json's name and version (jupyter extensions, daff): parsed as Python does
        if len(node.args) != 1 or node.keywords:
            return UNKNOWN
        if name == "loads":
            text = resolve(node.args[0], consts, files, depth + 1)
        else:
            text = _opened(node.args[0], consts, files, depth + 1)
        return json_value(text)
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


def json_value(text: Any) -> Any:
    """The value of a JSON document, when ``text`` is one; UNKNOWN otherwise."""
    import json

    if not isinstance(text, str):
        return UNKNOWN
    try:
        return json.loads(text)
    except ValueError:
        return UNKNOWN


def _opened(
    node: ast.expr, consts: Mapping[str, ast.expr], files: Mapping[str, bytes], depth: int
) -> Any:
    """The text of a file opened for reading in text mode (the calls :func:`read_path`
    knows whose method is ``open``), decoded with the ``encoding`` and ``errors`` the call
    gives (UTF-8 when it gives none: the locale of a build, assumed UTF-8)."""
    if isinstance(node, ast.Name) and node.id in consts:
        node = consts[node.id]  # `with open(p) as f: f.read()`
    if not isinstance(node, ast.Call) or func_name(node.func) != "open":
        return UNKNOWN
    path = read_path(node, consts)
    if path is None:
        return UNKNOWN
    builtin = dotted(node.func) in _OPENERS
    mode: ast.expr | None = None
    position = 1 if builtin else 0
    if len(node.args) > position:
        mode = node.args[position]
    for keyword in node.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "b" in mode.value:
        return UNKNOWN
    # codecs.open(name, mode, encoding, errors); open/io.open(name, mode, buffering,
    # encoding, errors); Path(...).open(mode, buffering, encoding, errors)
    first = 3 if builtin and dotted(node.func) != "codecs.open" else 2
    return _read(path, files, _codec(node, first, consts, files, depth))


_OPENERS: Final = frozenset({"open", "io.open", "codecs.open"})
_PATH_READERS: Final = frozenset({"read_text", "read_bytes"})


def read_path(call: ast.Call, consts: Mapping[str, ast.expr]) -> str | None:
    """The file (normalised, relative to the project root) that ``call`` opens for reading:
    ``open(p)``, ``io.open(p)``, ``codecs.open(p)`` with a mode that neither writes nor
    creates, ``Path(p).open()``, ``Path(p).read_text()`` / ``read_bytes()`` (``p`` also
    ``Path(__file__).parent / "x"``); None when it is another call or the path is not known
    (an absolute path, one that leaves the root, one code decides)."""
    func = call.func
    if any(k.arg is None for k in call.keywords):
        return None  # **kwargs may give the mode
    if dotted(func) in _OPENERS:
        if not call.args or isinstance(call.args[0], ast.Starred):
            return None
        if not _reads(call, 1):
            return None
        return _relative(_path(call.args[0], consts, 0))
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "open":
        if not _reads(call, 0):
            return None
    elif func.attr not in _PATH_READERS:
        return None
    return _relative(_path_object(func.value, consts, 0))


def writes(call: ast.Call) -> bool:
    """Whether ``call`` is an ``open`` (a builtin, ``io``, ``codecs``, a method) whose mode
    may write or create a file, or is not known."""
    if dotted(call.func) in _OPENERS:
        return not _reads(call, 1)
    return isinstance(call.func, ast.Attribute) and call.func.attr == "open" and not _reads(call, 0)


def _reads(call: ast.Call, position: int) -> bool:
    """Whether the mode of an open call (its ``position``-th argument or ``mode=``) only
    reads: a string without ``w``, ``a``, ``x`` or ``+``; no mode reads."""
    mode: ast.expr | None = call.args[position] if len(call.args) > position else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if mode is None:
        return True
    if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
        return False
    return not set(mode.value) & set("wax+")


def _path_object(node: ast.expr, consts: Mapping[str, ast.expr], depth: int) -> str | None:
    """The path of a ``pathlib`` object: ``Path(p)``, ``Path(__file__).parent / "x"``, or
    a name bound to one; None for anything else (a zip file's ``open``, a string)."""
    if depth > 8:
        return None
    if isinstance(node, ast.Name) and node.id in consts:
        return _path_object(consts[node.id], consts, depth + 1)
    if isinstance(node, ast.Call) and func_name(node.func) in {"Path", "PurePath"}:
        if len(node.args) != 1 or node.keywords:
            return None
        return _path(node.args[0], consts, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        if _path_object(node.left, consts, depth + 1) is None and not _root_expr(
            node.left, consts, depth + 1
        ):
            return None
        return _path(node, consts, depth + 1)
    return None


def _relative(path: str | None) -> str | None:
    if path is None or path == _ROOT or path.startswith("/") or "\\" in path:
        return None
    path = posixpath.normpath(path)
    if path in {".", ".."} or path.startswith("../"):
        return None
    return path


def _codec(
    call: ast.Call,
    position: int,
    consts: Mapping[str, ast.expr],
    files: Mapping[str, bytes],
    depth: int,
) -> tuple[str, str] | None:
    """(encoding, errors) of an open call whose encoding is the ``position``-th argument
    (errors the next); ("utf-8", "strict") when it gives none; None when code decides."""
    given: dict[str, ast.expr] = {}
    for offset, name in enumerate(("encoding", "errors")):
        if len(call.args) > position + offset:
            given[name] = call.args[position + offset]
    for keyword in call.keywords:
        if keyword.arg in {"encoding", "errors"}:
            given[keyword.arg] = keyword.value
        elif keyword.arg is None:
            return None  # **kwargs
    out = {"encoding": "utf-8", "errors": "strict"}
    for name, expr in given.items():
        value = resolve(expr, consts, files, depth + 1)
        if value is None:
            continue
        if not isinstance(value, str):
            return None
        out[name] = value
    return out["encoding"], out["errors"]


def _read(
    path: str | None,
    files: Mapping[str, bytes],
    codec: tuple[str, str] | None = ("utf-8", "strict"),
) -> Any:
    if path is None or path == _ROOT or codec is None:
        return UNKNOWN
    data = files.get(path)
    if data is None:
        return UNKNOWN
    encoding, errors = codec
    try:
        return data.decode(encoding, errors).replace("\r\n", "\n")
    except (UnicodeDecodeError, LookupError):
        return UNKNOWN


def dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
