"""How ``setup.cfg`` keys are checked: warnings, key predicates, command sections."""

from __future__ import annotations

import ast
import datetime
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._base import ExtractionError
from .wheel import (
    WheelView,
    dotted,
    find_class,
    find_function,
    fmt,
    is_docstring,
    module_path_for,
    resolve_import,
    str_constant,
)


@dataclass(frozen=True)
class Emission:
    warning: str
    due_date: str | None
    enforceable: bool


@dataclass
class KeyRule:
    action: str
    checked: str | None = None
    exempt: list[str] | None = None
    outside: str | None = None
    warning: str | None = None
    due_date: str | None = None
    enforceable: bool | None = None
    error: str | None = None
    commands: frozenset[str] | None = None  # command-set sources the rule consults

    def as_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "checked": self.checked,
            "exempt": self.exempt,
            "outside": self.outside,
            "warning": self.warning,
            "due_date": self.due_date,
            "enforceable": self.enforceable,
            "error": self.error,
        }


@dataclass
class _Scope:
    """Names a function body binds, plus which local names mean the option and section."""

    module: str  # wheel path of the module holding the code
    tree: ast.Module
    cls: ast.ClassDef | None
    opt: str | None
    section: str | None
    env: dict[str, ast.expr] = field(default_factory=dict)

    def function(self, call: ast.Call) -> ast.FunctionDef | None:
        """The FunctionDef a ``self.m(...)`` or ``m(...)`` call refers to."""
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and self.cls is not None
        ):
            return find_function(self.cls.body, func.attr)
        if isinstance(func, ast.Name):
            return find_function(self.tree.body, func.id)
        return None

    def callee_scope(self, call: ast.Call, fn: ast.FunctionDef) -> _Scope:
        """A scope for fn's body, with the caller's opt/section mapped onto fn's params."""
        params = [a.arg for a in fn.args.args]
        if params and params[0] == "self":
            params = params[1:]
        opt = section = None
        for param, arg in zip(params, call.args, strict=False):
            if isinstance(arg, ast.Name) and arg.id == self.opt:
                opt = param
            elif isinstance(arg, ast.Name) and arg.id == self.section:
                section = param
        return _Scope(self.module, self.tree, self.cls, opt, section)


def _walk_calls(node: ast.AST) -> Iterator[ast.Call]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            yield sub


def _date_from_tuple(node: ast.AST) -> str:
    if isinstance(node, ast.Tuple) and len(node.elts) == 3:
        parts = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if len(parts) == 3 and all(isinstance(p, int) for p in parts):
            return datetime.date(*parts).isoformat()
    raise ExtractionError(f"due date is not a (y, m, d) literal: {fmt(node)}")


