"""The ``cfg`` facts: how ``setup.cfg`` is parsed and its keys checked, per version."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from ._base import DIST_PY, STDLIB_PARSE_CONFIG_FILES, ExtractionError
from .cfg_keys import (
    Emission,
    KeyRule,
    _Atom,
    _CommandSources,
    _is_call_on,
    _key_predicate,
    _key_transform,
    _Scope,
    _walk_calls,
    _WarningsAnalysis,
)
from .sections import command_set
from .wheel import (
    WheelView,
    dotted,
    find_class,
    find_function,
    fmt,
    is_docstring,
    str_constant,
    str_sequence,
)


class _RuleAnalysis:
    def __init__(
        self, view: WheelView, tree: ast.Module, cls: ast.ClassDef | None, module: str
    ) -> None:
        self.view = view
        self.tree = tree
        self.cls = cls
        self.module = module
        self.warnings = _WarningsAnalysis(view)

    # -- section predicates

    def section_pred(
        self, node: ast.expr, scope: _Scope, depth: int = 0
    ) -> tuple[bool, frozenset[_Atom]]:
        if depth > 20:
            raise ExtractionError(f"section predicate too deep: {fmt(node)}")
        sec = scope.section
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            negated, atoms = self.section_pred(node.operand, scope, depth + 1)
            return not negated, atoms
        if isinstance(node, ast.BoolOp):
            parts = [self.section_pred(v, scope, depth + 1) for v in node.values]
            polarity = {p[0] for p in parts}
            atoms = frozenset().union(*(p[1] for p in parts))
            if isinstance(node.op, ast.Or) and polarity == {False}:
                return False, atoms
            if isinstance(node.op, ast.And) and polarity == {True}:
                return True, atoms  # De Morgan: not a and not b == not (a or b)
            raise ExtractionError(f"unrecognised section condition: {fmt(node)}")
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.left, ast.Name)
            and node.left.id == sec
        ):
            op, right = node.ops[0], node.comparators[0]
            if isinstance(op, (ast.Eq, ast.NotEq)) and str_constant(right) is not None:
                return isinstance(op, ast.NotEq), frozenset({("eq", str_constant(right))})
            if isinstance(op, (ast.In, ast.NotIn)):
                negated = isinstance(op, ast.NotIn)
                literal = right
                if isinstance(literal, ast.Name) and literal.id in scope.env:
                    literal = scope.env[literal.id]
                names = str_sequence(literal)
                if names is not None:
                    return negated, frozenset({("in", tuple(names))})
                sources = _CommandSources(scope).sources(right, scope)
                return negated, frozenset({("commands", sources)})
        call = _is_call_on(node, sec, "startswith")
        if call is not None and len(call.args) == 1 and str_constant(call.args[0]) is not None:
            return False, frozenset({("prefix", str_constant(call.args[0]))})
        if isinstance(node, ast.Call):
            fn = scope.function(node)
            if fn is not None:
                inner = scope.callee_scope(node, fn)
                return self.section_pred(self.returned_expr(fn, inner), inner, depth + 1)
        raise ExtractionError(f"unrecognised section condition: {fmt(node)}")

    def returned_expr(self, fn: ast.FunctionDef, scope: _Scope) -> ast.expr:
        """The expression a predicate helper returns (after simple local assignments)."""
        body = [s for s in fn.body if not is_docstring(s)]
        for stmt in body[:-1]:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                scope.env[stmt.targets[0].id] = stmt.value
            else:
                raise ExtractionError(f"unrecognised statement in {fn.name}: {fmt(stmt)}")
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
            raise ExtractionError(f"{fn.name} does not end with a return")
        return body[-1].value

    def guard_terms(
        self, node: ast.expr, scope: _Scope, depth: int = 0
    ) -> Iterator[tuple[ast.expr, _Scope]]:
        """Flatten a guard's ``or`` chain, inlining helper methods that return ``or`` chains."""
        if depth > 10:
            raise ExtractionError(f"guard too deep: {fmt(node)}")
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            for value in node.values:
                yield from self.guard_terms(value, scope, depth + 1)
            return
        if isinstance(node, ast.Call) and _key_predicate(node, scope) is None:
            fn = scope.function(node)
            if fn is not None:
                inner = scope.callee_scope(node, fn)
                expr = self.returned_expr(fn, inner)
                if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
                    yield from self.guard_terms(expr, inner, depth + 1)
                    return
        yield node, scope

    # -- key rules

    def handler_rule(self, call: ast.Call, caller: _Scope) -> tuple[str, KeyRule]:
        """Analyse ``opt = self.<handler>(opt, section)``."""
        fn = caller.function(call)
        if fn is None:
            raise ExtractionError(f"cannot find the method called in {fmt(call)}")
        scope = caller.callee_scope(call, fn)
        if scope.opt is None or scope.section is None:
            raise ExtractionError(f"{fn.name}: cannot map the option/section parameters")
        kinds: set[str] = set()
        exempt: list[str] = []
        checked = "all"
        outside: str | None = None
        commands: frozenset[str] | None = None
        transformed: dict[str, str] = {}
        key_ok_guard = False
        emissions: list[Emission] = []
        error: str | None = None
        returned: str | None = None

        def returned_kind(stmt: ast.Return) -> str:
            value = stmt.value
            if isinstance(value, ast.Name) and value.id == scope.opt:
                return "keep"
            if isinstance(value, ast.Name) and value.id in transformed:
                return "convert"
            raise ExtractionError(f"{fn.name}: unrecognised return {fmt(stmt)}")

        body = [s for s in fn.body if not is_docstring(s)]
        for index, stmt in enumerate(body):
            last = index == len(body) - 1
            if isinstance(stmt, ast.Return):
                if not last:
                    raise ExtractionError(f"{fn.name}: unreachable code after {fmt(stmt)}")
                returned = returned_kind(stmt)
                continue
            if isinstance(stmt, ast.Raise) and last:
                if not (isinstance(stmt.exc, ast.Call) and isinstance(stmt.exc.func, ast.Name)):
                    raise ExtractionError(f"{fn.name}: unrecognised raise {fmt(stmt)}")
                error = stmt.exc.func.id
                continue
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                target = stmt.targets[0].id
                kind = _key_transform(stmt.value, scope)
                if kind is not None:
                    transformed[target] = kind
                    kinds.add(kind)
                    continue
                for sub in _walk_calls(stmt.value):
                    if self.warnings.emission(scope, sub) is not None:
                        raise ExtractionError(
                            f"{fn.name}: warning inside an assignment {fmt(stmt)}"
                        )
                scope.env[target] = stmt.value
                continue
            if (
                isinstance(stmt, ast.If)
                and not stmt.orelse
                and len(stmt.body) == 1
                and isinstance(stmt.body[0], ast.Return)
            ):
                result = returned_kind(stmt.body[0])
                for term, term_scope in self.guard_terms(stmt.test, scope):
                    key = _key_predicate(term, term_scope)
                    if key is not None:
                        if not key[1] or result != "keep":
                            raise ExtractionError(f"{fn.name}: unrecognised key guard {fmt(stmt)}")
                        kinds.add(key[0])
                        key_ok_guard = True
                        continue
                    negated, atoms = self.section_pred(term, term_scope)
                    kinds_of_atoms = {a[0] for a in atoms}
                    if not negated and kinds_of_atoms == {"in"}:
                        if result != "keep":
                            raise ExtractionError(
                                f"{fn.name}: exempt sections are converted: {fmt(stmt)}"
                            )
                        for atom in atoms:
                            exempt.extend(atom[1])
                    elif negated and atoms == {("eq", "metadata")}:
                        checked, outside = _set_once(checked, "metadata", fn), result
                    elif (
                        negated
                        and kinds_of_atoms == {"eq", "prefix", "commands"}
                        and {a for a in atoms if a[0] != "commands"}
                        == {("eq", "metadata"), ("prefix", "options")}
                    ):
                        checked, outside = _set_once(checked, "setuptools", fn), result
                        commands = next(a[1] for a in atoms if a[0] == "commands")
                    else:
                        raise ExtractionError(f"{fn.name}: unrecognised section guard {fmt(term)}")
                continue
            if isinstance(stmt, ast.If) and not stmt.orelse:
                key = _key_predicate(stmt.test, scope)
                if key is None or key[1]:
                    raise ExtractionError(f"{fn.name}: unrecognised condition {fmt(stmt.test)}")
                kinds.add(key[0])
                for inner in stmt.body:
                    emission = self._statement_emission(inner, scope)
                    if emission is None:
                        raise ExtractionError(f"{fn.name}: unrecognised statement {fmt(inner)}")
                    emissions.append(emission)
                continue
            emission = self._statement_emission(stmt, scope)
            if emission is not None:
                if not key_ok_guard:
                    raise ExtractionError(f"{fn.name}: warns without checking the key: {fmt(stmt)}")
                emissions.append(emission)
                continue
            raise ExtractionError(f"{fn.name}: unrecognised statement {fmt(stmt)}")

        if len(kinds) != 1:
            raise ExtractionError(f"{fn.name}: cannot tell which keys it handles ({sorted(kinds)})")
        kind = kinds.pop()
        if error is not None:
            if emissions or not key_ok_guard:
                raise ExtractionError(f"{fn.name}: unrecognised raise pattern")
            action = "raise"
        elif returned is None:
            raise ExtractionError(f"{fn.name}: no return")
        elif emissions:
            if returned != "convert":
                raise ExtractionError(f"{fn.name}: warns but keeps the key")
            action = "warn"
        elif returned == "convert":
            action = "convert"
        else:
            raise ExtractionError(f"{fn.name}: neither converts, warns nor raises")
        if len(set(emissions)) > 1:
            raise ExtractionError(f"{fn.name}: several different warnings {emissions}")
        emission = emissions[0] if emissions else None
        if checked == "all":
            outside = None
        rule = KeyRule(
            action=action,
            checked=checked,
            exempt=exempt,
            outside=outside,
            warning=emission.warning if emission else None,
            due_date=emission.due_date if emission else None,
            enforceable=emission.enforceable if emission else None,
            error=error,
            commands=commands,
        )
        return kind, rule

    def _statement_emission(self, stmt: ast.stmt, scope: _Scope) -> Emission | None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return self.warnings.emission(scope, stmt.value)
        return None


