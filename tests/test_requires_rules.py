"""RQ001: build requirements that pin a plugin release importing pkg_resources."""

from __future__ import annotations

import pytest
from helpers import check

BS = '[build-system]\nrequires = [{reqs}]\nbuild-backend = "setuptools.build_meta"\n'
SETUP = "from setuptools import setup\nsetup(use_scm_version=True)\n"


def _rq(files: dict[str, str]) -> list[tuple[str, str, int | None, tuple[str, ...]]]:
    result = check(files)
    return [(f.code, f.path, f.line, f.fails) for f in result.findings if f.code == "RQ001"]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "pyproject.toml": BS.format(reqs='"setuptools", "setuptools_scm>=2,<6"'),
                "setup.py": SETUP,
            },
            [("RQ001", "pyproject.toml", None, (">=82.0.0",))],
            id="scm-below-6",
        ),
        pytest.param(
            {
                "pyproject.toml": BS.format(reqs='"setuptools", "setuptools-scm>=6.3"'),
                "setup.py": SETUP,
            },
            [],
            id="scm-6.3",
        ),
        pytest.param(
            {"pyproject.toml": BS.format(reqs='"setuptools", "setuptools_scm"'), "setup.py": SETUP},
            [],
            id="unpinned-gets-the-newest",
        ),
        pytest.param(
            {
                "setup.py": "import setuptools\n"
                "setuptools.setup(setup_requires=['pbr<7'], pbr=True)\n"
            },
            [("RQ001", "setup.py", 2, (">=82.0.0",))],
            id="setup-requires-pbr-below-7",
        ),
        pytest.param(
            {
                "setup.py": "import setuptools\nsetuptools.setup(pbr=True)\n",
                "setup.cfg": "[options]\nsetup_requires =\n    pbr>=1.8,<6\n",
            },
            [("RQ001", "setup.cfg", 2, (">=82.0.0",))],
            id="setup-cfg-setup-requires",
        ),
        pytest.param(
            {
                "pyproject.toml": BS.format(
                    reqs='"setuptools", "setuptools_scm<6; python_version < \'3\'"'
                ),
                "setup.py": SETUP,
            },
            [],
            id="marker-false-on-python-3",
        ),
        pytest.param(
            {
                "pyproject.toml": BS.format(reqs='"setuptools<82", "setuptools_scm<6"'),
                "setup.py": SETUP,
            },
            [],
            id="capped-setuptools-is-safe",
        ),
    ],
)
def test_plugin_pins(files: dict[str, str], expected) -> None:
    assert _rq(files) == expected


def test_verdict_names_the_plugin() -> None:
    result = check(
        {
            "pyproject.toml": BS.format(reqs='"setuptools", "setuptools_scm>=2,<6"'),
            "setup.py": SETUP,
        }
    )
    assert result.verdict is not None
    assert result.verdict.outcome == "fails"
    assert result.verdict.because == ("RQ001",)
    assert "setuptools-scm 5.0.2" in result.findings[0].message


PBR = "import setuptools\nsetuptools.setup(setup_requires=[{req}], pbr=True)\n"
SKB_BS = (
    '[build-system]\nrequires = ["setuptools", "{req}"]\nbuild-backend = "setuptools.build_meta"\n'
)
SKB_IN_TREE = (
    '[build-system]\nrequires = ["setuptools", "{req}"]\nbuild-backend = "backend"\n'
    'backend-path = ["_custom_build"]\n'
)
SKB = "from skbuild import setup\nsetup(name='p', version='1.0')\n"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"setup.py": PBR.format(req="'pbr<7'")},
            [("setup.py", 2, ("==80.3.0",), (">=80.3.0",))],
            id="pbr-6-reads-sys-executable",
        ),
        pytest.param(
            {"setup.py": PBR.format(req="'pbr==7.0.1'")},
            [("setup.py", 2, ("==80.3.0",), (">=80.3.0",))],
            id="pbr-7.0.1",
        ),
        pytest.param({"setup.py": PBR.format(req="'pbr==7.0.2'")}, [], id="pbr-7.0.2"),
        pytest.param({"setup.py": PBR.format(req="'pbr'")}, [], id="pbr-newest"),
        pytest.param(
            {
                "setup.py": "from setuptools import setup\nsetup()\n",
                "setup.cfg": "[metadata]\nname = p\n[options]\nsetup_requires = pbr>=5,<6\n",
            },
            [("setup.cfg", 4, ("==80.3.0",), (">=80.3.0",))],
            id="pbr-in-setup-cfg",
        ),
        pytest.param(
            {"pyproject.toml": SKB_BS.format(req="scikit-build==0.17.6"), "setup.py": SKB},
            [("pyproject.toml", None, ("==72.0.0",), ("==72.0.0",))],
            id="scikit-build-0.17-imported",
        ),
        pytest.param(
            {
                "pyproject.toml": SKB_BS.format(req="scikit-build==0.17.6"),
                "setup.py": "from setuptools import setup\nsetup(name='p')\n",
            },
            [],
            id="scikit-build-not-imported",
        ),
        pytest.param(
            {"pyproject.toml": SKB_BS.format(req="scikit-build>=0.18"), "setup.py": SKB},
            [],
            id="scikit-build-0.18",
        ),
        # rapidfuzz 3.9.4: an in-tree backend imports skbuild (real 72.0.0 build: regressed)
        pytest.param(
            {
                "pyproject.toml": SKB_IN_TREE.format(req="scikit-build~=0.17.0"),
                "_custom_build/backend.py": "import skbuild\n"
                "from setuptools import build_meta as _orig\n",
                "setup.py": "from setuptools import setup\nsetup(name='p')\n",
            },
            [("pyproject.toml", None, ("==72.0.0",), ("==72.0.0",))],
            id="scikit-build-imported-by-an-in-tree-backend",
        ),
        pytest.param(
            {
                "pyproject.toml": SKB_IN_TREE.format(req="scikit-build~=0.17.0"),
                "_custom_build/backend.py": "from setuptools import build_meta as _orig\n",
                "setup.py": "from setuptools import setup\nsetup(name='p')\n",
            },
            [],
            id="in-tree-backend-without-skbuild",
        ),
        # setuptools-scm 10.2 imports setuptools.command.bdist_wheel, which releases before
        # 70.1.0 never had: an addition, not a removal, is not reported
        pytest.param(
            {
                "pyproject.toml": SKB_BS.format(req="setuptools-scm==10.2.1"),
                "setup.py": "from setuptools import setup\nsetup(use_scm_version=True)\n",
            },
            [],
            id="module-added-later-not-a-removal",
        ),
    ],
)
def test_plugin_removed_api(
    files: dict[str, str], expected: list[tuple[str, int | None, tuple[str, ...], tuple[str, ...]]]
) -> None:
    result = check(files)
    found = [
        (f.path, f.line, f.fails, f.fails_enforced) for f in result.findings if f.code == "RQ002"
    ]
    assert found == expected


