"""Take keyword arguments out of setup.py's ``setup()`` call, keeping everything else.

The call is edited with libcst, so the rest of the file keeps its layout byte for byte.
Comments libcst would lose with a removed argument are returned with the pyproject key they
annotate (the argument whose lines hold them), or, when they annotate something that stays,
put back in a comment block above the statement that calls ``setup()``: never dropped.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

__all__ = ["SetupPyEdit", "remove_keywords"]


@dataclass(frozen=True, slots=True)
class SetupPyEdit:
    text: str
    #: ``(pyproject key, comment text)`` of the comments that leave with moved arguments.
    comments: tuple[tuple[str, str], ...]


def _comments(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
    except (tokenize.TokenError, SyntaxError):
        return out
    return out


class _Remover(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, line: int, remove: frozenset[str]) -> None:
        super().__init__()
        self.line = line
        self.remove = remove
        self.done = False

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        pos = self.get_metadata(PositionProvider, original_node)
        if self.done or pos.start.line != self.line:
            return updated_node
        kept: list[cst.Arg] = []
        before_args = updated_node.whitespace_before_args
        for arg in updated_node.args:
            if arg.keyword is None or arg.keyword.value not in self.remove:
                kept.append(arg)
                continue
            # the whitespace (and comments) after a removed argument belong to what follows
            # it: the argument before it takes them over, with its comma or its absence
            if kept:
                kept[-1] = kept[-1].with_changes(
                    comma=arg.comma, whitespace_after_arg=arg.whitespace_after_arg
                )
            elif isinstance(arg.comma, cst.Comma) and isinstance(
                arg.comma.whitespace_after, cst.ParenthesizedWhitespace
            ):  # a line break (and comments) before the next argument
                before_args = arg.comma.whitespace_after
        if len(kept) == len(updated_node.args):
            return updated_node
        self.done = True
        if not kept:
            return updated_node.with_changes(
                args=(), whitespace_before_args=cst.SimpleWhitespace("")
            )
        return updated_node.with_changes(args=kept, whitespace_before_args=before_args)


def remove_keywords(source: str, call: ast.Call, remove: Mapping[str, str]) -> SetupPyEdit:
    """``source`` with the keyword arguments ``remove`` (keyword -> pyproject key) taken
    out of ``call``; raises :class:`libcst.ParserSyntaxError` when libcst cannot read it."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module)
    remover = _Remover(call.lineno, frozenset(remove))
    new = wrapper.visit(remover).code
    if not remover.done:
        return SetupPyEdit(source, ())
    # where each argument's comments are: from the line after the previous one to its end
    spans: list[tuple[int, int, str | None]] = []
    previous = call.lineno
    args: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    args.sort(key=lambda a: (a.lineno, a.col_offset))
    for arg in args:
        end = arg.end_lineno or arg.lineno
        key = arg.arg if isinstance(arg, ast.keyword) else None
        start = previous + 1 if arg.lineno > previous else arg.lineno
        spans.append((start, end, remove.get(key) if key is not None else None))
        previous = end
    lost = Counter(c for _, c in _comments(source)) - Counter(c for _, c in _comments(new))
    moved: list[tuple[str, str]] = []
    orphans: list[str] = []
    for line, comment in _comments(source):
        if not lost[comment]:
            continue
        lost[comment] -= 1
        owner = next((k for s, e, k in spans if s <= line <= e), None)
        if owner is not None:
            moved.append((owner, comment))
        else:
            orphans.append(comment)
    if orphans:
        new = _insert_block(new, orphans)
    return SetupPyEdit(new, tuple(moved))


def _calls_setup(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name == "setup"


def _insert_block(text: str, comments: list[str]) -> str:
    """Put ``comments`` above the statement that calls ``setup()``."""
    tree = ast.parse(text)
    target: ast.stmt | None = None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.stmt)
            and not isinstance(node, ast.If | ast.FunctionDef | ast.With | ast.Try)
            and (target is None or node.lineno >= target.lineno)
            and any(_calls_setup(c) for c in ast.walk(node))
        ):
            target = node
    lines = text.splitlines(keepends=True)
    at = (target.lineno - 1) if target is not None else 0
    indent = " " * (target.col_offset if target is not None else 0)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    block = [f"{indent}{c}{newline}" for c in comments]
    return "".join([*lines[:at], *block, *lines[at:]])


