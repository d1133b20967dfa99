"""`sapper wheelhouse` with real sandboxed builds and a real offline pip install.

The conflict case: `bomb` (setup.py imports pkg_resources) needs setuptools<82, `needsnew`
requires setuptools>=82. No global build constraint serves both; the wheelhouse builds each
with its own setuptools, and pip installs both offline from it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sapper.audit import audit
from sapper.audit.emit import plan_constraints
from sapper.audit.wheelhouse import build_wheelhouse
from sapper.cli import main
from sapper.pypi import Index
from tests.audit_fixtures import clean_env, needs_new_sdist, pkg_resources_sdist
from tests.canary_support import BUILD_CACHE, builder, require_sandbox
from tests.closure_fixtures import wheel

pytestmark = pytest.mark.network  # the build requirements' wheels come from PyPI once


def test_conflict_report_and_a_working_wheelhouse(tmp_path: Path) -> None:
    require_sandbox()
    links = tmp_path / "links"
    links.mkdir()
    pkg_resources_sdist(links)
    needs_new_sdist(links)
    req = tmp_path / "requirements.txt"
    req.write_text("bomb==1.0\nneedsnew==1.0\n")

    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=tmp_path / "cache")
    plan = plan_constraints(report)
    assert plan.conflict
    assert plan.unfixed == ("bomb==1.0",)

    out = tmp_path / "wheelhouse"
    result = build_wheelhouse(
        report, out, builder=builder(timeout=300), index=Index(cache_dir=tmp_path / "cache")
    )
    by_name = {i.name: i for i in result.items}
    assert by_name["bomb"].action == "built", by_name["bomb"].reason
    assert by_name["bomb"].setuptools == "81.0.0"
    assert by_name["needsnew"].action == "built", by_name["needsnew"].reason
    assert by_name["needsnew"].setuptools == "84.2.1"
    assert sorted(p.name for p in out.iterdir()) == [
        "bomb-1.0-py3-none-any.whl",
        "needsnew-1.0-py3-none-any.whl",
    ]
    assert result.verified is True, result.verify_log

    # What the user runs afterwards: pip, offline, from the directory only.
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(env / "bin" / "python"),
            "install",
            "--no-index",
            "--find-links",
            str(out),
            "-r",
            str(req),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    check = [str(env / "bin" / "python"), "-c", "import bomb, needsnew"]
    assert subprocess.run(check, check=False).returncode == 0


def test_cli_complete_fills_in_wheels_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_sandbox()
    links = tmp_path / "links"
    links.mkdir()
    pkg_resources_sdist(links)
    wheel(links, "tiny", "2.0")
    req = tmp_path / "requirements.txt"
    req.write_text("bomb==1.0\ntiny==2.0\n")
    out = tmp_path / "wh"
    code = main(
        [
            "wheelhouse",
            str(req),
            "--no-index",
            "-f",
            str(links),
            "-o",
            str(out),
            "--cache-dir",
            str(BUILD_CACHE),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0, text
    assert "built with setuptools 81.0.0" in text
    assert "downloaded" in text
    assert "Verified: the set installs offline" in text
    assert sorted(p.name for p in out.iterdir()) == [
        "bomb-1.0-py3-none-any.whl",
        "tiny-2.0-py3-none-any.whl",
    ]
    # --python/--platform are for audit: a wheelhouse is built on the target itself.
    with pytest.raises(SystemExit):
        main(["wheelhouse", str(req), "--python", "3.9", "-o", str(out)])


def test_a_removal_static_analysis_missed_is_retried_older(tmp_path: Path) -> None:
    """use_2to3 passed under a key setup.py computes at run time (static analysis follows
    literal dict keys, as suds-jurko 0.6 uses, but not computed ones): the static verdict
    only sees `import pkg_resources` (<82); the build with 81.0.0 fails with `use_2to3 is
    invalid` and the wheelhouse builds it with 57.5.0, the last release that converts."""
    require_sandbox()
    from tests.audit_fixtures import make_sdist

    links = tmp_path / "links"
    links.mkdir()
    setup = (
        "import pkg_resources\n"
        "from setuptools import setup\n"
        "extra = {}\n"
        "extra['_'.join(['use', '2to3'])] = True\n"
        "setup(name='sneaky', version='1.0', py_modules=['sneaky'], **extra)\n"
    )
    make_sdist(links, "sneaky", "1.0", {"setup.py": setup, "sneaky.py": "X = 1\n"})
    req = tmp_path / "requirements.txt"
    req.write_text("sneaky==1.0\n")
    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=tmp_path / "cache")
    verdict = report.packages[0].verdict
    assert verdict is not None and verdict.constraint == "setuptools<82.0.0"  # static view

    result = build_wheelhouse(
        report,
        tmp_path / "wh",
        builder=builder(timeout=300),
        index=Index(cache_dir=tmp_path / "cache"),
        verify=False,
    )
    (item,) = result.items
    assert item.action == "built", item.reason
    assert item.setuptools == "57.5.0"
    assert item.beyond_static
    assert "use_2to3 is invalid" in item.reason
