"""A build environment gets what pip would resolve: a requirement set with a range is
resolved against the index once, not filled from whatever the wheelhouse holds (the
ecosystem check saw opencv-python's ``scikit-build>=0.14.0`` built with a cached 0.17.6,
which setuptools 72.0.0 breaks, where pip installs 0.18.x); an exactly pinned set may be
served from the wheelhouse without asking the index."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper._exceptions import BuildError
from sapper.build import Builder
from sapper.build._runner import all_pinned


@pytest.mark.parametrize(
    ("requirements", "pinned"),
    [
        (["setuptools==72.0.0"], True),
        (["setuptools==72.0.0", "wheel==0.45.1"], True),
        (["setuptools==59.2.0; python_version<'3.12'"], True),
        (["scikit-build>=0.14.0"], False),
        (["setuptools==72.0.0", "scikit-build>=0.14.0"], False),
        (["setuptools==72.*"], False),
        (["setuptools"], False),
        (["pkg @ https://example.invalid/pkg-1.0.tar.gz"], False),
        (["not a requirement"], False),
        ([], True),
    ],
)
def test_all_pinned(requirements: list[str], pinned: bool) -> None:
    assert all_pinned(requirements) is pinned


class _Calls:
    def __init__(self, *, in_wheelhouse: bool) -> None:
        self.log: list[str] = []
        self.in_wheelhouse = in_wheelhouse
        self.fetched_sets: set[tuple[str, ...]] = set()


def _builder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, calls: _Calls) -> Builder:
    from sapper.build import _env

    def fetched(self: object, requirements: list[str]) -> bool:
        return tuple(requirements) in calls.fetched_sets

    def fetch(self: object, requirements: list[str]) -> None:
        if tuple(requirements) not in calls.fetched_sets:
            calls.log.append("fetch")
            calls.fetched_sets.add(tuple(requirements))

    def get(self: object, requirements: list[str], *, resolved: bool = False) -> Path:
        if not calls.in_wheelhouse and tuple(requirements) not in calls.fetched_sets:
            raise BuildError("missing")
        calls.log.append("get resolved" if resolved else "get")
        return tmp_path / "env"

    monkeypatch.setattr(_env.Wheelhouse, "fetched", fetched)
    monkeypatch.setattr(_env.Wheelhouse, "fetch", fetch)
    monkeypatch.setattr(_env.EnvironmentCache, "get", get)
    return Builder(cache_dir=tmp_path, sandbox=False)


def test_a_range_is_resolved_against_the_index_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = _Calls(in_wheelhouse=True)  # an older release would do: it must not be used
    builder = _builder(monkeypatch, tmp_path, calls)
    builder.environment(["setuptools==72.0.0", "scikit-build>=0.14.0"])
    # fetched (pip resolves the newest), then the environment of the resolved set: never
    # one made from the wheelhouse alone
    assert calls.log == ["fetch", "get resolved"]
    calls.log.clear()
    builder.environment(["setuptools==72.0.0", "scikit-build>=0.14.0"])
    assert calls.log == ["get resolved"]  # resolved once


def test_a_pinned_set_is_served_from_the_wheelhouse(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = _Calls(in_wheelhouse=True)
    builder = _builder(monkeypatch, tmp_path, calls)
    builder.environment(["setuptools==72.0.0", "wheel==0.45.1"])
    assert calls.log == ["get"]


def test_a_pinned_set_missing_from_the_wheelhouse_is_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = _Calls(in_wheelhouse=False)
    builder = _builder(monkeypatch, tmp_path, calls)
    builder.environment(["setuptools==72.0.0"])
    assert calls.log == ["fetch", "get"]


def test_a_resolved_set_has_an_environment_of_its_own(tmp_path: Path) -> None:
    from sapper.build._env import EnvironmentCache, Wheelhouse

    cache = EnvironmentCache(tmp_path / "envs", Wheelhouse(tmp_path / "wh"))
    requirements = ["scikit-build>=0.14.0"]
    assert cache._key(requirements) != cache._key(requirements, resolved=True)