class _WarningsAnalysis:
    """What ``X.emit(...)`` does for a warning class X, from the wheel's source."""

    def __init__(self, view: WheelView) -> None:
        self.view = view

    def resolve_class(self, module_path: str, name: str) -> tuple[str, ast.ClassDef]:
        """Follow imports from module_path to the ClassDef bound to name."""
        for _ in range(5):
            tree = self.view.tree(module_path)
            cls = find_class(tree, name)
            if cls is not None:
                return module_path, cls
            target = None
            for stmt in ast.walk(tree):
                if isinstance(stmt, ast.ImportFrom):
                    for alias in stmt.names:
                        if (alias.asname or alias.name) == name:
                            target = (
                                resolve_import(module_path, stmt.level, stmt.module),
                                alias.name,
                            )
            if target is None:
                break
            path = module_path_for(self.view, target[0])
            if path is None:
                break
            module_path, name = path, target[1]
        raise ExtractionError(f"cannot find class {name} (from {module_path})")

    def find_method(
        self, module_path: str, cls: ast.ClassDef, method: str
    ) -> tuple[str, ast.ClassDef, ast.FunctionDef]:
        seen = 0
        while seen < 10:
            seen += 1
            fn = find_function(cls.body, method)
            if fn is not None:
                return module_path, cls, fn
            bases = [dotted(b) for b in cls.bases]
            local = [b for b in bases if b is not None and "." not in b]
            if not local:
                break
            module_path, cls = self.resolve_class(module_path, local[0])
        raise ExtractionError(f"class {cls.name} has no method {method}")

    def class_attr(self, module_path: str, cls: ast.ClassDef, attr: str) -> ast.expr | None:
        for _ in range(10):
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == attr for t in stmt.targets
                ):
                    return stmt.value
            bases = [dotted(b) for b in cls.bases]
            local = [b for b in bases if b is not None and "." not in b]
            if not local:
                return None
            module_path, cls = self.resolve_class(module_path, local[0])
        return None

    def emit_enforces(self, module_path: str, fn: ast.FunctionDef) -> bool:
        """Does emit() raise when the due date is past and the env var asks for it?"""
        tree = self.view.tree(module_path)
        for node in ast.walk(fn):
            if not (isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body)):
                continue
            test = node.test
            terms = (
                test.values
                if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                else [test]
            )
            past_due = any(
                isinstance(t, ast.Compare)
                and len(t.ops) == 1
                and isinstance(t.ops[0], ast.Lt)
                and isinstance(t.comparators[0], ast.Call)
                and dotted(t.comparators[0].func) in {"date.today", "datetime.date.today"}
                for t in terms
            )
            switch = [
                t.func.id for t in terms if isinstance(t, ast.Call) and isinstance(t.func, ast.Name)
            ]
            if past_due and switch:
                checker = find_function(tree.body, switch[0])
                if checker is None:
                    raise ExtractionError(f"{module_path}: cannot find {switch[0]}()")
                return any(
                    str_constant(arg) == "SETUPTOOLS_ENFORCE_DEPRECATION"
                    for call in _walk_calls(checker)
                    if dotted(call.func) in {"os.getenv", "os.environ.get"}
                    for arg in call.args[:1]
                )
        return False

    def emission(self, scope: _Scope, call: ast.Call) -> Emission | None:
        """Describe a warning call, or None if call is not one."""
        name = dotted(call.func)
        if name == "warnings.warn":
            category = call.args[1] if len(call.args) > 1 else None
            for kw in call.keywords:
                if kw.arg == "category":
                    category = kw.value
            warning = "UserWarning" if category is None else dotted(category)
            if warning is None:
                raise ExtractionError(f"unrecognised warning category in {fmt(call)}")
            return Emission(warning.rpartition(".")[2], None, enforceable=False)
        if name is not None and name.endswith(".emit") and name.count(".") == 1:
            cls_name = name.partition(".")[0]
            cls_module, cls = self.resolve_class(scope.module, cls_name)
            due_node: ast.expr | None = None
            for kw in call.keywords:
                if kw.arg == "due_date":
                    due_node = kw.value
                elif kw.arg is None:
                    raise ExtractionError(f"**kwargs in {fmt(call)}")
            if due_node is None:
                due_node = self.class_attr(cls_module, cls, "_DUE_DATE")
            due = (
                None
                if due_node is None
                or (isinstance(due_node, ast.Constant) and due_node.value is None)
                else _date_from_tuple(due_node)
            )
            emit_module, _, emit_fn = self.find_method(cls_module, cls, "emit")
            enforces = self.emit_enforces(emit_module, emit_fn)
            return Emission(cls_name, due, enforceable=bool(due) and enforces)
        return None


def _is_call_on(node: ast.AST, var: str | None, method: str) -> ast.Call | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == var
    ):
        return node
    return None


def _key_predicate(node: ast.AST, scope: _Scope) -> tuple[str, bool] | None:
    """('dash'|'upper', key_is_ok) for tests on the option key, else None."""
    if _is_call_on(node, scope.opt, "islower") is not None:
        return "upper", True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _key_predicate(node.operand, scope)
        if inner is not None:
            return inner[0], not inner[1]
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and str_constant(node.left) == "-"
        and isinstance(node.comparators[0], ast.Name)
        and node.comparators[0].id == scope.opt
    ):
        if isinstance(node.ops[0], ast.In):
            return "dash", False
        if isinstance(node.ops[0], ast.NotIn):
            return "dash", True
    return None


def _key_transform(node: ast.AST, scope: _Scope) -> str | None:
    """'dash' for opt.replace('-', '_'), 'upper' for opt.lower()."""
    call = _is_call_on(node, scope.opt, "replace")
    if call is not None and [str_constant(a) for a in call.args] == ["-", "_"]:
        return "dash"
    call = _is_call_on(node, scope.opt, "lower")
    if call is not None and not call.args:
        return "upper"
    return None


# Section predicates are normalised to (negated, atoms): "section is in the union
# of atoms" (or not in it, when negated).  Atoms: ("eq", name), ("prefix", text),
# ("in", (names...)) and ("commands", sources).
_Atom = tuple[str, Any]


