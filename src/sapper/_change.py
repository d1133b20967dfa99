"""The shape of an entry of setuptools' breaking-change history (:mod:`sapper.changes`
holds the entries): what changed, the releases that fail or warn, the error they raise."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .model import Reference

if TYPE_CHECKING:
    from .versions import Catalogue

__all__ = ["HISTORY_URL", "Change", "Expected", "Span", "history_ref"]

HISTORY_URL = "https://setuptools.pypa.io/en/latest/history.html"

#: ``[first, stop)``: the releases from ``first`` (None: the oldest) up to, not including,
#: ``stop`` (None: the newest).
Span = tuple[str | None, str | None]


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class Expected(NamedTuple):
    """The error real setuptools raises: exception class names (``|``-separated
    alternatives, the name only, as the oracle harness reports it) and a message regex."""

    type: str
    message: str


class Change(NamedTuple):
    """One entry of setuptools' breaking-change history."""

    id: str
    #: What changed (Markdown, one line).
    what: str
    #: The rules that cover it, or why none does (Markdown, one line).
    covered: str
    notes: str = ""
    fails: tuple[Span, ...] = ()
    warns: tuple[Span, ...] = ()
    #: ``(first release, due date)`` of the deprecation warning per era.
    due: tuple[tuple[str, str], ...] = ()
    #: The release that ends the warning (the removal), if any.
    until: str | None = None
    references: tuple[Reference, ...] = ()
    error: Expected | None = None

    def failing(self, cat: Catalogue) -> set[str]:
        """The known releases in which the practice fails."""
        return _union(cat, self.fails)

    def warning(self, cat: Catalogue) -> set[str]:
        """The known releases in which the practice warns."""
        return _union(cat, self.warns)

    def enforced(self, cat: Catalogue, today: str) -> set[str]:
        """The releases whose warning is past its due date on ``today`` (they fail under
        ``SETUPTOOLS_ENFORCE_DEPRECATION=1``)."""
        out: set[str] = set()
        for i, (first, due) in enumerate(self.due):
            stop = self.due[i + 1][0] if i + 1 < len(self.due) else self.until
            if due < today:
                out |= cat.between(first, stop)
        return out


def _union(cat: Catalogue, spans: tuple[Span, ...]) -> set[str]:
    out: set[str] = set()
    for first, stop in spans:
        out |= cat.between(first, stop)
    return out


def history_ref(version: str, title: str) -> Reference:
    """A reference to release ``version``'s entry in setuptools' changelog."""
    return Reference(
        title=f"setuptools {version} changelog: {title}",
        url=f"{HISTORY_URL}#v{version.replace('.', '-')}",
    )
