"""The ``section_eras`` facts: which ``[metadata*]``/``[options*]`` sections are accepted."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from ._base import DIST_PY, STDLIB_DISTUTILS_COMMANDS, ExtractionError
from .cfg_keys import _walk_calls
from .modules import _target_names
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
    str_sequence,
)


def _bound_module(view: WheelView, module_path: str, tree: ast.Module, name: str) -> str:
    """Wheel path of the module a module-level ``from X import name`` binds (or of X.name)."""
    for stmt in tree.body:
        if not isinstance(stmt, ast.ImportFrom):
            continue
        for alias in stmt.names:
            if (alias.asname or alias.name) != name:
                continue
            package = resolve_import(module_path, stmt.level, stmt.module)
            # ``from pkg import submodule`` or ``from module import function``
            for candidate in (f"{package}.{alias.name}", package):
                path = module_path_for(view, candidate)
                if path is not None:
                    return path
            raise ExtractionError(f"{module_path}: cannot find the module of {fmt(stmt)}")
    raise ExtractionError(f"{module_path}: {name} is not bound by a module-level import")


def _parse_configuration_calls(fn: ast.FunctionDef) -> list[ast.Call]:
    return [c for c in _walk_calls(fn) if (dotted(c.func) or "").endswith("parse_configuration")]


def _ignore_option_errors(call: ast.Call, fn: ast.FunctionDef, target: ast.FunctionDef) -> Any:
    """How the ``ignore_option_errors`` argument of a parse_configuration call is fixed."""
    value: ast.expr | None = call.args[2] if len(call.args) > 2 else None
    for kw in call.keywords:
        if kw.arg == "ignore_option_errors":
            value = kw.value
        elif kw.arg is None:
            raise ExtractionError(f"parse_configuration called with **kwargs: {fmt(call)}")
    if value is None:  # the callee's own default
        return {
            "from": "parse_configuration",
            "default": _param_default(target, "ignore_option_errors"),
        }
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return {"from": None, "default": value.value}
    if isinstance(value, ast.Name):
        return {
            "from": f"Distribution.{fn.name}",
            "default": _param_default(fn, value.id),
        }
    raise ExtractionError(f"ignore_option_errors not understood: {fmt(call)}")


def _param_default(fn: ast.FunctionDef, name: str) -> bool:
    args = [*fn.args.posonlyargs, *fn.args.args]
    defaults: dict[str, ast.expr | None] = dict(
        zip(
            [a.arg for a in args][len(args) - len(fn.args.defaults) :],
            fn.args.defaults,
            strict=True,
        )
    )
    defaults.update(
        {a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)}
    )
    default = defaults.get(name)
    if not (isinstance(default, ast.Constant) and isinstance(default.value, bool)):
        raise ExtractionError(f"{fn.name}: parameter {name} has no bool default")
    return default.value


def _module_class(tree: ast.Module, name: str, path: str) -> ast.ClassDef | None:
    """The module-level class ``name``; refuses names bound more than once."""
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    if len(found) > 1:
        raise ExtractionError(f"{path}: class {name} is defined {len(found)} times")
    return found[0] if found else None


def _class_chain(tree: ast.Module, cls: ast.ClassDef, path: str) -> list[ast.ClassDef]:
    """cls and its bases defined in the same module, in MRO order (single inheritance)."""
    chain = [cls]
    while True:
        current = chain[-1]
        local: list[ast.ClassDef] = []
        for base in current.bases:
            node = base.value if isinstance(base, ast.Subscript) else base
            name = dotted(node)
            if name in {"object", "Generic", "typing.Generic"}:
                continue
            found = _module_class(tree, name, path) if name else None
            if found is None:
                raise ExtractionError(f"{path}: base {fmt(base)} of {current.name} not understood")
            local.append(found)
        if current.keywords:
            raise ExtractionError(f"{path}: class {current.name} has keywords (metaclass?)")
        if not local:
            return chain
        if len(local) > 1:
            raise ExtractionError(f"{path}: {current.name} has several setuptools bases")
        if local[0] in chain:
            raise ExtractionError(f"{path}: inheritance cycle at {local[0].name}")
        chain.append(local[0])


def _class_names(cls: ast.ClassDef) -> set[str]:
    """Names bound in a class body (methods and assignments, including nested blocks)."""
    names: set[str] = set()
    for stmt in cls.body:
        for node in ast.walk(stmt) if isinstance(stmt, (ast.If, ast.Try)) else [stmt]:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    names.update(_target_names(target))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                names.update(_target_names(node.target))
    return names


def _chain_method(chain: Sequence[ast.ClassDef], name: str, path: str) -> ast.FunctionDef:
    for cls in chain:
        fn = find_function(cls.body, name)
        if fn is not None:
            return fn
    raise ExtractionError(f"{path}: {chain[0].name} has no method {name}")


def _section_prefix(chain: Sequence[ast.ClassDef], path: str) -> str:
    for cls in chain:
        for stmt in cls.body:
            target = (
                stmt.targets[0]
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                else stmt.target
                if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
                else None
            )
            if isinstance(target, ast.Name) and target.id == "section_prefix":
                assert isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None
                value = str_constant(stmt.value)
                if not value:
                    raise ExtractionError(f"{path}: section_prefix is not a string: {fmt(stmt)}")
                return value
    raise ExtractionError(f"{path}: {chain[0].name} has no section_prefix")


def _body(fn: ast.FunctionDef) -> list[ast.stmt]:
    return [s for s in fn.body if not is_docstring(s)]


def _is_self_attr(node: ast.AST, attr: str, owner: str = "self") -> bool:
    return dotted(node) == f"{owner}.{attr}"


def _assigned(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, value) of ``name = value`` or ``name: T = value``."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
        return stmt.target.id, stmt.value
    return None


def _percent_or_fstring(node: ast.AST, prefix: str) -> str | None:
    """X for ``'<prefix>%s' % X`` or ``f'<prefix>{X}'`` (X a plain name)."""
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and str_constant(node.left) == prefix + "%s"
        and isinstance(node.right, ast.Name)
    ):
        return node.right.id
    if (
        isinstance(node, ast.JoinedStr)
        and len(node.values) == 2
        and str_constant(node.values[0]) == prefix
        and isinstance(node.values[1], ast.FormattedValue)
        and node.values[1].conversion == -1
        and node.values[1].format_spec is None
        and isinstance(node.values[1].value, ast.Name)
    ):
        return node.values[1].value.id
    return None


def _parse_loop_error(fn: ast.FunctionDef, path: str) -> str:
    """Check ConfigHandler.parse is the known getattr dispatch; the exception it raises.

    Recognised (names free, ``%`` or f-strings, annotations allowed)::

        for name, options in self.sections.items():
            postfix = ''
            if name:
                postfix = '_%s' % name
            method = getattr(self, ('parse_section%s' % postfix).replace('.', '__'), None)
            if method is None:
                raise Error(...)
            method(options)
    """

    def bad(what: str) -> ExtractionError:
        return ExtractionError(f"{path}: {fn.name}() not understood ({what})")

    body = _body(fn)
    if len(body) != 1 or not isinstance(body[0], ast.For) or body[0].orelse:
        raise bad("expected a single for loop")
    loop = body[0]
    if not (
        isinstance(loop.target, ast.Tuple)
        and len(loop.target.elts) == 2
        and all(isinstance(e, ast.Name) for e in loop.target.elts)
        and isinstance(loop.iter, ast.Call)
        and not loop.iter.args
        and isinstance(loop.iter.func, ast.Attribute)
        and loop.iter.func.attr == "items"
        and _is_self_attr(loop.iter.func.value, "sections")
    ):
        raise bad(f"loop {fmt(loop.target)} in {fmt(loop.iter)}")
    name, options = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
    stmts = loop.body
    if len(stmts) != 5:
        raise bad(f"{len(stmts)} statements in the loop")
    first = _assigned(stmts[0])
    if first is None or str_constant(first[1]) != "":
        raise bad(fmt(stmts[0]))
    postfix = first[0]
    cond = stmts[1]
    if not (
        isinstance(cond, ast.If)
        and isinstance(cond.test, ast.Name)
        and cond.test.id == name
        and not cond.orelse
        and len(cond.body) == 1
        and _assigned(cond.body[0]) is not None
    ):
        raise bad(fmt(cond))
    inner = _assigned(cond.body[0])
    assert inner is not None
    if inner[0] != postfix or _percent_or_fstring(inner[1], "_") != name:
        raise bad(fmt(cond.body[0]))
    lookup = _assigned(stmts[2])
    if lookup is None:
        raise bad(fmt(stmts[2]))
    method, call = lookup
    if not (
        isinstance(call, ast.Call)
        and dotted(call.func) == "getattr"
        and not call.keywords
        and len(call.args) == 3
        and dotted(call.args[0]) == "self"
        and isinstance(call.args[2], ast.Constant)
        and call.args[2].value is None
    ):
        raise bad(fmt(stmts[2]))
    key = call.args[1]
    if not (
        isinstance(key, ast.Call)
        and isinstance(key.func, ast.Attribute)
        and key.func.attr == "replace"
        and [str_constant(a) for a in key.args] == [".", "__"]
        and not key.keywords
        and _percent_or_fstring(key.func.value, "parse_section") == postfix
    ):
        raise bad(f"lookup key {fmt(key)}")
    check = stmts[3]
    if not (
        isinstance(check, ast.If)
        and isinstance(check.test, ast.Compare)
        and isinstance(check.test.left, ast.Name)
        and check.test.left.id == method
        and len(check.test.ops) == 1
        and isinstance(check.test.ops[0], ast.Is)
        and isinstance(check.test.comparators[0], ast.Constant)
        and check.test.comparators[0].value is None
        and not check.orelse
        and len(check.body) == 1
        and isinstance(check.body[0], ast.Raise)
        and isinstance(check.body[0].exc, ast.Call)
        and isinstance(check.body[0].exc.func, ast.Name)
    ):
        raise bad(fmt(check))
    error = check.body[0].exc.func.id
    last = stmts[4]
    if not (
        isinstance(last, ast.Expr)
        and isinstance(last.value, ast.Call)
        and isinstance(last.value.func, ast.Name)
        and last.value.func.id == method
        and len(last.value.args) == 1
        and isinstance(last.value.args[0], ast.Name)
        and last.value.args[0].id == options
    ):
        raise bad(fmt(last))
    return error


def _sections_split(chain: Sequence[ast.ClassDef], path: str) -> str:
    """How ``self.sections`` maps full section names to sub-section names.

    "replace": ``name.replace(prefix, '').strip('.')`` for names starting with prefix;
    "partition": ``name.partition(prefix)`` with an empty head, then ``.lstrip('.')``.
    """
    init, assigns = None, []
    for index, cls in enumerate(chain):
        init = find_function(cls.body, "__init__")
        if init is None:
            continue
        assigns = [
            s
            for s in ast.walk(init)
            if isinstance(s, (ast.Assign, ast.AnnAssign))
            and any(
                _is_self_attr(t, "sections")
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            )
        ]
        if assigns or not _calls_super_init(init, cls.name, chain[index + 1 :]):
            break
    if init is None or len(assigns) != 1 or assigns[0].value is None:
        raise ExtractionError(f"{path}: expected one self.sections assignment in __init__")
    value = assigns[0].value
    if isinstance(value, ast.Name):
        return _split_replace(init, value.id, path)
    if (
        isinstance(value, ast.Call)
        and dotted(value.func) == "dict"
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Call)
        and (dotted(value.args[0].func) or "").startswith("self.")
    ):
        helper = _chain_method(chain, (dotted(value.args[0].func) or "")[5:], path)
        return _split_partition(helper, path)
    raise ExtractionError(f"{path}: self.sections = {fmt(value)} not understood")


def _calls_super_init(init: ast.FunctionDef, name: str, bases: Sequence[ast.ClassDef]) -> bool:
    """Does init delegate to the next ``__init__`` (``super().__init__(...)``) at top level?"""
    for stmt in _body(init):
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        func = stmt.value.func
        if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
            continue
        owner = func.value
        if (
            isinstance(owner, ast.Call)
            and dotted(owner.func) == "super"
            and (
                not owner.args
                or (
                    len(owner.args) == 2
                    and dotted(owner.args[0]) == name
                    and dotted(owner.args[1]) == "self"
                )
            )
        ):
            return True
        if bases and dotted(owner) == bases[0].name:
            return True
        raise ExtractionError(f"{name}.__init__: {fmt(stmt)} not understood")
    return False


def _split_replace(init: ast.FunctionDef, var: str, path: str) -> str:
    """The loop filling ``var`` in __init__: startswith filter then replace/strip."""
    prefix_names = {"self.section_prefix"}
    for stmt in _body(init):
        bound = _assigned(stmt)
        if bound is not None and dotted(bound[1]) == "self.section_prefix":
            prefix_names.add(bound[0])
    loops = [
        s
        for s in _body(init)
        if isinstance(s, ast.For)
        and any(
            isinstance(n, ast.Subscript) and dotted(n.value) == var
            for b in s.body
            if isinstance(b, ast.Assign)
            for n in b.targets
        )
    ]
    if len(loops) != 1:
        raise ExtractionError(f"{path}: cannot find the loop filling {var}")
    loop = loops[0]
    if not (
        isinstance(loop.target, ast.Tuple)
        and len(loop.target.elts) == 2
        and all(isinstance(e, ast.Name) for e in loop.target.elts)
        and len(loop.body) == 3
        and not loop.orelse
    ):
        raise ExtractionError(f"{path}: loop {fmt(loop.target)} not understood")
    name, options = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
    skip, rename, store = loop.body
    ok_skip = (
        isinstance(skip, ast.If)
        and isinstance(skip.test, ast.UnaryOp)
        and isinstance(skip.test.op, ast.Not)
        and isinstance(skip.test.operand, ast.Call)
        and dotted(skip.test.operand.func) == f"{name}.startswith"
        and len(skip.test.operand.args) == 1
        and dotted(skip.test.operand.args[0]) in prefix_names
        and len(skip.body) == 1
        and isinstance(skip.body[0], ast.Continue)
        and not skip.orelse
    )
    renamed = _assigned(rename)
    expected = f"{name}.replace(P, '').strip('.')"
    ok_rename = False
    if renamed is not None and renamed[0] == name:
        call = renamed[1]
        ok_rename = (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "strip"
            and [str_constant(a) for a in call.args] == ["."]
            and isinstance(call.func.value, ast.Call)
            and dotted(call.func.value.func) == f"{name}.replace"
            and len(call.func.value.args) == 2
            and dotted(call.func.value.args[0]) in prefix_names
            and str_constant(call.func.value.args[1]) == ""
        )
    ok_store = (
        isinstance(store, ast.Assign)
        and len(store.targets) == 1
        and isinstance(store.targets[0], ast.Subscript)
        and dotted(store.targets[0].value) == var
        and dotted(store.targets[0].slice) == name
        and dotted(store.value) == options
    )
    if not (ok_skip and ok_rename and ok_store):
        raise ExtractionError(f"{path}: the section loop is not `{expected}`: {fmt(loop)}")
    return "replace"


def _split_partition(fn: ast.FunctionDef, path: str) -> str:
    """``for full, v in options.items(): pre, _, name = full.partition(cls.section_prefix);
    if pre: continue; yield name.lstrip('.'), v``."""
    body = _body(fn)
    owner = fn.args.args[0].arg if fn.args.args else None
    ok = (
        len(body) == 1
        and isinstance(body[0], ast.For)
        and isinstance(body[0].target, ast.Tuple)
        and len(body[0].target.elts) == 2
        and all(isinstance(e, ast.Name) for e in body[0].target.elts)
        and len(body[0].body) == 3
    )
    if ok:
        loop = body[0]
        assert isinstance(loop, ast.For) and isinstance(loop.target, ast.Tuple)
        full, value = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
        split, skip, out = loop.body
        ok = (
            isinstance(split, ast.Assign)
            and len(split.targets) == 1
            and isinstance(split.targets[0], ast.Tuple)
            and len(split.targets[0].elts) == 3
            and all(isinstance(e, ast.Name) for e in split.targets[0].elts)
            and isinstance(split.value, ast.Call)
            and dotted(split.value.func) == f"{full}.partition"
            and len(split.value.args) == 1
            and dotted(split.value.args[0]) == f"{owner}.section_prefix"
        )
        if ok:
            assert isinstance(split, ast.Assign) and isinstance(split.targets[0], ast.Tuple)
            pre, _, name = (e.id for e in split.targets[0].elts if isinstance(e, ast.Name))
            ok = (
                isinstance(skip, ast.If)
                and dotted(skip.test) == pre
                and len(skip.body) == 1
                and isinstance(skip.body[0], ast.Continue)
                and not skip.orelse
                and isinstance(out, ast.Expr)
                and isinstance(out.value, ast.Yield)
                and isinstance(out.value.value, ast.Tuple)
                and len(out.value.value.elts) == 2
                and isinstance(out.value.value.elts[0], ast.Call)
                and dotted(out.value.value.elts[0].func) == f"{name}.lstrip"
                and [str_constant(a) for a in out.value.value.elts[0].args] == ["."]
                and dotted(out.value.value.elts[1]) == value
            )
    if not ok:
        raise ExtractionError(f"{path}: {fn.name}() not understood: {fmt(fn)}")
    return "partition"


def extract_sections(view: WheelView) -> dict[str, Any]:
    """Which ``[metadata.*]`` / ``[options.*]`` sections parse_configuration accepts."""
    tree = view.tree(DIST_PY)
    cls = find_class(tree, "Distribution")
    public = find_function(cls.body, "parse_config_files") if cls else None
    if public is None:
        raise ExtractionError(f"{DIST_PY}: no Distribution.parse_config_files")
    calls = _parse_configuration_calls(public)
    if len(calls) != 1:
        raise ExtractionError(
            f"{DIST_PY}: {len(calls)} parse_configuration calls in parse_config_files"
        )
    call = calls[0]
    name = dotted(call.func) or ""
    head = name.split(".")[0]
    if name not in {"parse_configuration", f"{head}.parse_configuration"}:
        raise ExtractionError(f"{DIST_PY}: call of {name} not understood")
    if len(call.args) < 2 or dotted(call.args[0]) != "self":
        raise ExtractionError(f"{DIST_PY}: unexpected arguments {fmt(call)}")
    if dotted(call.args[1]) != "self.command_options":
        raise ExtractionError(f"{DIST_PY}: unexpected arguments {fmt(call)}")
    path = _bound_module(view, DIST_PY, tree, head)
    module = view.tree(path)
    target = find_function(module.body, "parse_configuration")
    if target is None:
        raise ExtractionError(f"{path}: no parse_configuration")
    ignore = _ignore_option_errors(call, public, target)

    # handlers parse_configuration builds, and the order their parse() runs
    built: dict[str, ast.ClassDef] = {}
    order: list[str] = []
    for node in ast.walk(target):
        bound = _assigned(node) if isinstance(node, ast.stmt) else None
        if bound and isinstance(bound[1], ast.Call) and isinstance(bound[1].func, ast.Name):
            handler = _module_class(module, bound[1].func.id, path)
            if handler is not None:
                built[bound[0]] = handler
    parse_calls = sorted(
        (
            c
            for c in _walk_calls(target)
            if isinstance(c.func, ast.Attribute)
            and c.func.attr == "parse"
            and isinstance(c.func.value, ast.Name)
        ),
        key=lambda c: (c.lineno, c.col_offset),
    )
    facts: dict[str, Any] = {}
    errors: set[str] = set()
    splits: set[str] = set()
    for parse_call in parse_calls:
        assert isinstance(parse_call.func, ast.Attribute)
        assert isinstance(parse_call.func.value, ast.Name)
        handler = built.get(parse_call.func.value.id)
        if handler is None:
            raise ExtractionError(f"{path}: {fmt(parse_call)} on an unknown object")
        chain = _class_chain(module, handler, path)
        prefix = _section_prefix(chain, path)
        if prefix in facts:
            raise ExtractionError(f"{path}: two handlers for [{prefix}]")
        names = set().union(*(_class_names(c) for c in chain))
        if names & {"__getattr__", "__getattribute__"}:
            raise ExtractionError(f"{path}: {handler.name} customises attribute lookup")
        order.append(prefix)
        facts[prefix] = sorted(n for n in names if n.startswith("parse_section"))
        errors.add(_parse_loop_error(_chain_method(chain, "parse", path), path))
        splits.add(_sections_split(chain, path))
    if sorted(order) != ["metadata", "options"] or len(built) != 2:
        raise ExtractionError(f"{path}: parse_configuration handlers not understood: {order}")
    if len(errors) != 1 or len(splits) != 1:
        raise ExtractionError(f"{path}: handlers differ ({errors}, {splits})")
    return {
        "applied": True,
        "module": path,
        "ignore_option_errors": ignore,
        "order": order,
        "metadata": facts["metadata"],
        "options": facts["options"],
        "split": splits.pop(),
        "error": errors.pop(),
    }


def literal_all(tree: ast.Module, path: str) -> list[str]:
    """The ``__all__ = [...]`` literal of a module."""
    found: list[str] | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
        ):
            values = str_sequence(stmt.value)
            if values is None or found is not None:
                raise ExtractionError(f"{path}: __all__ is not a single list literal")
            found = values
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and dotted(stmt.target) == "__all__":
            raise ExtractionError(f"{path}: __all__ is modified")
    if found is None:
        raise ExtractionError(f"{path}: no __all__")
    return found


def command_set(view: WheelView, sources: frozenset[str]) -> set[str]:
    out: set[str] = set()
    for source in sources:
        if source == "distutils":
            path = "setuptools/_distutils/command/__init__.py"
            if view.has(path):
                out.update(literal_all(view.tree(path), path))
            else:
                out.update(STDLIB_DISTUTILS_COMMANDS)
        elif source == "setuptools.command.__all__":
            path = "setuptools/command/__init__.py"
            out.update(literal_all(view.tree(path), path))
        elif source == "ep:*":
            for names in view.entry_points().values():
                out.update(names)
        elif source.startswith("ep:"):
            out.update(view.entry_points().get(source[3:], []))
        else:
            raise ExtractionError(f"unknown command source {source}")
    return out
