"""Warm-up of ``sapper scan``'s worker processes: imported once by the pool's fork server.

Every worker forks from the fork server, so what is loaded here is loaded once for all of
them instead of once a worker: the analysis modules, every rule module (a scan checks with
all rules unless ``--select`` narrows them), the setuptools catalogue and the top-PyPI list
(both parsed from JSON). Nothing here runs project code or touches the network.
"""

from __future__ import annotations

from ..rules import all_rules
from ..versions import catalogue
from . import analyse as _analyse  # noqa: F401  # the module each task runs
from .corpus import top_list

__all__: list[str] = []

all_rules()
catalogue()
top_list()
