"""Facts about setup.py: its syntax tree, the ``setup()`` calls and keywords with their
static values, import sites, and the project's own modules setup.py imports."""

from __future__ import annotations

import ast
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ._exprs import dotted

if TYPE_CHECKING:
    from ..inputs.sources import ProjectFiles
    from ._values import Item, Run, Target

__all__ = [
    "PATH",
    "AstIndex",
    "ImportSite",
    "Keyword",
    "SetupPyFacts",
    "SyntaxProblem",
    "condition",
    "dotted",
    "handler_fails",
    "import_sites",
    "index_of",
    "parse_module",
    "relative_import_files",
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


def condition(test: ast.expr, target: Target) -> bool | None:
    """Whether an ``if`` test holds on ``target`` (``sys.platform``, ``os.name``,
    ``platform.system()``, ``sys.version_info`` comparisons, with ``not``/``and``/``or``);
    None when it cannot be known without running code."""
    from ._values import Run

    try:
        return Run(target, {}).truth(test, {}, None)
    except RecursionError:
        return None


def statements(
    body: Iterable[ast.stmt],
    *,
    imports: bool,
    available: Callable[[str], bool] | None = None,
    target: Target | None = None,
) -> Iterator[ast.stmt]:
    """The simple statements that run when setup.py runs, through if/with/for/while/try.

    Function and class bodies are skipped (they run only for some commands, or never).
    With ``target``, an ``if`` whose test is decided there (:func:`condition`) is read
    for its taken branch only; without, every branch is read. With ``imports``, a ``try``
    body guarded by ``except ImportError`` (or broader) is skipped too and handlers are not
    entered: a failing import there is caught. Unless ``available`` (which top-level
    modules a build can import) is given and the handler that catches the ImportError
    itself fails (:func:`handler_fails`): then the try body is read as unguarded.
    """
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, _TRY_NODES):
            handlers: list[ast.ExceptHandler] = node.handlers
            caught = imports and _guarded(handlers)
            if caught and available is not None:
                catcher = next(h for h in handlers if _guarded([h]))
                caught = not handler_fails(catcher, available, target)
            if not caught:
                yield from statements(
                    node.body, imports=imports, available=available, target=target
                )
            if not imports:
                for handler in handlers:
                    yield from statements(
                        handler.body, imports=imports, available=available, target=target
                    )
            for part in (node.orelse, node.finalbody):
                yield from statements(part, imports=imports, available=available, target=target)
        elif isinstance(node, ast.If):
            truth = None if target is None else condition(node.test, target)
            if truth is not False:
                yield from statements(
                    node.body, imports=imports, available=available, target=target
                )
            if truth is not True:
                yield from statements(
                    node.orelse, imports=imports, available=available, target=target
                )
        elif isinstance(node, ast.With | ast.For | ast.While):
            for part in (node.body, getattr(node, "orelse", [])):
                yield from statements(part, imports=imports, available=available, target=target)
        else:
            yield node


_EXITS = frozenset({"sys.exit", "exit", "quit", "os._exit"})

#: The ``setup()`` keywords whose value (or absence) a rule reads to find a failure: one
#: that reaches ``setup()`` on some undecided paths only leaves the verdict unknown.
DECISIVE = frozenset(
    {
        "use_2to3",
        "version",
        "python_requires",
        "install_requires",
        "setup_requires",
        "extras_require",
        "description",
        "cmdclass",
        "include_package_data",
        "license_file",
        "license_files",
        "classifiers",
        "packages",
        "py_modules",
        "package_dir",
        "ext_modules",
        "pbr",
    }
)

#: ``ez_setup``'s calls that download setuptools: the URLs and eggs they fetch are gone
#: (and an offline build has no network), so they fail.
DOWNLOADS = frozenset({"download_setuptools", "_do_download"})


def handler_fails(
    handler: ast.ExceptHandler, available: Callable[[str], bool], target: Target | None = None
) -> bool:
    """Whether an ``except ImportError`` fallback itself fails on ``target`` (default: the
    running interpreter): it raises (``raise SystemExit`` too), exits (``sys.exit``...),
    downloads setuptools (``ez_setup``'s ``use_setuptools()``), or imports a module the
    build cannot import (not in the standard library, not shipped in the sdist, not a
    build requirement; ``ez_setup`` is the classic case)."""
    from ._values import func_name, running_target

    for node in statements(handler.body, imports=False, target=target or running_target()):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Expr | ast.Return | ast.Assign) and isinstance(
            node.value, ast.Call
        ):
            name = dotted(node.value.func)
            if name in _EXITS or func_name(node.value.func) in DOWNLOADS:
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
    tree: ast.Module,
    available: Callable[[str], bool] | None = None,
    target: Target | None = None,
) -> Iterator[ImportSite]:
    """The imports that run when a module runs on ``target``, those a working
    ``except ImportError`` guards left out (see :func:`statements`)."""
    for node in statements(tree.body, imports=True, available=available, target=target):
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


