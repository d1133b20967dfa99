"""Static values of a project's metadata, and the checks modern ``packaging`` applies to them.

setup.py is never executed. :class:`Run` follows its statements abstractly for one
:class:`Target` (Python version and platform): names bound at module level or in the
functions setup.py calls, dicts built by literal, ``dict(...)``, subscript assignment,
``update``/``setdefault`` or returned by setup.py's functions, ``setup(**kwargs)``, and
``setup()`` called inside a function (``main()`` under ``if __name__ == "__main__"``).
Branches decided on the target are taken or skipped; the others are both followed and a
name bound differently in them is ``UNKNOWN``. Values are literals, and reads of files
shipped in the tree (``open(path).read()``, ``Path(path).read_text()``, ``.splitlines()``,
``.strip()``); anything else is ``UNKNOWN``. Requirement lists are split like setuptools'
``_reqs.parse_strings`` (lines, ``#`` comments, backslash continuations) and checked with
``packaging``, as setuptools >= 67 (and, before 70.1, the ``wheel`` package pip installs
next to it) does.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, NamedTuple

__all__ = [
    "UNKNOWN",
    "Item",
    "Run",
    "SetupCall",
    "Slot",
    "Target",
    "func_name",
    "make_target",
    "requirement_lines",
    "requirement_problem",
    "resolve",
    "running_target",
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


# -- the target a build runs on --------------------------------------------------------------

#: ``os.name`` and ``platform.system()`` for the ``sys.platform`` values sapper knows.
_OS_NAMES: Final = {"win32": "nt", "cygwin": "posix"}
_SYSTEMS: Final = {
    "linux": "Linux",
    "win32": "Windows",
    "darwin": "Darwin",
    "cygwin": "CYGWIN_NT",
    "freebsd": "FreeBSD",
}


class Target(NamedTuple):
    """The interpreter a build runs on: Python ``(major, minor)`` and ``sys.platform``."""

    python: tuple[int, int]
    platform: str

    @property
    def os_name(self) -> str:
        return _OS_NAMES.get(self.platform, "posix")

    @property
    def system(self) -> str | None:
        """What ``platform.system()`` returns there; None when sapper does not know."""
        for prefix, system in _SYSTEMS.items():
            if self.platform.startswith(prefix):
                return system
        return None


def running_target() -> Target:
    """The interpreter sapper runs on."""
    import sys

    return Target((sys.version_info[0], sys.version_info[1]), sys.platform)


def make_target(python: str | None = None, platform: str | None = None) -> Target:
    """A :class:`Target` from ``--python X.Y`` and ``--platform`` (``sys.platform`` values:
    ``linux``, ``darwin``, ``win32``...); what is not given is the running interpreter's."""
    here = running_target()
    version = here.python
    if python:
        major, _, minor = python.partition(".")
        if major.isdigit() and minor.isdigit():
            version = (int(major), int(minor))
    return Target(version, platform or here.platform)


# -- an abstract run of setup.py ---------------------------------------------------------------


class Item(NamedTuple):
    """One key of a dict setup.py builds: its value (or ``UNKNOWN``) and the expression it
    comes from."""

    key: str
    value: Any
    node: ast.expr
    #: Set on some of the paths that reach here only (a branch sapper cannot decide).
    maybe: bool = False


class Slot(NamedTuple):
    """What a name holds at one point of setup.py's run: its value (or ``UNKNOWN``), the
    expression it was bound to, and for a dict built step by step each key with its own
    expression (``open``: keys may exist that sapper cannot see)."""

    value: Any
    node: ast.expr | None = None
    items: tuple[Item, ...] | None = None
    open: bool = False


def _dict_slot(items: Iterable[Item], node: ast.expr | None, *, open_: bool = False) -> Slot:
    merged: dict[str, Item] = {}
    for item in items:
        merged[item.key] = item
    values = tuple(merged.values())
    known = not open_ and all(i.value is not UNKNOWN for i in values)
    value = {i.key: i.value for i in values} if known else UNKNOWN
    return Slot(value, node, values, open_)


_UNKNOWN_SLOT: Final = Slot(UNKNOWN)

#: Not an expression whose value depends on the target (see :meth:`Run._special`).
_NOT_SPECIAL: Final = object()


class _Function:
    """A function setup.py defines, as the value of its name."""

    __slots__ = ("node",)

    def __init__(self, node: ast.FunctionDef) -> None:
        self.node = node


