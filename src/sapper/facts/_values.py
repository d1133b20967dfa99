"""Static values of a project's metadata, and the checks modern ``packaging`` applies to them.

setup.py is never executed. :class:`Run` follows its statements abstractly for one
:class:`Target` (Python version and platform): names bound at module level or in the
functions setup.py calls, dicts built by literal, ``dict(...)``, subscript assignment,
``update``/``setdefault`` or returned by setup.py's functions, ``setup(**kwargs)``, and
``setup()`` called inside a function (``main()`` under ``if __name__ == "__main__"``).
Branches decided on the target are taken or skipped; the others are both followed and a
name bound differently in them is ``UNKNOWN``. Values are literals, and reads of files
shipped in the tree (``open(path).read()``, ``with open(path) as f: f.read()``,
``Path(path).read_text()``, ``.splitlines()``, ``.strip()``, and ``json.load``/``json.loads``
of such a text, whose members are read by subscript: package.json's version); anything
else is ``UNKNOWN``. Requirement lists are split like setuptools'
``_reqs.parse_strings`` (lines, ``#`` comments, backslash continuations) and checked with
``packaging``, as setuptools >= 67 (and, before 70.1, the ``wheel`` package pip installs
next to it) does.

The pieces live beside it: :mod:`._exprs` (literal values, paths, file reads),
:mod:`._reqs` (requirement strings), :mod:`._slots` (what names hold, merging branches),
:mod:`._target` (the target and the conditions decided on it); this module runs the
statements and re-exports what rules read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from ._exprs import UNKNOWN, dotted, func_name, json_value, resolve, resolve_call
from ._reqs import requirement_lines, requirement_problem, specifier_problem, version_problem
from ._slots import (
    UNKNOWN_SLOT,
    Function,
    Item,
    SetupCall,
    Slot,
    add,
    constant,
    dict_slot,
    item_slot,
    merge,
    merge_slots,
    taint,
)
from ._target import NOT_SPECIAL, Conditions, Target, make_target, running_target

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

_MAX_CALL_DEPTH: Final = 6


class _Return(Exception):
    pass


class Run(Conditions):
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
                if isinstance(item.optional_vars, ast.Name) and isinstance(
                    item.context_expr, ast.Call
                ):
                    # `with open(p) as f`: f stands for the call, so `f.read()` reads p
                    self._scope_of(item.optional_vars.id, env, outer)[item.optional_vars.id] = Slot(
                        UNKNOWN, item.context_expr
                    )
                elif item.optional_vars is not None:
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
                    branch[handler.name] = UNKNOWN_SLOT
                if not self._stops(handler.body, branch, outer):
                    ends.append(branch)
            merged = merge(ends)
            env.clear()
            env.update(merged)
            self._body(stmt.finalbody, env, outer)
        elif isinstance(stmt, ast.FunctionDef):
            env[stmt.name] = Slot(Function(stmt))
        elif isinstance(stmt, ast.AsyncFunctionDef | ast.ClassDef):
            env[stmt.name] = UNKNOWN_SLOT
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                env[(alias.asname or alias.name).split(".")[0]] = UNKNOWN_SLOT
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
                env[f"\x00global:{name}"] = UNKNOWN_SLOT
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
        merged = merge(ends) if ends else dict(env)
        if returns:
            merged["\x00return"] = merge_slots(returns)
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
                scope[name] = dict_slot((*held.items, item), held.node, open_=held.open)
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
                env[node.id] = UNKNOWN_SLOT

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
                        new = add(old.value, self.eval(stmt.value, env, outer).value)
                    item = Item(key, new, stmt.value)
                    scope = self._scope_of(stmt.target.value.id, env, outer)
                    scope[stmt.target.value.id] = dict_slot(
                        (*held.items, item), held.node, open_=held.open
                    )
            return
        name = stmt.target.id
        held = self.lookup(name, env, outer)
        right = self.eval(stmt.value, env, outer)
        value = add(held.value, right.value) if held and isinstance(stmt.op, ast.Add) else UNKNOWN
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
            taint(env)  # globals().update(...) can bind any name
            return False
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr != "setup"
        ):
            owner = func.value.id
            held = self.lookup(owner, env, outer)
            if held is not None and not isinstance(held.value, Function):
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
            taint(env)
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
            scope[owner] = dict_slot(items, held.node, open_=open_)
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
            if special is not NOT_SPECIAL:
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
            return dict_slot(items, node, open_=open_)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self.eval(node.operand, env, outer).value
            if isinstance(operand, int | float) and not isinstance(operand, bool):
                return Slot(-operand if isinstance(node.op, ast.USub) else operand, node)
            return Slot(UNKNOWN, node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.eval(node.left, env, outer).value
            right = self.eval(node.right, env, outer).value
            return Slot(add(left, right), node)
        if isinstance(node, ast.Compare | ast.BoolOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            truth = self.truth(node, env, outer)
            return Slot(UNKNOWN if truth is None else truth, node)
        if isinstance(node, ast.IfExp):
            truth = self.truth(node.test, env, outer)
            if truth is None:  # either value, as two branches merged
                return merge_slots(
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
            elif isinstance(base.value, dict) and isinstance(key, str) and key in base.value:
                return Slot(base.value[key], node)  # a parsed JSON document's member
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
            if held is not None and isinstance(held.value, Function):
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
            return dict_slot(items, node, open_=open_)
        if name == "copy" and isinstance(func, ast.Attribute) and not node.args:
            base = self.eval(func.value, env, outer)
            if base.items is not None:
                return dict_slot(base.items, node, open_=base.open)
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
        if dotted(func) == "json.loads" and len(node.args) == 1 and not node.keywords:
            # its text may come from a function setup.py defines (daff: read("package.json"))
            value = json_value(self.eval(node.args[0], env, outer).value)
        else:
            value = resolve_call(node, _Lookup(self, env, outer), self.files, 0)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            # json.load(...): a dict whose members setup.py reads by subscript
            return dict_slot((Item(k, v, node) for k, v in value.items()), node)
        return Slot(value, node)

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
            local.setdefault(param.arg, UNKNOWN_SLOT)
        for extra in (func.args.vararg, func.args.kwarg, *func.args.kwonlyargs):
            if extra is not None:
                local.setdefault(extra.arg, UNKNOWN_SLOT)
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
                    keywords.append((item.key, item_slot(item), item.node))
        self.calls.append(
            SetupCall(call, tuple(keywords), opaque or bool(maybe), tuple(maybe), opaque)
        )


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
    import setup``, ``from setuptools.dist import Distribution``), and its handlers catch
    nothing but ImportError."""
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
                    or (
                        module == "setuptools.dist"
                        and all(a.name == "Distribution" for a in n.names)
                    )
                    or _stdlib(module)
                ):
                    return False
            elif isinstance(n, ast.Call) and func_name(n.func) in _IMPORTERS:
                return False
    return imports > 0


