"""Facts about setuptools itself: which modules each release ships."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from packaging.version import Version

if TYPE_CHECKING:
    from ..versions import Catalogue

__all__ = ["LOCAL_DISTUTILS_SINCE", "covered", "missing_in"]

#: Before 60.0.0 setuptools used the standard library's distutils by default, so a
#: ``distutils.*`` module missing from setuptools' own copy was still importable there.
LOCAL_DISTUTILS_SINCE = Version("60.0.0")


@functools.lru_cache(maxsize=4096)
def _covered(cat: Catalogue, ranges: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """The known versions inside inclusive ``[first, last]`` runs (cached: the same runs
    come back for every sdist of a scan)."""
    spans = [(cat.parsed(a), cat.parsed(b)) for a, b in ranges]
    return frozenset(v for v in cat.universe if any(lo <= cat.parsed(v) <= hi for lo, hi in spans))


def _runs(ranges: Sequence[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    return tuple((a, b) for a, b in ranges)


@functools.lru_cache(maxsize=4096)
def _missing(cat: Catalogue, module: str) -> frozenset[str]:
    ranges = cat.modules.get(module)
    if ranges is None:
        return frozenset()
    covered = _covered(cat, _runs(ranges))
    distutils = module == "distutils" or module.startswith("distutils.")
    return frozenset(
        v
        for v in cat.universe
        if v not in covered and not (distutils and cat.parsed(v) < LOCAL_DISTUTILS_SINCE)
    )


def missing_in(cat: Catalogue, module: str) -> set[str]:
    """The known releases in which importing ``module`` fails (it is not shipped)."""
    return set(_missing(cat, module))


def covered(cat: Catalogue, ranges: Sequence[Sequence[str]]) -> frozenset[str]:
    """The known versions inside inclusive ``[first, last]`` runs."""
    return _covered(cat, _runs(ranges))
