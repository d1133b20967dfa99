"""What setup.py and setup.cfg configure together, as far as it can be read statically."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any, NamedTuple

from .setup_cfg import SetupCfgFacts
from .setup_py import SetupPyFacts

__all__ = ["OtherConfig", "other_config"]


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class OtherConfig(NamedTuple):
    """What setup.py and setup.cfg configure, as far as it can be read without running code.

    ``keywords`` maps each ``setup()`` keyword to its statically known value (or the
    ``UNKNOWN`` marker); ``opaque`` is true when setup.py may pass keywords sapper cannot see
    (no module-level ``setup()`` call, a ``**kwargs`` argument, or a file that does not
    parse). ``cfg`` maps ``(section, key)`` of setup.cfg to the value, keys of ``[metadata]``
    and ``[options*]`` normalised as setuptools does (underscores, lowercase).
    """

    keywords: Mapping[str, Any]
    keyword_nodes: Mapping[str, ast.expr]
    keyword_lines: Mapping[str, int]
    opaque: bool
    cfg: Mapping[tuple[str, str], str]
    has_setup_py: bool


def other_config(setup_py: SetupPyFacts, setup_cfg: SetupCfgFacts) -> OtherConfig:
    keywords: dict[str, Any] = {}
    nodes: dict[str, ast.expr] = {}
    lines: dict[str, int] = {}
    has_setup_py = setup_py.exists
    opaque = False
    if has_setup_py:
        opaque = setup_py.opaque
        for found in setup_py.keywords:
            keywords[found.name] = found.value
            nodes[found.name] = found.node
            lines[found.name] = found.line
    cfg = {(item.section, item.key): item.value for item in setup_cfg.values_partial}
    return OtherConfig(
        keywords=keywords,
        keyword_nodes=nodes,
        keyword_lines=lines,
        opaque=opaque,
        cfg=cfg,
        has_setup_py=has_setup_py,
    )
