"""``sapper scan``: run the rules of ``sapper check`` over a corpus of sdists into a database.

See :func:`sapper.scan.engine.scan`, the store in :mod:`sapper.scan.store` and docs/scan.md.
Heavy modules (DuckDB, Dask) are imported only when a scan runs.
"""

from __future__ import annotations

__all__ = ["Progress", "ScanOptions", "ScanSummary", "scan"]

from .engine import Progress, ScanOptions, ScanSummary, scan