class _CommandSources:
    """Which lists the code's command-section set is built from."""

    def __init__(self, scope: _Scope) -> None:
        self.scope = scope

    def sources(self, node: ast.expr, scope: _Scope, depth: int = 0) -> frozenset[str]:
        if depth > 20:
            raise ExtractionError(f"command set expression too deep: {fmt(node)}")
        name = dotted(node)
        if name == "distutils.command.__all__":
            return frozenset({"distutils"})
        if name == "setuptools.command.__all__":
            return frozenset({"setuptools.command.__all__"})
        if isinstance(node, ast.Name) and node.id in scope.env:
            return self.sources(scope.env[node.id], scope, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.sources(node.left, scope, depth + 1) | self.sources(
                node.right, scope, depth + 1
            )
        if isinstance(node, ast.Set):
            out: frozenset[str] = frozenset()
            for elt in node.elts:
                if not isinstance(elt, ast.Starred):
                    raise ExtractionError(f"unrecognised command set element: {fmt(elt)}")
                out |= self.sources(elt.value, scope, depth + 1)
            return out
        if isinstance(node, ast.Call):
            func = dotted(node.func)
            if func in {"list", "set", "tuple", "frozenset", "sorted"} and len(node.args) == 1:
                return self.sources(node.args[0], scope, depth + 1)
            if func == "itertools.chain" and not node.keywords:
                out = frozenset()
                for arg in node.args:
                    out |= self.sources(arg, scope, depth + 1)
                return out
            fn = scope.function(node)
            if fn is not None and not node.args:
                return self.function_sources(fn, depth + 1)
        ep = self.entry_point_names(node, scope)
        if ep is not None:
            return frozenset({ep})
        raise ExtractionError(f"unrecognised command set expression: {fmt(node)}")

    def function_sources(self, fn: ast.FunctionDef, depth: int) -> frozenset[str]:
        """Sources of the value a command-set helper (e.g. _setuptools_commands) returns."""
        inner = _Scope(self.scope.module, self.scope.tree, self.scope.cls, None, None)
        results: list[frozenset[str]] = []

        def run(body: Sequence[ast.stmt], bootstrap: bool) -> None:
            for stmt in body:
                if is_docstring(stmt):
                    continue
                if (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                ):
                    target, value = stmt.targets[0].id, stmt.value
                elif (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.value is not None
                ):
                    target, value = stmt.target.id, stmt.value
                elif isinstance(stmt, ast.Try):
                    run(stmt.body, bootstrap)
                    for handler in stmt.handlers:
                        run(handler.body, bootstrap=True)
                    continue
                elif isinstance(stmt, ast.Return) and stmt.value is not None:
                    if bootstrap and _is_empty_literal(stmt.value):
                        continue  # "during bootstrapping, distribution doesn't exist"
                    results.append(self.sources(stmt.value, inner, depth + 1))
                    continue
                else:
                    raise ExtractionError(f"unrecognised statement in {fn.name}: {fmt(stmt)}")
                if bootstrap:
                    if not _is_empty_literal(value) or target not in inner.env:
                        raise ExtractionError(f"unrecognised fallback in {fn.name}: {fmt(stmt)}")
                    continue
                inner.env[target] = value

        run(fn.body, bootstrap=False)
        if not results:
            raise ExtractionError(f"{fn.name} returns nothing recognisable")
        return frozenset().union(*results)

    def entry_point_names(self, node: ast.expr, scope: _Scope) -> str | None:
        """'ep:*' for names of all entry points, 'ep:<group>' for one group's names."""
        value = self._ep_value(node, scope, 0)
        if value is not None and value[0] in {"names", "group"}:
            return "ep:" + value[1]  # iterating an entry map yields its names
        return None

    def _ep_value(self, node: ast.expr, scope: _Scope, depth: int) -> tuple[str, str] | None:
        if depth > 10:
            return None
        if isinstance(node, ast.Name) and node.id in scope.env:
            return self._ep_value(scope.env[node.id], scope, depth + 1)
        if isinstance(node, ast.Call):
            func = dotted(node.func)
            args = [str_constant(a) for a in node.args]
            if func in {
                "metadata.distribution",
                "importlib.metadata.distribution",
                "importlib_metadata.distribution",
                "pkg_resources.get_distribution",
            } and args == ["setuptools"]:
                return ("dist", "")
            if (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "get_entry_map"
                and len(args) == 1
                and args[0]
            ):
                base = self._ep_value(node.func.value, scope, depth + 1)
                if base == ("dist", ""):
                    return ("group", args[0])
            if func in {"list", "set", "tuple", "frozenset", "sorted"} and len(node.args) == 1:
                inner = self._ep_value(node.args[0], scope, depth + 1)
                if inner is not None and inner[0] == "group":
                    return ("names", inner[1])
                if inner is not None and inner[0] == "names":
                    return inner
        if isinstance(node, ast.Attribute):
            base = self._ep_value(node.value, scope, depth + 1)
            if base == ("dist", "") and node.attr == "entry_points":
                return ("eps", "*")
            if base is not None and base[0] == "eps" and node.attr == "names":
                return ("names", "*")
        if (
            isinstance(node, (ast.GeneratorExp, ast.SetComp, ast.ListComp))
            and len(node.generators) == 1
        ):
            gen = node.generators[0]
            if (
                not gen.ifs
                and isinstance(gen.target, ast.Name)
                and isinstance(node.elt, ast.Attribute)
                and node.elt.attr == "name"
                and isinstance(node.elt.value, ast.Name)
                and node.elt.value.id == gen.target.id
            ):
                base = self._ep_value(gen.iter, scope, depth + 1)
                if base is not None and base[0] == "eps":
                    return ("names", base[1])
        return None


def _is_empty_literal(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not node.elts
