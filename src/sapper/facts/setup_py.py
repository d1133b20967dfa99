"""Facts about setup.py: its syntax tree, the ``setup()`` calls and keywords with their
static values, import sites, and the project's own modules setup.py imports."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..sources import ProjectFiles

__all__ = [
    "PATH",
    "AstIndex",
    "ImportSite",
    "Keyword",
    "SetupPyFacts",
    "SyntaxProblem",
    "dotted",
    "expandable",
    "handler_fails",
    "import_sites",
    "index_of",
    "kwargs_dict",
    "parse_module",
    "py3_truth",
    "relative_import_files",
    "setup_calls",
    "statements",
    "syntax_problem",
    "sys_path_modified",
]

PATH = "setup.py"

#: ``try`` statements (``TryStar`` too on Python >= 3.11); typed loosely to read both.
_TRY_NODES: tuple[type[Any], ...] = (
    ast.Try,
    *([ast.TryStar] if hasattr(ast, "TryStar") else []),
)


#: What an isolated setuptools build environment holds besides the standard library.
_BUILD_ENV = frozenset({"setuptools", "pkg_resources", "distutils", "_distutils_hack", "wheel"})


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True, slots=True)
class ImportSite:
    module: str
    line: int
    column: int


def catches(handlers: list[ast.ExceptHandler], names: frozenset[str]) -> bool:
    """Whether one of ``handlers`` catches an exception by one of ``names`` (plain or
    dotted, alone or in a tuple), or is a bare ``except``."""
    for handler in handlers:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for t in types:
            name = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", None)
            if name in names:
                return True
    return False


def _guarded(handlers: list[ast.ExceptHandler]) -> bool:
    return catches(handlers, _GUARDS)


class AstIndex:
    """One pass over a syntax tree, for every rule that would walk it again.

    Each node gets its preorder position and the end of its subtree, so the nodes of one
    type under any node are a slice of a sorted list; :meth:`under` returns them in the
    order :func:`ast.walk` visits them (breadth first: by depth, then in preorder), so a
    rule that walks the tree or uses the index finds the same nodes in the same order.
    The expression contexts (``ast.Load``, ``ast.Store``, ``ast.Del``: singletons shared by
    every tree) are left out.
    """

    __slots__ = ("_by_type", "_depths", "_ends", "_position")

    def __init__(self, tree: ast.AST) -> None:
        by_type: dict[type[ast.AST], tuple[list[int], list[ast.AST]]] = {}
        position: dict[int, int] = {}  # id(node) -> preorder position
        depths: list[int] = []
        ast_type = ast.AST
        stack: list[tuple[ast.AST, int]] = [(tree, 0)]
        pop = stack.pop
        push = stack.append
        while stack:
            node, depth = pop()
            here = len(depths)
            position[id(node)] = here
            depths.append(depth)
            kind = type(node)
            entry = by_type.get(kind)
            if entry is None:
                entry = by_type[kind] = ([], [])
            entry[0].append(here)
            entry[1].append(node)
            children: list[ast.AST] = []
            for name in node._fields:
                if name == "ctx":  # Load/Store/Del: shared singletons no rule looks for
                    continue
                value = getattr(node, name, None)
                if type(value) is list:
                    children += [item for item in value if isinstance(item, ast_type)]
                elif isinstance(value, ast_type):
                    children.append(value)
            if children:
                inner = depth + 1
                for child in reversed(children):
                    push((child, inner))
        # a subtree ends at the next node that is no deeper than its root
        total = len(depths)
        ends = [total] * total
        open_: list[int] = []
        for at, depth in enumerate(depths):
            while open_ and depths[open_[-1]] >= depth:
                ends[open_.pop()] = at
            open_.append(at)
        self._by_type = by_type
        self._position = position
        self._depths = depths
        self._ends = ends

    def of_type(self, *kinds: type[ast.AST]) -> list[ast.AST]:
        """Every node of these types in the tree, in preorder."""
        if len(kinds) == 1:
            entry = self._by_type.get(kinds[0])
            return list(entry[1]) if entry else []
        found = [
            (at, node)
            for kind in kinds
            if (entry := self._by_type.get(kind)) is not None
            for at, node in zip(*entry, strict=True)
        ]
        found.sort(key=lambda pair: pair[0])
        return [node for _, node in found]

    def under(self, root: ast.AST, kind: type[ast.AST]) -> list[ast.AST]:
        """The nodes of type ``kind`` in ``root``'s subtree (``root`` included), in the order
        ``ast.walk(root)`` yields them."""
        from bisect import bisect_left

        entry = self._by_type.get(kind)
        start = self._position.get(id(root))
        if entry is None or start is None:
            return [] if start is not None else [n for n in ast.walk(root) if type(n) is kind]
        positions, nodes = entry
        first = bisect_left(positions, start)
        last = bisect_left(positions, self._ends[start], first)
        if last - first < 2:
            return nodes[first:last]
        depths = self._depths
        ranked = sorted(range(first, last), key=lambda i: (depths[positions[i]], positions[i]))
        return [nodes[i] for i in ranked]


#: The index of the trees parsed last (each kept with its tree, so an id is never reused).
_INDEXES: dict[int, tuple[ast.AST, AstIndex]] = {}
_MAX_INDEXES = 16


def index_of(tree: ast.AST) -> AstIndex:
    """The :class:`AstIndex` of ``tree``, built once while the tree is among the last used."""
    key = id(tree)
    found = _INDEXES.get(key)
    if found is not None and found[0] is tree:
        return found[1]
    index = AstIndex(tree)
    if len(_INDEXES) >= _MAX_INDEXES:
        del _INDEXES[next(iter(_INDEXES))]
    _INDEXES[key] = (tree, index)
    return index


def statements(
    body: Iterable[ast.stmt],
    *,
    imports: bool,
    available: Callable[[str], bool] | None = None,
) -> Iterator[ast.stmt]:
    """The simple statements that run when setup.py runs, through if/with/for/while/try.

    Function and class bodies are skipped (they run only for some commands, or never).
    With ``imports``, a ``try`` body guarded by ``except ImportError`` (or broader) is
    skipped too and handlers are not entered: a failing import there is caught. Unless
    ``available`` (which top-level modules a build can import) is given and the handler
    that catches the ImportError itself fails (:func:`handler_fails`): then the try body
    is read as unguarded.
    """
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, _TRY_NODES):
            handlers: list[ast.ExceptHandler] = node.handlers
            caught = imports and _guarded(handlers)
            if caught and available is not None:
                catcher = next(h for h in handlers if _guarded([h]))
                caught = not handler_fails(catcher, available)
            if not caught:
                yield from statements(node.body, imports=imports, available=available)
            if not imports:
                for handler in handlers:
                    yield from statements(handler.body, imports=imports, available=available)
            yield from statements(node.orelse, imports=imports, available=available)
            yield from statements(node.finalbody, imports=imports, available=available)
        elif isinstance(node, ast.If | ast.With | ast.For | ast.While):
            yield from statements(node.body, imports=imports, available=available)
            yield from statements(getattr(node, "orelse", []), imports=imports, available=available)
        else:
            yield node


_EXITS = frozenset({"sys.exit", "exit", "quit", "os._exit"})


def handler_fails(handler: ast.ExceptHandler, available: Callable[[str], bool]) -> bool:
    """Whether an ``except ImportError`` fallback itself fails: it raises, exits
    (``sys.exit``...), or imports a module the build cannot import (not in the standard
    library, not shipped in the sdist, not a build requirement; ``ez_setup`` is the
    classic case)."""
    for node in _runs_on_py3(handler.body):
        if isinstance(node, ast.Raise):
            return True
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and dotted(node.value.func) in _EXITS
        ):
            return True
        if isinstance(node, ast.Import):
            tops = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops = [node.module.split(".")[0]]
        else:
            continue
        if not all(available(top) for top in tops):
            return True
    return False


def import_sites(
    tree: ast.Module, available: Callable[[str], bool] | None = None
) -> Iterator[ImportSite]:
    """The imports that run when a module runs, those a working ``except ImportError``
    guards left out (see :func:`statements` for ``available``)."""
    for node in statements(tree.body, imports=True, available=available):
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
    index = index_of(tree)
    for stmt in statements(tree.body, imports=False):
        for node in index.under(stmt, ast.Call):
            assert isinstance(node, ast.Call)
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
    index = index_of(tree)
    for stmt in statements(tree.body, imports=False):
        for node in index.under(stmt, ast.Attribute):
            assert isinstance(node, ast.Attribute)
            if dotted(node) in {"sys.path.insert", "sys.path.append", "sys.path.extend"}:
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

    def syntax_error(self, python: tuple[int, int] | None = None) -> SyntaxProblem | None:
        """Why setup.py does not compile on Python ``python`` (default: the interpreter
        sapper runs on); None when it does or is absent (see :func:`syntax_problem`)."""
        import sys

        here = (sys.version_info.major, sys.version_info.minor)
        if python in (None, here) and self.tree is not None:
            return None  # parsed with this interpreter's grammar already
        return syntax_problem(self._files.files.get(PATH), python)

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
        """The unguarded imports that run when setup.py runs (a guard whose fallback itself
        fails does not count: see :meth:`available`)."""
        tree = self.tree
        return () if tree is None else tuple(import_sites(tree, self.available))

    def available(self, top: str) -> bool:
        """Whether an isolated build (pip's default) can import top-level module ``top``:
        the standard library, setuptools and its companions, a module or package shipped at
        the sdist's root (or under src/), or a build requirement of the same name."""
        import sys

        if top in sys.stdlib_module_names or top in _BUILD_ENV:
            return True
        files = self._files.files
        for root in ("", "src/"):
            if f"{root}{top}.py" in files or f"{root}{top}/__init__.py" in files:
                return True
        return _normal(top) in self._build_requirements

    @cached_property
    def _build_requirements(self) -> frozenset[str]:
        import sys

        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib
        from packaging.requirements import InvalidRequirement, Requirement

        raw = self._files.files.get("pyproject.toml")
        if raw is None:
            return frozenset()
        try:
            doc = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return frozenset()
        requires = doc.get("build-system", {}).get("requires", [])
        names: set[str] = set()
        for text in requires if isinstance(requires, list) else []:
            try:
                names.add(_normal(Requirement(str(text)).name))
            except InvalidRequirement:
                continue
        return frozenset(names)

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
                followed = kwargs_dict(tree, kw.value)
                if followed is not None:
                    for arg, val in followed:
                        value = resolve(val, consts, files)
                        out.append(Keyword(arg, val, value, val.lineno, val.col_offset + 1))
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


# -- dicts built for setup(**kwargs) ------------------------------------------------------


def py3_truth(test: ast.expr) -> bool | None:
    """Whether a test on the major Python version (``sys.version_info >= (3,)``,
    ``sys.version_info[0] == 2``, ``sys.version_info.major < 3``...) holds on Python 3;
    None when it is not such a test (builds run on Python 3 only)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Subscript) and dotted(left.value) == "sys.version_info":
        index = left.slice
        if not (isinstance(index, ast.Constant) and index.value == 0):
            return None
        major: tuple[int, ...] | None = _int_tuple(right, single=True)
    elif isinstance(left, ast.Attribute) and dotted(left) == "sys.version_info.major":
        major = _int_tuple(right, single=True)
    elif dotted(left) == "sys.version_info":
        major = _int_tuple(right, single=False)
    else:
        return None
    if major is None:
        return None
    here = (3,)
    ops: dict[type[ast.cmpop], Any] = {
        ast.GtE: lambda a, b: a >= b,
        ast.Gt: lambda a, b: a > b,
        ast.LtE: lambda a, b: a <= b,
        ast.Lt: lambda a, b: a < b,
        ast.Eq: lambda a, b: a == b,
        ast.NotEq: lambda a, b: a != b,
    }
    fn = ops.get(type(op))
    if fn is None:
        return None
    # (3,) vs (3, 0) or (2, 7): only the major number is decided; 3.x minor tests are not
    if len(major) > 1 and major[0] == 3 and any(major[1:]):
        return None
    return bool(fn(here, major[:1]))


def _int_tuple(node: ast.expr, *, single: bool) -> tuple[int, ...] | None:
    if single:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return (node.value,)
        return None
    if isinstance(node, ast.Tuple) and node.elts:
        out = []
        for elt in node.elts:
            if not (isinstance(elt, ast.Constant) and isinstance(elt.value, int)):
                return None
            out.append(elt.value)
        return tuple(out)
    return None


def _runs_on_py3(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a body that run on Python 3, through if/with/try blocks (branches
    on the major Python version decided; other branches all kept)."""
    for node in body:
        if isinstance(node, ast.If):
            truth = py3_truth(node.test)
            if truth is not False:
                yield from _runs_on_py3(node.body)
            if truth is not True:
                yield from _runs_on_py3(node.orelse)
        elif isinstance(node, ast.With):
            yield from _runs_on_py3(node.body)
        elif isinstance(node, _TRY_NODES):
            yield from _runs_on_py3(node.body)
            for handler in node.handlers:
                yield from _runs_on_py3(handler.body)
            yield from _runs_on_py3(node.orelse)
            yield from _runs_on_py3(node.finalbody)
        else:
            yield node


def _literal_items(node: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The string-keyed items of ``{...}`` or ``dict(k=v)``; None for anything else."""
    if isinstance(node, ast.Dict):
        return [
            (k.value, v)
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and len(node.args) <= 1
    ):
        items = [(k.arg, k.value) for k in node.keywords if k.arg is not None]
        if node.args:
            inner = _literal_items(node.args[0])
            if inner is None:
                return None
            items = inner + items
        return items
    return None


def _collect(
    body: Sequence[ast.stmt], name: str, functions: Mapping[str, ast.FunctionDef], depth: int
) -> list[tuple[str, ast.expr]]:
    """Keys given to dict ``name`` in ``body``: ``name = {...}``/``dict(...)``/``f()``,
    ``name["k"] = v``, ``name.update(...)``, ``name.setdefault("k", v)``."""
    items: list[tuple[str, ast.expr]] = []
    for node in _runs_on_py3(body):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    items.extend(_value_items(node.value, functions, depth))
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    items.append((target.slice.value, node.value))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            func = call.func
            if not (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == name
            ):
                continue
            if func.attr == "update":
                for arg in call.args:
                    items.extend(_literal_items(arg) or [])
                items.extend((k.arg, k.value) for k in call.keywords if k.arg is not None)
            elif func.attr == "setdefault" and len(call.args) == 2:
                key = call.args[0]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    items.append((key.value, call.args[1]))
    return items


def _value_items(
    node: ast.expr, functions: Mapping[str, ast.FunctionDef], depth: int
) -> list[tuple[str, ast.expr]]:
    literal = _literal_items(node)
    if literal is not None:
        return literal
    if (
        depth < 3
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in functions
    ):
        return _returned_items(functions[node.func.id], functions, depth + 1)
    return []


def _returned_items(
    func: ast.FunctionDef, functions: Mapping[str, ast.FunctionDef], depth: int
) -> list[tuple[str, ast.expr]]:
    """The keys of the dict a setup.py function returns (built in its own body)."""
    items: list[tuple[str, ast.expr]] = []
    for node in _runs_on_py3(func.body):
        if isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Name):
                items.extend(_collect(func.body, node.value.id, functions, depth))
            else:
                items.extend(_value_items(node.value, functions, depth))
    return items


def kwargs_dict(tree: ast.Module, node: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The keys a ``setup(**node)`` dict holds when setup.py builds it step by step: a
    module-level name filled by assignments, subscript assignments, ``update`` and
    ``setdefault`` (branches on the major Python version decided for Python 3), or a call
    of a setup.py function returning such a dict. None when ``node`` is not a name or such
    a call (literal dicts are read by the caller)."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if isinstance(node, ast.Name):
        return _collect(tree.body, node.id, functions, 0)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
        return _returned_items(functions[node.func.id], functions, 1)
    return None


class SyntaxProblem(NamedTuple):
    """Why a Python file does not compile on the build's Python: the ``SyntaxError`` (or
    ``ValueError``, for a null byte before Python 3.12) that ``exec`` of its text raises."""

    message: str
    line: int | None
    column: int | None
    #: The Python version it was judged for (``3.11``).
    python: str
    #: False when that Python is newer than the interpreter sapper runs on, whose older
    #: grammar rejected the file: the build's Python may read it.
    certain: bool


@lru_cache(maxsize=32)  # the rule and the verdict both ask
def syntax_problem(
    source: bytes | None, python: tuple[int, int] | None = None
) -> SyntaxProblem | None:
    """Whether ``source`` compiles on Python ``python`` (default: this interpreter), as
    setuptools' build backend compiles setup.py (``exec`` of its text).

    For an older Python, ``ast.parse(feature_version=...)`` rejects the syntax that Python
    lacks (assignment expressions before 3.8, ``match`` before 3.10, ...); it is best effort
    (a few constructs pass that the older Python rejects), so a file that parses is not
    proof. For a newer Python than this one, a rejection is not certain. Python 2 grammar
    is not modelled: a file judged for Python 2 is never certain to fail.
    """
    import sys

    if source is None:
        return None
    here = (sys.version_info.major, sys.version_info.minor)
    target = python or here
    feature: tuple[int, int] | None = None
    if target < here:
        feature = max(target, (3, 4))  # the oldest grammar ast.parse can check
    try:
        ast.parse(source, filename=PATH, feature_version=feature)
    except SyntaxError as exc:
        column = exc.offset if isinstance(exc.offset, int) and exc.offset > 0 else None
        message = exc.msg or "invalid syntax"
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else None
        found = SyntaxProblem(message, line, column, f"{target[0]}.{target[1]}", True)
    except ValueError as exc:  # a null byte, before Python 3.12
        found = SyntaxProblem(str(exc), None, None, f"{target[0]}.{target[1]}", True)
    else:
        return None
    if target > here or target[0] < 3:
        found = found._replace(certain=False)
    return found