@pytest.mark.parametrize(
    ("req", "python", "fails"),
    [
        # pbr < 4 calls setuptools.dist._get_unpatched (gone in 68.0.0) and, like every pbr
        # before 5.5.0, asks for the bdist_wininst command: gone from setuptools' distutils
        # in 65.0.0, and from the standard library's (which setuptools < 60 uses) in 3.10
        pytest.param("pbr<4", "3.11", ("<60.0.0", ">=65.0.0"), id="pbr-3-py3.11"),
        pytest.param("pbr<4", "3.9", (">=65.0.0",), id="pbr-3-py3.9"),
        pytest.param("pbr==5.4.5", "3.11", ("<60.0.0", ">=65.0.0"), id="pbr-5.4-py3.11"),
        pytest.param("pbr==5.4.5", "3.9", (">=65.0.0",), id="pbr-5.4-py3.9"),
        pytest.param("pbr==5.5.0", "3.11", ("==80.3.0",), id="pbr-5.5"),
    ],
)
def test_old_pbr_releases(req: str, python: str, fails: tuple[str, ...]) -> None:
    result = check({"setup.py": PBR.format(req=repr(req))}, python=python)
    found = [f for f in result.findings if f.code == "RQ002"]
    assert [f.fails for f in found] == [fails]
    assert ("`setuptools.dist._get_unpatched`" in found[0].message) is (req == "pbr<4")
    assert ("`bdist_wininst` command" in found[0].message) is (req != "pbr==5.5.0")


SCM_BS = (
    '[build-system]\nrequires = ["setuptools>=44", "setuptools_scm[toml]>=3.4.3"]\n'
    'build-backend = "setuptools.build_meta"\n'
)


@pytest.mark.parametrize(
    ("listing", "fails"),
    [
        # the tracked-file list setuptools-scm 10 writes into sdists: its egg_info mixin reads
        # egg_info.ignore_egg_info_in_manifest (setuptools 64.0.0 on)
        pytest.param('{"files": ["pyproject.toml"]}', [("<64.0.0",)], id="file-list"),
        pytest.param('{"files": []}', [], id="empty-list"),
        pytest.param(None, [], id="no-list"),
    ],
)
@pytest.mark.parametrize("where", ["", "src/"])
def test_setuptools_scm_10_needs_setuptools_64_with_a_file_list(
    listing: str | None, fails: list[tuple[str, ...]], where: str
) -> None:
    """(setuptools-scm looks for the egg-info at the root only: anyio 4.16.0's
    src/anyio.egg-info is not read, and its build with 57.5.0 is ok.)"""
    files = {"pyproject.toml": SCM_BS, "setup.py": "from setuptools import setup\nsetup()\n"}
    if listing is not None:
        files["probe.egg-info/scm_file_list.json"] = listing
        files["probe.egg-info/scm_version.json"] = '{"version": "1.0"}'
    files = {(where + k if k.startswith("probe.egg-info") else k): v for k, v in files.items()}
    result = check(files, setuptools="57.5.0")
    expected = fails if not where else []
    assert [f.fails for f in result.findings if f.code == "RQ002"] == expected
