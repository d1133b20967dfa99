"""The setup.py editor: the rules' setup.py fixes plan their edits through it, on libcst's
concrete syntax tree, so formatting and comments survive.

Each fixable rule's ``Fix.apply(editor, findings)`` (SP001 in ``rules/setup_py/sp001.py``,
SP002 in ``sp002.py``) is given the rule's findings in setup.py and plans replacements and
removals at their lines with the :class:`PyEditor` below; :func:`fix_setup_py` then makes
them all in one rewrite. An edit that would lose a comment is not made.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model import Finding
from . import Edit, Status

if TYPE_CHECKING:
    import libcst as cst

__all__ = [
    "PyEditor",
    "SetupPyInfo",
    "comments",
    "dotted",
    "drop_items",
    "falsy_literal",
    "fix_setup_py",
    "is_setup_call",
    "setup_py_info",
]

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


def comments(source: str) -> list[str]:
    """The comments of ``source`` (none if it does not tokenize)."""
    try:
        return [
            tok.string
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        return []


# --------------------------------------------------------------------------- helpers


def is_setup_call(node: cst.Call) -> bool:
    """Whether ``node`` calls ``setup`` or ``<something>.setup``."""
    import libcst as cst

    func = node.func
    if isinstance(func, cst.Name):
        return func.value == "setup"
    return isinstance(func, cst.Attribute) and func.attr.value == "setup"


def falsy_literal(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a false literal (``False``, ``0``, ``""``, an empty container...),
    read as SP002 reads it: :func:`ast.literal_eval` of its source, which runs no code."""
    import ast

    import libcst as cst

    try:
        value = ast.literal_eval(cst.Module(body=[]).code_for_node(node).strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return not value


def drop_items(items: Sequence[Any], drop: set[int]) -> list[Any]:
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


def dotted(node: Any) -> str:
    """``a.b.c`` for a Name/Attribute chain ("" for anything else)."""
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    return ""


class PyEditor:
    """One setup.py's concrete syntax tree, what the fixes look up in it (parents,
    positions, the names used outside imports, the ``setup()`` calls), and the edits they
    plan (:attr:`plan`), made together by :func:`fix_setup_py`."""

    def __init__(
        self, module: cst.Module, *, unsafe_fixes: bool, held: Mapping[str, frozenset[int]]
    ) -> None:
        import libcst as cst
        from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.module = wrapper.module
        self.parents: Any = wrapper.resolve(ParentNodeProvider)
        self.positions: Any = wrapper.resolve(PositionProvider)
        self.plan = _Plan()
        self.unsafe_fixes = unsafe_fixes
        #: Rule code -> lines whose finding is suppressed (see :meth:`hold`).
        self.held = held
        #: The module's top-level statements.
        self.body: list[Any] = list(self.module.body)

        names: list[cst.Name] = []

        class Collect(cst.CSTVisitor):
            def visit_Import(self, node: cst.Import) -> bool:
                return False

            def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
                return False

            def visit_Name(self, node: cst.Name) -> None:
                names.append(node)

        self.module.visit(Collect())
        #: Name -> every Name node that uses it outside import statements (not an attribute
        #: name, not a keyword argument's name).
        self.refs: dict[str, list[cst.Name]] = {}
        for n in names:
            parent = self.parents.get(n)
            if isinstance(parent, cst.Attribute) and parent.attr is n:
                continue
            if isinstance(parent, cst.Arg) and parent.keyword is n:
                continue
            self.refs.setdefault(n.value, []).append(n)
        #: Every ``setup(...)`` / ``x.setup(...)`` call.
        self.setup_calls: list[cst.Call] = [
            n for n in self.parents if isinstance(n, cst.Call) and is_setup_call(n)
        ]

    def status(self, safe: bool) -> Status:
        """``applied`` for a safe edit (or any, with ``unsafe_fixes``), else ``unsafe``."""
        return "applied" if safe or self.unsafe_fixes else "unsafe"

    def line(self, node: Any) -> int | None:
        """The first line of ``node``."""
        pos = self.positions.get(node)
        return pos.start.line if pos is not None else None

    def span(self, nodes: Iterable[Any]) -> set[int]:
        """Every line the nodes cover."""
        lines: set[int] = set()
        for node in nodes:
            pos = self.positions.get(node)
            if pos is not None:
                lines.update(range(pos.start.line, pos.end.line + 1))
        return lines

    def hold(self, edit: Edit, lines: set[int]) -> bool:
        """Whether ``edit`` must not be made because it would change a line whose finding of
        the same rule is suppressed. An edit whose own line is suppressed is dropped
        silently (the author accepted that finding); one that would reach a suppressed line
        from an unsuppressed one is reported as skipped, naming the line."""
        return _hold(self.plan, self.held, edit, lines)

    def add(self, edit: Edit) -> None:
        """Record an edit (made, unsafe or skipped)."""
        self.plan.edits.append(edit)


# --------------------------------------------------------------------------- rewrite


def fix_setup_py(
    source: bytes,
    findings: Sequence[Finding],
    *,
    unsafe_fixes: bool = False,
    held: Mapping[str, frozenset[int]] | None = None,
) -> tuple[bytes | None, list[Edit]]:
    """Fix ``findings`` (those of fixable rules in setup.py, as ``sapper check`` reported
    them): each rule's ``Fix.apply`` plans its edits on one :class:`PyEditor`, then they are
    made together. Returns the new source (None if unchanged or unparsable) and the edits,
    with a "no automatic fix" edit for each finding no edit covers.

    ``held``: rule code -> lines whose finding is suppressed. An edit that would change one
    of them is not made (see :meth:`PyEditor.hold`), so a suppressed finding is never fixed,
    even when another finding of the same rule in the file is."""
    import libcst as cst

    from ..rules import get_rule

    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, UnicodeDecodeError, ValueError):
        return None, _unhandled(findings, [])
    editor = PyEditor(module, unsafe_fixes=unsafe_fixes, held=held or {})
    by_code: dict[str, list[Finding]] = {}
    for finding in findings:
        by_code.setdefault(finding.code, []).append(finding)
    for code, found in sorted(by_code.items()):
        rule = get_rule(code)
        if rule is not None and rule.fix is not None:
            rule.fix.apply(editor, found)
    new, edits = _rewrite(module, editor.plan)
    return new, [*edits, *_unhandled(findings, edits)]


def _rewrite(module: cst.Module, plan: _Plan) -> tuple[bytes | None, list[Edit]]:
    """Make the planned edits, unless one would lose a comment."""
    import libcst as cst

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
            return updated_node.with_changes(args=drop_items(args, drop))

        def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
            drop = plan.drop_elements.get(original_node)
            if not drop:
                return updated_node
            return updated_node.with_changes(elements=drop_items(list(updated_node.elements), drop))

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
    old_comments = comments(old_text)
    new_comments = comments(new_source)
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


def _unhandled(findings: Sequence[Finding], edits: Sequence[Edit]) -> list[Edit]:
    """A "left to fix by hand" edit for each finding no edit covers."""
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
        if finding.path == PATH and (finding.code, finding.line) not in covered
    ]
