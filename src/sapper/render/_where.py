"""Where a finding is, as the renderers print it (shared by text, concise, github, SARIF)."""

from __future__ import annotations

import os
import posixpath

from ..model import Finding, TargetResult

__all__ = ["finding_path"]


def finding_path(result: TargetResult, f: Finding) -> str:
    """A directory target's findings are located from the current directory
    (``proj/setup.cfg``); an archive's findings by their path inside the project."""
    if result.kind == "directory":
        return os.path.normpath(f"{result.target}/{f.path}")
    return posixpath.normpath(f.path)
