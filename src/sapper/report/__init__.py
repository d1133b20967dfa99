"""``sapper report``: aggregate a scan's result store into a terminal summary, JSON and HTML.

Open a store with :func:`open_store`, aggregate it with :func:`summarize`, then render the
:class:`Summary` with ``sapper.report.text``, ``sapper.report.json`` or ``sapper.report.html``.
Names are imported on first use, so ``import sapper.report._source`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._source import DEFAULT_STORE, Store, StoreError, open_store
    from .summary import Summary, summarize

__all__ = ["DEFAULT_STORE", "Store", "StoreError", "Summary", "open_store", "summarize"]

_WHERE = {
    "DEFAULT_STORE": "._source",
    "Store": "._source",
    "StoreError": "._source",
    "open_store": "._source",
    "Summary": ".summary",
    "summarize": ".summary",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(__all__)
