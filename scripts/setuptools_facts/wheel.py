"""Read-only access to a wheel's files, and the ``ast`` helpers every extractor uses."""

from __future__ import annotations

import ast
import io
import re
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence

from ._base import ExtractionError


class WheelView:
    """Read-only access to the files of one wheel (or of a test fixture)."""

    def __init__(self, names: Iterable[str], read_bytes: Callable[[str], bytes]) -> None:
        self.names = sorted(n for n in names if not n.endswith("/"))
        self._name_set = set(self.names)
        self._read_bytes = read_bytes
        self._text_cache: dict[str, str] = {}
        self._tree_cache: dict[str, ast.Module] = {}

    @classmethod
    def from_zip(cls, data: bytes) -> WheelView:
        archive = zipfile.ZipFile(io.BytesIO(data))
        return cls(archive.namelist(), archive.read)

    @classmethod
    def from_mapping(cls, files: Mapping[str, str]) -> WheelView:
        return cls(files, lambda name: files[name].encode())

    def has(self, path: str) -> bool:
        return path in self._name_set

    def has_dir(self, prefix: str) -> bool:
        prefix = prefix.rstrip("/") + "/"
        return any(n.startswith(prefix) for n in self.names)

    def text(self, path: str) -> str:
        if path not in self._text_cache:
            if path not in self._name_set:
                raise ExtractionError(f"{path} is not in the wheel")
            self._text_cache[path] = self._read_bytes(path).decode("utf-8")
        return self._text_cache[path]

    def tree(self, path: str) -> ast.Module:
        if path not in self._tree_cache:
            self._tree_cache[path] = ast.parse(self.text(path), filename=path)
        return self._tree_cache[path]

    def entry_points(self) -> dict[str, list[str]]:
        """Entry point names by group, from the top-level ``*.dist-info``."""
        found = [n for n in self.names if re.fullmatch(r"[^/]+\.dist-info/entry_points\.txt", n)]
        if len(found) != 1:
            raise ExtractionError(f"expected one top-level entry_points.txt, found {found}")
        return parse_entry_points(self.text(found[0]))


def parse_entry_points(text: str) -> dict[str, list[str]]:
    """Parse entry_points.txt the way importlib.metadata does (name = value lines)."""
    groups: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = groups.setdefault(line[1:-1].strip(), [])
            continue
        if current is None or "=" not in line:
            raise ExtractionError(f"unexpected entry_points.txt line {raw!r}")
        current.append(line.partition("=")[0].strip())
    return groups


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def str_constant(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def str_sequence(node: ast.AST) -> list[str] | None:
    """The strings of a tuple/list/set literal of str constants (or a lone string)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        values = [str_constant(e) for e in node.elts]
        if any(v is None for v in values):
            return None
        return [v for v in values if v is not None]
    return None


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and str_constant(stmt.value) is not None


def find_class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return stmt
    return None


def find_function(body: Sequence[ast.stmt], name: str) -> ast.FunctionDef | None:
    found = None
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            found = stmt  # the last definition wins, as at run time
    return found


def fmt(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) < 160 else text[:157] + "..."


def module_path_for(view: WheelView, dotted_name: str) -> str | None:
    base = dotted_name.replace(".", "/")
    for candidate in (base + ".py", base + "/__init__.py"):
        if view.has(candidate):
            return candidate
    return None


def resolve_import(module_path: str, level: int, module: str | None) -> str:
    """Dotted module name for ``from <level dots><module> import ...`` in module_path."""
    if level == 0:
        return module or ""
    package = module_path.removesuffix(".py").split("/")
    package = package[:-1]  # the package containing the module (or __init__'s package)
    if level > 1:
        package = package[: len(package) - (level - 1)]
    parts = [*package, *(module.split(".") if module else [])]
    return ".".join(parts)
