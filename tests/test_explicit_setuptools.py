"""An explicit ``--setuptools X`` is evaluated as asked, every finding included; when
``build-system.requires`` rules X out, the verdict says so (an isolated build never gets X;
a build without isolation, as distributions build, is what the verdict is for). Without
``--setuptools`` the default stays: the newest release the requirements allow, and the
findings that concern only excluded releases left out."""

from __future__ import annotations

import json

import jsonschema
import pytest
from helpers import DATA, check

from sapper.render.json import render_json
from sapper.render.sarif import sarif_log
from sapper.render.text import Style, render_text

SARIF_SCHEMA = json.loads((DATA / "schemas" / "sarif-schema-2.1.0.json").read_text("utf-8"))

PKG_RESOURCES = {
    "setup.py": "import pkg_resources\nfrom setuptools import setup\n"
    'setup(name="probe", version="1.0", py_modules=[])\n',
    "pyproject.toml": '[build-system]\nrequires = ["setuptools<72"]\n'
    'build-backend = "setuptools.build_meta"\n',
}
LICENSE = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=77.0.1"]\n'
    'build-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "probe"\nversion = "1.0"\nlicense = "MIT"\n',
}


@pytest.mark.parametrize(
    ("files", "setuptools", "outcome", "because", "codes", "excluded_by"),
    [
        pytest.param(PKG_RESOURCES, None, "builds", (), [], None, id="default-newest-allowed"),
        pytest.param(
            PKG_RESOURCES, "82.0.0", "fails", ("SP001",), ["SP001"], "<72", id="above-the-pin"
        ),
        pytest.param(PKG_RESOURCES, "71.0.0", "builds", (), ["SP001"], None, id="inside-the-pin"),
        pytest.param(LICENSE, None, "builds", (), [], None, id="license-default"),
        pytest.param(
            LICENSE, "75.0.0", "fails", ("PP002",), ["PP002"], ">=77.0.1", id="below-the-floor"
        ),
    ],
)
def test_explicit_version_is_evaluated_as_asked(
    files: dict[str, str | bytes],
    setuptools: str | None,
    *,
    outcome: str,
    because: tuple[str, ...],
    codes: list[str],
    excluded_by: str | None,
) -> None:
    result = check(files, setuptools=setuptools)
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.because) == (outcome, because)
    assert [f.code for f in result.findings] == codes
    assert result.verdict.excluded_by == excluded_by
    if excluded_by is not None:
        assert result.verdict.reason == (
            f"--setuptools; build-system.requires allows setuptools{excluded_by}, so an "
            f"isolated build never gets {setuptools}; a build without isolation, as "
            f"distributions build, fails because of {', '.join(because)}"
        )


def test_outside_the_requirements_but_building_says_so() -> None:
    result = check(PKG_RESOURCES, setuptools="75.0.0")
    assert result.verdict is not None
    assert result.verdict.outcome == "builds"
    assert result.verdict.excluded_by == "<72"
    assert result.verdict.reason.endswith(
        "never gets 75.0.0; a build without isolation, as distributions build, builds "
        "(as far as sapper's rules can tell)"
    )


def test_outside_the_requirements_in_every_format() -> None:
    result = check(PKG_RESOURCES, setuptools="82.0.0")
    text = render_text([result], Style(color=False))
    assert "verdict: fails with setuptools 82.0.0 because of SP001 [--setuptools; " in text
    assert "an isolated build never gets 82.0.0" in text
    doc = json.loads(render_json([result], newest="84.2.1"))
    verdict = doc["targets"][0]["verdict"]
    assert verdict["excluded_by_requires"] == "<72"
    assert "a build without isolation" in verdict["reason"]
    log = sarif_log([result])
    jsonschema.validate(log, SARIF_SCHEMA)
    run = log["runs"][0]
    assert [r["properties"]["excludedByRequires"] for r in run["results"]] == ["<72"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["descriptor"]["id"]) for n in notes] == [
        ("note", "outside-build-requires")
    ]
    assert run["invocations"][0]["executionSuccessful"] is True
    # inside the requirements: no such key, no note
    inside = sarif_log([check(PKG_RESOURCES, setuptools="71.0.0")])["runs"][0]
    assert "toolExecutionNotifications" not in inside["invocations"][0]
    assert all("excludedByRequires" not in r["properties"] for r in inside["results"])


def _own_tree(version: str, build_meta: str | None) -> dict[str, str]:
    """A tree shaped like setuptools' own sdist: an in-tree backend that is setuptools."""
    files = {
        "PKG-INFO": f"Metadata-Version: 2.4\nName: setuptools\nVersion: {version}\n",
        "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "setuptools.build_meta"\n'
        'backend-path = ["."]\n\n[project]\nname = "setuptools"\n'
        f'version = "{version}"\nlicense = "MIT"\n',
        "setuptools/__init__.py": "",
    }
    if build_meta is not None:
        files[build_meta] = ""
    return files


@pytest.mark.parametrize(
    ("files", "asked", "outcome", "evaluated"),
    [
        # the tree builds itself with its own setuptools: the one asked for never runs
        pytest.param(_own_tree("84.2.1", "setuptools/build_meta.py"), "71.1.0", "builds",
                     "84.2.1", id="own-tree"),
        pytest.param(_own_tree("84.2.1", "setuptools/build_meta.py"), None, "builds", "84.2.1",
                     id="own-tree-default"),
        # its own version is what the verdict is for: an old tree fails on its own terms
        pytest.param(_own_tree("76.1.0", "setuptools/build_meta.py"), "84.2.1", "fails",
                     "76.1.0", id="own-old-tree"),
        # backend-path without setuptools' build_meta in it: the installed setuptools runs
        pytest.param(_own_tree("84.2.1", None), "71.1.0", "fails", "71.1.0",
                     id="no-build-meta-in-the-tree"),
    ],
)  # fmt: skip
def test_setuptools_own_tree_builds_with_itself(
    files: dict[str, str], asked: str | None, outcome: str, evaluated: str
) -> None:
    result = check(files, setuptools=asked) if asked else check(files)
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.setuptools) == (outcome, evaluated)
    if outcome == "fails":
        assert "PP002" in result.verdict.because
    if evaluated != asked and asked:
        assert "setuptools' own tree" in result.verdict.reason
