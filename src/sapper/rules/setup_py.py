"""setup.py rules, read with ``ast`` and never executed.

SP001 (imports of modules a setuptools release no longer ships) is data-driven: the module
inventory of every setuptools wheel, from ``data/setuptools.json``, says in which releases
``pkg_resources``, ``setuptools.command.test``, ``setuptools.extern``, ... exist.
"""

from __future__ import annotations

import ast
import datetime as _dt
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from ..model import Finding, Reference
from ..versions import Catalogue
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


def import_sites(tree: ast.Module) -> Iterator[ImportSite]:
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


def parse_setup_py(ctx: Context) -> ast.Module | None:
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


@functools.lru_cache(maxsize=4096)
def _covered(cat: Catalogue, ranges: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """The known versions inside inclusive ``[first, last]`` runs (cached: the same runs
    come back for every sdist of a scan)."""
    spans = [(cat.parsed(a), cat.parsed(b)) for a, b in ranges]
    return frozenset(v for v in cat.universe if any(lo <= cat.parsed(v) <= hi for lo, hi in spans))


def _runs(ranges: Sequence[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    return tuple((a, b) for a, b in ranges)


@functools.lru_cache(maxsize=4096)
def _missing(cat: Catalogue, module: str) -> frozenset[str]:
    ranges = cat.modules.get(module)
    if ranges is None:
        return frozenset()
    covered = _covered(cat, _runs(ranges))
    distutils = module == "distutils" or module.startswith("distutils.")
    return frozenset(
        v
        for v in cat.universe
        if v not in covered and not (distutils and cat.parsed(v) < _LOCAL_DISTUTILS_SINCE)
    )


def missing_in(ctx: Context, module: str) -> set[str]:
    return set(_missing(ctx.catalogue, module))


def _check_removed_imports(ctx: Context) -> Iterable[Finding]:
    tree = parse_setup_py(ctx)
    if tree is None:
        return []
    sites = list(import_sites(tree))
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
        missing = missing_in(ctx, site.module)
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
    findings.extend(_removed_through_local_imports(ctx, tree, seen))
    return findings


def _module_tree(ctx: Context, path: str) -> ast.Module | None:
    def parse() -> ast.Module | None:
        source = ctx.files.files.get(path)
        if source is None:
            return None
        try:
            return ast.parse(source, filename=path)
        except (SyntaxError, ValueError):
            return None

    tree: ast.Module | None = ctx.memo(f"ast:{path}", parse)
    return tree


def _local_files(ctx: Context, module: str, roots: Sequence[str]) -> list[str]:
    """The files Python runs to import ``module`` from the project tree: every package
    ``__init__.py`` on the way, then the module itself."""
    files = ctx.files.files
    for root in roots:
        prefix = f"{root}/" if root else ""
        parts = module.split(".")
        found: list[str] = []
        for i in range(1, len(parts) + 1):
            base = prefix + "/".join(parts[:i])
            if f"{base}/__init__.py" in files:
                found.append(f"{base}/__init__.py")
            elif f"{base}.py" in files and i == len(parts):
                found.append(f"{base}.py")
            else:
                break
        if found:
            return found
    return []


def _sys_path_modified(tree: ast.Module) -> bool:
    for stmt in _statements(tree.body, imports=False):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and _dotted(node) in {
                "sys.path.insert",
                "sys.path.append",
                "sys.path.extend",
            }:
                return True
    return False


def _removed_through_local_imports(ctx: Context, tree: ast.Module, seen: set[str]) -> list[Finding]:
    """setup.py imports the project's own package (``from mypkg import __version__``),
    and that package imports a removed module at module level: the build fails the same.

    Followed only where setup.py's directory is on ``sys.path``: with the legacy backend
    (no ``build-backend``), or when setup.py edits ``sys.path`` itself."""
    from ..project import LEGACY_BACKEND, build_system
    from ._base import pyproject_of

    legacy = build_system(pyproject_of(ctx)).backend == LEGACY_BACKEND
    if not (legacy or _sys_path_modified(tree)):
        return []
    roots = ("", "src", "lib")
    cat = ctx.catalogue
    findings: list[Finding] = []
    for site in import_sites(tree):
        top = site.module.split(".")[0]
        if top in ("setuptools", "pkg_resources", "distutils"):
            continue
        todo = [(path, 0) for path in _local_files(ctx, site.module, roots)]
        visited: set[str] = set()
        while todo:
            path, depth = todo.pop(0)
            if path in visited:
                continue
            visited.add(path)
            module_tree = _module_tree(ctx, path)
            if module_tree is None:
                continue
            package = path.rsplit("/", 1)[0] if "/" in path else ""
            for inner in import_sites(module_tree):
                name = inner.module
                inner_top = name.split(".")[0]
                if inner_top in ("setuptools", "pkg_resources", "distutils"):
                    if name in seen:
                        continue
                    missing = missing_in(ctx, name)
                    if not missing:
                        continue
                    seen.add(name)
                    fails = cat.to_specifiers(missing)
                    findings.append(
                        Finding(
                            code="SP001",
                            slug="setuppy-removed-module",
                            message=(
                                f"setup.py imports `{site.module}`, and {path}:{inner.line} "
                                f"imports `{name}`, which setuptools {' | '.join(fails)} does "
                                "not ship (ModuleNotFoundError while setup.py runs); read the "
                                "version without importing the package, or guard the import"
                            ),
                            path=PATH,
                            line=site.line,
                            column=site.column,
                            fails=fails,
                            fails_enforced=fails,
                        )
                    )
                elif depth < 2:
                    todo.extend((p, depth + 1) for p in _local_files(ctx, name, roots))
            todo.extend(
                (p, depth + 1)
                for p in _relative_import_files(ctx, module_tree, package)
                if depth < 2
            )
    return findings


def _relative_import_files(ctx: Context, tree: ast.Module, package: str) -> list[str]:
    out: list[str] = []
    for node in _statements(tree.body, imports=True):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            for name in names:
                base = f"{package}/{name.replace('.', '/')}" if package else name.replace(".", "/")
                for candidate in (f"{base}/__init__.py", f"{base}.py"):
                    if candidate in ctx.files.files:
                        out.append(candidate)
                        break
    return out


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
module inventory of every setuptools wheel. When setup.py imports the project's own
package (`from mypkg import __version__`) and the project directory is on `sys.path`
(legacy backend, or setup.py edits `sys.path`), the package's own module-level imports
are followed too, two levels deep.

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
        fixable=True,
    )
)


def setup_calls(tree: ast.Module) -> Iterator[ast.Call]:
    """``setup(...)``/``setuptools.setup(...)`` calls that run at module level."""
    for stmt in _statements(tree.body, imports=False):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name == "setup":
                    yield node


_NOT_LITERAL = object()


def _literal(node: ast.expr) -> object:
    """The value of a literal expression (``None``, ``0``, ``""``, ``[]``, ``()``, ``{}``,
    ``set()``, ``-0``...), or ``_NOT_LITERAL``; evaluated by ``ast.literal_eval``, which
    runs no project code."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _falsy_literal(node: ast.expr) -> bool:
    value = _literal(node)
    return value is not _NOT_LITERAL and not value


def _check_use_2to3(ctx: Context) -> Iterable[Finding]:
    tree = parse_setup_py(ctx)
    if tree is None:
        return []
    cat = ctx.catalogue
    findings: list[Finding] = []
    for call in setup_calls(tree):
        for kw in call.keywords:
            if kw.arg != "use_2to3":
                continue
            # 58.0.0/58.0.1 dropped the keyword silently (no conversion); 58.0.2 (#2769)
            # fails fast for any value; 58.0.3 (#2777) lets a false value pass again.
            if _literal(kw.value) is None:
                # setuptools only calls a keyword's check when the value is not None
                # (Distribution._finalize_setup_keywords), so None never fails.
                failing = set()
                what = "setuptools ignores `use_2to3=None` in every version; drop the keyword"
            elif _falsy_literal(kw.value):
                failing = {v for v in cat.universe if v == "58.0.2"}
                what = (
                    f"a false value (`use_2to3={ast.unparse(kw.value)}`) only failed in "
                    "setuptools 58.0.2; drop the keyword"
                )
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
                    message=f"setup() gets `use_2to3`: {what}"
                    + (f" (fails in setuptools {' | '.join(fails)})" if fails else ""),
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
`error in ... setup command: use_2to3 is invalid.` A false value (`False`, `0`, `""`, an
empty container) failed only in 58.0.2 (58.0.3 accepts it with a warning); `None` never
fails, since setuptools skips keywords set to None.

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
        fixable=True,
    )
)


# -- SP003: names a setuptools module no longer defines ---------------------------------

#: Names served by a module-level ``__getattr__`` after they stopped being defined: the
#: first release that serves them and the due date of the deprecation warning it emits
#: (``None``: a plain DeprecationWarning that SETUPTOOLS_ENFORCE_DEPRECATION ignores).
#: Read from the wheels: command/test.py (72.1.0), command/easy_install.py (80.3.1),
#: dep_util.py (69.0.0 serves only newer_pairwise_group; 69.0.1 adds newer_group),
#: dist.py (75.2.0).
_SERVED: dict[tuple[str, str], tuple[str, str | None]] = {
    ("setuptools.command.test", "test"): ("72.1.0", "2024-11-15"),
    ("setuptools.command.easy_install", "sys_executable"): ("80.3.1", "2025-10-31"),
    ("setuptools.command.easy_install", "ScriptWriter"): ("80.3.1", "2025-10-31"),
    ("setuptools.dep_util", "newer_pairwise_group"): ("69.0.0", None),
    ("setuptools.dep_util", "newer_group"): ("69.0.1", None),
    ("setuptools.dist", "sequence"): ("75.2.0", "2025-08-28"),
}

_NAME_ADVICE = {
    "Feature": "`Feature` was removed in setuptools 46; declare extras with `extras_require`",
    "convert_path": "import `convert_path` from `distutils.util` (or build paths with pathlib)",
    "get_script_args": "drop the script-generation patch; console_scripts entry points are "
    "generated by pip",
    "get_script_header": "drop the script-generation patch",
    "get_writer": "drop the script-generation patch",
    "packaging": "import `packaging` directly (and list it in build-system.requires)",
    "test": "drop the `test` command; run the tests with pytest or tox",
}


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


@dataclass(frozen=True, slots=True)
class NameSite:
    module: str
    name: str
    line: int
    column: int


def _name_sites(tree: ast.Module, modules: Mapping[str, object]) -> Iterator[NameSite]:
    """``from M import n`` and ``M.n`` (through import aliases) at module level, for the
    modules whose names sapper records."""
    aliases: dict[str, str] = {}
    for node in _statements(tree.body, imports=True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if node.module in modules and alias.name != "*":
                    yield NameSite(node.module, alias.name, node.lineno, node.col_offset + 1)
                aliases[alias.asname or alias.name] = full
    for stmt in _statements(tree.body, imports=True):
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        for sub in ast.walk(stmt):
            if not isinstance(sub, ast.Attribute):
                continue
            dotted = _dotted(sub)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            if head not in aliases or not rest:
                continue
            full = f"{aliases[head]}.{rest}"
            module, _, name = full.rpartition(".")
            if module in modules:
                yield NameSite(module, name, sub.lineno, sub.col_offset + 1)


def _check_removed_names(ctx: Context) -> Iterable[Finding]:
    tree = parse_setup_py(ctx)
    if tree is None:
        return []
    cat = ctx.catalogue
    names: Mapping[str, Mapping[str, Sequence[Sequence[str]]]] = cat.names
    findings: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for site in _name_sites(tree, names):
        key = (site.module, site.name)
        defined = names[site.module].get(site.name)
        if key in seen or defined is None:  # never defined there: not a removal sapper knows
            continue
        module_ranges = cat.modules.get(site.module, [])
        served = _SERVED.get(key)
        served_since = Version(served[0]) if served else None
        due = served[1] if served else None
        overdue = due is not None and _dt.date.fromisoformat(due) < ctx.today
        failing: set[str] = set()
        warning: set[str] = set()
        first = cat.parsed(defined[0][0])
        module_set = _covered(cat, _runs(module_ranges))
        defined_set = _covered(cat, _runs(defined))
        for v in cat.universe:
            if cat.parsed(v) < first:
                continue  # not added yet: a removal is what breaks old sdists
            if v not in module_set or v in defined_set:
                continue  # module absent (SP001's business) or the name is there
            if served_since is not None and cat.parsed(v) >= served_since:
                warning.add(v)
            else:
                failing.add(v)
        if not failing and not warning:
            continue
        seen.add(key)
        fails = cat.to_specifiers(failing)
        fails_enforced = cat.to_specifiers(failing | (warning if overdue else set()))
        warns = cat.to_specifiers(warning)
        advice = _NAME_ADVICE.get(site.name, "stop using it")
        parts = []
        if fails:
            parts.append(f"setuptools {' | '.join(fails)} does not define it (ImportError)")
        if warns:
            parts.append(
                f"setuptools {' | '.join(warns)} serves it with a deprecation warning"
                + (f" due {due}" if due else "")
                + (" (an error under SETUPTOOLS_ENFORCE_DEPRECATION=1)" if overdue else "")
            )
        findings.append(
            Finding(
                code="SP003",
                slug="setuppy-removed-name",
                message=f"setup.py uses `{site.module}.{site.name}`: {'; '.join(parts)}; {advice}",
                path=PATH,
                line=site.line,
                column=site.column,
                fails=fails,
                fails_enforced=fails_enforced,
                warns=warns,
                due_date=due if warns else None,
            )
        )
    return findings


register(
    Rule(
        code="SP003",
        slug="setuppy-removed-name",
        family="setup.py",
        summary="setup.py uses a name that a setuptools module no longer defines",
        doc="""
## What it does
Finds module-level uses in setup.py of names that `setuptools`, `setuptools.dist`,
`setuptools.command.easy_install`, `setuptools.command.test`, `setuptools.dep_util` or
`pkg_resources` defined once and no longer define: `from setuptools import Feature`,
`setuptools.convert_path`, `easy_install.get_script_args`, `from pkg_resources import
packaging`, ... Which releases define which name comes from the wheels themselves. Names
that a module-level `__getattr__` still serves with a deprecation warning (such as
`from setuptools.command.test import test` since 72.1.0) are reported as warnings, and as
failures under `SETUPTOOLS_ENFORCE_DEPRECATION=1` once the warning's due date has passed.

## Why is this bad?
setup.py runs inside the build, so the `ImportError` or `AttributeError` fails the build:
`Feature` is gone since 46.0.0, `convert_path` since 70.0.0, `get_script_args` since
68.0.0, and `pkg_resources.packaging` was missing in 70.0.0 to 70.3.0 (which broke torch's
`cpp_extension` before torch 2.2).

## Example
```python
from setuptools import setup, convert_path

setup(name="example", version="1.0")
```

## Use instead
```python
from distutils.util import convert_path

from setuptools import setup

setup(name="example", version="1.0")
```

## References
- setuptools 46.0.0 changelog (#65): Features removed
- setuptools 68.0.0 changelog (#3948): easy_install script APIs removed
- setuptools 70.0.0 changelog (#4322): `setuptools.convert_path` removed
- pypa/setuptools#4385: `pkg_resources.packaging` missing in 70.0.0
""".strip(),
        references=(
            Reference(
                title="setuptools 46.0.0 changelog (#65): Features removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v46-0-0",
            ),
            Reference(
                title="setuptools 68.0.0 changelog (#3948): easy_install script APIs removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v68-0-0",
            ),
            Reference(
                title="setuptools 70.0.0 changelog (#4322): setuptools.convert_path removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v70-0-0",
            ),
            Reference(
                title="pypa/setuptools#4385: pkg_resources.packaging missing in 70.0.0",
                url="https://github.com/pypa/setuptools/issues/4385",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup, convert_path\n\nsetup(name="example", '
                'version="1.0")\n',
            ),
        ),
        check=_check_removed_names,
    )
)


# -- metadata values passed to setup() --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Keyword:
    """A ``setup()`` keyword argument, its value if statically known, and where it is."""

    name: str
    node: ast.expr
    value: Any
    line: int
    column: int


def setup_keywords(ctx: Context) -> tuple[Keyword, ...]:
    """The keyword arguments of the module-level ``setup()`` calls, values resolved
    statically (``_values.UNKNOWN`` when they depend on running code); ``**kwargs`` dicts
    bound once at module level are expanded."""

    def compute() -> tuple[Keyword, ...]:
        from ._values import resolve

        tree = parse_setup_py(ctx)
        if tree is None:
            return ()
        consts = _constants(ctx)
        files = ctx.files.files
        out: list[Keyword] = []
        for call in setup_calls(tree):
            for kw in call.keywords:
                if kw.arg is not None:
                    value = resolve(kw.value, consts, files)
                    out.append(
                        Keyword(kw.arg, kw.value, value, kw.value.lineno, kw.value.col_offset + 1)
                    )
                    continue
                target = kw.value
                if isinstance(target, ast.Name) and target.id in consts:
                    target = consts[target.id]
                if (
                    isinstance(target, ast.Call)
                    and isinstance(target.func, ast.Name)
                    and target.func.id == "dict"
                    and not target.args
                ):
                    for sub in target.keywords:
                        if sub.arg is not None:
                            value = resolve(sub.value, consts, files)
                            out.append(
                                Keyword(
                                    sub.arg,
                                    sub.value,
                                    value,
                                    sub.value.lineno,
                                    sub.value.col_offset + 1,
                                )
                            )
                elif isinstance(target, ast.Dict):
                    for key, val in zip(target.keys, target.values, strict=True):
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            value = resolve(val, consts, files)
                            out.append(
                                Keyword(key.value, val, value, val.lineno, val.col_offset + 1)
                            )
        return tuple(out)

    keywords: tuple[Keyword, ...] = ctx.memo("setup.py:keywords", compute)
    return keywords


def _constants(ctx: Context) -> dict[str, ast.expr]:
    from ._values import module_constants

    def compute() -> dict[str, ast.expr]:
        tree = parse_setup_py(ctx)
        return {} if tree is None else module_constants(tree)

    consts: dict[str, ast.expr] = ctx.memo("setup.py:constants", compute)
    return consts


def _finding(  # noqa: PLR0917
    ctx: Context,
    code: str,
    slug: str,
    message: str,
    line: int | None,
    column: int | None,
    failing: set[str],
    *,
    fix: str | None = None,
) -> Finding:
    fails = ctx.catalogue.to_specifiers(failing)
    return Finding(
        code=code,
        slug=slug,
        message=f"{message} (fails in setuptools {' | '.join(fails)})",
        path=PATH,
        line=line,
        column=column,
        fails=fails,
        fails_enforced=fails,
        fix=fix,
    )


_REQUIREMENT_KEYWORDS = ("install_requires", "setup_requires")


def _check_unordered_requires(ctx: Context) -> Iterable[Finding]:
    findings = []
    for kw in setup_keywords(ctx):
        if kw.name not in _REQUIREMENT_KEYWORDS:
            continue
        kind_of = _container_kind(kw.node, _constants(ctx))
        if kind_of == "set":
            failing = ctx.catalogue.between()
            kind = "a set"
        elif kind_of == "dict":
            failing = ctx.catalogue.between(None, "75.3.0")
            kind = "a dict"
        else:
            continue
        findings.append(
            _finding(
                ctx,
                "SP004",
                "setuppy-unordered-requires",
                f"`{kw.name}` is {kind}: setuptools rejects unordered types ('{kw.name}' must "
                "be a string or list of strings ...; Unordered types are not allowed); pass a "
                "list",
                kw.line,
                kw.column,
                failing,
                fix=f"pass `{kw.name}` as a list (sorted(...) of the set)",
            )
        )
    return findings


def _container_kind(node: ast.expr, consts: Mapping[str, ast.expr], depth: int = 0) -> str | None:
    """``set`` or ``dict`` when ``node`` (or the constant it names) builds one."""
    if isinstance(node, ast.Name) and node.id in consts and depth < 8:
        return _container_kind(consts[node.id], consts, depth + 1)
    if isinstance(node, ast.Set | ast.SetComp):
        return "set"
    if isinstance(node, ast.Dict | ast.DictComp):
        return "dict"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return {"set": "set", "frozenset": "set", "dict": "dict"}.get(node.func.id)
    return None


register(
    Rule(
        code="SP004",
        slug="setuppy-unordered-requires",
        family="setup.py",
        summary="install_requires or setup_requires is a set or dict",
        doc="""
## What it does
Finds `install_requires=` or `setup_requires=` given a set (`{...}`, `set(...)`,
`frozenset(...)`, a set comprehension) or a dict, directly or through a module-level
name.

## Why is this bad?
For deterministic builds setuptools 38.0.0 started rejecting unordered types: the build
fails with `'install_requires' must be a string or list of strings containing valid
project/version requirement specifiers; Unordered types are not allowed`. setuptools
75.3.0 accepts a dict again; a set still fails.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires={"requests", "six"})
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires=["requests", "six"])
```

## References
- setuptools 38.0.0 changelog (#458): unordered install_requires rejected
- setuptools 75.3.0 changelog (#4575): dicts accepted again
""".strip(),
        references=(
            Reference(
                title="setuptools 38.0.0 changelog (#458): unordered install_requires rejected",
                url="https://setuptools.pypa.io/en/latest/history.html#v38-0-0",
            ),
            Reference(
                title="setuptools 75.3.0 changelog (#4575): dicts accepted again",
                url="https://setuptools.pypa.io/en/latest/history.html#v75-3-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                'install_requires={"requests", "six"})\n',
            ),
        ),
        check=_check_unordered_requires,
    )
)


def _version_value(ctx: Context) -> tuple[Keyword, str] | None:
    for kw in setup_keywords(ctx):
        if kw.name != "version":
            continue
        if isinstance(kw.node, ast.Call) and getattr(kw.node.func, "attr", None) == "sic":
            return None  # setuptools.sic(...) bypasses normalisation on purpose
        if isinstance(kw.value, bool) or not isinstance(kw.value, str | int | float):
            return None
        return kw, str(kw.value)
    return None


def _check_invalid_version(ctx: Context) -> Iterable[Finding]:
    from ._values import version_problem

    found = _version_value(ctx)
    if found is None:
        return []
    kw, text = found
    problem = version_problem(text.strip())
    if problem is None:
        return []
    return [
        _finding(
            ctx,
            "SP005",
            "setuppy-invalid-version",
            f"version {text.strip()!r} is not a PEP 440 version: setuptools 66 and later fail "
            f"with `InvalidVersion: {problem}`",
            kw.line,
            kw.column,
            ctx.catalogue.between("66.0.0"),
            fix="use a PEP 440 version (1.0.0.dev1, 1.0.0+local, 1.0.0rc1, ...)",
        )
    ]


register(
    Rule(
        code="SP005",
        slug="setuppy-invalid-version",
        family="setup.py",
        summary="setup() version is not a PEP 440 version",
        doc="""
## What it does
Finds a `version=` in `setup()` that is not a valid PEP 440 version. The value is read
statically: literals, module-level constants and text read from files in the tree.

## Why is this bad?
setuptools 66.0.0 removed support for versions that do not comply with PEP 440; the
build fails with `InvalidVersion: Invalid version: '1.0.0-SNAPSHOT'` (from 69.0.0 already
in `Distribution.__init__`). Before 66 the version was kept with a warning.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0.0-SNAPSHOT")
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0.0.dev0")
```

## References
- setuptools 66.0.0 changelog (#2497): non-PEP 440 versions removed
- setuptools 69.0.0 changelog (#4066)
""".strip(),
        references=(
            Reference(
                title="setuptools 66.0.0 changelog (#2497): non-PEP 440 versions removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v66-0-0",
            ),
            Reference(
                title="setuptools 69.0.0 changelog (#4066)",
                url="https://setuptools.pypa.io/en/latest/history.html#v69-0-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0.0-SNAPSHOT")\n',
            ),
        ),
        check=_check_invalid_version,
    )
)


def _check_invalid_requirements(ctx: Context) -> Iterable[Finding]:
    from ._values import requirement_lines, requirement_problem, specifier_problem

    findings: list[Finding] = []
    everywhere = ctx.catalogue.between()
    strict = ctx.catalogue.between("67.0.0")
    for kw in setup_keywords(ctx):
        value = kw.value
        if kw.name == "python_requires" and isinstance(value, str):
            problem = specifier_problem(value.strip())
            if problem:
                findings.append(
                    _finding(
                        ctx,
                        "SP006",
                        "setuppy-invalid-requirement",
                        f"`python_requires={value!r}` is not a valid specifier for "
                        f"`packaging` ({problem}); setuptools 67 and later fail with "
                        "\"'python_requires' must be a string containing valid version "
                        'specifiers"',
                        kw.line,
                        kw.column,
                        strict,
                        fix="write a PEP 440 specifier such as `>=3.6`",
                    )
                )
            continue
        groups: list[tuple[str, object]] = []
        if kw.name in _REQUIREMENT_KEYWORDS and isinstance(value, str | list):
            groups.append((kw.name, value))
        elif kw.name == "extras_require" and isinstance(value, dict):
            groups.extend((f"extras_require[{k!r}]", v) for k, v in value.items())
        for where, reqs in groups:
            if not isinstance(reqs, str | list) or not all(isinstance(r, str) for r in reqs):
                continue
            for req in requirement_lines(reqs):
                problem = requirement_problem(req)
                if problem is None:
                    continue
                findings.append(
                    _finding(
                        ctx,
                        "SP006",
                        "setuppy-invalid-requirement",
                        f"{where} holds {req!r}, which is not a PEP 508 requirement "
                        f"({problem}); setuptools 67 and later reject it, and so does "
                        "the `wheel` package that builds the metadata with older setuptools",
                        kw.line,
                        kw.column,
                        everywhere,
                        fix="write PEP 440/508 requirements (no pip options, no "
                        "`-r`/`-e` lines, versions such as `>=2012.6`)",
                    )
                )
                break
    return findings


register(
    Rule(
        code="SP006",
        slug="setuppy-invalid-requirement",
        family="setup.py",
        summary="Requirement or python_requires that modern packaging rejects",
        doc="""
## What it does
Parses every string of `install_requires`, `setup_requires`, `extras_require` and
`python_requires` in `setup()` (literals, module-level constants, and requirement files
read with `open(...).read()`) with `packaging`, as setuptools does since 67.0.0.

## Why is this bad?
setuptools 67.0.0 vendored packaging 23, which only accepts PEP 508 requirements and PEP
440 specifiers: `pytz>=2012f`, `foo>=1.0.*`, `-r requirements.txt` or a bare URL fail the
build with `'install_requires' must be a string or list of strings containing valid
project/version requirement specifiers`. With older setuptools, pip installs the newest
`wheel` package next to it, and wheel's own (strict) packaging rejects the same
requirements when it writes the metadata; `python_requires` was only checked leniently
before 67.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires=["pytz>=2012f"])
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0", install_requires=["pytz>=2012.6"])
```

## References
- setuptools 67.0.0 changelog (#3790): strict requirement parsing
""".strip(),
        references=(
            Reference(
                title="setuptools 67.0.0 changelog (#3790): strict requirement parsing",
                url="https://setuptools.pypa.io/en/latest/history.html#v67-0-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                'install_requires=["pytz>=2012f"])\n',
            ),
        ),
        check=_check_invalid_requirements,
    )
)


def _check_description_newline(ctx: Context) -> Iterable[Finding]:
    for kw in setup_keywords(ctx):
        if kw.name != "description" or not isinstance(kw.value, str):
            continue
        if "\n" not in kw.value.strip() and "\r" not in kw.value.strip():
            continue
        between = ctx.catalogue.between
        failing = between("51.3.0", "51.3.3") | between("59.0.0", "59.4.0")
        return [
            _finding(
                ctx,
                "SP007",
                "setuppy-description-newline",
                "`description` (the one-line Summary) contains a newline: setuptools "
                "51.3.0-51.3.2 and 59.0.1-59.3.0 fail with `ValueError: Newlines are not "
                "allowed`; later ones keep only the first line with a deprecation warning",
                kw.line,
                kw.column,
                failing,
                fix="put a one-line summary in `description` and the rest in `long_description`",
            )
        ]
    return []


register(
    Rule(
        code="SP007",
        slug="setuppy-description-newline",
        family="setup.py",
        summary="setup() description contains a newline",
        doc="""
## What it does
Finds a `description=` in `setup()` whose value (read statically) spans several lines.

## Why is this bad?
`description` becomes the one-line `Summary` of the core metadata. setuptools 51.3.0 made
a newline an error (`ValueError: newlines not allowed`) and 51.3.3 relaxed it; 59.0.1 made
it an error again and 59.4.0 relaxed it again, keeping only the first line with a
deprecation warning that says it will break in the future.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", description="An example.\\nIt does things.")
```

## Use instead
```python
from setuptools import setup

setup(
    name="example",
    version="1.0",
    description="An example.",
    long_description="It does things.",
)
```

## References
- setuptools 51.3.0 changelog (#1390), 51.3.3 (#2539)
- setuptools 59.0.0 changelog (#2870), 59.4.0 (#2893)
""".strip(),
        references=(
            Reference(
                title="setuptools 51.3.0 changelog (#1390): newlines in Summary rejected",
                url="https://setuptools.pypa.io/en/latest/history.html#v51-3-0",
            ),
            Reference(
                title="setuptools 59.4.0 changelog (#2893): newlines in Summary tolerated",
                url="https://setuptools.pypa.io/en/latest/history.html#v59-4-0",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                'description="An example.\\nIt does things.")\n',
            ),
        ),
        check=_check_description_newline,
    )
)


# -- SP008: dry_run= ------------------------------------------------------------------

#: distutils helpers and Command methods that took ``dry_run`` until setuptools 81.
_DRY_RUN_CALLEES = frozenset(
    {
        "byte_compile",
        "copy_file",
        "copy_tree",
        "create_tree",
        "execute",
        "make_archive",
        "make_file",
        "make_tarball",
        "make_zipfile",
        "mkpath",
        "move_file",
        "new_compiler",
        "remove_tree",
        "spawn",
    }
)

#: Commands a PEP 517 wheel build runs (get_requires/metadata/build_wheel).
_BUILD_COMMANDS = frozenset(
    {
        "bdist_wheel",
        "build",
        "build_clib",
        "build_ext",
        "build_py",
        "build_scripts",
        "dist_info",
        "egg_info",
        "install",
        "install_data",
        "install_egg_info",
        "install_headers",
        "install_lib",
        "install_scripts",
    }
)


def _build_command_classes(ctx: Context, tree: ast.Module) -> set[str]:
    """Names of setup.py classes a wheel build runs: the ``cmdclass`` entries for build
    commands and the setup.py classes they derive from."""
    direct: set[str] = set()
    for kw in setup_keywords(ctx):
        if kw.name != "cmdclass":
            continue
        node = kw.node
        if isinstance(node, ast.Name):
            node = _constants(ctx).get(node.id, node)
        pairs: list[tuple[str, ast.expr]] = []
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    pairs.append((key.value, value))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict":
            pairs.extend((k.arg, k.value) for k in node.keywords if k.arg)
        for command, value in pairs:
            if command in _BUILD_COMMANDS and isinstance(value, ast.Name):
                direct.add(value.id)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    todo, seen = list(direct), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in classes:
            continue
        seen.add(name)
        todo.extend(b.id for b in classes[name].bases if isinstance(b, ast.Name))
    return seen


def _check_dry_run(ctx: Context) -> Iterable[Finding]:
    from ._values import func_name

    tree = parse_setup_py(ctx)
    if tree is None:
        return []
    roots: list[ast.AST] = list(_statements(tree.body, imports=False))
    build_classes = _build_command_classes(ctx, tree)
    roots.extend(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in build_classes)
    failing = ctx.catalogue.between("81.0.0")
    findings: list[Finding] = []
    for root in roots:
        for node in ast.walk(root):
            if not isinstance(node, ast.Call):
                continue
            name = func_name(node.func)
            if name is None or not (name in _DRY_RUN_CALLEES or name.endswith("CCompiler")):
                continue
            kw = next((k for k in node.keywords if k.arg == "dry_run"), None)
            if kw is None:
                continue
            findings.append(
                _finding(
                    ctx,
                    "SP008",
                    "setuppy-dry-run",
                    f"`{name}(..., dry_run=...)`: setuptools 81 removed the dry_run "
                    f"parameter, so the build fails with `TypeError: {name}() got an "
                    "unexpected keyword argument 'dry_run'`",
                    kw.value.lineno,
                    kw.value.col_offset + 1,
                    failing,
                    fix="drop the `dry_run=` argument",
                )
            )
    return findings


register(
    Rule(
        code="SP008",
        slug="setuppy-dry-run",
        family="setup.py",
        summary="setup.py passes dry_run= to a distutils helper (removed in setuptools 81)",
        doc="""
## What it does
Finds calls with a `dry_run=` argument to the distutils helpers and `Command` methods that
used to take it (`copy_file`, `copy_tree`, `mkpath`, `execute`, `spawn`, `make_archive`,
`new_compiler`, compiler classes, ...). It looks at code that runs during a wheel build:
module-level code, and the classes setup.py registers in `cmdclass` for build commands
(`build_py`, `build_ext`, `egg_info`, `bdist_wheel`, `install*`, ...). A custom `clean`
command that passes `dry_run` is not reported: a wheel build never runs it.

## Why is this bad?
setuptools 81.0.0 removed support for `--dry-run` and the `dry_run` parameter of the
distutils helpers (and 83.0.0 synced the same removal from pypa/distutils). Every such
call now fails with `TypeError: copy_file() got an unexpected keyword argument
'dry_run'`. Reading `self.dry_run` still works.

## Example
```python
from distutils.dir_util import mkpath

from setuptools import setup

mkpath("build/generated", dry_run=0)
setup(name="example", version="1.0")
```

## Use instead
```python
from distutils.dir_util import mkpath

from setuptools import setup

mkpath("build/generated")
setup(name="example", version="1.0")
```

## References
- setuptools 81.0.0 changelog (#4872): dry_run removed
- setuptools 83.0.0 changelog (pypa/distutils#334)
""".strip(),
        references=(
            Reference(
                title="setuptools 81.0.0 changelog (#4872): --dry-run removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v81-0-0",
            ),
            Reference(
                title="pypa/setuptools#5184: dry_run removal not in the changelog for helpers",
                url="https://github.com/pypa/setuptools/issues/5184",
            ),
        ),
        example=(
            (
                PATH,
                "from distutils.dir_util import mkpath\n\nfrom setuptools import setup\n\n"
                'mkpath("build/generated", dry_run=0)\nsetup(name="example", version="1.0")\n',
            ),
        ),
        check=_check_dry_run,
    )
)


# -- SP009: import wheel without asking for it ---------------------------------------------


def _requires_wheel(ctx: Context) -> bool:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    from ..project import build_system
    from ._base import pyproject_of

    for text in build_system(pyproject_of(ctx)).requires:
        try:
            if canonicalize_name(Requirement(text).name) == "wheel":
                return True
        except InvalidRequirement:
            continue
    return False


def _check_wheel_import(ctx: Context) -> Iterable[Finding]:
    tree = parse_setup_py(ctx)
    if tree is None or _requires_wheel(ctx):
        return []
    for site in import_sites(tree):
        if site.module != "wheel" and not site.module.startswith("wheel."):
            continue
        # 70.1.0 stopped asking for wheel; 71.0.0 puts its vendored copy on sys.path.
        failing = ctx.catalogue.between("70.1.0", "71.0.0")
        return [
            _finding(
                ctx,
                "SP009",
                "setuppy-imports-wheel",
                f"setup.py imports `{site.module}`, but `wheel` is not in "
                "build-system.requires: setuptools 70.1.0 stopped asking the frontend for "
                "`wheel` and only 71.0.0 put its vendored copy on sys.path, so the isolated "
                "build environment of 70.1.x-70.3.x lacks it (ModuleNotFoundError)",
                site.line,
                site.column,
                failing,
                fix="import `bdist_wheel` from `setuptools.command.bdist_wheel` (setuptools "
                ">= 70.1), or add `wheel` to build-system.requires",
            )
        ]
    return []


register(
    Rule(
        code="SP009",
        slug="setuppy-imports-wheel",
        family="setup.py",
        summary="setup.py imports wheel, which setuptools 70.1-70.3 build environments lack",
        doc="""
## What it does
Finds module-level, unguarded imports of the `wheel` package in setup.py (typically
`from wheel.bdist_wheel import bdist_wheel` to set platform tags) when `wheel` is not
listed in `build-system.requires`.

## Why is this bad?
Up to 70.0.0, setuptools' `get_requires_for_build_wheel` asked the frontend for `wheel`,
so pip installed it into the isolated build environment. setuptools 70.1.0 adopted
`bdist_wheel` and stopped asking; pip's default for projects without pyproject.toml is
only `setuptools>=40.8.0`. In 70.1.0 to 70.3.0 the import fails with
`ModuleNotFoundError: No module named 'wheel'`; from 71.0.0 setuptools appends its
vendored packages (a copy of `wheel` among them) to `sys.path`, which hides the problem
for as long as setuptools keeps vendoring `wheel`. A build capped at `setuptools<71`
(or pinned to 70.x) breaks.

## Example
```python
from setuptools import setup
from wheel.bdist_wheel import bdist_wheel

setup(name="example", version="1.0", cmdclass={"bdist_wheel": bdist_wheel})
```

## Use instead
```python
from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

setup(name="example", version="1.0", cmdclass={"bdist_wheel": bdist_wheel})
```
with `requires = ["setuptools>=70.1"]` in `[build-system]`, or keep the import and add
`wheel` to `build-system.requires`.

## References
- setuptools 70.1.0 changelog (#1386): bdist_wheel adopted, wheel no longer requested
""".strip(),
        references=(
            Reference(
                title="setuptools 70.1.0 changelog (#1386): bdist_wheel adopted from wheel",
                url="https://setuptools.pypa.io/en/latest/history.html#v70-1-0",
            ),
        ),
        example=(
            (
                PATH,
                "from setuptools import setup\nfrom wheel.bdist_wheel import bdist_wheel\n\n"
                'setup(name="example", version="1.0", cmdclass={"bdist_wheel": bdist_wheel})\n',
            ),
        ),
        check=_check_wheel_import,
    )
)


# -- SP010: a build_py straight from distutils -------------------------------------------


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted origin for module-level imports."""
    names: dict[str, str] = {}
    for node in _statements(tree.body, imports=False):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
    return names


def _is_distutils_build_py(node: ast.expr, imported: Mapping[str, str]) -> bool:
    dotted = _dotted(node)
    if dotted is None:
        return False
    head, _, rest = dotted.partition(".")
    full = imported.get(head, head) + (f".{rest}" if rest else "")
    return full == "distutils.command.build_py.build_py"


def _check_distutils_build_py(ctx: Context) -> Iterable[Finding]:
    tree = parse_setup_py(ctx)
    if tree is None:
        return []
    include = any(
        kw.name == "include_package_data" and kw.value is True for kw in setup_keywords(ctx)
    )
    if not include:
        from .setup_cfg import cfg_values

        include = any(
            item.section == "options"
            and item.key == "include_package_data"
            and item.value.strip().lower() in {"1", "true", "yes", "on"}
            for item in cfg_values(ctx, partial=True)
        )
    if not include:
        return []
    imported = _imported_names(tree)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def from_distutils(node: ast.expr, depth: int = 0) -> bool:
        if _is_distutils_build_py(node, imported):
            return True
        if isinstance(node, ast.Name) and node.id in classes and depth < 8:
            bases = classes[node.id].bases
            # A class that also inherits setuptools' build_py is fine.
            if any(
                _dotted(b) and "setuptools" in imported.get(_dotted(b) or "", "") for b in bases
            ):
                return False
            return any(from_distutils(b, depth + 1) for b in bases)
        return False

    for kw in setup_keywords(ctx):
        if kw.name != "cmdclass":
            continue
        node = kw.node
        if isinstance(node, ast.Name):
            node = _constants(ctx).get(node.id, node)
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and key.value == "build_py"):
                continue
            if from_distutils(value):
                return [
                    _finding(
                        ctx,
                        "SP010",
                        "setuppy-distutils-build-py",
                        "cmdclass['build_py'] is distutils' build_py (not setuptools') with "
                        "include_package_data: setuptools 58.5.0-58.5.2 fail with "
                        "`AttributeError: get_data_files_without_manifest`; later releases "
                        "warn that custom commands must inherit from setuptools",
                        value.lineno,
                        value.col_offset + 1,
                        ctx.catalogue.between("58.5.0", "58.5.3"),
                        fix="derive the command from `setuptools.command.build_py.build_py`",
                    )
                ]
    return []


register(
    Rule(
        code="SP010",
        slug="setuppy-distutils-build-py",
        family="setup.py",
        summary="cmdclass build_py derives from distutils, not setuptools",
        doc="""
## What it does
Finds a `cmdclass={"build_py": ...}` entry that is, or derives from,
`distutils.command.build_py.build_py` instead of setuptools' `build_py`, in a project that
sets `include_package_data`.

## Why is this bad?
setuptools 58.5.0 made `sdist`/`egg_info` call `get_data_files_without_manifest` on the
`build_py` command, which distutils' class lacks: the build fails with
`AttributeError: get_data_files_without_manifest` in 58.5.0 to 58.5.2. 58.5.3 added a
fallback, and later releases deprecate custom commands that inherit straight from
distutils ("`build_py` command does not inherit from setuptools' `build_py`").

## Example
```python
from distutils.command.build_py import build_py

from setuptools import setup

setup(name="example", version="1.0", include_package_data=True,
      cmdclass={"build_py": build_py})
```

## Use instead
```python
from setuptools import setup
from setuptools.command.build_py import build_py

setup(name="example", version="1.0", include_package_data=True,
      cmdclass={"build_py": build_py})
```

## References
- setuptools 58.5.0 changelog (#1461); 58.5.3 (#2849); 59.0.0 (#2856)
""".strip(),
        references=(
            Reference(
                title="setuptools 58.5.3 changelog (#2849): fallback for distutils build_py",
                url="https://setuptools.pypa.io/en/latest/history.html#v58-5-3",
            ),
        ),
        example=(
            (
                PATH,
                "from distutils.command.build_py import build_py\n\nfrom setuptools import "
                'setup\n\nsetup(name="example", version="1.0", include_package_data=True,\n'
                '      cmdclass={"build_py": build_py})\n',
            ),
        ),
        check=_check_distutils_build_py,
    )
)
