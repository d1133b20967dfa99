"""Defaults shared by the library and the CLI, in a module that imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

__all__ = ["DEFAULT_STORE"]

#: Where ``sapper scan`` and ``sapper canary`` write and ``sapper report`` reads by default.
DEFAULT_STORE = Path(".sapper/scan.duckdb")