def _set_once(current: str, new: str, fn: ast.FunctionDef) -> str:
    if current != "all":
        raise ExtractionError(f"{fn.name}: several section restrictions")
    return new


def _find_parse_method(
    view: WheelView, tree: ast.Module
) -> tuple[str, ast.ClassDef | None, ast.FunctionDef, ast.Module]:
    """The method that actually reads setup.cfg: ('setuptools'|'distutils', cls, fn, tree)."""
    cls = find_class(tree, "Distribution")
    if cls is None:
        raise ExtractionError(f"{DIST_PY}: no class Distribution")
    public = find_function(cls.body, "parse_config_files")
    if public is None:
        raise ExtractionError(f"{DIST_PY}: Distribution has no parse_config_files")
    own: list[str] = []
    delegated = False
    for call in _walk_calls(public):
        name = dotted(call.func)
        if name == "self._parse_config_files":
            own.append("_parse_config_files")
        elif (
            name is not None
            and name.endswith(".parse_config_files")
            and name != "self.parse_config_files"
        ):
            base = name.rpartition(".")[0]
            if _bound_from_distutils(tree, base):
                delegated = True
            else:
                raise ExtractionError(f"{DIST_PY}: parse_config_files calls {name}")
    if own and not delegated:
        fn = find_function(cls.body, own[0])
        if fn is None:
            raise ExtractionError(f"{DIST_PY}: Distribution has no {own[0]}")
        return "setuptools", cls, fn, tree
    if delegated and not own:
        stdlib = ast.parse(STDLIB_PARSE_CONFIG_FILES)
        fn = stdlib.body[0]
        assert isinstance(fn, ast.FunctionDef)
        return "distutils", None, fn, stdlib
    raise ExtractionError(f"{DIST_PY}: cannot tell which code reads setup.cfg")


