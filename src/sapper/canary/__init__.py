"""``sapper canary``: crater for build backends.

Every sdist of a corpus is built for real, in the sandbox of :mod:`sapper.build`, with a
baseline and a candidate setuptools; the two outcomes give each sdist a class (regressed,
fixed, pass, fail, spurious, prepare-fail, error, not-setuptools), regressions are grouped by
a normalized failure signature, every warning the backend emits is kept as data, and
sapper's static verdict for both sides is stored beside the real one.
"""

from __future__ import annotations

from .engine import CanaryOptions, CanaryProgress, CanarySummary, run_canary
from .model import CLASSES, Backend, SideResult, TargetRow, classify, parse_backend, parse_env
from .store import CanaryStore, export_rows

__all__ = [
    "CLASSES",
    "Backend",
    "CanaryOptions",
    "CanaryProgress",
    "CanaryStore",
    "CanarySummary",
    "SideResult",
    "TargetRow",
    "classify",
    "export_rows",
    "parse_backend",
    "parse_env",
    "run_canary",
]


def __dir__() -> list[str]:
    return __all__
