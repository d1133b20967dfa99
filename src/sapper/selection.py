"""Which rules run: ``--select``/``--ignore`` and ``[tool.sapper]`` selections, as ruff does.

A selector is a rule code (``SC001``) or a prefix of codes (``SC``, ``SC00``); ``ALL``
selects every rule. Within one selection (one ``select`` plus one ``ignore`` list) the
most specific selector that matches a code decides, so ``--select SC001 --ignore SC``
runs SC001 and ``--select SC --ignore SC001`` runs every SC rule but SC001; at equal
specificity ``ignore`` wins. Selections are layered (``[tool.sapper]`` first, then the
command line): a layer with a ``select`` starts over from it, a layer with only an
``ignore`` removes codes from what the layers before it selected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ._exceptions import UsageError

__all__ = ["Selection", "resolve", "selected", "validate_selectors"]

ALL = "ALL"


class Selection(NamedTuple):
    """One layer: ``select`` (None: keep what earlier layers selected) and ``ignore``.

    A NamedTuple, not a dataclass: every ``sapper check`` builds this class, and a frozen
    dataclass costs several exec() calls to build."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    #: Where the layer comes from, for error messages (``--select``, ``pyproject.toml``).
    origin: str = "the command line"


def _specificity(selector: str, code: str) -> int:
    """Length of ``selector`` when it matches ``code`` (``ALL`` matches with 0), else -1."""
    if selector == ALL:
        return 0
    return len(selector) if code.startswith(selector) else -1


def _decide(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool | None:
    """True/False when a selector of the layer matches ``code``, None when none does."""
    best_select = max((_specificity(s, code) for s in select), default=-1)
    best_ignore = max((_specificity(s, code) for s in ignore), default=-1)
    if best_select < 0 and best_ignore < 0:
        return None
    return best_select > best_ignore


def selected(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool:
    """Whether one selection runs rule ``code``; an empty ``select`` means every rule."""
    decision = _decide(code, select or (ALL,), ignore)
    return bool(decision)


def resolve(layers: Iterable[Selection], codes: Iterable[str]) -> frozenset[str]:
    """The codes (out of ``codes``) that the layers, applied in order, leave selected."""
    chosen = set(codes)
    universe = frozenset(chosen)
    for layer in layers:
        if layer.select is not None:
            chosen = {c for c in universe if _decide(c, layer.select, layer.ignore)}
        else:
            chosen = {c for c in chosen if _decide(c, (), layer.ignore) is None}
    return frozenset(chosen)


def validate_selectors(selectors: Iterable[str], codes: Iterable[str], *, option: str) -> None:
    """Raise :class:`UsageError` for a selector that matches no rule code."""
    known = tuple(codes)
    for selector in selectors:
        if selector == ALL or any(c.startswith(selector) for c in known):
            continue
        import difflib

        close = difflib.get_close_matches(selector, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        msg = f"{option}: unknown rule code {selector!r}{hint}; `sapper rules` lists them"
        raise UsageError(msg)
