"""Reading a project's inputs: source trees and sdist archives, never trusted.

:mod:`.sources` reads a project into memory (:func:`read_sdist`, :func:`read_directory`,
:class:`ProjectFiles`) with the lean tar reader (``_tar``, ``_inflate``; ``_tarfile_reader``
is its reference), the member checks (``_collect``) and the tree reader (``_directory``);
``_extract`` unpacks an sdist onto disk for a build (:func:`sapper.build.unpack_sdist`).
Names are imported on first use, so ``import sapper.inputs._files`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sources import (
        DEFAULT_LIMITS,
        Limits,
        ProjectFiles,
        archive_format,
        default_wanted,
        is_sdist_filename,
        read_directory,
        read_sdist,
    )

__all__ = [
    "DEFAULT_LIMITS",
    "Limits",
    "ProjectFiles",
    "archive_format",
    "default_wanted",
    "is_sdist_filename",
    "read_directory",
    "read_sdist",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from importlib import import_module

        return getattr(import_module(".sources", __name__), name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(__all__)
