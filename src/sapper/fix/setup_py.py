"""Fix setup.py (SP001, SP002) through libcst, so formatting and comments survive.

- SP002: drop ``use_2to3=`` from ``setup()`` (safe for a false literal, which setuptools
  ignored; unsafe otherwise: the code was converted by 2to3 before 58).
- SP001: drop ``from setuptools.command.test import test`` when the class is only used as a
  ``cmdclass`` value (safe: setuptools has no ``test`` command since 72); rewrite
  ``pkg_resources`` uses that have a direct equivalent: ``get_distribution(x).version`` ->
  ``importlib.metadata.version(x)`` (safe), ``parse_version(x)`` ->
  ``packaging.version.Version(x)`` (unsafe: ``packaging`` must be in
  ``build-system.requires``, and legacy versions no longer parse), ``resource_filename(p, r)``
  -> ``str(importlib.resources.files(p) / r)`` (unsafe: the package must be importable).
  A file with any other ``pkg_resources`` use is left alone and reported.

An edit that would lose a comment is not made.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import Edit, Status

if TYPE_CHECKING:
    import libcst as cst

    from ..model import Finding

__all__ = ["SetupPyInfo", "fix_setup_py", "setup_py_info"]

PATH = "setup.py"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupPyInfo:
    """What the setup.cfg fixer needs to know about setup.py."""

    #: Keyword names passed to ``setup()`` calls.
    keywords: frozenset[str] = frozenset()
    #: ``setup(**kwargs)``: more keywords than the ones listed.
    star: bool = False
    #: The project is built with pbr or d2to1 (``pbr=True`` in ``setup()``, or setup.py
    #: imports them).
    pbr: bool = False


_PBR_MODULES = frozenset({"pbr", "d2to1"})


def setup_py_info(source: bytes | None) -> SetupPyInfo:
    if source is None:
        return SetupPyInfo()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return SetupPyInfo()
    keywords: set[str] = set()
    star = pbr = False
    for node in ast.walk(tree):
        # pbr (and d2to1, its ancestor) read setup.cfg themselves: `pbr=True`, or a setup.py
        # that imports them (pbr's own calls `setup(**util.cfg_to_args())`).
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        else:
            modules = []
        if any(m.split(".")[0] in _PBR_MODULES for m in modules):
            pbr = True
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name != "setup":
            continue
        for kw in node.keywords:
            if kw.arg is None:
                star = True
            else:
                keywords.add(kw.arg)
                if kw.arg in _PBR_MODULES:
                    pbr = True
    return SetupPyInfo(keywords=frozenset(keywords), star=star, pbr=pbr)


def _comments(source: str) -> list[str]:
    try:
        return [
            tok.string
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        return []


# --------------------------------------------------------------------------- helpers


def _is_setup_call(node: cst.Call) -> bool:
    import libcst as cst

    func = node.func
    if isinstance(func, cst.Name):
        return func.value == "setup"
    return isinstance(func, cst.Attribute) and func.attr.value == "setup"


def _falsy(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a false literal (``False``, ``0``, ``""``, an empty container...),
    read as SP002 reads it: :func:`ast.literal_eval` of its source, which runs no code."""
    import ast

    import libcst as cst

    try:
        value = ast.literal_eval(cst.Module(body=[]).code_for_node(node).strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return not value


def _drop_items(items: Sequence[Any], drop: set[int]) -> list[Any]:
    """Remove the items at ``drop`` from a comma-separated list (args or dict elements),
    moving the removed items' line breaks and comments onto their neighbours."""
    import libcst as cst

    out: list[Any] = []
    for i, item in enumerate(items):
        if i not in drop:
            out.append(item)
            continue
        comma = item.comma
        if not out:
            continue  # the first item: its own whitespace goes with it
        prev = out[-1]
        if isinstance(comma, cst.Comma):
            prev_comma = prev.comma
            ws_removed = comma.whitespace_after
            if isinstance(prev_comma, cst.Comma):
                ws_prev = prev_comma.whitespace_after
                if isinstance(ws_prev, cst.ParenthesizedWhitespace) and isinstance(
                    ws_removed, cst.ParenthesizedWhitespace
                ):
                    extra = list(ws_removed.empty_lines)
                    if ws_removed.first_line.comment is not None:
                        extra.insert(
                            0,
                            cst.EmptyLine(
                                indent=False,
                                whitespace=cst.SimpleWhitespace(ws_prev.last_line.value),
                                comment=ws_removed.first_line.comment,
                            ),
                        )
                    ws_new = ws_prev.with_changes(
                        empty_lines=[*ws_prev.empty_lines, *extra],
                        last_line=ws_removed.last_line,
                    )
                    new_comma = prev_comma.with_changes(whitespace_after=ws_new)
                    out[-1] = prev.with_changes(comma=new_comma)
        else:
            # The last item, without a trailing comma: the previous item loses its comma.
            ws_last = prev.comma.whitespace_after if isinstance(prev.comma, cst.Comma) else None
            if isinstance(ws_last, cst.ParenthesizedWhitespace):
                continue  # keep the trailing comma and the line break before the bracket
            changes: dict[str, Any] = {"comma": cst.MaybeSentinel.DEFAULT}
            if hasattr(prev, "whitespace_after_arg") and hasattr(item, "whitespace_after_arg"):
                changes["whitespace_after_arg"] = item.whitespace_after_arg
            out[-1] = prev.with_changes(**changes)
    return out


# --------------------------------------------------------------------------- analysis


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


@dataclass(slots=True)
class _Plan:
    """Nodes to replace or drop, found by the analysis pass."""

    replace: dict[Any, Any] = field(default_factory=dict)
    drop_args: dict[Any, set[int]] = field(default_factory=dict)
    drop_elements: dict[Any, set[int]] = field(default_factory=dict)
    #: Module-level statement -> the statements that replace it (empty: removed).
    statements: dict[Any, list[Any]] = field(default_factory=dict)
    edits: list[Edit] = field(default_factory=list)
    #: Comments inside removed code, which may go with it.
    allowed_lost: list[str] = field(default_factory=list)


def _line(wrapper_positions: Any, node: Any) -> int | None:
    pos = wrapper_positions.get(node)
    return pos.start.line if pos is not None else None


def _span(positions: Any, nodes: Iterable[Any]) -> set[int]:
    """Every line the nodes cover."""
    lines: set[int] = set()
    for node in nodes:
        pos = positions.get(node)
        if pos is not None:
            lines.update(range(pos.start.line, pos.end.line + 1))
    return lines


def _hold(plan: _Plan, held: Mapping[str, frozenset[int]], edit: Edit, lines: set[int]) -> bool:
    """Whether ``edit`` must not be made because it would change a line whose finding of the
    same rule is suppressed. An edit whose own line is suppressed is dropped silently (the
    author accepted that finding); one that would reach a suppressed line from an
    unsuppressed one is reported as skipped, naming the line."""
    hit = sorted(lines & held.get(edit.code, frozenset()))
    if not hit:
        return False
    if edit.line not in hit:
        plan.edits.append(
            Edit(
                code=edit.code,
                path=edit.path,
                line=edit.line,
                message=(
                    f"{edit.message} — not made: it would also change line {hit[0]}, where "
                    f"a `sapper: ignore[{edit.code}]` comment or per-file-ignores suppresses "
                    "the finding; fix this one by hand"
                ),
                safe=edit.safe,
                status="skipped",
            )
        )
    return True


def _plan(
    module: cst.Module,
    want: Callable[[str], bool],
    unsafe_fixes: bool,
    held: Mapping[str, frozenset[int]],
) -> _Plan:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    parents = wrapper.resolve(ParentNodeProvider)
    positions = wrapper.resolve(PositionProvider)
    plan = _Plan()

    def status(safe: bool) -> Status:
        return "applied" if safe or unsafe_fixes else "unsafe"

    # Every Name node outside import statements, with its parent chain.
    names: list[cst.Name] = []

    class Collect(cst.CSTVisitor):
        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            names.append(node)

    wrapper.module.visit(Collect())

    def is_attr_name(node: cst.Name) -> bool:
        parent = parents.get(node)
        return isinstance(parent, cst.Attribute) and parent.attr is node

    def is_kwarg_name(node: cst.Name) -> bool:
        parent = parents.get(node)
        return isinstance(parent, cst.Arg) and parent.keyword is node

    refs: dict[str, list[cst.Name]] = {}
    for n in names:
        if not (is_attr_name(n) or is_kwarg_name(n)):
            refs.setdefault(n.value, []).append(n)

    setup_calls = [n for n in parents if isinstance(n, cst.Call) and _is_setup_call(n)]

    # SP002: use_2to3=
    if want("SP002"):
        for call in setup_calls:
            for i, arg in enumerate(call.args):
                if arg.keyword is not None and arg.keyword.value == "use_2to3":
                    safe = _falsy(arg.value)
                    st = status(safe)
                    edit = Edit(
                        code="SP002",
                        path=PATH,
                        line=_line(positions, arg),
                        message=(
                            "`use_2to3` removed from setup()"
                            + (
                                ""
                                if safe
                                else ": the code was converted by 2to3 before setuptools 58; "
                                "check that it runs on Python 3 unconverted"
                            )
                        ),
                        safe=safe,
                        status=st,
                    )
                    if _hold(plan, held, edit, _span(positions, [arg])):
                        continue
                    plan.edits.append(edit)
                    if st == "applied":
                        plan.drop_args.setdefault(call, set()).add(i)

    if not want("SP001"):
        return plan

    body = list(wrapper.module.body)

    # SP001: from setuptools.command.test import test [as X], used only as a cmdclass value,
    # or only as the base of module-level classes that are only used as cmdclass values.
    def inside(node: Any, container: Any) -> bool:
        while node is not None:
            if node is container:
                return True
            node = parents.get(node)
        return False

    def cmdclass_element(use: Any) -> tuple[Any, int] | None:
        element: Any = parents.get(use)
        mapping: Any = parents.get(element) if element is not None else None
        keyword: Any = parents.get(mapping) if mapping is not None else None
        owner: Any = parents.get(keyword) if keyword is not None else None
        if (
            isinstance(element, cst.DictElement)
            and element.value is use
            and isinstance(mapping, cst.Dict)
            and isinstance(keyword, cst.Arg)
            and keyword.keyword is not None
            and keyword.keyword.value == "cmdclass"
            and isinstance(owner, cst.Call)
            and _is_setup_call(owner)
        ):
            return mapping, list(mapping.elements).index(element)
        return None

    for stmt in body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        imp = stmt.body[0]
        if not (
            isinstance(imp, cst.ImportFrom)
            and not imp.relative
            and imp.module is not None
            and _dotted(imp.module) == "setuptools.command.test"
            and not isinstance(imp.names, cst.ImportStar)
            and len(imp.names) == 1
        ):
            continue
        alias = imp.names[0]
        local = _dotted(alias.asname.name) if alias.asname is not None else _dotted(alias.name)
        classes = [
            c
            for c in body
            if isinstance(c, cst.ClassDef)
            and any(isinstance(b.value, cst.Name) and b.value.value == local for b in c.bases)
        ]
        elements: list[tuple[Any, int]] = []
        usable = True
        for name in [local, *(c.name.value for c in classes)]:
            for use in refs.get(name, []):
                if any(inside(use, c) for c in classes):
                    continue
                element = cmdclass_element(use)
                if element is None:
                    usable = False
                    break
                elements.append(element)
        line = _line(positions, stmt)
        if not usable:
            plan.edits.append(
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
        st = status(safe)
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
        if _hold(plan, held, edit, _span(positions, touched)):
            continue
        plan.edits.append(edit)
        if st != "applied":
            continue
        plan.statements[stmt] = []
        for cls in classes:
            plan.statements[cls] = []
            plan.allowed_lost.extend(_comments(wrapper.module.code_for_node(cls)))
        for mapping, index in elements:
            plan.drop_elements.setdefault(mapping, set()).add(index)

    _plan_pkg_resources(
        body=body,
        refs=refs,
        parents=parents,
        positions=positions,
        plan=plan,
        status=status,
        held=held,
    )
    return plan


def _dotted(node: Any) -> str:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _plan_pkg_resources(
    *,
    body: list[Any],
    refs: dict[str, list[Any]],
    parents: Any,
    positions: Any,
    plan: _Plan,
    status: Callable[[bool], Status],
    held: Mapping[str, frozenset[int]],
) -> None:
    import libcst as cst

    stmts: list[tuple[Any, str | None, dict[str, str]]] = []  # (stmt, module alias, names)
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if _dotted(alias.name) == "pkg_resources":
                        local = _dotted(alias.asname.name) if alias.asname else "pkg_resources"
                        stmts.append((stmt, local, {}))
            elif (
                isinstance(small, cst.ImportFrom)
                and not small.relative
                and small.module is not None
                and _dotted(small.module) == "pkg_resources"
            ):
                if isinstance(small.names, cst.ImportStar):
                    stmts.append((stmt, None, {"*": "*"}))
                else:
                    stmts.append(
                        (
                            stmt,
                            None,
                            {
                                (_dotted(a.asname.name) if a.asname else _dotted(a.name)): _dotted(
                                    a.name
                                )
                                for a in small.names
                            },
                        )
                    )
    if not stmts:
        return

    def skip(stmt: Any, why: str) -> None:
        plan.edits.append(
            Edit(
                code="SP001",
                path=PATH,
                line=_line(positions, stmt),
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
            for use in refs.get(local, []):
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
    st = status(safe)
    what = ", ".join(sorted(modules))
    edit = Edit(
        code="SP001",
        path=PATH,
        line=_line(positions, first),
        message=f"pkg_resources uses rewritten with {what}"
        + "".join(_UNSAFE_WHY[m] for m in sorted(modules) if not modules[m]),
        safe=safe,
        status=st,
    )
    if _hold(plan, held, edit, _span(positions, [*(s for s, _, _ in stmts), *replace])):
        return
    plan.edits.append(edit)
    if st != "applied":
        return
    plan.replace.update(replace)
    new_imports = [cst.parse_statement(f"import {m}\n") for m in sorted(modules)]
    for i, (stmt, _, _) in enumerate(stmts):
        if i == 0:
            head = new_imports[0].with_changes(
                leading_lines=stmt.leading_lines, trailing_whitespace=stmt.trailing_whitespace
            )
            plan.statements[stmt] = [head, *new_imports[1:]]
        else:
            plan.statements[stmt] = []


# --------------------------------------------------------------------------- rewrite


def fix_setup_py(
    source: bytes,
    *,
    want: Callable[[str], bool],
    unsafe_fixes: bool = False,
    held: Mapping[str, frozenset[int]] | None = None,
) -> tuple[bytes | None, list[Edit]]:
    """Fix setup.py; returns the new source (None if unchanged or unparsable) and the edits.

    ``held``: rule code -> lines whose finding is suppressed. An edit that would change one
    of them is not made (see :func:`_hold`), so a suppressed finding is never fixed, even
    when another finding of the same rule in the file is."""
    import libcst as cst

    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, UnicodeDecodeError, ValueError):
        return None, []
    plan = _plan(module, want, unsafe_fixes, held or {})
    if not (plan.replace or plan.drop_args or plan.drop_elements or plan.statements):
        return None, plan.edits

    class Rewrite(cst.CSTTransformer):
        def leave_Attribute(
            self, original_node: cst.Attribute, updated_node: cst.Attribute
        ) -> cst.BaseExpression:
            new = plan.replace.get(original_node)
            return updated_node if new is None else new

        def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
            new = plan.replace.get(original_node)
            if new is not None:
                return new  # type: ignore[no-any-return]
            drop = plan.drop_args.get(original_node, set())
            args = list(updated_node.args)
            # An emptied cmdclass={} goes too.
            for i, (orig, upd) in enumerate(zip(original_node.args, args, strict=True)):
                if (
                    orig.keyword is not None
                    and orig.keyword.value == "cmdclass"
                    and isinstance(orig.value, cst.Dict)
                    and isinstance(upd.value, cst.Dict)
                    and orig.value.elements
                    and not upd.value.elements
                    and orig.value in plan.drop_elements
                ):
                    drop = drop | {i}
            if not drop:
                return updated_node
            return updated_node.with_changes(args=_drop_items(args, drop))

        def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
            drop = plan.drop_elements.get(original_node)
            if not drop:
                return updated_node
            return updated_node.with_changes(
                elements=_drop_items(list(updated_node.elements), drop)
            )

        def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
            body: list[Any] = []
            carried: list[cst.EmptyLine] = []
            for orig, upd in zip(original_node.body, updated_node.body, strict=True):
                new = plan.statements.get(orig)
                if new is None:
                    new = [upd]
                elif not new:
                    # A removed statement's comment lines move to the next statement.
                    carried.extend(line for line in upd.leading_lines if line.comment)
                    continue
                if carried:
                    new = [
                        new[0].with_changes(leading_lines=[*carried, *new[0].leading_lines]),
                        *new[1:],
                    ]
                    carried = []
                body.extend(new)
            if carried:
                return updated_node.with_changes(body=body, footer=[*carried, *updated_node.footer])
            return updated_node.with_changes(body=body)

    new_module = module.visit(Rewrite())
    new_source = new_module.code
    old_text = module.code
    old_comments = _comments(old_text)
    new_comments = _comments(new_source)
    remaining = list(new_comments) + list(plan.allowed_lost)
    lost = []
    for comment in old_comments:
        if comment in remaining:
            remaining.remove(comment)
        else:
            lost.append(comment)
    if lost:
        edits = [
            Edit(
                code=e.code,
                path=e.path,
                line=e.line,
                message=f"{e.message} — not made: it would drop the comment {lost[0]!r}",
                safe=e.safe,
                status="skipped",
            )
            if e.status == "applied"
            else e
            for e in plan.edits
        ]
        return None, edits
    return new_module.bytes, plan.edits


def unhandled(findings: Sequence[Finding], edits: Sequence[Edit]) -> list[Edit]:
    """A "left to fix by hand" edit for each SP001/SP002 finding no edit covers."""
    covered = {(e.code, e.line) for e in edits}
    return [
        Edit(
            code=finding.code,
            path=PATH,
            line=finding.line,
            message=f"no automatic fix: {finding.text}",
            status="skipped",
        )
        for finding in findings
        if finding.code in ("SP001", "SP002")
        and finding.path == PATH
        and (finding.code, finding.line) not in covered
    ]