def sys_path_modified(tree: ast.Module) -> bool:
    index = index_of(tree)
    for stmt in statements(tree.body, imports=False):
        for node in index.under(stmt, ast.Attribute):
            assert isinstance(node, ast.Attribute)
            if dotted(node) in {"sys.path.insert", "sys.path.append", "sys.path.extend"}:
                return True
    return False


#: Source bytes of project modules whose syntax trees :meth:`SetupPyFacts.module` keeps.
MODULE_CACHE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Keyword:
    """A ``setup()`` keyword argument, its value if statically known, and where it is."""

    name: str
    node: ast.expr
    value: Any
    line: int
    column: int
    #: For a dict: each key with the expression its value comes from.
    items: tuple[Item, ...] | None = None


def parse_module(source: bytes | None, path: str) -> ast.Module | None:
    """The syntax tree of a Python file; None if absent or unparsable."""
    if source is None:
        return None
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def relative_import_files(
    files: Mapping[str, bytes], tree: ast.Module, package: str, target: Target | None = None
) -> list[str]:
    """The project files a module's ``from . import x`` statements run (on ``target``)."""
    out: list[str] = []
    for node in statements(tree.body, imports=True, target=target):
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

    def __init__(self, files: ProjectFiles, target: Target | None = None) -> None:
        from ._values import running_target

        self._files = files
        self.target = target or running_target()
        #: parsed project modules, most recently used last, and the source bytes they hold
        self._modules: OrderedDict[str, ast.Module | None] = OrderedDict()
        self._module_bytes = 0

    @property
    def exists(self) -> bool:
        return PATH in self._files.files

    @property
    def files(self) -> Mapping[str, bytes]:
        """The project's files (path -> content) that setup.py may read or import."""
        return self._files.files

    @property
    def listing(self) -> tuple[str, ...]:
        """Every regular file of the project (paths relative to its root), read or not."""
        return self._files.names

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
        """The syntax tree of another Python file of the project.

        Trees are kept for the next rule that walks the same imports, but only up to
        :data:`MODULE_CACHE_BYTES` of source (a syntax tree takes some 30 times its
        source's bytes): a walk through a large project's whole import graph (mypy's
        setup.py reaches most of mypy and mypyc) would otherwise hold every tree at once.
        Beyond it the least recently used trees are dropped and parsed again if asked."""
        if path in self._modules:
            self._modules.move_to_end(path)
            return self._modules[path]
        source = self._files.files.get(path)
        tree = parse_module(source, path)
        self._modules[path] = tree
        self._module_bytes += len(source or b"")
        while self._module_bytes > MODULE_CACHE_BYTES and len(self._modules) > 1:
            old, _ = self._modules.popitem(last=False)
            self._module_bytes -= len(self._files.files.get(old) or b"")
        return tree

    @cached_property
    def import_sites(self) -> tuple[ImportSite, ...]:
        """The unguarded imports that run when setup.py runs (a guard whose fallback itself
        fails does not count: see :meth:`available`)."""
        tree = self.tree
        return () if tree is None else tuple(import_sites(tree, self.available, self.target))

    def available(self, top: str) -> bool:
        """Whether an isolated build (pip's default) can import top-level module ``top``:
        the standard library, setuptools and its companions, a module or package shipped at
        the sdist's root (or under src/), or a build requirement of the same name. With a
        build requirement other than setuptools and wheel, any module may come with its
        dependencies, which sapper does not resolve: then it may (jupyterlab-server 2.7.2
        requires jupyter_server, which brings the traitlets its package imports)."""
        import sys

        if top in sys.stdlib_module_names or top in _BUILD_ENV:
            return True
        files = self._files.files
        for root in ("", "src/"):
            if f"{root}{top}.py" in files or f"{root}{top}/__init__.py" in files:
                return True
        requirements = self._build_requirements
        return _normal(top) in requirements or bool(requirements - _BUILD_ENV)

    @cached_property
    def _build_requirements(self) -> frozenset[str]:
        from packaging.requirements import InvalidRequirement, Requirement

        from .pyproject import build_system, load_pyproject

        requires = build_system(load_pyproject(self._files)).requires
        names: set[str] = set()
        for text in requires:
            try:
                names.add(_normal(Requirement(str(text)).name))
            except InvalidRequirement:
                continue
        return frozenset(names)

    @cached_property
    def ez_setup_bootstrap(self) -> ImportSite | None:
        """Where setup.py calls ``ez_setup.use_setuptools()`` (at module level, on the
        target) when the ``ez_setup.py`` the sdist ships imports ``pkg_resources`` in that
        function and, without it, downloads setuptools: the classic bootstrap, which fails
        with every setuptools that does not ship ``pkg_resources``."""
        tree = self.tree
        helper = self.module("ez_setup.py")
        if tree is None or helper is None:
            return None
        function = next(
            (
                n
                for n in helper.body
                if isinstance(n, ast.FunctionDef) and n.name == "use_setuptools"
            ),
            None,
        )
        if function is None or not any(
            (isinstance(n, ast.Import) and any(a.name == "pkg_resources" for a in n.names))
            or (isinstance(n, ast.ImportFrom) and n.module == "pkg_resources")
            for n in ast.walk(function)
        ):
            return None
        names = {"ez_setup.use_setuptools"}
        for node in statements(tree.body, imports=True, target=self.target):
            if isinstance(node, ast.ImportFrom) and node.module == "ez_setup":
                names.update(a.asname or a.name for a in node.names if a.name == "use_setuptools")
            elif isinstance(node, ast.Import):
                names.update(
                    f"{a.asname}.use_setuptools"
                    for a in node.names
                    if a.name == "ez_setup" and a.asname
                )
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and dotted(node.value.func) in names
            ):
                return ImportSite("pkg_resources", node.lineno, node.col_offset + 1)
        return None

    @cached_property
    def run(self) -> Run | None:
        """The abstract run of setup.py for the target (see :class:`~._values.Run`): the
        ``setup()`` calls that run, in functions setup.py calls too, with their keywords."""
        from ._values import Run

        tree = self.tree
        if tree is None:
            return None
        run = Run(self.target, self._files.files)
        try:
            run.module(tree)
        except RecursionError:  # an expression nested too deep to follow: nothing is known
            return Run(self.target, self._files.files)
        return run

    @cached_property
    def calls(self) -> tuple[ast.Call, ...]:
        """The ``setup()`` calls that run when setup.py runs on the target."""
        run = self.run
        return () if run is None else tuple(c.call for c in run.calls)

    @cached_property
    def opaque(self) -> bool:
        """Whether setup.py may pass keywords sapper cannot see (no ``setup()`` call that
        runs, ``setup(*args)``, a ``**kwargs`` dict sapper cannot read entirely, or a file
        that does not parse)."""
        run = self.run
        if run is None or not run.calls:
            return True
        return any(c.opaque for c in run.calls)

    @cached_property
    def unseen(self) -> str | None:
        """Why the keywords setup.py passes to ``setup()`` cannot all be read (for a
        verdict that must not say "builds" on a guess), or None when they can. A file that
        does not parse is not this: it is a verdict of its own."""
        run = self.run
        if run is None:
            return None
        if not run.calls:
            return "no setup() call that sapper can follow runs in setup.py"
        for call in run.calls:
            decisive = [k for k in call.maybe if k in DECISIVE]
            if decisive:
                keys = ", ".join(f"`{k}`" for k in decisive)
                return (
                    f"setup() at setup.py:{call.call.lineno} gets {keys} only on paths that "
                    "depend on code sapper cannot decide"
                )
            if call.unread:
                return (
                    f"setup() at setup.py:{call.call.lineno} gets keywords sapper cannot read "
                    "(a **kwargs dict or *args built by code it does not follow)"
                )
        return None

    @cached_property
    def keywords(self) -> tuple[Keyword, ...]:
        """The keyword arguments of the ``setup()`` calls that run, values resolved
        statically (``_values.UNKNOWN`` when they depend on running code): names bound at
        module level or in the function that calls ``setup()``, dicts built step by step
        and ``**kwargs`` expanded, functions setup.py defines followed."""
        run = self.run
        if run is None:
            return ()
        out: list[Keyword] = []
        for call in run.calls:
            for name, slot, at in call.keywords:
                node = slot.node if slot.node is not None else at
                out.append(
                    Keyword(name, node, slot.value, at.lineno, at.col_offset + 1, slot.items)
                )
        return tuple(out)


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
    except (RecursionError, MemoryError):  # too deep for this parser: nothing to say
        return None
    else:
        return None
    if target > here or target[0] < 3:
        found = found._replace(certain=False)
    return found
