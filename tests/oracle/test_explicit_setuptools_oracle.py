"""``--setuptools X`` outside ``build-system.requires`` against the real tools: real
setuptools X, run without isolation (the hooks of exactly that release, as a distribution's
packager builds with the system's setuptools), fails as sapper's verdict says; real pip,
with build isolation, installs what the requirements allow and builds, as the verdict's
"an isolated build never gets X" says."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .harness import pip_wheel, reason_mismatch, require_runnable, run_hooks
from .reasons import reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]

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
    "probe.py": "",
}

CASES = [
    # (name, files, version outside the requirements, version inside them)
    ("pkg-resources-above-the-pin", PKG_RESOURCES, "82.0.0", "71.1.0"),
    ("license-string-below-the-floor", LICENSE, "75.0.0", "84.2.1"),
]


@pytest.mark.parametrize(("name", "files", "outside", "inside"), CASES, ids=[c[0] for c in CASES])
def test_a_build_without_isolation_fails_as_the_verdict_says(
    tmp_path: Path, name: str, files: dict[str, str], outside: str, inside: str
) -> None:
    require_runnable((outside, inside))
    for path, text in files.items():
        (tmp_path / path).write_text(text)
    mismatches = []
    for version in (outside, inside):
        real = run_hooks(version, tmp_path, backend="build_meta")
        result = check_target(str(tmp_path), Options(setuptools=version))
        verdict = result.verdict
        assert verdict is not None
        problem = reason_mismatch(
            real, verdict.outcome, reasons_for(verdict.because), because=verdict.because
        )
        if problem:
            mismatches.append(f"{version}: {problem}")
        assert (verdict.excluded_by is not None) == (version == outside)
    assert not mismatches, "\n".join(mismatches)
    outside_verdict = check_target(str(tmp_path), Options(setuptools=outside)).verdict
    assert outside_verdict is not None
    assert outside_verdict.outcome == "fails"
    assert f"an isolated build never gets {outside}" in outside_verdict.reason


def test_an_isolated_build_never_gets_the_version(tmp_path: Path) -> None:
    """pip's isolated build of the pinned project installs setuptools<72 and builds; the
    default verdict (no --setuptools) agrees."""
    project = tmp_path / "probe"
    project.mkdir()
    for path, text in PKG_RESOURCES.items():
        (project / path).write_text(text)
    proc = pip_wheel(project, tmp_path / "dist")
    assert proc.returncode == 0, proc.stderr[-1500:]
    result = check_target(str(project), Options())
    assert result.verdict is not None
    assert (result.verdict.outcome, result.verdict.excluded_by) == ("builds", None)
    assert result.verdict.setuptools.startswith("71.")
