"""A test that cannot fail proves nothing: every test function in tests/ must assert.

An AST scan: a test function passes if its body holds an ``assert``, a ``pytest.raises`` (or
``pytest.warns``/``pytest.fail``), or calls a helper defined in tests/ that does (helpers are
followed transitively, by name). Fixture projects under tests/data are data and not scanned.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CHECKERS = frozenset({"raises", "warns", "fail", "deprecated_call"})


def _sources() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("*.py")):
        if "data" not in path.relative_to(TESTS).parts:
            yield path


def _imports(tree: ast.Module, stems: dict[str, Path]) -> dict[str, tuple[Path, str | None]]:
    """Local name -> (scanned module, function name or None for the module itself)."""
    out: dict[str, tuple[Path, str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            stem = (node.module or "").rpartition(".")[2]
            for alias in node.names:
                if stem in stems:
                    out[alias.asname or alias.name] = (stems[stem], alias.name)
                elif alias.name in stems:  # from . import harness
                    out[alias.asname or alias.name] = (stems[alias.name], None)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                stem = alias.name.rpartition(".")[2]
                if stem in stems:
                    out[alias.asname or stem] = (stems[stem], None)
    return out


def _callees(
    node: ast.AST, path: Path, imports: dict[str, tuple[Path, str | None]]
) -> set[tuple[Path, str]]:
    """The (module, function) pairs a function calls, resolved within the scanned files."""
    out: set[tuple[Path, str]] = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Name):
            target = imports.get(func.id)
            if target is not None and target[1] is not None:
                out.add((target[0], target[1]))
            else:
                out.add((path, func.id))
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            target = imports.get(func.value.id)
            if target is not None and target[1] is None:
                out.add((target[0], func.attr))
    return out


def _checks_directly(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assert):
            return True
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in CHECKERS
            and isinstance(sub.func.value, ast.Name)
            and sub.func.value.id == "pytest"
        ):
            return True
        if isinstance(sub, ast.Raise) and sub.exc is not None:
            # `raise AssertionError(...)` in a helper is an assertion too.
            exc = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
            if isinstance(exc, ast.Name) and exc.id == "AssertionError":
                return True
    return False


def hollow_tests(paths: list[Path]) -> list[str]:
    """``file::test`` for each test function that neither asserts nor calls (directly or
    through other helpers in the scanned files) a function that does."""
    stems = {p.stem: p for p in paths}
    functions: dict[tuple[Path, str], ast.FunctionDef | ast.AsyncFunctionDef] = {}
    calls: dict[tuple[Path, str], set[tuple[Path, str]]] = {}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        imports = _imports(tree, stems)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions[path, node.name] = node
                calls[path, node.name] = _callees(node, path, imports)
    asserting = {key for key, fn in functions.items() if _checks_directly(fn)}
    changed = True
    while changed:
        changed = False
        for key, callees in calls.items():
            if key not in asserting and callees & asserting:
                asserting.add(key)
                changed = True
    return [
        f"{path.name}::{name}"
        for (path, name) in functions
        if name.startswith("test_") and (path, name) not in asserting
    ]


def test_every_test_function_asserts() -> None:
    hollow = hollow_tests(list(_sources()))
    assert not hollow, "test functions without an assertion:\n" + "\n".join(hollow)


@pytest.mark.parametrize(
    ("source", "hollow"),
    [
        ("def test_a():\n    x = 1\n", ["t.py::test_a"]),
        ("def test_a():\n    assert 1\n", []),
        ("import pytest\ndef test_a():\n    with pytest.raises(ValueError):\n        f()\n", []),
        # A helper that asserts counts, also through another helper.
        ("def h():\n    assert 1\ndef g():\n    h()\ndef test_a():\n    g()\n", []),
        ("def h():\n    raise AssertionError('x')\ndef test_a():\n    h()\n", []),
        ("def h():\n    return 1\ndef test_a():\n    h()\n", ["t.py::test_a"]),
        # Comparing literals in a local function that is never called is still hollow.
        ("def test_a():\n    def inner():\n        pass\n    inner()\n", ["t.py::test_a"]),
    ],
)
def test_the_scan_itself(tmp_path: Path, source: str, hollow: list[str]) -> None:
    path = tmp_path / "t.py"
    path.write_text(source)
    assert hollow_tests([path]) == hollow


def test_helpers_resolve_by_module(tmp_path: Path) -> None:
    """A helper of the same name in another module does not vouch for a test."""
    (tmp_path / "helpers.py").write_text("def check():\n    assert 1\ndef quiet():\n    pass\n")
    (tmp_path / "other.py").write_text("def quiet():\n    assert 1\n")
    (tmp_path / "t.py").write_text(
        "from helpers import check, quiet\nimport helpers\n"
        "def test_a():\n    check()\n"
        "def test_b():\n    quiet()\n"
        "def test_c():\n    helpers.check()\n"
    )
    paths = [tmp_path / n for n in ("helpers.py", "other.py", "t.py")]
    assert hollow_tests(paths) == ["t.py::test_b"]
