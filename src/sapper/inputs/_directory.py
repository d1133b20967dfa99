"""Read a project from a directory on disk (re-exported by :mod:`sapper.inputs.sources`)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

from sapper._exceptions import TargetError
from sapper.inputs._files import DEFAULT_LIMITS, Limits, ProjectFiles, default_wanted

__all__ = ["read_directory"]


_SKIPPED_DIRS: Final = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        "build",
        "dist",
    }
)


def _skipped_dir(name: str) -> bool:
    return name in _SKIPPED_DIRS or name.endswith(".egg-info")


def _inside(path: str, directory: str) -> bool:
    """Tell whether the real path ``path`` is ``directory`` or below it."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def read_directory(
    path: str | os.PathLike[str],
    *,
    wanted: Callable[[str], bool] = default_wanted,
    limits: Limits = DEFAULT_LIMITS,
) -> ProjectFiles:
    """Read the project in the directory ``path``.

    Version-control, virtual-environment, cache and build-output directories are skipped at
    any depth. Symbolic links are followed only when they stay inside the tree. A wanted file
    larger than ``limits.max_member_size`` is listed in ``names`` but not read.

    :raises TargetError: if ``path`` is missing, not a directory, or cannot be read.
    """
    label = os.fspath(path)
    try:
        root_stat = Path(label).stat()
    except FileNotFoundError:
        msg = f"{label}: no such directory; check the path of the project to analyse"
        raise TargetError(msg) from None
    except OSError as exc:
        msg = f"{label}: cannot read the directory ({exc.strerror}); check its permissions"
        raise TargetError(msg) from exc
    if not stat.S_ISDIR(root_stat.st_mode):
        msg = f"{label}: not a directory; pass a project directory, or read an sdist archive"
        raise TargetError(msg)

    real_root = os.path.realpath(label)
    max_size = limits.max_member_size
    files: dict[str, bytes] = {}
    names: list[str] = []
    linked_dirs: set[str] = set()
    # (directory to list, its path relative to the root with a trailing "/", its real path)
    stack: list[tuple[str, str, str]] = [(label, "", real_root)]
    while stack:
        directory, prefix, real_dir = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError as exc:
            msg = f"{label}: cannot list {prefix or './'} ({exc.strerror}); check its permissions"
            raise TargetError(msg) from exc
        for entry in entries:
            name = entry.name
            rel = prefix + name
            if entry.is_dir(follow_symlinks=False):
                if not _skipped_dir(name):
                    stack.append((entry.path, rel + "/", real_dir + os.sep + name))
                continue
            if entry.is_file(follow_symlinks=False):
                size = -1
            elif entry.is_symlink():
                target = os.path.realpath(entry.path)
                if not _inside(target, real_root):
                    continue  # leaves the tree
                try:
                    target_stat = Path(target).stat()
                except OSError:
                    continue  # dangling
                if stat.S_ISDIR(target_stat.st_mode):
                    if _skipped_dir(name) or target in linked_dirs or _inside(real_dir, target):
                        continue  # already listed, or a loop
                    linked_dirs.add(target)
                    stack.append((entry.path, rel + "/", target))
                    continue
                if not stat.S_ISREG(target_stat.st_mode):
                    continue
                size = target_stat.st_size
            else:
                continue  # FIFO, socket or device: never open it
            names.append(rel)
            if not wanted(rel):
                continue
            try:
                if size < 0:
                    size = entry.stat(follow_symlinks=False).st_size
                if size <= max_size:
                    files[rel] = Path(entry.path).read_bytes()
            except OSError as exc:
                msg = f"{label}: cannot read {rel} ({exc.strerror}); check its permissions"
                raise TargetError(msg) from exc
    names.sort()
    return ProjectFiles(label=label, root=label, files=files, names=tuple(names))
