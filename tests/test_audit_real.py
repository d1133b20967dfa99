"""The emitted build constraints, tried with the real installers, offline.

A fixture sdist whose setup.py imports pkg_resources fails to build with setuptools 84.2.1
(the newest in the --find-links directory); sapper's pip file and uv table make pip and
uv build it with setuptools 81.0.0. The setuptools wheels are downloaded from PyPI once
into the test cache; everything else runs with --no-index.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sapper.cli import main
from tests.audit_fixtures import clean_env, pkg_resources_sdist, setuptools_wheels

pytestmark = pytest.mark.network


def _pip_version() -> tuple[int, ...]:
    import importlib.metadata

    return tuple(int(x) for x in importlib.metadata.version("pip").split(".")[:2])


def _uv() -> str:
    try:
        from uv import find_uv_bin
    except ImportError:
        pytest.skip("uv is not installed (pip install -e '.[test]')")
    return str(find_uv_bin())


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("links")
    for wheel in setuptools_wheels():
        shutil.copy(wheel, d)
    pkg_resources_sdist(d)
    return d


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=clean_env(), capture_output=True, text=True, check=False, timeout=600
    )


def _imports_bomb(python: Path) -> bool:
    return subprocess.run([str(python), "-c", "import bomb"], check=False).returncode == 0


def test_pip_build_constraints_file_makes_it_build(tmp_path: Path, links: Path) -> None:
    if _pip_version() < (25, 3):
        pytest.skip("pip >= 25.3 has --build-constraint")
    req = tmp_path / "requirements.txt"
    req.write_text("bomb==1.0\n")
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(_venv(tmp_path / "env")),
        "install",
        "--no-index",
        "--find-links",
        str(links),
        "-r",
        str(req),
    ]

    before = _run(pip, tmp_path)
    assert before.returncode != 0
    assert "No module named 'pkg_resources'" in before.stdout + before.stderr

    constraints = tmp_path / "build-constraints.txt"
    code = main(
        ["audit", str(req), "--no-index", "-f", str(links), "--emit", "pip", "-o", str(constraints)]
    )
    assert code == 1  # the input fails as it is; the file is the remedy
    after = _run([*pip, "--build-constraint", str(constraints)], tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr
    assert _imports_bomb(tmp_path / "env" / "bin" / "python")


def test_uv_extra_build_dependencies_table_makes_it_build(tmp_path: Path, links: Path) -> None:
    uv = _uv()
    req = tmp_path / "requirements.txt"
    req.write_text("bomb==1.0\n")
    project = tmp_path / "project"
    project.mkdir()

    def install(env: str) -> subprocess.CompletedProcess[str]:
        python = _venv(tmp_path / env)
        return _run(
            [
                uv,
                "pip",
                "install",
                "--no-cache",
                "--no-index",
                "--find-links",
                str(links),
                "--python",
                str(python),
                "-r",
                str(req),
            ],
            project,
        )

    before = install("env1")
    assert before.returncode != 0
    assert "pkg_resources" in before.stderr

    table = project / "pyproject.toml"
    code = main(
        ["audit", str(req), "--no-index", "-f", str(links), "--emit", "uv", "-o", str(table)]
    )
    assert code == 1
    assert 'bomb = ["setuptools<82.0.0"]' in table.read_text()
    after = install("env2")
    assert after.returncode == 0, after.stderr
    assert _imports_bomb(tmp_path / "env2" / "bin" / "python")

    # The global file written next to it works with --build-constraint too.
    table.unlink()
    python = _venv(tmp_path / "env3")
    glob = _run(
        [
            uv,
            "pip",
            "install",
            "--no-cache",
            "--no-index",
            "--find-links",
            str(links),
            "--python",
            str(python),
            "--build-constraint",
            str(project / "pyproject.build-constraints.txt"),
            "-r",
            str(req),
        ],
        project,
    )
    assert glob.returncode == 0, glob.stderr


@pytest.mark.parametrize(
    "filename", ["pip-report.json", "pylock.toml", "uv.lock", "poetry.lock", "requirements.txt"]
)
def test_real_inputs_against_pypi(filename: str, tmp_path: Path) -> None:
    from sapper.audit import audit

    data = Path(__file__).parent / "data" / "audit" / filename
    report = audit(
        data, python="3.11", platforms=["manylinux_2_28_x86_64"], cache_dir=tmp_path / "cache"
    )
    by_name = {p.name.lower(): p for p in report.packages}
    stringcase = by_name["stringcase"]
    assert stringcase.source == "sdist"  # no wheel was ever published
    assert stringcase.verdict is not None
    assert stringcase.verdict.outcome == "builds"
    assert "SC001" in {f.code for f in stringcase.verdict.findings}  # overdue, not yet removed
    crypto = by_name["cryptography"]
    if filename in ("pip-report.json", "pylock.toml"):
        # pip wrote only the wheel it chose on the machine that made the file, which needs
        # glibc 2.34; a glibc 2.28 target cannot install it (and the file has no sdist).
        assert crypto.source == "unavailable"
        assert "no file the target can install" in crypto.how
    else:
        assert crypto.source == "wheel"
        assert crypto.wheel is not None and "-abi3-manylinux_2_28_x86_64" in crypto.wheel
    assert by_name["six"].source == "wheel"
    # poetry.lock lists file names only: the sdist's URL comes from the index.
    assert stringcase.sdist_url is not None and stringcase.sdist_url.startswith("https://")