class _Lookup(Mapping[str, ast.expr]):
    """The names of a run, seen by :func:`_resolve_call` as the expressions they hold."""

    def __init__(self, run: Run, env: dict[str, Slot], outer: dict[str, Slot] | None) -> None:
        self._run, self._env, self._outer = run, env, outer

    def __getitem__(self, name: str) -> ast.expr:
        slot = self._run.lookup(name, self._env, self._outer)
        if slot is None or slot.node is None:
            raise KeyError(name)
        if isinstance(slot.value, Function):
            raise KeyError(name)
        if slot.value is not UNKNOWN and not isinstance(slot.value, dict | set):
            return constant(slot.value, slot.node)
        return slot.node

    def __iter__(self) -> Iterator[str]:
        return iter({*self._env, *(self._outer or {})})

    def __len__(self) -> int:
        return len({*self._env, *(self._outer or {})})


_TRY: Final[tuple[type[Any], ...]] = (ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
_EXIT_CALLS: Final = frozenset({"sys.exit", "exit", "quit", "os._exit"})
_REBINDING_CALLS: Final = frozenset({"exec", "execfile", "eval"})
#: Calls that do not change the dicts they are given.
_PURE: Final = frozenset(
    {"setup", "dict", "list", "tuple", "set", "frozenset", "sorted", "len", "print", "str",
     "repr", "isinstance", "bool", "copy", "deepcopy", "dumps", "join", "format"}
)  # fmt: skip
_READERS: Final = frozenset({"get", "keys", "values", "items", "copy", "count", "index", "format"})
