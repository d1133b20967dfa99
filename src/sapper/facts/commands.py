"""The project's own command classes (``setup(cmdclass=...)``) and what their option
methods do: here, whether they create setuptools' ``install`` command.

setuptools creates a command object (and runs its ``initialize_options``) the first time
anything asks for it: ``get_command_obj``, ``get_finalized_command``,
``reinitialize_command``, ``run_command`` and ``set_undefined_options`` (which finalizes
the command it copies options from). The metadata stage of a wheel build
(``get_requires_for_build_wheel`` and ``prepare_metadata_for_build_wheel``) runs
``egg_info`` (and ``dist_info``, which finalizes ``bdist_wheel`` and so ``bdist``), whose
manifest finalizes ``build`` and, when the project has what they build, ``build_py``,
``build_ext``, ``build_clib`` and ``build_scripts`` (read in 80.0.1's and 84.2.1's
``setuptools/command/sdist.py``, ``dist_info.py`` and ``bdist_wheel.py``): the
``initialize_options`` and ``finalize_options`` of the classes registered under those
names run in every build.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Final, NamedTuple

from ._exprs import dotted
from .setup_py import local_files

if TYPE_CHECKING:
    from .setup_py import SetupPyFacts

__all__ = [
    "COMMAND_GETTERS",
    "OPTION_METHODS",
    "CommandCall",
    "command_calls",
    "metadata_commands",
    "option_methods",
]

#: The calls that create a command object when it does not exist yet (its name first).
COMMAND_GETTERS: Final = frozenset(
    {
        "get_command_obj",
        "get_finalized_command",
        "reinitialize_command",
        "run_command",
        "set_undefined_options",
    }
)
#: The methods setuptools runs when a command is created and finalized.
OPTION_METHODS: Final = ("initialize_options", "finalize_options")
_ROOTS: Final = ("", "src", "lib")


class CommandCall(NamedTuple):
    """A call that asks for a command by name, and where it is."""

    path: str
    line: int
    column: int
    #: ``get_command_obj`` ...
    getter: str
    #: The function it is in (``BaseCommand.finalize_options``), None at module level.
    function: str | None


def command_calls(
    nodes: Iterable[ast.AST], command: str, path: str, function: str | None
) -> list[CommandCall]:
    """The calls among ``nodes`` (and inside them) that ask for ``command`` by name."""
    out = []
    for node in nodes:
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in COMMAND_GETTERS
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and call.args[0].value == command
            ):
                out.append(
                    CommandCall(path, call.lineno, call.col_offset + 1, call.func.attr, function)
                )
    return out


def metadata_commands(keywords: Mapping[str, object]) -> frozenset[str]:
    """The commands the metadata stage creates and finalizes, given the ``setup()``
    keywords and their values (``UNKNOWN`` for one sapper cannot read): a keyword whose
    value is known empty does not count (``has_ext_modules()`` is false for
    ``ext_modules=[]``); one whose value is unknown does."""
    given = {name for name, value in keywords.items() if not _empty(value)}
    names = set(_ALWAYS)
    for keyword, commands in _WITH.items():
        if keyword in given:
            names |= commands
    return frozenset(names)


#: Finalized in every metadata stage of the releases SP011 concerns (80.x on): the
#: metadata commands, ``dist_info``'s ``bdist_wheel`` (for the wheel's layout, which
#: finalizes ``bdist``) and setuptools' sdist defaults' ``build`` (for its sub-commands).
_ALWAYS: Final = frozenset({"egg_info", "dist_info", "bdist_wheel", "bdist", "build"})
#: Finalized by the sdist defaults (distutils' ``_add_defaults_*``) when the project has
#: what the command builds.
_WITH: Final = {
    "packages": frozenset({"build_py"}),
    "py_modules": frozenset({"build_py"}),
    "ext_modules": frozenset({"build_ext"}),
    "libraries": frozenset({"build_clib"}),
    "scripts": frozenset({"build_scripts"}),
}


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, list | tuple | dict | str) and not value)


class _Class(NamedTuple):
    path: str
    node: ast.ClassDef
    module: ast.Module


def resolve_class(
    setup_py: SetupPyFacts, path: str, tree: ast.Module, expr: ast.expr
) -> _Class | None:
    """The class ``expr`` names in module ``path``: defined there at module level, or
    imported there from a project module (``from pkg import Cls``, ``import pkg`` then
    ``pkg.Cls``)."""
    name = dotted(expr)
    if not name:
        return None
    head, _, attr = name.rpartition(".")
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not head and node.name == name:
            return _Class(path, node, tree)
    for found in ast.walk(tree):
        if isinstance(found, ast.ImportFrom) and found.level == 0 and found.module and not head:
            for alias in found.names:
                if (alias.asname or alias.name) == name:
                    return _in_module(setup_py, found.module, alias.name)
        elif isinstance(found, ast.Import) and head:
            for alias in found.names:
                if (alias.asname or alias.name) == head:
                    return _in_module(setup_py, alias.name, attr)
    return None


def _in_module(setup_py: SetupPyFacts, module: str, name: str) -> _Class | None:
    files = local_files(setup_py.files, module, _ROOTS)
    if not files:
        return None
    path = files[-1]
    tree = setup_py.module(path)
    if tree is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return _Class(path, node, tree)
    return None


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def option_methods(
    setup_py: SetupPyFacts, cls: _Class, depth: int = 0
) -> Iterator[tuple[str, str, ast.FunctionDef]]:
    """``(path, Class.method, node)`` for the code that runs when the command is created
    and finalized: its ``initialize_options`` and ``finalize_options``, those of its
    project base classes it calls (``Base.finalize_options(self)``, ``super()``) or
    inherits, and the methods of the class they call on ``self``."""
    if depth > 4:
        return
    bases = [
        b for b in (resolve_class(setup_py, cls.path, cls.module, e) for e in cls.node.bases) if b
    ]
    for name in OPTION_METHODS:
        method = _method(cls.node, name)
        if method is None:
            for base in bases:
                yield from _named(setup_py, base, name, depth + 1)
            continue
        yield cls.path, f"{cls.node.name}.{name}", method
        for call in ast.walk(method):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                continue
            owner = call.func.value
            if call.func.attr == name and (
                (isinstance(owner, ast.Call) and dotted(owner.func) == "super")
                or any(dotted(owner) == dotted(e) for e in cls.node.bases)
            ):
                for base in bases:
                    yield from _named(setup_py, base, name, depth + 1)
            elif isinstance(owner, ast.Name) and owner.id == "self":
                helper = _method(cls.node, call.func.attr)
                if helper is not None and helper.name not in OPTION_METHODS:
                    yield cls.path, f"{cls.node.name}.{helper.name}", helper


def _named(
    setup_py: SetupPyFacts, cls: _Class, name: str, depth: int
) -> Iterator[tuple[str, str, ast.FunctionDef]]:
    """The code that runs for ``cls.name()``: its own method, or an inherited one."""
    for path, qualname, node in option_methods(setup_py, cls, depth):
        if qualname.endswith(f".{name}") or not qualname.endswith(OPTION_METHODS):
            yield path, qualname, node
