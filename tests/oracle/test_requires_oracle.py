"""RQ001 against real builds: pip (build isolation, the newest setuptools) prepares the
metadata of small projects whose build requirements pin setuptools plugins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sapper.check import Options, check_target

pytestmark = [pytest.mark.oracle, pytest.mark.network]

BS = (
    '[build-system]\nrequires = ["setuptools", "{plugin}"]\n'
    'build-backend = "setuptools.build_meta"\n'
)
CASES = [
    ("scm-below-6", "setuptools_scm>=2,<6", "setup(use_scm_version=True)"),
    ("scm-6.3", "setuptools_scm>=6.3", "setup(use_scm_version=True)"),
    ("pbr-below-7", "pbr<7", "setup(setup_requires=['pbr'], pbr=True)"),
    ("pbr-7", "pbr>=7", "setup(setup_requires=['pbr'], pbr=True)"),
]


def _pip_metadata(project: Path) -> str | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETUPTOOLS_")}
    env.update(SETUPTOOLS_SCM_PRETEND_VERSION="1.0", PBR_VERSION="1.0")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "-d",
            str(project / "dist"),
            str(project),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )
    if proc.returncode == 0:
        return None
    errors = [line.strip() for line in proc.stderr.splitlines() if "Error" in line]
    return errors[-1] if errors else proc.stderr[-300:]


@pytest.mark.parametrize(("name", "plugin", "call"), CASES, ids=[c[0] for c in CASES])
def test_plugin_pins_match_real_builds(tmp_path: Path, name: str, plugin: str, call: str) -> None:
    (tmp_path / "pyproject.toml").write_text(BS.format(plugin=plugin))
    (tmp_path / "setup.py").write_text(f"from setuptools import setup\n{call}\n")
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = probe\n")
    real = _pip_metadata(tmp_path)
    result = check_target(str(tmp_path), Options())
    assert result.verdict is not None
    assert result.verdict.outcome == ("fails" if real else "builds"), real
    if real:
        assert "pkg_resources" in real
        assert result.verdict.because == ("RQ001",)
