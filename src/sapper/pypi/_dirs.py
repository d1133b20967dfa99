"""Where the download cache lives: cheap to import (``sapper check`` of a tree asks for it
to find the cached pyproject.toml validators, and must not pay for the HTTP machinery)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_cache_dir"]


def default_cache_dir() -> Path:
    """Return ``$SAPPER_CACHE_DIR``, or else the user cache directory for sapper."""
    env = os.environ.get("SAPPER_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("sapper", appauthor=False))