def _bound_from_distutils(tree: ast.Module, name: str) -> bool:
    """Is module-level name bound to something taken from distutils?"""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            return any((dotted(n) or "").startswith("distutils.") for n in ast.walk(stmt.value))
        if (
            isinstance(stmt, ast.ImportFrom)
            and (stmt.module or "").startswith("distutils")
            and any((a.asname or a.name) == name for a in stmt.names)
        ):
            return True
    return False


def _parser_facts(fn: ast.FunctionDef) -> tuple[bool, str, list[str]]:
    """(optionxform_str, encoding, venv_ignored) of the setup.cfg reading method."""
    parsers: set[str] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and (dotted(node.value.func) or "").rpartition(".")[2]
            in {"ConfigParser", "RawConfigParser"}
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    parsers.add(target.id)
            for kw in node.value.keywords:
                if kw.arg == "optionxform":
                    raise ExtractionError(
                        f"ConfigParser(optionxform=...) not understood: {fmt(node)}"
                    )
    if len(parsers) != 1:
        raise ExtractionError(f"{fn.name}: expected one ConfigParser, found {sorted(parsers)}")
    parser = parsers.pop()

    optionxform_str = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if dotted(target) == f"{parser}.optionxform":
                    if dotted(node.value) != "str":
                        raise ExtractionError(f"unrecognised optionxform: {fmt(node)}")
                    optionxform_str = True

    encodings: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and dotted(node.func) == f"{parser}.read":
            encodings.add(_encoding_kw(node) or "locale")
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and dotted(call.func) in {"open", "io.open"}:
                    mode = str_constant(call.args[1]) if len(call.args) > 1 else None
                    for kw in call.keywords:
                        if kw.arg == "mode":
                            mode = str_constant(kw.value)
                    if mode is not None and "b" in mode:
                        names = {dotted(c.func) for c in _walk_calls(node)}
                        if "detect_encoding" in names and "io.TextIOWrapper" in names:
                            encodings.add("coding-header")
                        else:
                            raise ExtractionError(
                                f"binary open of setup.cfg not understood: {fmt(call)}"
                            )
                    else:
                        encodings.add(_encoding_kw(call) or "locale")
    if len(encodings) != 1:
        raise ExtractionError(
            f"{fn.name}: cannot tell how setup.cfg is opened ({sorted(encodings)})"
        )

    ignored: list[list[str]] = []
    mentions_venv = False
    for node in ast.walk(fn):
        if dotted(node) == "sys.base_prefix":
            mentions_venv = True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "ignore_options" for t in node.targets
        ):
            for sub in ast.walk(node.value):
                values = str_sequence(sub) if isinstance(sub, ast.List) else None
                if values:
                    ignored.append(values)
    if len(ignored) != 1 or not mentions_venv:
        raise ExtractionError(f"{fn.name}: cannot find the venv ignore_options list")
    return optionxform_str, encodings.pop().lower(), ignored[0]


