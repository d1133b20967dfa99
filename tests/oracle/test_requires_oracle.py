"""RQ001 against real builds: pip (build isolation, the newest setuptools) prepares the
metadata of small projects whose build requirements pin setuptools plugins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .harness import reason_mismatch
from .reasons import reasons_for

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


# RQ002 against real wheel builds through the PEP 517 hooks: the plugin release installed
# next to setuptools as the frontend installs setup_requires / build-system.requires.
# (plugin release, setuptools versions, files)
_PBR_FILES = {
    "setup.py": "import setuptools\nsetuptools.setup(setup_requires=['pbr=={pbr}'], pbr=True)\n",
    "setup.cfg": "[metadata]\nname = probe\n\n[files]\npackages = probe\n\n"
    "[entry_points]\nconsole_scripts =\n    probe = probe:main\n",
    "probe/__init__.py": "def main():\n    pass\n",
}
_SKB_FILES = {
    "pyproject.toml": '[build-system]\nrequires = ["setuptools", "scikit-build=={skb}"]\n'
    'build-backend = "setuptools.build_meta"\n',
    "setup.py": "from skbuild import setup\nsetup(name='probe', version='1.0', py_modules=[])\n",
}
REMOVED_API = [
    ("pbr", "6.1.1", ("80.2.0", "80.3.0", "80.3.1")),
    ("pbr", "7.0.1", ("80.2.0", "80.3.0", "80.3.1")),
    ("pbr", "7.0.2", ("80.3.0",)),
    # pbr < 4 calls setuptools.dist._get_unpatched (gone in 68.0.0) in its setup keyword
    # (the metadata hook already fails at 68.0.0); at 67.8.0 its wheel build asks for the
    # bdist_wininst command (below)
    ("pbr", "3.1.1", ("67.8.0", "68.0.0")),
    # pbr < 5.5 asks for the bdist_wininst command in every wheel build: on Python 3.11,
    # gone before 60.0.0 (the standard library's distutils) and from 65.0.0 on
    ("pbr", "5.4.5", ("59.4.0", "60.10.0", "64.0.3", "65.0.0")),
    ("pbr", "5.5.0", ("65.0.0",)),
    ("scikit-build", "0.17.6", ("71.1.0", "72.0.0", "72.1.0")),
]
#: scikit-build's own dependencies (the harness installs each pin without its deps).
_SKB_DEPS = ("distro==1.9.0", "packaging==24.2", "wheel==0.45.1")


@pytest.mark.parametrize(
    ("plugin", "release", "versions"), REMOVED_API, ids=[f"{p}-{r}" for p, r, _ in REMOVED_API]
)
def test_plugin_removed_api_matches_real_wheel_builds(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    plugin: str,
    release: str,
    versions: tuple[str, ...],
) -> None:
    from .harness import run_hooks

    monkeypatch.setenv("PBR_VERSION", "1.0")
    files = _PBR_FILES if plugin == "pbr" else _SKB_FILES
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text.replace("{pbr}", release).replace("{skb}", release))
    requires = [f"{plugin}=={release}", *(_SKB_DEPS if plugin == "scikit-build" else ())]
    hooks = ("get_requires_for_build_wheel", "prepare_metadata_for_build_wheel", "build_wheel")
    mismatches = []
    for version in versions:
        real = run_hooks(version, tmp_path, hooks=hooks, requires=requires)
        result = check_target(str(tmp_path), Options(setuptools=version))
        assert result.verdict is not None
        because = result.verdict.because
        if result.verdict.outcome != real.outcome:
            mismatches.append(f"{version}: sapper {result.verdict.outcome}, real {real.error}")
        elif real.outcome == "fails" and because != ("RQ002",):
            mismatches.append(f"{version}: fails, but because {because}")
        else:  # and for the reason RQ002 declares (tests/oracle/reasons.py)
            why = reason_mismatch(
                real, result.verdict.outcome, reasons_for(because), because=because, label=version
            )
            if why:
                mismatches.append(why)
    assert not mismatches, "\n".join(mismatches)


#: setuptools-scm 10.3.4 and what it needs (the harness installs each pin without its deps).
_SCM_10 = ("setuptools-scm==10.3.4", "vcs-versioning==2.6.0", "packaging==26.4")


@pytest.mark.parametrize("version", ["63.4.3", "64.0.0"])
def test_setuptools_scm_10_needs_setuptools_64_on_its_sdists(tmp_path: Path, version: str) -> None:
    """asttokens 3.0.2's sdist ships setuptools-scm's tracked-file list
    (``asttokens.egg-info/scm_file_list.json``); with setuptools-scm 10.3.4 (what its
    ``setuptools_scm[toml]>=3.4.3`` gets) the egg_info mixin reads
    ``ignore_egg_info_in_manifest``, which setuptools added in 64.0.0 (the ecosystem check
    saw 8 such sdists fail with 57.5.0 and 58.0.0)."""
    import io
    import tarfile

    from sapper.pypi import Index

    from .harness import run_hooks

    download = Index(cache_dir=None).fetch("asttokens==3.0.2")
    with tarfile.open(fileobj=io.BytesIO(download.data)) as archive:
        archive.extractall(tmp_path, filter="data")
    tree = tmp_path / "asttokens-3.0.2"
    sdist = tmp_path / "asttokens-3.0.2.tar.gz"  # (a directory's egg-info is not read)
    sdist.write_bytes(download.data)
    real = run_hooks(version, tree, requires=_SCM_10)
    result = check_target(str(sdist), Options(setuptools=version))
    assert result.verdict is not None
    because = result.verdict.because
    assert result.verdict.outcome == real.outcome, real.error
    problem = reason_mismatch(
        real, result.verdict.outcome, reasons_for(because), because=because, label=version
    )
    assert problem is None, problem
    if real.outcome == "fails":
        assert because == ("RQ002",)
