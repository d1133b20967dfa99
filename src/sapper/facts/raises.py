"""What surely stops setup.py with an error, whatever setuptools does: a ``raise`` (or
``sys.exit`` with a failure status) that runs every time setup.py runs in a wheel build.

"Surely runs" is read strictly: the statements of setup.py's module body in order, an ``if``
followed only into the branch its test decides on the target (``sys.platform``,
``sys.version_info``..., ``__name__ == "__main__"``, which holds when setuptools' backend
runs setup.py, and ``sys.argv`` compared with a command a wheel build never passes), the
body of a function setup.py defines and calls at module level, and the module body of a
project module setup.py imports there. Nothing under ``try``, ``with``, ``for`` or
``while`` counts, nor a branch whose test is not decided; the walk stops at the first
statement that may leave the module early (an exit, a raise, a ``return``) on a path it
cannot decide, since what follows may never run.

What a statement surely evaluates first counts too (a ``with`` header, an ``if`` test, a
``for`` iterable, the value assigned): a function setup.py defines and calls there is
followed, and an ``open()`` (``Path.read_text()``...) for reading of a file the sdist does
not ship fails with ``FileNotFoundError``. That is judged only in an sdist (a tree with
``PKG-INFO``: a checkout may lack files its VCS ignores, or that sapper skips), only in
setup.py and project modules at the root (elsewhere ``__file__`` is another directory), and
only where the module creates no file (no write, copy, subprocess or ``chdir``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final, NamedTuple

from ._exprs import UNKNOWN, dotted, func_name, read_path, writes
from ._slots import Slot
from ._values import Run, _Lookup
from .setup_py import local_files, sys_path_modified

if TYPE_CHECKING:
    from .pyproject import PyprojectFacts
    from .setup_py import SetupPyFacts

__all__ = ["WHEEL_BUILD_COMMANDS", "SureFailure", "sure_failure", "surely_run"]

#: ``sys.argv[1]`` when setuptools' PEP 517 backend runs setup.py for a wheel: ``egg_info``
#: (``get_requires_for_build_wheel``), ``dist_info`` (``prepare_metadata_for_build_wheel``),
#: ``bdist_wheel`` (``build_wheel``); read in ``setuptools/build_meta.py``, every release
#: since 40.8.0, when the frontend passes no ``--global-option`` (pip, uv and build do not).
WHEEL_BUILD_COMMANDS: Final = frozenset({"egg_info", "dist_info", "bdist_wheel"})
_EXITS: Final = frozenset({"sys.exit", "exit", "quit", "os._exit"})
_MAX_DEPTH: Final = 3
#: What setuptools 71.0.0 on (and pkg_resources before 82) vendor and put on ``sys.path``
#: once imported, as the backend has: importable in a build with those releases only, so
#: an import of them is never judged to fail with every setuptools.
_VENDORED: Final = frozenset(
    {
        "autocommand",
        "backports",
        "importlib_metadata",
        "importlib_resources",
        "inflect",
        "jaraco",
        "more_itertools",
        "ordered_set",
        "packaging",
        "platformdirs",
        "pyparsing",
        "tomli",
        "typeguard",
        "typing_extensions",
        "wheel",
        "zipp",
    }
)
_MAX_MESSAGE: Final = 400


class SureFailure(NamedTuple):
    """A statement that fails every wheel build: where it is, and where setup.py reaches
    it (the call or import in setup.py; the same place when it is in setup.py's body)."""

    path: str
    line: int
    exception: str
    #: The error's message when sapper can read it (a string, a file the sdist ships).
    message: str | None
    #: Where setup.py reaches it: (line, column) in setup.py.
    via_line: int
    via_column: int
    #: The module setup.py imports to reach it (None: setup.py itself).
    via_module: str | None
    #: The file it opens for reading that the sdist does not ship (None: a raise).
    missing: str | None = None
    #: The top-level module it imports that the isolated build environment lacks.
    module: str | None = None


class _Stop(Exception):
    """The walk cannot tell what runs after this statement."""


class _Walker(Run):
    """A :class:`Run` whose conditions also know ``sys.argv`` in a wheel build."""

    def truth(
        self, test: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> bool | None:
        argv = _argv_truth(test)
        if argv is not None:
            return argv
        return super().truth(test, env, outer)


def _argv_truth(test: ast.expr) -> bool | None:
    """``sys.argv[1] == "sdist"`` (``!=``), ``"sdist" in sys.argv`` (``not in``): decided
    when the command is none a wheel build passes (see :data:`WHEEL_BUILD_COMMANDS`)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.Eq | ast.NotEq):
        if _is_argv1(right):
            left, right = right, left
        if not (_is_argv1(left) and isinstance(right, ast.Constant)):
            return None
        word = right.value
    elif isinstance(op, ast.In | ast.NotIn):
        if not (isinstance(left, ast.Constant) and dotted(right) == "sys.argv"):
            return None
        word = left.value
    else:
        return None
    if not isinstance(word, str) or word in WHEEL_BUILD_COMMANDS or word.startswith("-"):
        return None
    # the command is never passed: equal / contained is False
    return not isinstance(op, ast.Eq | ast.In)


def _is_argv1(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and dotted(node.value) == "sys.argv"
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 1
    )


def _may_leave(nodes: list[ast.stmt]) -> bool:
    """Whether a block may stop the module early (outside the functions it defines)."""
    for stmt in nodes:
        for node in _walk_local(stmt):
            if isinstance(node, ast.Raise | ast.Return):
                return True
            if isinstance(node, ast.Call) and dotted(node.func) in _EXITS:
                return True
    return False


def _walk_local(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        yield from _walk_local(child)


def _forget(stmt: ast.stmt, env: dict[str, Slot]) -> None:
    """Names bound in a statement the walk does not run are no longer known."""
    for node in _walk_local(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            env.pop(node.id, None)


_DYNAMIC: Final = frozenset({"exec", "globals", "vars", "locals", "setattr"})

#: Calls that may create a file (or move the working directory) before setup.py reads it.
_CREATORS: Final = frozenset(
    {
        "system", "popen", "Popen", "call", "check_call", "check_output", "run", "getoutput",
        "getstatusoutput", "spawn", "spawnv", "spawnl", "execv", "execvp", "exec", "execfile",
        "copy", "copy2", "copyfile", "copytree", "copyfileobj", "move", "rename", "renames",
        "symlink", "link", "symlink_to", "hardlink_to", "write_text", "write_bytes",
        "urlretrieve", "extract", "extractall", "unpack_archive", "chdir", "__import__",
        "import_module", "run_path", "run_module", "mkstemp",
    }
)  # fmt: skip
#: Directories a directory target's listing leaves out (VCS, build output...).
_UNLISTED: Final = frozenset(
    {".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules", "__pycache__",
     "build", "dist"}
)  # fmt: skip


def _creates_files(tree: ast.Module) -> bool:
    """Whether ``tree`` has a call that may create a file: a copy, a subprocess, an
    ``open`` whose mode writes (or is not a string)..."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if func_name(node.func) in _CREATORS or writes(node):
            return True
    return False


def _sure_exprs(stmt: ast.stmt) -> list[ast.expr]:
    """The expressions a statement evaluates whenever it runs, before its body."""
    if isinstance(stmt, ast.If | ast.While | ast.Assert):
        return [stmt.test]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [item.context_expr for item in stmt.items]
    if isinstance(stmt, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return):
        return [stmt.value] if stmt.value is not None else []
    return []


def _sure_calls(node: ast.expr) -> Iterator[ast.Call]:
    """The calls evaluating ``node`` surely makes, in order (not those a short circuit, a
    conditional expression, a lambda or a comprehension may skip)."""
    children: list[ast.expr]
    if isinstance(node, ast.Call):
        children = [node.func, *node.args, *(k.value for k in node.keywords)]
    elif isinstance(node, ast.Attribute | ast.Starred | ast.NamedExpr | ast.FormattedValue):
        children = [node.value]
    elif isinstance(node, ast.Subscript):
        children = [node.value, node.slice]
    elif isinstance(node, ast.BinOp):
        children = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        children = [node.operand]
    elif isinstance(node, ast.BoolOp):
        children = node.values[:1]
    elif isinstance(node, ast.IfExp):
        children = [node.test]
    elif isinstance(node, ast.Compare):
        children = [node.left, *node.comparators[:1]]
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        children = list(node.elts)
    elif isinstance(node, ast.Dict):
        children = [e for pair in zip(node.keys, node.values, strict=True) for e in pair if e]
    elif isinstance(node, ast.JoinedStr):
        children = list(node.values)
    else:
        children = []
    for child in children:
        yield from _sure_calls(child)
    if isinstance(node, ast.Call):
        yield node


def _rebound(tree: ast.Module) -> frozenset[str] | None:
    """The names bound more than once anywhere in ``tree`` (functions too, which may
    declare them ``global``); None when the module binds names dynamically."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and dotted(node.func) in _DYNAMIC:
            return None
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            name = node.id
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = node.name
        elif isinstance(node, ast.alias):
            name = (node.asname or node.name).partition(".")[0]
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return frozenset(n for n, c in counts.items() if c > 1)


def _parents(path: str) -> Iterator[str]:
    while "/" in path:
        path = path.rpartition("/")[0]
        yield path


def _exit_status(call: ast.Call) -> bool | None:
    """Whether ``sys.exit(...)`` reports a failure: True for a non-zero number or a string,
    False for none, 0 or None, None when it cannot be read."""
    if not call.args:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.Constant):
        if arg.value is None or arg.value == 0 or arg.value is False:
            return False
        return True if isinstance(arg.value, int | str) else None
    return None


class _Search:
    def __init__(self, setup_py: SetupPyFacts, follow_imports: bool, judge_imports: bool) -> None:
        self.setup_py = setup_py
        self.follow_imports = follow_imports
        #: Imports of modules the isolated build lacks are judged (not when setup.py puts
        #: other directories on sys.path, or a module may create files first).
        self.judge_imports = judge_imports
        self.run = _Walker(setup_py.target, setup_py.files)
        self.seen: set[str] = set()
        #: The module whose body is being walked (names bound there are looked up).
        self.module: ast.Module | None = None
        self.unstable: dict[int, frozenset[str] | None] = {}
        listing = setup_py.listing
        self.listing = frozenset(listing)
        self.dirs = frozenset(d for name in listing for d in _parents(name))
        #: Missing files are judged in an sdist only, until a module may create files.
        self.judge_files = "PKG-INFO" in self.listing

    def stable(self, tree: ast.Module, name: str) -> bool:
        """Whether ``name`` is bound once in module ``tree``, with no ``exec``, ``globals()``
        or ``vars()`` that could bind it otherwise: only then is its value at the binding
        the value a later test reads."""
        key = id(tree)
        if key not in self.unstable:
            self.unstable[key] = _rebound(tree)
        names = self.unstable[key]
        return names is not None and name not in names

    def body(  # noqa: PLR0917
        self,
        body: list[ast.stmt],
        path: str,
        env: dict[str, Slot],
        defs: dict[str, ast.FunctionDef],
        via: tuple[int, int, str | None] | None,
        depth: int,
    ) -> SureFailure | None:
        """The first statement of ``body`` that surely fails; raises :class:`_Stop` when
        what follows a statement may not run."""
        for stmt in body:
            here = via or (stmt.lineno, stmt.col_offset + 1, None)
            if isinstance(stmt, ast.FunctionDef):
                defs[stmt.name] = stmt
                env.pop(stmt.name, None)
                continue
            if isinstance(stmt, ast.AsyncFunctionDef | ast.ClassDef):
                defs.pop(stmt.name, None)  # a class body runs, but is not read
                env.pop(stmt.name, None)
                continue
            for expr in _sure_exprs(stmt):
                for call in _sure_calls(expr):
                    found = self._missing(call, path, env, here) or self._call(
                        call, path, env, defs, here, depth
                    )
                    if found:
                        return found
            if isinstance(stmt, ast.If):
                truth = self.run.truth(stmt.test, env, None)
                if truth is None:
                    if _may_leave([stmt]):
                        raise _Stop
                    _forget(stmt, env)
                    continue
                found = self.body(stmt.body if truth else stmt.orelse, path, env, defs, via, depth)
                if found:
                    return found
                continue
            if isinstance(stmt, ast.Raise):
                return self._raise(stmt, path, env, here)
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                continue  # its calls are followed above
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                found = self._import(stmt, path, here, depth)
                if found:
                    return found
                continue
            if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
                slot = self.run.eval(stmt.value, env, None)
                for target in stmt.targets:
                    assert isinstance(target, ast.Name)
                    if self.module is not None and self.stable(self.module, target.id):
                        env[target.id] = slot
                    else:
                        env.pop(target.id, None)
                continue
            if _may_leave([stmt]):
                raise _Stop
            _forget(stmt, env)
        return None

    def _raise(
        self, stmt: ast.Raise, path: str, env: dict[str, Slot], here: tuple[int, int, str | None]
    ) -> SureFailure | None:
        exc = stmt.exc
        if exc is None:
            return None  # a bare raise: which error it re-raises is not read
        name = dotted(exc.func if isinstance(exc, ast.Call) else exc) or "an exception"
        args = exc.args if isinstance(exc, ast.Call) else []
        if name.rpartition(".")[2] == "SystemExit":
            status = _exit_status(exc) if isinstance(exc, ast.Call) else False
            if not status:
                raise _Stop
        message = self._message(args[0], env) if args else None
        return SureFailure(path, stmt.lineno, name, message, *here)

    def _call(  # noqa: PLR0917
        self,
        call: ast.Call,
        path: str,
        env: dict[str, Slot],
        defs: dict[str, ast.FunctionDef],
        here: tuple[int, int, str | None],
        depth: int,
    ) -> SureFailure | None:
        name = dotted(call.func)
        if name in _EXITS:
            if not _exit_status(call):
                raise _Stop
            message = self._message(call.args[0], env)
            return SureFailure(path, call.lineno, "SystemExit", message, *here)
        if isinstance(call.func, ast.Name) and call.func.id in defs and depth < _MAX_DEPTH:
            function = defs.pop(call.func.id)  # once: recursion is not followed
            # the names the module binds once, less the function's parameters
            a = function.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
            params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
            local = {k: v for k, v in env.items() if k not in params}
            try:
                found = self.body(function.body, path, local, dict(defs), here, depth + 1)
            except _Stop:
                return None  # what the function does after that is unknown, not the module
            finally:
                defs[call.func.id] = function
            return found
        return None

    def _missing(
        self, call: ast.Call, path: str, env: dict[str, Slot], here: tuple[int, int, str | None]
    ) -> SureFailure | None:
        """A read of a file the sdist does not ship, where that is sure to fail."""
        if not self.judge_files or "/" in path:
            return None
        target = read_path(call, _Lookup(self.run, env, None))
        if target is None or target in self.listing or target in self.dirs:
            return None
        if any(p in _UNLISTED or p.endswith(".egg-info") for p in target.split("/")):
            return None
        message = f"[Errno 2] No such file or directory: {target!r}"
        return SureFailure(path, call.lineno, "FileNotFoundError", message, *here, target)

    def _import(
        self,
        stmt: ast.Import | ast.ImportFrom,
        path: str,
        here: tuple[int, int, str | None],
        depth: int,
    ) -> SureFailure | None:
        """An import of a module the isolated build environment lacks, in setup.py or in a
        project module it imports (ModuleNotFoundError on every build); else the first sure
        failure of the project modules it runs."""
        if isinstance(stmt, ast.ImportFrom):
            modules = [stmt.module] if stmt.module else []
            if stmt.level:
                return self._relative(stmt, path, here, depth)
        else:
            modules = [alias.name for alias in stmt.names]
        if self.judge_imports:
            for module in modules:
                top = module.split(".")[0]
                if top not in _VENDORED and not self.setup_py.available(top):
                    message = f"No module named '{top}'"
                    return SureFailure(
                        path, stmt.lineno, "ModuleNotFoundError", message, *here, module=top
                    )
        if not self.follow_imports or depth >= _MAX_DEPTH:
            return None
        for module in modules:
            via = here if depth else (stmt.lineno, stmt.col_offset + 1, module)
            found = self._run_files(local_files(self.setup_py.files, module, ("",)), via, depth)
            if found:
                return found
        return None

    def _relative(
        self,
        stmt: ast.ImportFrom,
        path: str,
        here: tuple[int, int, str | None],
        depth: int,
    ) -> SureFailure | None:
        """``from . import x`` / ``from .x import y`` in a package module: its files run."""
        package = path.rpartition("/")[0]
        files = self.setup_py.files
        if stmt.level != 1 or not package or f"{package}/__init__.py" not in files:
            return None
        if not self.follow_imports or depth >= _MAX_DEPTH or not depth:
            return None
        names = [stmt.module] if stmt.module else [a.name for a in stmt.names]
        run: list[str] = []
        for name in names:
            base = f"{package}/{name.replace('.', '/')}"
            run += [c for c in (f"{base}/__init__.py", f"{base}.py") if c in files][:1]
        return self._run_files(run, here, depth)

    def _run_files(
        self, paths: list[str], via: tuple[int, int, str | None], depth: int
    ) -> SureFailure | None:
        for path in paths:
            if path in self.seen:
                continue
            self.seen.add(path)
            tree = self.setup_py.module(path)
            if tree is None:
                continue
            if _creates_files(tree):
                # it may write what setup.py reads next (the modules it imports are judged
                # still: a library that writes files does not write a module it imports)
                self.judge_files = False
            name = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            env: dict[str, Slot] = {"__name__": Slot(name), "__file__": Slot(UNKNOWN)}
            outer, self.module = self.module, tree
            try:
                found = self.body(tree.body, path, env, {}, via, depth + 1)
            except _Stop:
                found = None
            finally:
                self.module = outer
            if found:
                return found
        return None

    def _message(self, node: ast.expr, env: dict[str, Slot]) -> str | None:
        try:
            value = self.run.eval(node, env, None).value
        except RecursionError:
            return None
        if not isinstance(value, str):
            return None
        # banners (``#####``, code fences) are dropped: the words are the message
        words = [w for w in value.split() if len(w) < 3 or any(c.isalnum() for c in w)]
        text = " ".join(words)
        return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def sure_failure(setup_py: SetupPyFacts, pyproject: PyprojectFacts) -> SureFailure | None:
    """The ``raise`` or failing exit that every wheel build of the project runs, if any:
    in setup.py, in a function it calls at module level, or in the module body of a
    project module it imports there (when setup.py's directory is on ``sys.path``); or an
    import there of a module the isolated build environment lacks (in an sdist)."""
    from .pyproject import LEGACY_BACKEND

    tree = setup_py.tree
    if tree is None:
        return None
    follow = pyproject.build_system.backend == LEGACY_BACKEND or sys_path_modified(tree)
    # pip (25.3 on), uv and build run every build in an isolated environment: with a
    # pyproject.toml that has no [build-system] table, PP009 says it of setup.py's imports
    no_table = isinstance(pyproject.data, dict) and "build-system" not in pyproject.data
    # judged in an sdist only, as files are: a checkout may lack a module its VCS ignores
    judge = not (sys_path_modified(tree) or no_table) and "PKG-INFO" in setup_py.listing
    search = _Search(setup_py, follow, judge)
    search.module = tree
    if _creates_files(tree):
        search.judge_files = search.judge_imports = False
    env: dict[str, Slot] = {"__name__": Slot("__main__"), "__file__": Slot(UNKNOWN)}
    try:
        return search.body(tree.body, "setup.py", env, {}, None, 0)
    except (_Stop, RecursionError):
        return None


def surely_run(setup_py: SetupPyFacts, body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The simple statements of a module ``body`` that run in every wheel build, as far as
    the branches go: an ``if`` only into the branch its test decides (with ``sys.argv`` as
    a wheel build has it), the body of a ``with``; nothing under ``try``, a loop, a
    function or a class."""
    run = _Walker(setup_py.target, setup_py.files)
    env: dict[str, Slot] = {"__name__": Slot("__main__"), "__file__": Slot(UNKNOWN)}

    def walk(nodes: list[ast.stmt]) -> Iterator[ast.stmt]:
        for node in nodes:
            if isinstance(node, ast.If):
                try:
                    truth = run.truth(node.test, env, None)
                except RecursionError:
                    truth = None
                if truth is not None:
                    yield from walk(node.body if truth else node.orelse)
            elif isinstance(node, ast.With):
                yield from walk(node.body)
            elif not isinstance(
                node,
                ast.FunctionDef
                | ast.AsyncFunctionDef
                | ast.ClassDef
                | ast.For
                | ast.AsyncFor
                | ast.While
                | ast.Try
                | ast.AsyncWith,
            ) and not (hasattr(ast, "TryStar") and isinstance(node, ast.TryStar)):
                yield node

    return walk(body)
