"""`sapper audit --verify`: every sdist built for real, static and real verdicts side by
side, and the emitted cap following the builds. The MarkupSafe 1.0 case: a setup.py that
imports `Feature` (static cap setuptools<46) and fails on Python 3.11 in `re` whatever the
setuptools; statically it narrows the global line to <46 for nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sapper.cli import main
from tests.audit_fixtures import make_sdist, pkg_resources_sdist
from tests.canary_support import BUILD_CACHE, require_sandbox

pytestmark = pytest.mark.network  # setuptools 45.3.0 and wheel come from PyPI once

FEATURE_RE_SETUP = (
    "import re\n"
    "from setuptools import setup, Feature\n"
    "re.compile(r'\\w+(?s)')\n"
    "setup(name='odd', version='1.0', py_modules=['odd'])\n"
)


def _links(tmp_path: Path) -> Path:
    links = tmp_path / "links"
    links.mkdir()
    make_sdist(links, "odd", "1.0", {"setup.py": FEATURE_RE_SETUP, "odd.py": "X = 1\n"})
    fixed = "from setuptools import setup\nsetup(name='odd', version='1.1', py_modules=['odd'])\n"
    make_sdist(links, "odd", "1.1", {"setup.py": fixed, "odd.py": "X = 2\n"})
    pkg_resources_sdist(links)
    return links


def _audit(tmp_path: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    links = _links(tmp_path)
    req = tmp_path / "requirements.txt"
    req.write_text("odd==1.0\nbomb==1.0\n")
    code = main(
        [
            *("audit", str(req), "--no-index", "-f", str(links), "--format", "json"),
            *("--cache-dir", str(BUILD_CACHE), *extra),
        ]
    )
    assert code == 1
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_static_verdicts_narrow_the_cap_for_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _audit(tmp_path, capsys=capsys)
    plan = doc["plan"]
    assert isinstance(plan, dict)
    assert plan["constraint"] == "setuptools<46.0.0"


def test_verify_keeps_the_unfixable_sdist_out_of_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_sandbox()
    doc = _audit(tmp_path, "--verify", capsys=capsys)
    assert doc["verified"] is True
    plan = doc["plan"]
    assert isinstance(plan, dict)
    assert plan["constraint"] == "setuptools<82.0.0"
    assert plan["unbuildable"] == ["odd==1.0"]
    packages = doc["packages"]
    assert isinstance(packages, list)
    by_name = {p["name"]: p for p in packages}
    odd = by_name["odd"]["real"]
    assert odd["outcome"] == "unfixable", odd["reason"]
    assert "global flags not at the start of the expression" in odd["reason"]
    assert odd["suggestion"] == "1.1"
    assert by_name["odd"]["verdict"]["constraint"] is None
    bomb = by_name["bomb"]["real"]
    assert bomb == {
        "outcome": "builds",
        "setuptools": "81.0.0",
        "build_constraints": [],
        "reason": "built with setuptools 81.0.0 (sapper's newest good release)",
        "suggestion": None,
    }


def test_verify_text_shows_both_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_sandbox()
    links = _links(tmp_path)
    req = tmp_path / "requirements.txt"
    req.write_text("odd==1.0\nbomb==1.0\n")
    main(
        [
            *("audit", str(req), "--no-index", "-f", str(links)),
            "--verify",
            "--cache-dir",
            str(BUILD_CACHE),
        ]
    )
    text = capsys.readouterr().out
    assert "Static and real verdicts" in text
    assert "odd 1.0: static fails (" in text
    assert "real unfixable; nearest release that installs here: 1.1" in text
    assert (
        "bomb 1.0: static fails (SP001), setuptools<82.0.0; real builds with setuptools 81.0.0"
        in text
    )
    with pytest.raises(SystemExit):
        main(["audit", str(req), "--verify", "--python", "3.9", "--bogus"])
    assert main(["audit", str(req), "--verify", "--python", "3.9"]) == 2
