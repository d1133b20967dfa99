"""setup.py rules, read with ``ast`` and never executed.

SP001 (imports of modules a setuptools release no longer ships) is data-driven: the module
inventory of every setuptools wheel, from ``data/setuptools.json``, says in which releases
``pkg_resources``, ``setuptools.command.test``, ``setuptools.extern``, ... exist.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from ..model import Finding, Reference
from ._base import Context, Rule, register

__all__: list[str] = []

PATH = "setup.py"

#: Before 60.0.0 setuptools used the standard library's distutils by default, so a
#: ``distutils.*`` module missing from setuptools' own copy was still importable there.
_LOCAL_DISTUTILS_SINCE = Version("60.0.0")

#: ``try`` statements (``TryStar`` too on Python >= 3.11); typed loosely to read both.
_TRY_NODES: tuple[type[Any], ...] = (
    ast.Try,
    *([ast.TryStar] if hasattr(ast, "TryStar") else []),
)
_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})

_ADVICE = {
    "pkg_resources": (
        "use importlib.metadata (versions, entry points), importlib.resources (package "
        "data) and packaging.version; or pin `setuptools<82` in build-system.requires"
    ),
    "setuptools.command.test": "drop the `test` command; run the tests with pytest or tox",
    "setuptools.extern": "import `packaging` (add it to build-system.requires) directly",
    "setuptools.dep_util": "use `setuptools.modified`",
    "setuptools.sandbox": "run the code in a subprocess instead of `setuptools.sandbox`",
    "setuptools.package_index": "nothing replaces it; download with pip or urllib",
}


@dataclass(frozen=True, slots=True)
class ImportSite:
    module: str
    line: int
    column: int


def _guarded(handlers: list[ast.ExceptHandler]) -> bool:
    for handler in handlers:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for t in types:
            name = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", None)
            if name in _GUARDS:
                return True
    return False


def _statements(body: Iterable[ast.stmt], *, imports: bool) -> Iterator[ast.stmt]:
    """The simple statements that run when setup.py runs, through if/with/for/while/try.

    Function and class bodies are skipped (they run only for some commands, or never).
    With ``imports``, a ``try`` body guarded by ``except ImportError`` (or broader) is
    skipped too and handlers are not entered: a failing import there is caught.
    """
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, _TRY_NODES):
            handlers: list[ast.ExceptHandler] = node.handlers
            if not (imports and _guarded(handlers)):
                yield from _statements(node.body, imports=imports)
            if not imports:
                for handler in handlers:
                    yield from _statements(handler.body, imports=imports)
            yield from _statements(node.orelse, imports=imports)
            yield from _statements(node.finalbody, imports=imports)
        elif isinstance(node, ast.If | ast.With | ast.For | ast.While):
            yield from _statements(node.body, imports=imports)
            yield from _statements(getattr(node, "orelse", []), imports=imports)
        else:
            yield node


def _import_sites(tree: ast.Module) -> Iterator[ImportSite]:
    for node in _statements(tree.body, imports=True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield ImportSite(alias.name, node.lineno, node.col_offset + 1)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield ImportSite(node.module, node.lineno, node.col_offset + 1)
            if ".extern" not in f".{node.module}":  # extern serves names, not modules
                for alias in node.names:
                    yield ImportSite(
                        f"{node.module}.{alias.name}", node.lineno, node.col_offset + 1
                    )


def _parse(ctx: Context) -> ast.Module | None:
    """setup.py's syntax tree, parsed once per project; None if absent or unparsable."""

    def parse() -> ast.Module | None:
        source = ctx.files.files.get(PATH)
        if source is None:
            return None
        try:
            return ast.parse(source, filename=PATH)
        except (SyntaxError, ValueError):
            return None

    tree: ast.Module | None = ctx.memo("setup.py:ast", parse)
    return tree


def _missing_in(ctx: Context, module: str) -> set[str]:
    cat = ctx.catalogue
    ranges = cat.modules.get(module)
    if ranges is None:
        return set()
    spans = [(Version(a), Version(b)) for a, b in ranges]
    out: set[str] = set()
    for v in cat.universe:
        pv = cat.parsed(v)
        if any(lo <= pv <= hi for lo, hi in spans):
            continue
        if module.startswith("distutils.") and pv < _LOCAL_DISTUTILS_SINCE:
            continue
        out.add(v)
    return out


def _check_removed_imports(ctx: Context) -> Iterable[Finding]:
    tree = _parse(ctx)
    if tree is None:
        return []
    sites = list(_import_sites(tree))
    cat = ctx.catalogue
    findings: list[Finding] = []
    seen: set[str] = set()
    lines: set[int] = set()
    for site in sites:
        top = site.module.split(".")[0]
        if top not in ("setuptools", "pkg_resources", "distutils"):
            continue
        if site.module in seen or site.line in lines:
            continue
        missing = _missing_in(ctx, site.module)
        if not missing:
            continue
        seen.add(site.module)
        lines.add(site.line)
        fails = cat.to_specifiers(missing)
        advice = next(
            (text for mod, text in _ADVICE.items() if site.module.startswith(mod)),
            "remove the import or pin a setuptools that ships it in build-system.requires",
        )
        findings.append(
            Finding(
                code="SP001",
                slug="setuppy-removed-module",
                message=(
                    f"setup.py imports `{site.module}`, which setuptools "
                    f"{' | '.join(fails)} does not ship (ModuleNotFoundError); {advice}"
                ),
                path=PATH,
                line=site.line,
                column=site.column,
                fails=fails,
                fails_enforced=fails,
                fix=None,
            )
        )
    return findings


