"""The one exception hierarchy of sapper.

Every message says what is wrong, where, and what to do about it.
"""

from __future__ import annotations

__all__ = [
    "ArchiveError",
    "BuildError",
    "FetchError",
    "SandboxError",
    "SapperError",
    "ScanInterrupted",
    "StoreError",
    "TargetError",
    "UsageError",
]


class SapperError(Exception):
    """Base class of every error sapper raises on purpose."""


class UsageError(SapperError, ValueError):
    """The caller asked for something that cannot be done (bad option, bad version...)."""


class TargetError(SapperError):
    """A target (tree, sdist or requirement) could not be analysed."""

    #: Short machine-readable kind of the error, used in JSON error records.
    kind: str = "target"


class ArchiveError(TargetError):
    """An sdist archive is damaged, unsupported or hostile."""

    kind = "archive"


class FetchError(TargetError):
    """A requirement could not be resolved or downloaded from the package index."""

    kind = "fetch"

    def __init__(self, *args: object, permanent: bool = False) -> None:
        super().__init__(*args)
        #: True when asking again cannot help: the project has no release there, no
        #: release that matches has an sdist, or every matching sdist is yanked (a
        #: network failure, a damaged download, a limit are not permanent).
        self.permanent = permanent


class BuildError(SapperError):
    """A real build (``sapper canary``, ``sapper wheelhouse``) could not be set up: a build
    environment could not be created, a backend could not be fetched or built."""


class SandboxError(BuildError):
    """No working sandbox (bubblewrap) to run build hooks in."""


class StoreError(SapperError):
    """The result store exists but cannot be read (damaged, foreign, newer schema...)."""


class ScanInterrupted(SapperError):
    """A scan was interrupted (Ctrl-C); what was analysed before is in the store."""

    def __init__(self, *, db: object, stored: int | None, written: int) -> None:
        self.db = db
        #: sdists in the store now (None when it could not be counted)
        self.stored = stored
        #: rows written by the interrupted run
        self.written = written
        held = f"{stored} sdists stored" if stored is not None else "the results are stored"
        super().__init__(
            f"interrupted: {held} in {db} ({written} written by this run); "
            "run the same command again to resume, what is stored is skipped"
        )
