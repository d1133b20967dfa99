"""LY rules against real setuptools: minimal project trees built through the PEP 517 hooks
pip calls, at each rule's boundary versions (the last that builds, the first that fails, the
newest), with and without SETUPTOOLS_ENFORCE_DEPRECATION=1."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_pyproject_oracle import compare

pytestmark = [pytest.mark.oracle, pytest.mark.network]

SETUP = 'from setuptools import setup\n\nsetup(name="probe", version="1.0"{})\n'
CFG = "[metadata]\nname = probe\nversion = 1.0\nlicense_files = {}\n"

CASES = [
    # LY001: two top-level packages, nothing listed.
    (
        "ly001-two-packages",
        {"setup.py": SETUP.format(""), "pkga/__init__.py": "", "pkgb/__init__.py": ""},
        ("60.10.0", "61.0.0", "84.2.1"),
        False,
    ),
    (
        "ly001-two-modules",
        {"setup.py": SETUP.format(""), "moda.py": "", "modb.py": ""},
        ("60.10.0", "61.0.0", "84.2.1"),
        False,
    ),
    (
        "ly001-data-directory-counts",
        {"setup.py": SETUP.format(""), "pkga/__init__.py": "", "data/x.txt": "x\n"},
        ("60.10.0", "61.0.0", "84.2.1"),
        False,
    ),
    (
        "ly001-reserved-names-are-fine",
        {
            "setup.py": SETUP.format(""),
            "pkga/__init__.py": "",
            "tests/test_a.py": "",
            "docs/conf.py": "",
            "conftest.py": "",
        },
        ("61.0.0", "84.2.1"),
        False,
    ),
    (
        "ly001-explicit-packages",
        {
            "setup.py": SETUP.format(', packages=["pkga"]'),
            "pkga/__init__.py": "",
            "pkgb/__init__.py": "",
        },
        ("61.0.0", "84.2.1"),
        False,
    ),
    (
        "ly001-src-layout",
        {"setup.py": SETUP.format(""), "src/pkga/__init__.py": "", "pkgb/__init__.py": ""},
        ("61.0.0", "84.2.1"),
        False,
    ),
    # htmlcov is reserved only since 67.5.1; debian/newsfragments since 68.1.0.
    (
        "ly001-htmlcov-era",
        {"setup.py": SETUP.format(""), "pkga/__init__.py": "", "htmlcov/index.html": "x\n"},
        ("67.0.0", "67.6.1"),
        False,
    ),
    # LY002: license patterns (from setup.cfg here; the pyproject ones share the code path).
    (
        "ly002-absolute",
        {"setup.cfg": CFG.format("/LICENSE"), "LICENSE": "MIT\n"},
        ("76.1.0", "77.0.1", "84.2.1"),
        False,
    ),
    (
        "ly002-dotdot",
        {"setup.cfg": CFG.format("../LICENSE"), "LICENSE": "MIT\n"},
        ("76.1.0", "77.0.1", "77.0.3", "84.2.1"),
        False,
    ),
    (
        "ly002-dotdot-enforced",
        {"setup.cfg": CFG.format("../LICENSE"), "LICENSE": "MIT\n"},
        ("77.0.3", "80.10.1", "80.10.2", "84.2.1"),
        True,
    ),
    (
        "ly002-no-match-enforced",
        {"setup.cfg": CFG.format("COPYING*"), "LICENSE": "MIT\n"},
        ("76.1.0", "77.0.1", "80.10.1", "80.10.2", "84.2.1"),
        True,
    ),
    (
        "ly002-pyproject-absolute",
        {
            "pyproject.toml": '[project]\nname = "probe"\nversion = "1.0"\n'
            'license-files = ["/LICENSE"]\n',
            "LICENSE": "MIT\n",
        },
        ("77.0.1", "84.2.1"),
        False,
    ),
    (
        "control-matching-patterns",
        {"setup.cfg": CFG.format("LICEN[CS]E*\n    docs/**/*.txt"), "LICENSE": "MIT\n",
         "docs/a/b.txt": "x\n"},
        ("77.0.1", "80.10.1", "84.2.1"),
        True,
    ),
]


@pytest.mark.parametrize(
    ("name", "files", "versions", "enforce"), CASES, ids=[c[0] for c in CASES]
)
def test_layout_matches_setuptools(
    tmp_path: Path, name: str, files: dict[str, str], versions: tuple[str, ...], enforce: bool
) -> None:
    mismatches = compare(tmp_path, files, versions, enforce=enforce)
    assert not mismatches, "\n".join(mismatches)