register(
    Rule(
        code="SP001",
        slug="setuppy-removed-module",
        family="setup.py",
        summary="setup.py imports a module that setuptools removed",
        doc="""
## What it does
Finds module-level imports in setup.py (outside functions and classes, and not under a
`try`/`except ImportError`) of `setuptools`, `pkg_resources` or `distutils` modules that
some setuptools releases do not ship. Which releases ship which module comes from the
module inventory of every setuptools wheel.

## Why is this bad?
setup.py runs inside the build, so the import fails with `ModuleNotFoundError` and so does
the build: `pkg_resources` is gone since 82.0.0, `setuptools.extern` since 71.0.0,
`setuptools.dep_util` since 70.0.0, `setuptools.command.test` was missing from 72.0.0,
`distutils.msvccompiler` from 74.0.0.

## Example
```python
from setuptools import setup
import pkg_resources

setup(name="example", version="1.0")
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0")
```
Use `importlib.metadata`, `importlib.resources` and `packaging` instead of
`pkg_resources`, or pin `setuptools<82` in `build-system.requires`.

## References
- setuptools 82.0.0 changelog (#3085): pkg_resources removed
- setuptools 72.0.0 changelog (#931): test command removed
""".strip(),
        references=(
            Reference(
                title="setuptools 82.0.0 changelog (#3085): pkg_resources removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v82-0-0",
            ),
            Reference(
                title="setuptools 72.0.0 changelog (#931): test command removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v72-0-0",
            ),
        ),
        example=(
            (
                PATH,
                "from setuptools import setup\nimport pkg_resources\n\n"
                'setup(name="example", version="1.0")\n',
            ),
        ),
        check=_check_removed_imports,
    )
)


def _setup_calls(tree: ast.Module) -> Iterator[ast.Call]:
    """``setup(...)``/``setuptools.setup(...)`` calls that run at module level."""
    for stmt in _statements(tree.body, imports=False):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name == "setup":
                    yield node


def _falsy_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and not node.value


def _check_use_2to3(ctx: Context) -> Iterable[Finding]:
    tree = _parse(ctx)
    if tree is None:
        return []
    cat = ctx.catalogue
    findings: list[Finding] = []
    for call in _setup_calls(tree):
        for kw in call.keywords:
            if kw.arg != "use_2to3":
                continue
            # 58.0.0/58.0.1 dropped the keyword silently (no conversion); 58.0.2 (#2769)
            # fails fast for any value; 58.0.3 (#2777) lets a false value pass again.
            if _falsy_literal(kw.value):
                failing = {v for v in cat.universe if v == "58.0.2"}
                what = "`use_2to3=False` only failed in setuptools 58.0.2; drop the keyword"
            else:
                failing = {v for v in cat.universe if cat.parsed(v) >= Version("58.0.2")}
                what = (
                    "2to3 support was removed in setuptools 58: the build fails with "
                    "`use_2to3 is invalid`; port the code to Python 3 and drop the keyword, "
                    "or pin `setuptools<58` in build-system.requires"
                )
            fails = cat.to_specifiers(failing)
            findings.append(
                Finding(
                    code="SP002",
                    slug="setuppy-use-2to3",
                    message=(
                        f"setup() gets `use_2to3`: {what} (fails in setuptools {' | '.join(fails)})"
                    ),
                    path=PATH,
                    line=kw.value.lineno,
                    column=kw.value.col_offset + 1,
                    fails=fails,
                    fails_enforced=fails,
                    fix="remove the `use_2to3` argument",
                )
            )
    return findings


register(
    Rule(
        code="SP002",
        slug="setuppy-use-2to3",
        family="setup.py",
        summary="setup() passes use_2to3, removed in setuptools 58",
        doc="""
## What it does
Finds a `use_2to3=` keyword in the `setup()` call of setup.py.

## Why is this bad?
setuptools 58.0.0 removed 2to3 support. 58.0.0 and 58.0.1 dropped the keyword silently and
built unconverted code; since 58.0.2 the build fails with
`error in ... setup command: use_2to3 is invalid.` A false value failed only in 58.0.2
(58.0.3 accepts it with a warning).

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", use_2to3=True)
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0")
```
after porting the code to Python 3, or pin `setuptools<58` in `build-system.requires`.

## References
- setuptools 58.0.0 changelog (#2086), 58.0.2 (#2769), 58.0.3 (#2777)
""".strip(),
        references=(
            Reference(
                title="setuptools 58.0.0 changelog (#2086): 2to3 support removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v58-0-0",
            ),
            Reference(
                title="setuptools 58.0.2 changelog (#2769): fail fast on use_2to3",
                url="https://setuptools.pypa.io/en/latest/history.html#v58-0-2",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                "use_2to3=True)\n",
            ),
        ),
        check=_check_use_2to3,
    )
)
