"""Facts about setup.py: its syntax tree, the ``setup()`` calls and keywords with their
static values, import sites, and the project's own modules setup.py imports."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..sources import ProjectFiles

__all__ = [
    "PATH",
    "ImportSite",
    "Keyword",
    "SetupPyFacts",
    "dotted",
    "expandable",
    "import_sites",
    "parse_module",
    "relative_import_files",
    "setup_calls",
    "statements",
    "sys_path_modified",
]

PATH = "setup.py"

#: ``try`` statements (``TryStar`` too on Python >= 3.11); typed loosely to read both.
_TRY_NODES: tuple[type[Any], ...] = (
    ast.Try,
    *([ast.TryStar] if hasattr(ast, "TryStar") else []),
)


_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


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


def statements(body: Iterable[ast.stmt], *, imports: bool) -> Iterator[ast.stmt]:
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
                yield from statements(node.body, imports=imports)
            if not imports:
                for handler in handlers:
                    yield from statements(handler.body, imports=imports)
            yield from statements(node.orelse, imports=imports)
            yield from statements(node.finalbody, imports=imports)
        elif isinstance(node, ast.If | ast.With | ast.For | ast.While):
            yield from statements(node.body, imports=imports)
            yield from statements(getattr(node, "orelse", []), imports=imports)
        else:
            yield node


def import_sites(tree: ast.Module) -> Iterator[ImportSite]:
    for node in statements(tree.body, imports=True):
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


def setup_calls(tree: ast.Module) -> Iterator[ast.Call]:
    """``setup(...)``/``setuptools.setup(...)`` calls that run at module level."""
    for stmt in statements(tree.body, imports=False):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name == "setup":
                    yield node


def dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def sys_path_modified(tree: ast.Module) -> bool:
    for stmt in statements(tree.body, imports=False):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and dotted(node) in {
                "sys.path.insert",
                "sys.path.append",
                "sys.path.extend",
            }:
                return True
    return False


@dataclass(frozen=True, slots=True)
class Keyword:
    """A ``setup()`` keyword argument, its value if statically known, and where it is."""

    name: str
    node: ast.expr
    value: Any
    line: int
    column: int


def parse_module(source: bytes | None, path: str) -> ast.Module | None:
    """The syntax tree of a Python file; None if absent or unparsable."""
    if source is None:
        return None
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return None


def expandable(node: ast.expr) -> bool:
    """Whether ``setup(**node)`` is a literal ``dict(...)``/``{...}`` sapper can read."""
    if isinstance(node, ast.Dict):
        return all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and not node.args
        and all(k.arg is not None for k in node.keywords)
    )


def relative_import_files(files: Mapping[str, bytes], tree: ast.Module, package: str) -> list[str]:
    """The project files a module's ``from . import x`` statements run."""
    out: list[str] = []
    for node in statements(tree.body, imports=True):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            for name in names:
                base = f"{package}/{name.replace('.', '/')}" if package else name.replace(".", "/")
                for candidate in (f"{base}/__init__.py", f"{base}.py"):
                    if candidate in files:
                        out.append(candidate)
                        break
    return out


def local_files(files: Mapping[str, bytes], module: str, roots: Sequence[str]) -> list[str]:
    """The files Python runs to import ``module`` from the project tree: every package
    ``__init__.py`` on the way, then the module itself."""
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


class SetupPyFacts:
    """setup.py of one project (and the project modules it imports), each view computed on
    first use."""

    def __init__(self, files: ProjectFiles) -> None:
        self._files = files
        self._modules: dict[str, ast.Module | None] = {}

    @property
    def exists(self) -> bool:
        return PATH in self._files.files

    @cached_property
    def tree(self) -> ast.Module | None:
        """setup.py's syntax tree; None if absent or unparsable."""
        return parse_module(self._files.files.get(PATH), PATH)

    def module(self, path: str) -> ast.Module | None:
        """The syntax tree of another Python file of the project (parsed once)."""
        if path not in self._modules:
            self._modules[path] = parse_module(self._files.files.get(path), path)
        return self._modules[path]

    @cached_property
    def calls(self) -> tuple[ast.Call, ...]:
        """The module-level ``setup()`` calls."""
        tree = self.tree
        return () if tree is None else tuple(setup_calls(tree))

    @cached_property
    def import_sites(self) -> tuple[ImportSite, ...]:
        """The unguarded imports that run when setup.py runs."""
        tree = self.tree
        return () if tree is None else tuple(import_sites(tree))

    @cached_property
    def constants(self) -> dict[str, ast.expr]:
        """Names bound once at module level to their expressions."""
        from ._values import module_constants

        tree = self.tree
        return {} if tree is None else module_constants(tree)

    @cached_property
    def opaque(self) -> bool:
        """Whether setup.py may pass keywords sapper cannot see (no module-level ``setup()``
        call, a ``**kwargs`` argument that is not a literal dict, or a file that does not
        parse)."""
        if self.tree is None or not self.calls:
            return True
        return any(
            kw.arg is None and not expandable(kw.value)
            for call in self.calls
            for kw in call.keywords
        )

    @cached_property
    def keywords(self) -> tuple[Keyword, ...]:
        """The keyword arguments of the module-level ``setup()`` calls, values resolved
        statically (``_values.UNKNOWN`` when they depend on running code); ``**kwargs`` dicts
        bound once at module level are expanded."""

        from ._values import resolve

        tree = self.tree
        if tree is None:
            return ()
        consts = self.constants
        files = self._files.files
        out: list[Keyword] = []
        for call in self.calls:
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
