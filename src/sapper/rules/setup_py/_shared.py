"""setup.py rules, read with ``ast`` and never executed.

SP001 (imports of modules a setuptools release no longer ships) is data-driven: the module
inventory of every setuptools wheel, from ``data/setuptools.json``, says in which releases
``pkg_resources``, ``setuptools.command.test``, ``setuptools.extern``, ... exist.

What the rules of this family share; each rule lives in its own module."""

from __future__ import annotations

import ast

from ...facts.setup_py import (
    _TRY_NODES,
    PATH,
    catches,
)
from ...model import Finding
from .._base import Context
from .._emit import failing_finding


def _finding(  # noqa: PLR0917
    ctx: Context,
    code: str,
    message: str,
    line: int | None,
    column: int | None,
    failing: set[str],
    *,
    fix: str | None = None,
) -> Finding:
    return failing_finding(ctx, code, message, PATH, line, column, failing, fix=fix)


def keyword_items(ctx: Context, name: str) -> list[list[tuple[str, ast.expr]]]:
    """For each ``setup()`` keyword ``name`` whose value is a dict (a literal, or one
    setup.py builds step by step), its string keys with the expression each value comes
    from (see :class:`~sapper.facts._values.Run`)."""
    found: list[list[tuple[str, ast.expr]]] = []
    for kw in ctx.setup_py.keywords:
        if kw.name == name and kw.items is not None:
            found.append([(item.key, item.node) for item in kw.items])
    return found


def caught_nodes(tree: ast.Module, names: frozenset[str]) -> set[int]:
    """The nodes (by id) inside a ``try`` body with an ``except`` clause that catches an
    exception by one of ``names`` (or a bare ``except``): an error raised there is caught."""
    return {
        id(n)
        for t in ast.walk(tree)
        if isinstance(t, _TRY_NODES) and catches(t.handlers, names)
        for stmt in t.body
        for n in ast.walk(stmt)
    }


_REQUIREMENT_KEYWORDS = ("install_requires", "setup_requires")
