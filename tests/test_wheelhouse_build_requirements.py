"""A build requirement other than setuptools with a breaking release (as Cython 3 broke
PyYAML 5.4.1): the wheelhouse bisects its releases with real sandboxed builds and builds
under the constraint it finds; `sapper canary bisect --package` finds the same release."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sapper.audit import audit
from sapper.audit.resolve import IndexFiles
from sapper.audit.wheelhouse import build_wheelhouse
from sapper.build import Builder, Limits
from sapper.canary.bisect import bisect
from sapper.pypi import Index
from tests.audit_fixtures import make_sdist, setuptools_wheels
from tests.canary_support import BUILD_CACHE, require_sandbox
from tests.closure_fixtures import wheel

pytestmark = pytest.mark.network  # setuptools' wheels come from PyPI once

HELPER = "sapper-fixture-breaking-helper"
#: 2.0 drops `thing`, which the sdist's setup.py uses at build time.
HELPER_SOURCES = {
    "1.0": "thing = 1\n",
    "1.1": "thing = 2\n",
    "2.0": "other = 3\n",
    "2.1": "x = 4\n",
}
PYPROJECT = (
    "[build-system]\n"
    f"requires = ['setuptools>=40.8.0', '{HELPER}']\n"
    "build-backend = 'setuptools.build_meta'\n"
)
SETUP = (
    "import sapper_fixture_breaking_helper as helper\n"
    "from setuptools import setup\n"
    "assert helper.thing\n"
    "setup(name='needhelper', version='1.0', py_modules=['needhelper'])\n"
)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    links = tmp_path / "links"
    links.mkdir()
    for version, source in HELPER_SOURCES.items():
        wheel(links, HELPER, version, source=source)
    make_sdist(
        links,
        "needhelper",
        "1.0",
        {"pyproject.toml": PYPROJECT, "setup.py": SETUP, "needhelper.py": "N = 1\n"},
    )
    return links


def _builder(tmp_path: Path, links: Path) -> Builder:
    """A builder whose wheelhouse holds the helper's wheels and setuptools' (the helper is
    on no index: pip finds it in the wheelhouse directory)."""
    cache = tmp_path / "bcache"
    house = cache / "build" / "wheelhouse"
    house.mkdir(parents=True)
    for file in [*links.glob("*.whl"), *setuptools_wheels()]:
        shutil.copy(file, house)
    return Builder(cache_dir=cache, limits=Limits(timeout=300))


def test_the_breaking_release_is_bisected_and_constrained(tmp_path: Path, index_dir: Path) -> None:
    require_sandbox()
    req = tmp_path / "requirements.txt"
    req.write_text("needhelper==1.0\n")
    report = audit(req, no_index=True, find_links=[str(index_dir)], cache_dir=BUILD_CACHE)
    (pkg,) = report.packages
    assert pkg.verdict is not None and pkg.verdict.outcome == "builds"  # static: no cause seen

    result = build_wheelhouse(
        report,
        tmp_path / "wh",
        builder=_builder(tmp_path, index_dir),
        index=Index(cache_dir=BUILD_CACHE),
        files_of=IndexFiles([], [str(index_dir)]),
        verify=False,
    )
    (item,) = result.items
    assert item.action == "built", item.reason
    assert item.build_constraints == (f"{HELPER}<2.0",)
    assert f"{HELPER} 2.0 breaks it" in item.reason
    assert "1.1 is the newest release before it" in item.reason


def test_canary_bisect_package(tmp_path: Path, index_dir: Path) -> None:
    require_sandbox()
    found = bisect(
        index_dir / "needhelper-1.0.tar.gz",
        ["1.0", "1.1", "2.0", "2.1"],
        builder=_builder(tmp_path, index_dir),
        package=HELPER,
        pins=["setuptools==84.2.1"],
    )
    assert found.first == "2.0"
    assert found.changes == (("2.0", "ok", "fail"),)
    assert not found.exhaustive


def test_an_unlisted_dependency_is_bisected_then_the_tree_resolved(
    tmp_path: Path, index_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file lists only `top2`, which requires `needhelper`: pip cannot prepare
    needhelper's metadata with the helper's newest release, and no setuptools cap helps.
    The wheelhouse builds needhelper anyway (it stopped pip), finds `helper<2.0` by
    bisection, resolves the tree again under it, and the set installs offline."""
    require_sandbox()
    from sapper.cli import main
    from tests.closure_fixtures import wheel as make_wheel

    make_wheel(index_dir, "top2", "1.0", ["needhelper"])
    for file in setuptools_wheels():
        shutil.copy(file, index_dir)  # pip's own build environments take them from here
    builder = _builder(tmp_path, index_dir)
    req = tmp_path / "requirements.txt"
    req.write_text("top2\n")
    out = tmp_path / "wh"
    code = main(
        [
            *("wheelhouse", str(req), "--no-index", "-f", str(index_dir)),
            *("-o", str(out), "--cache-dir", str(builder.cache_dir)),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0, text
    assert f"needs the build constraint `{HELPER}<2.0`" in text
    assert "Verified: the set installs offline" in text
    assert "whole dependency tree of requirements.txt was resolved" in text, text
    assert sorted(p.name for p in out.iterdir()) == [
        "needhelper-1.0-py3-none-any.whl",
        "top2-1.0-py3-none-any.whl",
    ]


def test_audit_verify_resolves_the_tree_under_what_the_builds_found(
    tmp_path: Path, index_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_sandbox()
    import json

    from sapper.cli import main
    from tests.closure_fixtures import wheel as make_wheel

    make_wheel(index_dir, "top2", "1.0", ["needhelper"])
    for file in setuptools_wheels():
        shutil.copy(file, index_dir)
    builder = _builder(tmp_path, index_dir)
    req = tmp_path / "requirements.txt"
    req.write_text("top2\n")
    code = main(
        [
            *("audit", str(req), "--no-index", "-f", str(index_dir), "--verify"),
            *("--format", "json", "--cache-dir", str(builder.cache_dir)),
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == 1  # needhelper fails today without the constraint
    assert doc["closure"]["resolved"] is True
    assert doc["closure"]["build_constraints"] == [f"{HELPER}<2.0"]
    by_name = {p["name"]: p for p in doc["packages"]}
    assert by_name["needhelper"]["origin"] == "required by top2 1.0"
    assert by_name["needhelper"]["verdict"]["build_constraints"] == [f"{HELPER}<2.0"]
    assert by_name["needhelper"]["real"]["outcome"] == "builds"
