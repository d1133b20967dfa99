"""Find and download distributions from a package index.

The index is read through the simple repository API: the PEP 691 JSON form when the server
offers it, the PEP 503 HTML form otherwise. Every archive is checked against the sha256 the
index publishes before anyone sees its bytes, and kept in a content-addressed cache so that
a second run needs no network; project pages are cached with their HTTP validators and
revalidated.

The package is split along its seams: ``_http`` (GET, retries, limits, credentials),
``_pages`` (PEP 691/503 parsing), ``_select`` (which release and file a requirement means),
``_cache`` (the on-disk cache), ``_models`` (the values handed out) and ``_index``
(:class:`Index`, which ties them together). Heavy imports (``urllib.request``,
``packaging``, ``platformdirs``...) happen inside the functions that need them: importing
this package must stay cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._dirs import default_cache_dir

if TYPE_CHECKING:
    from ._index import DEFAULT_INDEX_URL, DEFAULT_PAGE_MAX_AGE, MAX_DOWNLOAD_SIZE, Index
    from ._models import Download, FileKind, ProjectListing, ReleaseFile, SdistFile
    from ._select import looks_like_requirement, preferred_sdist

#: Where each public name lives: imported on first use (``sapper check`` of a tree only
#: needs :func:`default_cache_dir`).
_LAZY = {
    "DEFAULT_INDEX_URL": "_index",
    "DEFAULT_PAGE_MAX_AGE": "_index",
    "MAX_DOWNLOAD_SIZE": "_index",
    "Index": "_index",
    "Download": "_models",
    "FileKind": "_models",
    "ProjectListing": "_models",
    "ReleaseFile": "_models",
    "SdistFile": "_models",
    "looks_like_requirement": "_select",
    "preferred_sdist": "_select",
}

__all__ = [
    "DEFAULT_INDEX_URL",
    "DEFAULT_PAGE_MAX_AGE",
    "MAX_DOWNLOAD_SIZE",
    "Download",
    "FileKind",
    "Index",
    "ProjectListing",
    "ReleaseFile",
    "SdistFile",
    "default_cache_dir",
    "looks_like_requirement",
    "preferred_sdist",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