def _encoding_kw(call: ast.Call) -> str | None:
    for kw in call.keywords:
        if kw.arg == "encoding":
            value = str_constant(kw.value)
            if value is None:
                raise ExtractionError(f"non-literal encoding: {fmt(call)}")
            return value
    return None


def _option_loop(fn: ast.FunctionDef) -> tuple[ast.For, str, str]:
    """The ``for opt in options`` loop, with the option and section variable names."""
    for outer in ast.walk(fn):
        if not (isinstance(outer, ast.For) and isinstance(outer.target, ast.Name)):
            continue
        if not (
            isinstance(outer.iter, ast.Call)
            and (dotted(outer.iter.func) or "").endswith(".sections")
        ):
            continue
        section = outer.target.id
        for inner in ast.walk(outer):
            if (
                isinstance(inner, ast.For)
                and inner is not outer
                and isinstance(inner.target, ast.Name)
            ):
                return inner, inner.target.id, section
    raise ExtractionError(f"{fn.name}: cannot find the loop over sections and options")


def extract_cfg(view: WheelView) -> dict[str, Any]:
    """setup.cfg key-handling facts of one setuptools wheel."""
    tree = view.tree(DIST_PY)
    parser, cls, fn, fn_tree = _find_parse_method(view, tree)
    optionxform_str, encoding, venv_ignored = _parser_facts(fn)
    loop, opt, section = _option_loop(fn)
    analysis = _RuleAnalysis(view, tree, cls, DIST_PY)
    scope = _Scope(DIST_PY, tree, cls, opt, section)

    rules: dict[str, KeyRule] = {}
    for node in ast.walk(loop):
        if not (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == opt for t in node.targets)
        ):
            continue
        if len(node.targets) != 1:
            raise ExtractionError(f"unrecognised option assignment {fmt(node)}")
        inline = _key_transform(node.value, scope)
        if inline == "dash":
            kind, rule = "dash", KeyRule(action="convert", checked="all", exempt=[])
        elif isinstance(node.value, ast.Call) and scope.function(node.value) is not None:
            if fn_tree is not tree:
                raise ExtractionError("stdlib code calls a setuptools method")
            kind, rule = analysis.handler_rule(node.value, scope)
        else:
            raise ExtractionError(f"unrecognised option transformation {fmt(node)}")
        if kind in rules:
            raise ExtractionError(f"two {kind} rules in {fn.name}")
        rules[kind] = rule
    if "dash" not in rules:
        raise ExtractionError(f"{fn.name}: no handling of dash-separated keys found")
    if "upper" not in rules:
        rules["upper"] = KeyRule(action="none")

    sources = {r.commands for r in rules.values() if r.commands is not None}
    if len(sources) > 1:
        raise ExtractionError(f"the key rules use different command sets: {sources}")
    commands = sorted(command_set(view, sources.pop())) if sources else None
    return {
        "parser": parser,
        "optionxform_str": optionxform_str,
        "encoding": encoding,
        "venv_ignored": venv_ignored,
        "dash": rules["dash"].as_json(),
        "upper": rules["upper"].as_json(),
        "commands": commands,
    }
