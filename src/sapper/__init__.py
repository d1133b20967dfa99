"""sapper: find, defuse and build around the time bombs in Python source distributions."""

from __future__ import annotations

from ._exceptions import ArchiveError, FetchError, SapperError, TargetError, UsageError
from ._version import __version__

__all__ = [
    "ArchiveError",
    "FetchError",
    "SapperError",
    "TargetError",
    "UsageError",
    "__version__",
]


def __dir__() -> list[str]:
    return __all__
