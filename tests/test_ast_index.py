"""The shared syntax-tree index (``facts.setup_py.AstIndex``) finds what ``ast.walk`` finds,
in the same order, under every node of real modules (sapper's own sources, and deep trees)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from sapper.facts.setup_py import AstIndex, index_of

SOURCES = sorted((Path(__file__).parent.parent / "src" / "sapper").rglob("*.py"))[:40]
KINDS = (ast.Call, ast.Attribute, ast.Name, ast.Assign, ast.comprehension)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_under_is_ast_walk(path: Path) -> None:
    tree = ast.parse(path.read_bytes())
    index = AstIndex(tree)
    assert index.of_type(ast.Load) == []  # the contexts are left out
    for root in ast.walk(tree):
        if not isinstance(root, ast.stmt | ast.expr):
            continue
        for kind in KINDS:
            expected = [n for n in ast.walk(root) if isinstance(n, kind)]
            assert index.under(root, kind) == expected, (path, ast.dump(root)[:80], kind)
    for kind in KINDS:
        walked = {id(n) for n in ast.walk(tree) if isinstance(n, kind)}
        assert {id(n) for n in index.of_type(kind)} == walked


def test_breadth_first_order_within_a_statement() -> None:
    tree = ast.parse("x = f(a.b, g(c.d), e.f)\n")
    index = AstIndex(tree)
    names = [ast.unparse(n) for n in index.under(tree.body[0], ast.Attribute)]
    assert names == [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert names == ["a.b", "e.f", "c.d"]  # breadth first, as ast.walk


def test_deep_trees_need_no_recursion() -> None:
    tree = ast.parse("x = " + " + ".join(["a"] * 900) + "\n")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        index = AstIndex(tree)
    finally:
        sys.setrecursionlimit(limit)
    assert len(index.of_type(ast.Name)) == 901


def test_a_node_of_another_tree_is_walked() -> None:
    index = AstIndex(ast.parse("f(x)\n"))
    other = ast.parse("g(h(y))\n").body[0]
    assert [ast.unparse(n) for n in index.under(other, ast.Call)] == ["g(h(y))", "h(y)"]


def test_index_of_reuses_the_index_of_the_same_tree() -> None:
    tree = ast.parse("a = 1\n")
    assert index_of(tree) is index_of(tree)
    assert index_of(ast.parse("a = 1\n")) is not index_of(tree)
