"""`sapper wheelhouse` on a requirements file that lists only the top of a tree, a sdist no
setuptools builds, and the advice when the offline install fails: real sandboxed builds,
real pip, a local index directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sapper.audit import audit
from sapper.audit.resolve import IndexFiles
from sapper.audit.wheelhouse import (
    audit_build_requirements,
    build_wheelhouse,
    local_build_requirements,
    missing_requirements,
)
from sapper.pypi import Index
from tests.audit_fixtures import clean_env, make_sdist
from tests.canary_support import BUILD_CACHE, builder, require_sandbox
from tests.closure_fixtures import local_project, tree_index

pytestmark = pytest.mark.network  # build requirements and the resolver's pip: PyPI once

#: setup.py that fails on Python 3.11 in `re`, whatever setuptools: MarkupSafe 1.0's
#: `re.compile` with an inline flag after the start; the pkg_resources import gives the
#: static rules a reason to cap setuptools (<82), which does not help.
UNFIXABLE_SETUP = (
    "import re\n"
    "import pkg_resources\n"
    "from setuptools import setup\n"
    "re.compile(r'\\w+(?s)')\n"
    "setup(name='odd', version='1.0', py_modules=['odd'])\n"
)


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        (
            "ERROR: Could not find a version that satisfies the requirement bomb>=1.0 "
            "(from top) (from versions: none)\nERROR: No matching distribution found for "
            "bomb>=1.0\n",
            ("bomb>=1.0",),
        ),
        ("ERROR: No matching distribution found for odd==1.0\n", ("odd==1.0",)),
        ("Successfully installed top-1.0\n", ()),
    ],
)
def test_missing_requirements_are_read_from_pip(log: str, expected: tuple[str, ...]) -> None:
    assert missing_requirements(log) == expected


def _pip_install(out: Path, req: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = tmp / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install"),
            *("--no-index", "--find-links", str(out), "-r", str(req)),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_dependency_the_file_does_not_list_is_built(tmp_path: Path) -> None:
    require_sandbox()
    links = tree_index(tmp_path / "links")
    req = tmp_path / "requirements.txt"
    req.write_text("top\n")
    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)
    out = tmp_path / "wh"
    result = build_wheelhouse(
        report,
        out,
        builder=builder(timeout=300),
        index=Index(cache_dir=BUILD_CACHE),
        requirements=req,
    )
    by_name = {i.name: i for i in result.items}
    assert by_name["bomb"].action == "built", by_name["bomb"].reason
    assert by_name["bomb"].setuptools == "81.0.0"
    assert by_name["top"].action == "downloaded"
    assert result.verified is True, result.verify_log
    done = _pip_install(out, req, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_sdist_no_setuptools_builds_gets_the_nearest_release_that_does(
    tmp_path: Path,
) -> None:
    require_sandbox()
    links = tmp_path / "links"
    links.mkdir()
    make_sdist(links, "odd", "1.0", {"setup.py": UNFIXABLE_SETUP, "odd.py": "X = 1\n"})
    fixed = "from setuptools import setup\nsetup(name='odd', version='1.1', py_modules=['odd'])\n"
    make_sdist(links, "odd", "1.1", {"setup.py": fixed, "odd.py": "X = 2\n"})
    req = tmp_path / "requirements.txt"
    req.write_text("odd==1.0\n")
    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)
    (odd,) = report.packages
    assert odd.verdict is not None and odd.verdict.constraint == "setuptools<82.0.0"

    out = tmp_path / "wh"
    result = build_wheelhouse(
        report,
        out,
        builder=builder(timeout=300),
        index=Index(cache_dir=BUILD_CACHE),
        requirements=req,
        files_of=IndexFiles([], [str(links)]),
    )
    (item,) = result.items
    assert item.action == "failed"
    assert item.unfixable, item.reason
    assert "global flags not at the start of the expression" in item.reason
    assert item.suggestion == "1.1"
    assert result.verified is False
    assert result.missing == ("odd==1.0",)
    (advice,) = result.advice
    assert "pin odd==1.1" in advice


def test_the_nearest_release_that_builds_is_found_by_bisection(tmp_path: Path) -> None:
    """1.1 fails as 1.0 does, 1.2 and 1.3 build: the nearest is 1.2, not the newest."""
    require_sandbox()
    from sapper.audit import PackageAudit
    from sapper.audit.wheelhouse import nearest_release

    links = tmp_path / "links"
    links.mkdir()
    for version, setup in (
        ("1.0", UNFIXABLE_SETUP),
        ("1.1", UNFIXABLE_SETUP.replace("'1.0'", "'1.1'")),
        ("1.2", "from setuptools import setup\nsetup(name='odd', version='1.2')\n"),
        ("1.3", "from setuptools import setup\nsetup(name='odd', version='1.3')\n"),
    ):
        make_sdist(links, "odd", version, {"setup.py": setup, "odd.py": "X = 1\n"})
    p = PackageAudit(name="odd", version="1.0", origin="", source="sdist", how="")
    found = nearest_release(
        p, builder(timeout=300), Index(cache_dir=BUILD_CACHE), IndexFiles([], [str(links)])
    )
    assert found == "1.2"


def test_a_local_project_installs_offline_with_its_backend_in_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-e .` in the file: the offline install builds the project, so the wheels of its
    build requirements are put in the directory too; without them pip finds no setuptools."""
    require_sandbox()
    links = tree_index(tmp_path / "links")
    project = local_project(tmp_path / "proj")
    req = project / "requirements.txt"
    req.write_text("-e .\n")
    monkeypatch.chdir(project)
    options = {"no_index": True, "find_links": [str(links)], "cache_dir": BUILD_CACHE}
    report = audit(req, **options)  # type: ignore[arg-type]
    requires = local_build_requirements(report)
    assert requires == ("setuptools>=61",)

    out = tmp_path / "wh"
    result = build_wheelhouse(
        report,
        out,
        builder=builder(timeout=300),
        index=Index(cache_dir=BUILD_CACHE),
        requirements=req,
        also=audit_build_requirements(requires, **options),
    )
    by_name = {i.name: i for i in result.items}
    assert by_name["mine"].action == "skipped"
    assert by_name["bomb"].action == "built", by_name["bomb"].reason
    assert by_name["setuptools"].action == "downloaded"
    assert "local project" in by_name["setuptools"].reason
    assert result.verified is True, result.verify_log
