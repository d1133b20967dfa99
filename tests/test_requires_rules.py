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
