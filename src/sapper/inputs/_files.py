"""What a project's files are once read: :class:`ProjectFiles`, the :class:`Limits` that bound
reading them, and which files sapper's rules may need (:func:`default_wanted`).

Re-exported by :mod:`sapper.inputs.sources`, the public module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from sapper._exceptions import UsageError

__all__ = [
    "DEFAULT_LIMITS",
    "SDIST_SUFFIXES",
    "Limits",
    "ProjectFiles",
    "default_wanted",
    "is_sdist_filename",
]


_MiB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Bounds on what reading one archive may cost, to defuse hostile archives."""

    #: Decompressed size of one member read into memory.
    max_member_size: int = 64 * _MiB
    #: Decompressed bytes read from the whole archive (and the sum of the sizes it claims).
    max_total_size: int = 1024 * _MiB
    #: Decompressed bytes over compressed bytes consumed; checked once more than 1 MiB is read.
    max_ratio: float = 250.0
    #: Number of members (files, directories, links...) of the archive.
    max_members: int = 200_000
    #: Size of the archive file itself.
    max_archive_size: int = 512 * _MiB

    def __post_init__(self) -> None:
        for name in (
            "max_member_size",
            "max_total_size",
            "max_ratio",
            "max_members",
            "max_archive_size",
        ):
            if not getattr(self, name) > 0:
                msg = f"Limits: `{name}` must be positive, not {getattr(self, name)!r}"
                raise UsageError(msg)


DEFAULT_LIMITS: Final = Limits()


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectFiles:
    """The files of one project, read into memory."""

    #: What the user named: the directory path, or the archive file name.
    label: str
    #: The archive's top-level directory (``"pkg-1.0"``) or ``""``; for a directory, its path.
    root: str
    #: The wanted files: path relative to the project root (posix) -> content.
    files: Mapping[str, bytes]
    #: Every regular file path relative to the project root, sorted.
    names: tuple[str, ...]

    def read_text(self, path: str) -> str | None:
        """Return the file at ``path`` decoded as UTF-8 (``surrogateescape``), or None."""
        data = self.files.get(path)
        if data is None:
            return None
        return data.decode("utf-8", "surrogateescape")

    def __contains__(self, path: object) -> bool:
        return path in self.files


# --------------------------------------------------------------------------- wanted files

_TOP_LEVEL_WANTED: Final = frozenset(
    {"setup.cfg", "setup.py", "pyproject.toml", "PKG-INFO", "MANIFEST.in", "package.json"}
)
_WANTED_SUFFIXES: Final = frozenset({"py", "cfg", "toml", "txt", "rst", "md"})
_MAX_WANTED_DEPTH: Final = 3
_SCM_METADATA: Final = (".egg-info/scm_file_list.json", ".egg-info/scm_version.json")


def default_wanted(path: str) -> bool:
    """Tell whether sapper's rules may need the file at ``path`` (relative to the project root).

    These are the top-level ``setup.cfg``, ``setup.py``, ``pyproject.toml``, ``PKG-INFO``,
    ``MANIFEST.in`` and ``package.json`` (whose name and version a setup.py may read with
    ``json.load``), and every ``*.py``, ``*.cfg``, ``*.toml``, ``*.txt``, ``*.rst`` and
    ``*.md`` file at most three directory levels below the root (rules resolve ``file:`` and
    ``attr:`` directives and imports from them), and the ``NAME.egg-info/scm_file_list.json``
    and ``scm_version.json`` that setuptools-scm 10 writes into sdists. The readers add the
    size limit.
    """
    if path in _TOP_LEVEL_WANTED:
        return True
    if path.endswith(_SCM_METADATA) and path.count("/") == 1:
        return True  # setuptools-scm's metadata in an sdist's root egg-info (RQ002)
    if path.count("/") > _MAX_WANTED_DEPTH:
        return False
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot + 1 :].lower() in _WANTED_SUFFIXES


#: The file name endings of the sdist archives sapper reads (no two overlap).
SDIST_SUFFIXES: Final = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar", ".zip")


def is_sdist_filename(name: str) -> bool:
    """Tell whether ``name`` ends like an sdist archive (``.tar.gz``, ``.zip``...)."""
    return name.lower().endswith(SDIST_SUFFIXES)
