"""The results of a migration plan: frozen records, no behaviour."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileChange", "Migration", "Refusal"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the project cannot be migrated with the same wheel as result."""

    #: A short stable identifier (``setup-py-opaque``, ``name-unknown``...).
    code: str
    reason: str
    #: The file at fault (relative, posix).
    path: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file's contents before and after (``None``: absent before / deleted after)."""

    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class Migration:
    """A migration plan: refused when ``refusals`` is non-empty (``changes`` is then empty)."""

    root: Path
    changes: tuple[FileChange, ...]
    refusals: tuple[Refusal, ...]
    notes: tuple[str, ...]

    @property
    def refused(self) -> bool:
        return bool(self.refusals)
