"""setup.py import rules: tables of sources and the versions they fail in."""

from __future__ import annotations

import pytest
from helpers import check


def _sp(source: str, **options: object) -> list[tuple[str, int | None, tuple[str, ...]]]:
    result = check({"setup.py": source}, **options)
    return [(f.code, f.line, f.fails) for f in result.findings]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("import pkg_resources\n", [("SP001", 1, (">=82.0.0",))], id="pkg-resources"),
        pytest.param(
            "from pkg_resources import parse_version\n",
            [("SP001", 1, (">=82.0.0",))],
            id="from-pkg-resources",
        ),
        pytest.param(
            "from setuptools.command.test import test\n",
            [("SP001", 1, ("==72.0.0",))],
            id="test-command-72.0.0-only",
        ),
        pytest.param(
            "from setuptools.extern import packaging\n",
            [("SP001", 1, (">=71.0.0",))],
            id="extern",
        ),
        pytest.param(
            "import distutils.msvccompiler\n",
            [("SP001", 1, (">=65.0.0,<65.0.2", ">=74.0.0"))],
            id="msvccompiler-removed-restored-removed",
        ),
        pytest.param(
            "try:\n    import pkg_resources\nexcept ImportError:\n    pkg_resources = None\n",
            [],
            id="guarded-import",
        ),
        pytest.param(
            "def version():\n    import pkg_resources\n    return 1\n",
            [],
            id="import-inside-function",
        ),
        pytest.param(
            "if True:\n    import pkg_resources\n",
            [("SP001", 2, (">=82.0.0",))],
            id="inside-if",
        ),
        pytest.param("from setuptools import setup, find_packages\n", [], id="fine"),
        pytest.param("print 'python 2'\n", [], id="unparsable-is-not-guessed"),
    ],
)
def test_removed_imports(source: str, expected: list[tuple[str, int, tuple[str, ...]]]) -> None:
    assert _sp(source) == expected


def test_verdict_for_pkg_resources() -> None:
    source = "import pkg_resources\nfrom setuptools import setup\nsetup()\n"
    assert check({"setup.py": source}, setuptools="81.0.0").verdict.outcome == "builds"
    assert check({"setup.py": source}, setuptools="82.0.0").verdict.outcome == "fails"
    assert check({"setup.py": source}).verdict.because == ("SP001",)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from setuptools import setup\nsetup(use_2to3=True)\n", [("SP002", 2, (">=58.0.2",))]),
        ("from setuptools import setup\nsetup(use_2to3=False)\n", [("SP002", 2, ("==58.0.2",))]),
        ("import setuptools\nsetuptools.setup(use_2to3=flag)\n", [("SP002", 2, (">=58.0.2",))]),
        (
            "from setuptools import setup\nif __name__ == '__main__':\n    setup(use_2to3=1)\n",
            [("SP002", 3, (">=58.0.2",))],
        ),
        ("from setuptools import setup\nsetup(name='x')\n", []),
        ("def f():\n    setup(use_2to3=True)\n", []),
    ],
)
def test_use_2to3(source: str, expected: list[tuple[str, int, tuple[str, ...]]]) -> None:
    assert _sp(source) == expected
