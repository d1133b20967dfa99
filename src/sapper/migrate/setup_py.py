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
            elif isinstance(arg.comma, cst.Comma):
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
