"""SP001 against real setuptools: minimal projects built through the PEP 517 hooks pip calls,
at the last version that builds, the first that fails and the newest."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .harness import metadata_outcome

pytestmark = [pytest.mark.oracle, pytest.mark.network]

SETUP = (
    'from setuptools import setup\n{imp}\nsetup(name="probe", version="1.0", py_modules=[]{kw})\n'
)

CASES = [
    ("pkg-resources", "import pkg_resources", "", ("81.0.0", "82.0.0", "84.2.1")),
    (
        "test-command",
        "from setuptools.command.test import test",
        "",
        ("71.1.0", "72.0.0", "72.1.0"),
    ),
    ("extern", "from setuptools.extern import packaging", "", ("70.3.0", "71.0.0", "84.2.1")),
    ("guarded", "try:\n    import pkg_resources\nexcept ImportError:\n    pass", "", ("84.2.1",)),
    ("use-2to3-true", "", ", use_2to3=True", ("58.0.1", "58.0.2", "84.2.1")),
    ("use-2to3-false", "", ", use_2to3=False", ("58.0.1", "58.0.2", "58.0.4", "84.2.1")),
]


@pytest.mark.parametrize(("name", "imp", "kw", "versions"), CASES, ids=[c[0] for c in CASES])
def test_setup_py_matches_setuptools(
    tmp_path: Path, name: str, imp: str, kw: str, versions
) -> None:
    (tmp_path / "setup.py").write_text(SETUP.format(imp=imp, kw=kw))
    mismatches = []
    for version in versions:
        real = metadata_outcome(version, tmp_path)
        result = check_target(str(tmp_path), Options(setuptools=version))
        assert result.verdict is not None
        actual = "fails" if real else "builds"
        if result.verdict.outcome != actual:
            mismatches.append(
                f"{version}: sapper {result.verdict.outcome}, setuptools {real or 'ok'}"
            )
    assert not mismatches, "\n".join(mismatches)