class SetupCall(NamedTuple):
    """A ``setup()`` call that runs when setup.py runs, with the keywords it gets."""

    call: ast.Call
    keywords: tuple[tuple[str, Slot, ast.expr], ...]
    #: ``setup(**x)`` with ``x`` a dict sapper cannot read entirely.
    opaque: bool
    #: Keys ``setup(**x)`` gets on some paths only (branches sapper cannot decide): whether
    #: they reach ``setup()`` is not known, so they are not reported as if they did.
    maybe: tuple[str, ...] = ()
    #: ``setup(**x)``/``setup(*args)`` with something sapper cannot read at all.
    unread: bool = False


_MAX_CALL_DEPTH: Final = 6


class _Return(Exception):
    pass


class Run:
    """Runs a module's statements abstractly (no project code is executed) for one
    :class:`Target`: branches whose condition is decided there are taken or skipped, the
    others both followed and their bindings merged (a name bound differently in them is
    ``UNKNOWN``); functions setup.py defines are followed when it calls them, ``setup()``
    calls are recorded with the values their keywords get."""

    def __init__(self, target: Target, files: Mapping[str, bytes]) -> None:
        self.target = target
        self.files = files
        self.calls: list[SetupCall] = []
        self._depth = 0
        self._active: set[str] = set()

    # statements --------------------------------------------------------------------------

    def module(self, tree: ast.Module) -> dict[str, Slot]:
        env: dict[str, Slot] = {"__name__": Slot("__main__"), "__file__": Slot(UNKNOWN)}
        self._body(tree.body, env, None)
        return env

    def _body(
        self, body: Sequence[ast.stmt], env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> None:
        for stmt in body:
            if self._stmt(stmt, env, outer):
                return

    def _stmt(self, stmt: ast.stmt, env: dict[str, Slot], outer: dict[str, Slot] | None) -> bool:
        """Run one statement; True when the body stops there (return, raise, exit)."""
        if isinstance(stmt, ast.Assign):
            slot = self.eval(stmt.value, env, outer)
            for target in stmt.targets:
                self._assign(target, slot, stmt.value, env, outer)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._assign(stmt.target, self.eval(stmt.value, env, outer), stmt.value, env, outer)
        elif isinstance(stmt, ast.AugAssign):
            self._augment(stmt, env, outer)
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Call):
                return self._call_stmt(stmt.value, env, outer)
        elif isinstance(stmt, ast.If):
            truth = self.truth(stmt.test, env, outer)
            if truth is True:
                self._body(stmt.body, env, outer)
            elif truth is False:
                self._body(stmt.orelse, env, outer)
            else:
                self._branches([stmt.body, stmt.orelse], env, outer)
        elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            if isinstance(stmt, ast.For | ast.AsyncFor):
                self._unbind(stmt.target, env)
            # zero or more rounds: the bindings of one round merged with none
            self._branches([stmt.body, []], env, outer)
            self._body(stmt.orelse, env, outer)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._unbind(item.optional_vars, env)
            self._body(stmt.body, env, outer)
        elif isinstance(stmt, _TRY):
            before = dict(env)
            self._body(stmt.body, env, outer)
            self._body(stmt.orelse, env, outer)
            ends = [env]
            for handler in [] if _never_fails(stmt) else stmt.handlers:
                branch = dict(before)
                if handler.name:
                    branch[handler.name] = _UNKNOWN_SLOT
                if not self._stops(handler.body, branch, outer):
                    ends.append(branch)
            merged = _merge(ends)
            env.clear()
            env.update(merged)
            self._body(stmt.finalbody, env, outer)
        elif isinstance(stmt, ast.FunctionDef):
            env[stmt.name] = Slot(_Function(stmt))
        elif isinstance(stmt, ast.AsyncFunctionDef | ast.ClassDef):
            env[stmt.name] = _UNKNOWN_SLOT
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                env[(alias.asname or alias.name).split(".")[0]] = _UNKNOWN_SLOT
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    env.pop(target.id, None)
        elif isinstance(stmt, ast.Return):
            slot = self.eval(stmt.value, env, outer) if stmt.value else Slot(None)
            env["\x00return"] = slot
            return True
        elif isinstance(stmt, ast.Raise):
            if stmt.exc is not None:  # raise SystemExit(main()): main() runs first
                self.eval(stmt.exc, env, outer)
            return True
        elif isinstance(stmt, ast.Global | ast.Nonlocal) and outer is not None:
            for name in stmt.names:
                env[f"\x00global:{name}"] = _UNKNOWN_SLOT
        return False

    def _stops(
        self, body: Sequence[ast.stmt], env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> bool:
        return any(self._stmt(stmt, env, outer) for stmt in body)

    def _branches(
        self,
        bodies: Sequence[Sequence[ast.stmt]],
        env: dict[str, Slot],
        outer: dict[str, Slot] | None,
    ) -> None:
        ends: list[dict[str, Slot]] = []
        returns: list[Slot] = []
        for body in bodies:
            branch = dict(env)
            stopped = self._stops(body, branch, outer)
            if "\x00return" in branch and "\x00return" not in env:
                returns.append(branch.pop("\x00return"))
            if not stopped:
                ends.append(branch)
        merged = _merge(ends) if ends else dict(env)
        if returns:
            merged["\x00return"] = _merge_slots(returns)
        env.clear()
        env.update(merged)

    def _scope_of(
        self, name: str, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> dict[str, Slot]:
        if outer is not None and f"\x00global:{name}" in env:
            return outer
        return env

    def _assign(
        self,
        target: ast.expr,
        slot: Slot,
        value: ast.expr,
        env: dict[str, Slot],
        outer: dict[str, Slot] | None,
    ) -> None:
        if isinstance(target, ast.Name):
            node = slot.node if slot.node is not None else value
            self._scope_of(target.id, env, outer)[target.id] = slot._replace(node=node)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            name = target.value.id
            scope = self._scope_of(name, env, outer)
            held = self.lookup(name, env, outer)
            if held is None or held.items is None:
                return
            key = self.eval(target.slice, env, outer).value
            if isinstance(key, str):
                item = Item(key, slot.value, slot.node if slot.node is not None else value)
                scope[name] = _dict_slot((*held.items, item), held.node, open_=held.open)
            else:
                scope[name] = held._replace(value=UNKNOWN, open=True)
        elif (
            isinstance(target, ast.Tuple | ast.List)
            and isinstance(slot.value, list | tuple)
            and len(slot.value) == len(target.elts)
            and all(isinstance(e, ast.Name) for e in target.elts)
        ):  # major, minor = sys.version_info[:2]
            for elt, item in zip(target.elts, slot.value, strict=True):
                assert isinstance(elt, ast.Name)
                self._scope_of(elt.id, env, outer)[elt.id] = Slot(item, value)
        else:
            self._unbind(target, env)

    def _unbind(self, target: ast.expr, env: dict[str, Slot]) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                env[node.id] = _UNKNOWN_SLOT

    def _augment(
        self, stmt: ast.AugAssign, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> None:
        if not isinstance(stmt.target, ast.Name):
            if isinstance(stmt.target, ast.Subscript) and isinstance(stmt.target.value, ast.Name):
                held = self.lookup(stmt.target.value.id, env, outer)
                key = self.eval(stmt.target.slice, env, outer).value
                if held is not None and held.items is not None and isinstance(key, str):
                    old = next((i for i in held.items if i.key == key), None)
                    new = UNKNOWN
                    if old is not None and isinstance(stmt.op, ast.Add):
                        new = _add(old.value, self.eval(stmt.value, env, outer).value)
                    item = Item(key, new, stmt.value)
                    scope = self._scope_of(stmt.target.value.id, env, outer)
                    scope[stmt.target.value.id] = _dict_slot(
                        (*held.items, item), held.node, open_=held.open
                    )
            return
        name = stmt.target.id
        held = self.lookup(name, env, outer)
        right = self.eval(stmt.value, env, outer)
        value = _add(held.value, right.value) if held and isinstance(stmt.op, ast.Add) else UNKNOWN
        self._scope_of(name, env, outer)[name] = Slot(value, stmt.value)

    def _call_stmt(
        self, call: ast.Call, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> bool:
        func = call.func
        name = dotted(func)
        if name in _EXIT_CALLS:
            for arg in call.args:  # sys.exit(main()): main() runs first
                self.eval(arg, env, outer)
            return True
        if name in _REBINDING_CALLS:
            self._exec(call, env, outer)
            return False
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Call)
            and func_name(func.value.func) in {"globals", "vars", "locals"}
        ):
            _taint(env)  # globals().update(...) can bind any name
            return False
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr != "setup"
        ):
            owner = func.value.id
            held = self.lookup(owner, env, outer)
            if held is not None and not isinstance(held.value, _Function):
                self._method(owner, held, func.attr, call, env, outer)
                return False
        self.eval(call, env, outer)  # setup() and setup.py's own functions
        return False

    def _exec(self, call: ast.Call, env: dict[str, Slot], outer: dict[str, Slot] | None) -> None:
        """``exec(text)``: the text of a file the sdist ships (``open(p).read()``,
        ``Path(p).read_text()``, ``compile(that, ...)``) runs here, abstractly; into a
        namespace of its own (``exec(text, ns)``) it binds nothing else; any other text can
        rebind every name bound so far."""
        name = func_name(call.func)
        if len(call.args) >= 2:
            space = call.args[1]
            if not (isinstance(space, ast.Call) and func_name(space.func) in {"globals", "locals"}):
                if isinstance(space, ast.Name):
                    env[space.id] = Slot(UNKNOWN, space, (), open=True)
                return
        source: Any = UNKNOWN
        if call.args and name != "eval":
            first = call.args[0]
            if isinstance(first, ast.Call) and func_name(first.func) == "compile" and first.args:
                first = first.args[0]
            source = self.eval(first, env, outer).value
        tree = None
        if isinstance(source, str) and self._depth < _MAX_CALL_DEPTH:
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
        if tree is None:
            _taint(env)
            return
        self._depth += 1
        try:
            self._body(tree.body, env, outer)
        finally:
            self._depth -= 1

    def _method(  # noqa: PLR0917
        self,
        owner: str,
        held: Slot,
        method: str,
        call: ast.Call,
        env: dict[str, Slot],
        outer: dict[str, Slot] | None,
    ) -> None:
        scope = self._scope_of(owner, env, outer)
        if held.items is not None and method in {"update", "setdefault"}:
            items = list(held.items)
            open_ = held.open
            if method == "update":
                for arg in call.args:
                    other = self.eval(arg, env, outer)
                    if other.items is None:
                        open_ = True
                    else:
                        items.extend(other.items)
                        open_ = open_ or other.open
                for kw in call.keywords:
                    if kw.arg is None:
                        other = self.eval(kw.value, env, outer)
                        items.extend(other.items or ())
                        open_ = open_ or other.items is None or other.open
                    else:
                        items.append(Item(kw.arg, self.eval(kw.value, env, outer).value, kw.value))
            elif len(call.args) == 2:
                key = self.eval(call.args[0], env, outer).value
                if not isinstance(key, str):
                    open_ = True
                elif all(i.key != key for i in items):
                    items.append(Item(key, self.eval(call.args[1], env, outer).value, call.args[1]))
            scope[owner] = _dict_slot(items, held.node, open_=open_)
            return
        if isinstance(held.value, list) and method in {"append", "extend"} and call.args:
            arg = self.eval(call.args[0], env, outer).value
            value: Any = UNKNOWN
            if method == "append" and arg is not UNKNOWN:
                value = [*held.value, arg]
            elif method == "extend" and isinstance(arg, list | tuple):
                value = [*held.value, *arg]
            scope[owner] = Slot(value, held.node)
            return
        if method in _READERS:
            return
        # anything else may change the object: its value is no longer known
        if held.items is not None:
            scope[owner] = held._replace(value=UNKNOWN, open=True)
        elif held.value is not UNKNOWN and not isinstance(held.value, str | int | float | bool):
            scope[owner] = held._replace(value=UNKNOWN)

    # names -------------------------------------------------------------------------------

    def lookup(self, name: str, env: dict[str, Slot], outer: dict[str, Slot] | None) -> Slot | None:
        if outer is not None and f"\x00global:{name}" in env:
            return outer.get(name)
        found = env.get(name)
        if found is None and outer is not None:
            found = outer.get(name)
        return found

    # expressions -------------------------------------------------------------------------

    def eval(self, node: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None) -> Slot:
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
            special = self._special(node, env, outer)
            if special is not _NOT_SPECIAL:
                return Slot(special, node)
        if isinstance(node, ast.Constant):
            return Slot(node.value, node)
        if isinstance(node, ast.Name):
            found = self.lookup(node.id, env, outer)
            return found if found is not None else Slot(UNKNOWN, node)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            values: list[Any] = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    inner = self.eval(elt.value, env, outer).value
                    if not isinstance(inner, list | tuple):
                        return Slot(UNKNOWN, node)
                    values.extend(inner)
                else:
                    values.append(self.eval(elt, env, outer).value)
            if any(v is UNKNOWN for v in values):
                return Slot(UNKNOWN, node)
            if isinstance(node, ast.Set):
                try:
                    return Slot(set(values), node)
                except TypeError:
                    return Slot(UNKNOWN, node)
            return Slot(values, node)
        if isinstance(node, ast.Dict):
            items: list[Item] = []
            open_ = False
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:  # {**other}
                    other = self.eval(value, env, outer)
                    items.extend(other.items or ())
                    open_ = open_ or other.items is None or other.open
                    continue
                k = self.eval(key, env, outer).value
                if isinstance(k, str):
                    items.append(Item(k, self.eval(value, env, outer).value, value))
                else:
                    open_ = True
            return _dict_slot(items, node, open_=open_)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self.eval(node.operand, env, outer).value
            if isinstance(operand, int | float) and not isinstance(operand, bool):
                return Slot(-operand if isinstance(node.op, ast.USub) else operand, node)
            return Slot(UNKNOWN, node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.eval(node.left, env, outer).value
            right = self.eval(node.right, env, outer).value
            return Slot(_add(left, right), node)
        if isinstance(node, ast.Compare | ast.BoolOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            truth = self.truth(node, env, outer)
            return Slot(UNKNOWN if truth is None else truth, node)
        if isinstance(node, ast.IfExp):
            truth = self.truth(node.test, env, outer)
            if truth is None:  # either value, as two branches merged
                return _merge_slots(
                    [self.eval(node.body, env, outer), self.eval(node.orelse, env, outer)]
                )
            return self.eval(node.body if truth else node.orelse, env, outer)
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value, env, outer)
            key = self.eval(node.slice, env, outer).value
            if base.items is not None and isinstance(key, str):
                found_item = next((i for i in base.items if i.key == key), None)
                if found_item is not None:
                    return Slot(found_item.value, found_item.node)
            return Slot(UNKNOWN, node)
        if isinstance(node, ast.Call):
            return self._call(node, env, outer)
        return Slot(UNKNOWN, node)

    def _call(self, node: ast.Call, env: dict[str, Slot], outer: dict[str, Slot] | None) -> Slot:
        func = node.func
        name = func_name(func)
        if name not in _PURE:
            # a dict handed to code sapper does not follow may be changed by it
            for arg in (*node.args, *(kw.value for kw in node.keywords)):
                if isinstance(arg, ast.Name):
                    held = self.lookup(arg.id, env, outer)
                    if held is not None and held.items is not None:
                        self._scope_of(arg.id, env, outer)[arg.id] = held._replace(
                            value=UNKNOWN, open=True
                        )
        if isinstance(func, ast.Name):
            held = self.lookup(func.id, env, outer)
            if held is not None and isinstance(held.value, _Function):
                # a function setup.py defines (on every path that reaches here)
                return self._run_function(held.value.node, node, env, outer)
        if name == "setup":
            self._record(node, env, outer)
            return Slot(UNKNOWN, node)
        if name == "dict" and isinstance(func, ast.Name) and len(node.args) <= 1:
            items: list[Item] = []
            open_ = False
            if node.args:
                first = self.eval(node.args[0], env, outer)
                if first.items is None:
                    open_ = True
                else:
                    items.extend(first.items)
                    open_ = first.open
            for kw in node.keywords:
                if kw.arg is None:
                    other = self.eval(kw.value, env, outer)
                    items.extend(other.items or ())
                    open_ = open_ or other.items is None or other.open
                else:
                    items.append(Item(kw.arg, self.eval(kw.value, env, outer).value, kw.value))
            return _dict_slot(items, node, open_=open_)
        if name == "copy" and isinstance(func, ast.Attribute) and not node.args:
            base = self.eval(func.value, env, outer)
            if base.items is not None:
                return _dict_slot(base.items, node, open_=base.open)
            if isinstance(base.value, list):
                return Slot(list(base.value), node)
        # its arguments run first (print(main()), SystemExit(main())); setup.py's helper
        # functions are followed above; every other call is one of the few pure ones
        # resolve() knows (file reads, str methods, list(), set()...) or unknown
        for arg in (*node.args, *(kw.value for kw in node.keywords)):
            if any(isinstance(n, ast.Call) for n in ast.walk(arg)):
                self.eval(arg, env, outer)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            self.eval(func.value, env, outer)  # make().get(...): make() runs
        return Slot(
            _resolve_call(node, _Lookup(self, env, outer), self.files, 0),
            node,
        )

    def _run_function(
        self,
        func: ast.FunctionDef,
        call: ast.Call,
        env: dict[str, Slot],
        outer: dict[str, Slot] | None,
    ) -> Slot:
        if self._depth >= _MAX_CALL_DEPTH or func.name in self._active:
            return Slot(UNKNOWN, call)
        globals_ = outer if outer is not None else env
        local: dict[str, Slot] = {}
        params = [*func.args.posonlyargs, *func.args.args]
        defaults = func.args.defaults
        for param, default in zip(params[len(params) - len(defaults) :], defaults, strict=True):
            local[param.arg] = self.eval(default, env, outer)
        for param, arg in zip(params, call.args, strict=False):
            local[param.arg] = self.eval(arg, env, outer)
        for kw in call.keywords:
            if kw.arg is not None:
                local[kw.arg] = self.eval(kw.value, env, outer)
        for param in params[len(call.args) :]:
            local.setdefault(param.arg, _UNKNOWN_SLOT)
        for extra in (func.args.vararg, func.args.kwarg, *func.args.kwonlyargs):
            if extra is not None:
                local.setdefault(extra.arg, _UNKNOWN_SLOT)
        self._depth += 1
        self._active.add(func.name)
        try:
            self._body(func.body, local, globals_)
        finally:
            self._depth -= 1
            self._active.discard(func.name)
        returned = local.get("\x00return")
        return Slot(None, call) if returned is None else returned

    def _record(self, call: ast.Call, env: dict[str, Slot], outer: dict[str, Slot] | None) -> None:
        keywords: list[tuple[str, Slot, ast.expr]] = []
        maybe: list[str] = []
        opaque = False
        if call.args:
            opaque = True  # setup(*args): sapper does not follow positional arguments
        for kw in call.keywords:
            slot = self.eval(kw.value, env, outer)
            if kw.arg is not None:
                keywords.append((kw.arg, slot, kw.value))
                continue
            if slot.items is None:
                opaque = True
                continue
            opaque = opaque or slot.open
            for item in slot.items:
                if item.maybe:
                    maybe.append(item.key)
                else:
                    keywords.append((item.key, _item_slot(item), item.node))
        self.calls.append(
            SetupCall(call, tuple(keywords), opaque or bool(maybe), tuple(maybe), opaque)
        )

    # conditions --------------------------------------------------------------------------

    def truth(
        self, test: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> bool | None:
        """Whether ``test`` holds on the target; None when that cannot be known."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.truth(test.operand, env, outer)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            results = [self.truth(v, env, outer) for v in test.values]
            if isinstance(test.op, ast.And):
                if False in results:
                    return False
                return True if all(r is True for r in results) else None
            if True in results:
                return True
            return False if all(r is False for r in results) else None
        if isinstance(test, ast.Compare):  # chained too: a < b < c is a < b and b < c
            left = self._target_value(test.left, env, outer)
            results = []
            for op, comparator in zip(test.ops, test.comparators, strict=True):
                right = self._target_value(comparator, env, outer)
                if left is UNKNOWN or right is UNKNOWN:
                    results.append(None)
                else:
                    results.append(_compare(op, left, right))
                left = right
            if False in results:
                return False
            return True if all(r is True for r in results) else None
        if isinstance(test, ast.Call) and func_name(test.func) in {"startswith", "endswith"}:
            if isinstance(test.func, ast.Attribute) and len(test.args) == 1:
                base = self._target_value(test.func.value, env, outer)
                arg = self._target_value(test.args[0], env, outer)
                if isinstance(arg, list):
                    arg = tuple(arg)
                if isinstance(base, str) and isinstance(arg, str | tuple):
                    try:
                        return bool(getattr(base, test.func.attr)(arg))
                    except TypeError:
                        return None
            return None
        value = self._target_value(test, env, outer)  # Compare/BoolOp/not are read above
        if value is UNKNOWN:
            return None
        try:
            return bool(value)
        except Exception:
            return None

    def _target_value(
        self, node: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> Any:
        """The value of an expression, ``sys.platform``, ``os.name``, ``platform.system()``
        and ``sys.version_info`` (whole, indexed, sliced, ``.major``/``.minor``) taken from
        the target."""
        special = self._special(node, env, outer)
        if special is not _NOT_SPECIAL:
            return special
        if isinstance(node, ast.Tuple):
            parts = [self._target_value(e, env, outer) for e in node.elts]
            return UNKNOWN if any(p is UNKNOWN for p in parts) else tuple(parts)
        if isinstance(node, ast.Compare | ast.BoolOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            truth = self.truth(node, env, outer)
            return UNKNOWN if truth is None else truth
        value = self.eval(node, env, outer).value
        if isinstance(value, list):
            return tuple(value)
        return value

    def _special(self, node: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None) -> Any:
        """What a target-dependent expression gives on the target, or ``_NOT_SPECIAL``."""
        name = dotted(node)
        target = self.target
        version = (*target.python, 0)
        if name == "sys.platform":
            return target.platform
        if name == "os.name":
            return target.os_name
        if name == "sys.version_info":
            return version
        if name == "sys.version":
            return f"{target.python[0]}.{target.python[1]}.0"
        if name in {"sys.version_info.major", "sys.version_info.minor"}:
            return version[0 if name.endswith("major") else 1]
        if name in {"six.PY2", "six.PY3"}:
            return target.python[0] == int(name[-1])
        if isinstance(node, ast.Call) and not node.args:
            called = dotted(node.func)
            if called == "platform.system":
                return target.system or UNKNOWN
            if called == "platform.python_version_tuple":
                return UNKNOWN
            if isinstance(node.func, ast.Attribute) and node.func.attr in {"lower", "upper"}:
                base = self._target_value(node.func.value, env, outer)
                return getattr(base, node.func.attr)() if isinstance(base, str) else UNKNOWN
        if isinstance(node, ast.Subscript) and dotted(node.value) == "sys.version_info":
            index = node.slice
            if isinstance(index, ast.Constant) and index.value in (0, 1):
                return version[0 if index.value == 0 else 1]
            if (
                isinstance(index, ast.Slice)
                and index.lower is None
                and index.step is None
                and isinstance(index.upper, ast.Constant)
                and index.upper.value in (1, 2)
            ):
                return version[: 1 if index.upper.value == 1 else 2]
            return UNKNOWN
        if (
            isinstance(node, ast.Subscript)
            and dotted(node.value) == "sys.version"
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == 0
        ):
            return str(target.python[0])
        return _NOT_SPECIAL


#: What every setuptools release sapper knows has: ``from setuptools import setup`` and
#: these never raise ImportError in a build.
_ALWAYS = frozenset({"setup", "Extension", "find_packages", "Command", "Distribution"})
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_IMPORTERS = frozenset({"__import__", "import_module", "require", "use_setuptools"})


def _stdlib(module: str) -> bool:
    """A standard library module a build can always import (not distutils: setuptools
    serves its own copy, which lacks some of it)."""
    import sys

    top = module.partition(".")[0]
    return top != "distutils" and top in sys.stdlib_module_names


def _never_fails(node: Any) -> bool:
    """Whether the ``except ImportError`` clauses of a ``try`` can never run in a build: its
    body imports only the standard library and setuptools' basics (``from setuptools
    import setup``), and its handlers catch nothing but ImportError."""
    for handler in node.handlers:
        names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if handler.type is None or not all(
            isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in names
        ):
            return False
    imports = 0
    for sub in node.body:
        for n in ast.walk(sub):
            if isinstance(n, ast.Import):
                imports += 1
                if not all(a.name == "setuptools" or _stdlib(a.name) for a in n.names):
                    return False
            elif isinstance(n, ast.ImportFrom):
                imports += 1
                module = n.module or ""
                if n.level or not (
                    (module == "setuptools" and all(a.name in _ALWAYS for a in n.names))
                    or _stdlib(module)
                ):
                    return False
            elif isinstance(n, ast.Call) and func_name(n.func) in _IMPORTERS:
                return False
    return imports > 0


def _taint(env: dict[str, Slot]) -> None:
    """Every name bound so far may have been rebound: unknown."""
    for key in list(env):
        env[key] = _UNKNOWN_SLOT


def _compare(op: ast.cmpop, left: Any, right: Any) -> bool | None:
    """``left op right`` for the values a condition compares; None when it cannot be
    decided (a version tuple compared with a shorter tuple is decided as Python does)."""
    # sys.version_info has 5 fields; sapper knows the first two (and says micro is 0): a
    # comparison that needs the micro number is not decided.
    if (
        isinstance(left, tuple)
        and isinstance(right, tuple)
        and any(len(t) > 2 and any(t[2:]) for t in (left, right))
        and tuple(left[:2]) == tuple(right[:2])
    ):
        return None
    try:
        if isinstance(op, ast.Eq):
            return bool(left == right)
        if isinstance(op, ast.NotEq):
            return bool(left != right)
        if isinstance(op, ast.Lt):
            return bool(left < right)
        if isinstance(op, ast.LtE):
            return bool(left <= right)
        if isinstance(op, ast.Gt):
            return bool(left > right)
        if isinstance(op, ast.GtE):
            return bool(left >= right)
        if isinstance(op, ast.In):
            return bool(left in right)
        if isinstance(op, ast.NotIn):
            return bool(left not in right)
        if isinstance(op, ast.Is):
            return bool(left is right) if left is None or right is None else None
        if isinstance(op, ast.IsNot):
            return bool(left is not right) if left is None or right is None else None
    except TypeError:
        return None
    return None


def _add(left: Any, right: Any) -> Any:
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(left, list) and isinstance(right, list | tuple):
        return [*left, *right]
    if isinstance(left, tuple) and isinstance(right, tuple):
        return left + right
    return UNKNOWN


def _item_slot(item: Item) -> Slot:
    return Slot(item.value, item.node)


def _merge_slots(slots: Sequence[Slot]) -> Slot:
    first = slots[0]
    if all(s == first for s in slots[1:]):
        return first
    if all(s.items is not None for s in slots):
        # a dict built differently on each path: a key any path sets is kept (reported if
        # it may reach setup()), with its value only if every path agrees
        by_key: dict[str, list[Item]] = {}
        for slot in slots:
            for item in slot.items or ():
                by_key.setdefault(item.key, []).append(item)
        items = []
        for key, found in by_key.items():
            values = {repr(i.value) for i in found}
            value = found[0].value if len(values) == 1 else UNKNOWN
            maybe = len(found) != len(slots) or any(i.maybe for i in found)
            items.append(Item(key, value, found[0].node, maybe))
        open_ = any(s.open for s in slots)
        merged = _dict_slot(items, first.node, open_=open_)
        if any(len(f) != len(slots) for f in by_key.values()):
            merged = merged._replace(value=UNKNOWN)
        return merged
    same_value = all(repr(s.value) == repr(first.value) for s in slots)
    return Slot(first.value if same_value else UNKNOWN, first.node)


def _merge(envs: Sequence[dict[str, Slot]]) -> dict[str, Slot]:
    if len(envs) == 1:
        return dict(envs[0])
    merged: dict[str, Slot] = {}
    names = dict.fromkeys(name for env in envs for name in env)
    for name in names:
        found = [env[name] for env in envs if name in env]
        slot = _merge_slots(found)
        if len(found) != len(envs) and slot.items is None:
            slot = slot._replace(value=UNKNOWN)  # bound on some paths only
        merged[name] = slot
    return merged


class _Lookup(Mapping[str, ast.expr]):
    """The names of a run, seen by :func:`_resolve_call` as the expressions they hold."""

    def __init__(self, run: Run, env: dict[str, Slot], outer: dict[str, Slot] | None) -> None:
        self._run, self._env, self._outer = run, env, outer

    def __getitem__(self, name: str) -> ast.expr:
        slot = self._run.lookup(name, self._env, self._outer)
        if slot is None or slot.node is None:
            raise KeyError(name)
        if isinstance(slot.value, _Function):
            raise KeyError(name)
        if slot.value is not UNKNOWN and not isinstance(slot.value, dict | set):
            return _constant(slot.value, slot.node)
        return slot.node

    def __iter__(self) -> Iterator[str]:
        return iter({*self._env, *(self._outer or {})})

    def __len__(self) -> int:
        return len({*self._env, *(self._outer or {})})


def _constant(value: Any, node: ast.expr) -> ast.expr:
    """A known value as an expression (lists of constants as a list display)."""
    if isinstance(value, list):
        out: ast.expr = ast.List(elts=[_constant(v, node) for v in value], ctx=ast.Load())
    else:
        out = ast.Constant(value=value)
    return ast.copy_location(out, node)


_TRY: Final[tuple[type[Any], ...]] = (ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
_EXIT_CALLS: Final = frozenset({"sys.exit", "exit", "quit", "os._exit"})
_REBINDING_CALLS: Final = frozenset({"exec", "execfile", "eval"})
#: Calls that do not change the dicts they are given.
_PURE: Final = frozenset(
    {
        "setup",
        "dict",
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "len",
        "print",
        "str",
        "repr",
        "isinstance",
        "bool",
        "copy",
        "deepcopy",
        "dumps",
        "join",
        "format",
    }
)
_READERS: Final = frozenset({"get", "keys", "values", "items", "copy", "count", "index", "format"})


def dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
