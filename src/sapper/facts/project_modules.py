"""The project's own modules that setup.py imports when it runs, to any depth.

``from mypkg import __version__`` in setup.py runs ``mypkg/__init__.py`` (and what that
imports in turn) inside the build, when setup.py's directory is on ``sys.path``: with the
legacy backend (no ``build-backend``; setuptools puts the directory first), or when setup.py
edits ``sys.path`` itself. Only the imports that surely run are followed: module level, the
branch that runs on the target, not under a working ``except ImportError`` guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .setup_py import (
    ImportSite,
    import_sites,
    local_files,
    relative_import_files,
    sys_path_modified,
)

if TYPE_CHECKING:
    from .pyproject import PyprojectFacts
    from .setup_py import SetupPyFacts

__all__ = ["ProjectModule", "modules_run", "project_modules"]

#: Where setup.py usually finds the project's package (``src``/``lib`` put on sys.path).
ROOTS = ("", "src", "lib")
_SETUPTOOLS = frozenset({"setuptools", "pkg_resources", "distutils"})


class ProjectModule(NamedTuple):
    """A project file that runs when setup.py runs, and the import in setup.py that leads
    to it."""

    path: str
    site: ImportSite


def project_modules(setup_py: SetupPyFacts, pyproject: PyprojectFacts) -> list[ProjectModule]:
    """The project files setup.py's imports run, each once, in the order they are reached.
    A file that does not parse with the running interpreter is listed, but its own imports
    are not followed."""
    from .pyproject import LEGACY_BACKEND

    tree = setup_py.tree
    if tree is None:
        return []
    if not (pyproject.build_system.backend == LEGACY_BACKEND or sys_path_modified(tree)):
        return []
    available, target = setup_py.available, setup_py.target
    found: list[ProjectModule] = []
    visited: set[str] = set()
    for site in import_sites(tree, available, target):
        if site.module.split(".")[0] in _SETUPTOOLS:
            continue
        start = local_files(setup_py.files, site.module, ROOTS)
        found += [ProjectModule(path, site) for path in modules_run(setup_py, start, visited)]
    return found


def modules_run(
    setup_py: SetupPyFacts,
    start: list[str],
    visited: set[str] | None = None,
    roots: tuple[str, ...] = ROOTS,
) -> list[str]:
    """The project files that run when the files ``start`` run (each once, in the order
    they are reached; ``visited`` is shared between calls): their absolute imports of the
    project's modules (under ``roots``) and, in a package, their relative imports."""
    files = setup_py.files
    available, target = setup_py.available, setup_py.target
    seen = set() if visited is None else visited
    out: list[str] = []
    todo = list(start)
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        out.append(path)
        module_tree = setup_py.module(path)
        if module_tree is None:
            continue
        for inner in import_sites(module_tree, available, target):
            if inner.module.split(".")[0] not in _SETUPTOOLS:
                todo.extend(local_files(files, inner.module, roots))
        package = path.rpartition("/")[0]
        if f"{package}/__init__.py" in files:  # `from . import x` runs in a package only
            todo.extend(relative_import_files(files, module_tree, package, target))
    return out
