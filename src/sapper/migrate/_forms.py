"""Value forms of setup.py and setup.cfg and their pyproject.toml equivalents, for
:mod:`sapper.migrate.translate`: entry point lists, package finders, module literals."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from ..facts._values import UNKNOWN, func_name, resolve
from ._values import Given

__all__ = [
    "FINDERS",
    "dict_form",
    "entry_groups",
    "entry_text",
    "find_call",
    "find_table",
    "module_literal",
    "newest",
    "strings",
    "text_of",
]

_GROUP = re.compile(r"^\w+(\.\w+)*$")
_EP_NAME = re.compile(r"^[^\s=\[\]]+$")


def newest(a: str, b: str) -> str:
    from packaging.version import Version

    return a if Version(a) >= Version(b) else b


def strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def text_of(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def entry_text(text: str) -> dict[str, list[str]] | None:
    """The groups of an ``entry_points`` string, read as setuptools reads it
    (``setuptools._entry_points.load`` of a ``str``: ``importlib.metadata``'s
    ``EntryPoints._from_text``): lines stripped, blank ones and ``#`` comments skipped,
    ``[group]`` opens a group (the brackets stripped), lines before the first group
    ignored; None when a line in a group has no ``=`` (the build fails on it)."""
    out: dict[str, list[str]] = {}
    group: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is None:
            continue
        if "=" not in line:
            return None
        out.setdefault(group, []).append(line)
    return out


def entry_groups(value: Any) -> dict[str, dict[str, str]] | None:
    """``{group: {name: reference}}`` of an entry_points value (a dict, or the ini-style
    string setuptools also takes), None when some entry has no pyproject form (extras,
    a duplicate name...)."""
    if isinstance(value, str):
        value = entry_text(value)
    if not isinstance(value, dict):
        return None
    out: dict[str, dict[str, str]] = {}
    for group, entries in value.items():
        if not isinstance(group, str) or not _GROUP.match(group):
            return None
        lines = entries.splitlines() if isinstance(entries, str) else entries
        if not strings(lines):
            return None
        table: dict[str, str] = {}
        for line in lines:
            if not line.strip():
                continue
            name, sep, ref = line.partition("=")
            name, ref = name.strip(), ref.strip()
            if not sep or not _EP_NAME.match(name) or name in table or "[" in ref or not ref:
                return None
            table[name] = ref
        out[group] = table
    return out


def dict_form(given: Given) -> bool:
    """Whether ``given`` is a dict when setup() runs: a dict value, a ``[section]`` of
    setup.cfg, or a dict display (or ``dict(...)``) that the resolver could not read."""
    if isinstance(given.value, dict):
        return True
    if given.origin == "cfg":
        return given.section != "options"
    node = given.node
    return isinstance(node, ast.Dict | ast.DictComp) or (
        isinstance(node, ast.Call) and func_name(node.func) == "dict"
    )


def find_table(options: dict[str, Any], namespaces: bool) -> dict[str, Any] | None:
    find: dict[str, Any] = {}
    where = options.get("where")
    if where is not None:
        find["where"] = [where]
    for key in ("include", "exclude"):
        if key in options:
            find[key] = list(options[key])
    find["namespaces"] = namespaces
    return {"find": find}


FINDERS = {"find_packages": False, "find_namespace_packages": True}


def find_call(
    node: ast.expr, dirs: dict[str, str] | None, files: Mapping[str, bytes]
) -> dict[str, Any] | None:
    """``packages=find_packages(...)`` with literal arguments as a ``find`` table; None
    when the call is another or its arguments are not literal."""
    if not isinstance(node, ast.Call) or func_name(node.func) not in FINDERS:
        return None
    namespaces = FINDERS[func_name(node.func) or ""]
    names = ["where", "exclude", "include"]
    args: dict[str, Any] = {}
    if len(node.args) > len(names) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    for name, arg in zip(names, node.args, strict=False):
        args[name] = resolve(arg, {}, files)
    for kw in node.keywords:
        if kw.arg not in names:
            return None
        args[kw.arg] = resolve(kw.value, {}, files)
    if any(v is UNKNOWN for v in args.values()):
        return None
    where = args.pop("where", ".")
    if not isinstance(where, str):
        return None
    where = where.rstrip("/") or "."
    if where != "." and (dirs or {}).get("") != where:
        return None  # pyproject's find would add package-dir entries find_packages() does not
    options: dict[str, Any] = {}
    if where != ".":
        options["where"] = where
    for key, value in args.items():
        if not (strings(value) or (isinstance(value, set) and strings(sorted(value)))):
            return None
        options[key] = sorted(value) if isinstance(value, set) else list(value)
    return find_table(options, namespaces)


def module_literal(
    given: Given, options: Mapping[str, Given], files: Mapping[str, bytes]
) -> tuple[str, str] | None:
    """``pkg.attr`` (setup.py imports ``pkg``) as ``("pkg.attr", literal)`` when ``pkg``
    is a module of the tree that binds ``attr`` once, at module level, to a string
    literal (and star-imports nothing): what the import gives, and what setuptools'
    ``attr:`` reads without importing."""
    node = given.node
    if not (
        given.origin == "py"
        and given.direct
        and not given.varies
        and isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
    ):
        return None
    module = node.value.id
    dirs = options.get("package_dir")
    base = ""
    if dirs is not None and isinstance(dirs.value, dict):
        base = str(dirs.value.get("", "")).strip("/")
    prefix = f"{base}/" if base else ""
    source = files.get(f"{prefix}{module}.py") or files.get(f"{prefix}{module}/__init__.py")
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    bound = []
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            return None
        if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign) and any(
            isinstance(t, ast.Name) and t.id == node.attr
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        ):
            bound.append(stmt)
    if len(bound) != 1 or bound[0] not in tree.body or isinstance(bound[0], ast.AugAssign):
        return None
    value = bound[0].value
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return None
    return f"{module}.{node.attr}", value.value