# -- keys of the dict setup(**kwargs) gets -------------------------------------------------


def removable_dict(tree: ast.Module, call: ast.Call) -> str | None:
    """The name of the dict ``setup(**name)`` gets when nothing but setup() reads it: bound
    once, then only stored into (``name[k] = v``, ``name.update(...)``) and expanded into
    ``setup()``. A key taken out of it then changes what setup() gets and nothing else."""
    names = [
        kw.value.id for kw in call.keywords if kw.arg is None and isinstance(kw.value, ast.Name)
    ]
    if len(names) != 1:
        return None
    name = names[0]
    expanded = {id(kw.value) for kw in call.keywords if kw.arg is None}
    allowed: set[int] = set(expanded)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            allowed.add(id(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"update", "setdefault"}
        ):
            allowed.add(id(node.func.value))
    bound = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Store):
                bound += 1
            elif id(node) not in allowed:
                return None
    return name if bound == 1 else None


class _DictRemover(cst.CSTTransformer):
    """Takes out of dict displays and ``dict(...)`` calls the items whose value starts at
    one of ``at`` (``(line, column)`` -> key)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, at: Mapping[tuple[int, int], str], name: str) -> None:
        super().__init__()
        self.at = at
        self.name = name
        self.inside = 0
        self.removed: set[tuple[int, int]] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(
            isinstance(t.target, cst.Name) and t.target.value == self.name for t in node.targets
        ):
            self.inside += 1

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        if any(
            isinstance(t.target, cst.Name) and t.target.value == self.name
            for t in original_node.targets
        ):
            self.inside -= 1
        return updated_node

    def _where(self, node: cst.CSTNode) -> tuple[int, int]:
        pos = self.get_metadata(PositionProvider, node)
        return pos.start.line, pos.start.column

    def _drops(self, key: str | None, value: cst.BaseExpression) -> bool:
        where = self._where(value)
        if self.inside and key is not None and self.at.get(where) == key:
            self.removed.add(where)
            return True
        return False

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        kept: list[cst.BaseDictElement] = []
        for old, new in zip(original_node.elements, updated_node.elements, strict=True):
            key = None
            if isinstance(old, cst.DictElement) and isinstance(old.key, cst.SimpleString):
                key = str(old.key.evaluated_value)
            if isinstance(old, cst.DictElement) and self._drops(key, old.value):
                if kept:
                    kept[-1] = kept[-1].with_changes(comma=new.comma)
                continue
            kept.append(new)
        if len(kept) == len(updated_node.elements):
            return updated_node
        if not kept:
            return updated_node.with_changes(
                elements=(), lbrace=cst.LeftCurlyBrace(), rbrace=cst.RightCurlyBrace()
            )
        return updated_node.with_changes(elements=kept)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if not (isinstance(func, cst.Name) and func.value == "dict"):
            return updated_node
        kept: list[cst.Arg] = []
        for old, new in zip(original_node.args, updated_node.args, strict=True):
            key = old.keyword.value if old.keyword is not None else None
            if self._drops(key, old.value):
                if kept:
                    kept[-1] = kept[-1].with_changes(
                        comma=new.comma, whitespace_after_arg=new.whitespace_after_arg
                    )
                continue
            kept.append(new)
        if len(kept) == len(updated_node.args):
            return updated_node
        if not kept:
            return updated_node.with_changes(
                args=(), whitespace_before_args=cst.SimpleWhitespace("")
            )
        return updated_node.with_changes(args=kept)


def remove_dict_items(
    source: str, at: Mapping[tuple[int, int], str], name: str
) -> tuple[str, set[tuple[int, int]]]:
    """``source`` without the items of the dict bound to ``name`` whose values start at
    ``at`` (1-based line, 0-based column, as :mod:`ast` gives them), and the positions it
    found."""
    wrapper = MetadataWrapper(cst.parse_module(source))
    remover = _DictRemover(at, name)
    return wrapper.visit(remover).code, remover.removed
