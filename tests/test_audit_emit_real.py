"""Every form ``sapper audit --emit`` writes, tried with the real tool, offline.

Three fixture sdists, each judged by sapper and built for real:

* ``bomb`` imports pkg_resources: fails from setuptools 82, gets 81.0.0 under its cap;
* ``old`` passes ``use_2to3=True``: fails from 58.0.2 (broken wheels from 58.0.0), gets 57.5.0
  under its cap, and 57.5.0's ``get_requires_for_build_wheel`` asks for ``wheel``, so every
  installer resolves the build requirements a second time (the path that loses uv's
  per-package cap);
* ``needsnew`` requires setuptools>=82: a global cap below 82 breaks it.

The installers read a local directory (pip and uv: ``--no-index --find-links``; Poetry: the
same files served as a PEP 503 index on 127.0.0.1), which holds those sdists and the wheels
of setuptools 84.2.1 (the newest), 81.0.0 and 57.5.0, and of wheel 0.45.1. The wheels, the
pip releases and Poetry are downloaded from PyPI once into the test cache (the oracle's
``~/.cache/sapper-tests``); a test skips when PyPI cannot be reached for them.

What each test proves is what the emitted file's header tells the user: which pip takes
``--build-constraint``, which takes ``PIP_CONSTRAINT`` (the boundaries are
:data:`sapper.audit.emit.PIP_BUILD_CONSTRAINT_SINCE` and
:data:`~sapper.audit.emit.PIP_CONSTRAINT_REACHES_BUILDS_UNTIL`), that uv keeps the global
``build-constraint-dependencies`` and drops a per-package cap on the ``wheel`` path, and
that Poetry keeps each per-package cap.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.version import Version

from sapper import _toml as tomllib
from sapper.audit.emit import PIP_BUILD_CONSTRAINT_SINCE, PIP_CONSTRAINT_REACHES_BUILDS_UNTIL
from sapper.cli import main
from tests.audit_fixtures import (
    CACHE,
    clean_env,
    make_sdist,
    needs_new_sdist,
    pkg_resources_sdist,
    setuptools_wheels,
)

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(sys.platform != "linux", reason="venv layout and bubblewrap-free builds"),
]

#: The extra wheels the ``old`` sdist's build needs (no dependencies of their own).
EXTRA_WHEELS = ("setuptools==57.5.0", "wheel==0.45.1")
#: pip releases around the two boundaries, the one a fresh Python 3.11 venv ships (23.2.1)
#: and the newest one measured.
PIPS = ("23.2.1", "24.3.1", "25.2", "25.3", "26.1.2", "26.2", "26.3")
POETRY = "2.5.1"

OLD_SETUP = (
    "from setuptools import setup\n"
    "setup(name='old', version='1.0', py_modules=['old'], use_2to3=True)\n"
)


def _uv() -> str:
    from uv import find_uv_bin

    return str(find_uv_bin())


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = clean_env(**env)
    # an active virtual environment (the test's own) would be where Poetry installs
    environ.pop("VIRTUAL_ENV", None)
    environ.pop("CONDA_PREFIX", None)
    return subprocess.run(
        args,
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


@contextlib.contextmanager
def _locked(name: str) -> Iterator[Path]:
    where = CACHE / name
    where.mkdir(parents=True, exist_ok=True)
    with (where / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield where


def _online(result: subprocess.CompletedProcess[str], what: str) -> None:
    if result.returncode != 0:
        text = result.stdout + result.stderr
        if any(
            s in text
            for s in (
                "Failed to establish",
                "Temporary failure",
                "Could not fetch",
                "Network is unreachable",
                "error sending request",
            )
        ):
            pytest.skip(f"PyPI unreachable for {what}")
        pytest.fail(f"{what}: {text[-2000:]}")


def _extra_wheels() -> list[Path]:
    with _locked("audit-wheels") as where:
        wanted = [where / f"{spec.replace('==', '-')}-py3-none-any.whl" for spec in EXTRA_WHEELS]
        for spec, wheel in zip(EXTRA_WHEELS, wanted, strict=True):
            if not wheel.exists():
                _online(
                    _run(
                        [
                            sys.executable,
                            "-m",
                            "pip",
                            "download",
                            "-q",
                            "--no-deps",
                            "--only-binary",
                            ":all:",
                            spec,
                            "-d",
                            str(where),
                        ],
                        where,
                    ),
                    spec,
                )
        return wanted


def _tool_venv(name: str, requirement: str, executable: str) -> Path:
    """A cached virtual environment with ``requirement`` installed (by uv, from PyPI)."""
    with _locked("tool-venvs") as where:
        venv = where / name
        exe = venv / "bin" / executable
        if not exe.exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
            result = _run(
                [
                    _uv(),
                    "pip",
                    "install",
                    "-q",
                    "--python",
                    str(venv / "bin" / "python"),
                    requirement,
                ],
                where,
            )
            if result.returncode != 0:
                shutil.rmtree(venv, ignore_errors=True)
            _online(result, requirement)
        return exe


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("links")
    for wheel in [*setuptools_wheels(), *_extra_wheels()]:
        shutil.copy(wheel, d)
    pkg_resources_sdist(d)
    needs_new_sdist(d)
    make_sdist(d, "old", "1.0", {"setup.py": OLD_SETUP, "old.py": "X = 1\n"})
    return d


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def _imports(python: Path, *modules: str) -> bool:
    code = "; ".join(f"import {m}" for m in modules)
    return subprocess.run([str(python), "-c", code], check=False).returncode == 0


def _emit(tmp_path: Path, links: Path, fmt: str, *requirements: str) -> tuple[Path, str]:
    req = tmp_path / "requirements.txt"
    req.write_text("".join(f"{r}\n" for r in requirements))
    out = tmp_path / f"emitted-{fmt}"
    code = main(["audit", str(req), "--no-index", "-f", str(links), "--emit", fmt, "-o", str(out)])
    assert code == 1  # the input fails as it is; the file is the remedy
    return req, out.read_text()


# -- pip -------------------------------------------------------------------------------------


@pytest.mark.parametrize("pip_version", PIPS)
def test_pip_takes_the_file_the_way_its_header_says(
    tmp_path: Path, links: Path, pip_version: str
) -> None:
    req, text = _emit(tmp_path, links, "pip", "bomb==1.0", "old==1.0")
    assert [line for line in text.splitlines() if not line.startswith("#")] == ["setuptools<58.0.0"]
    constraints = tmp_path / "build-constraints.txt"
    constraints.write_text(text)
    pip = _tool_venv(f"pip-{pip_version}", f"pip=={pip_version}", "pip").with_name("python")
    version = Version(pip_version)

    def install(name: str, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
        target = _venv(tmp_path / name)
        return _run(
            [
                str(pip),
                "-m",
                "pip",
                "--python",
                str(target),
                "install",
                "--no-cache-dir",
                "--no-index",
                "--find-links",
                str(links),
                *options,
                "-r",
                str(req),
            ],
            tmp_path,
            **env,
        )

    before = install("before")
    assert before.returncode != 0
    assert "pkg_resources" in before.stdout + before.stderr or "use_2to3" in (
        before.stdout + before.stderr
    )

    has_option = (
        "--build-constraint" in _run([str(pip), "-m", "pip", "install", "--help"], tmp_path).stdout
    )
    assert has_option == (version >= Version(PIP_BUILD_CONSTRAINT_SINCE))
    if has_option:
        for name, options, env in (
            ("option", ("--build-constraint", str(constraints)), {}),
            ("option-env", (), {"PIP_BUILD_CONSTRAINT": str(constraints)}),
        ):
            result = install(name, *options, **env)
            assert result.returncode == 0, result.stdout + result.stderr
            assert _imports(tmp_path / name / "bin" / "python", "bomb", "old")

    through_env = install("env", PIP_CONSTRAINT=str(constraints))
    reaches = version < Version(PIP_CONSTRAINT_REACHES_BUILDS_UNTIL)
    assert (through_env.returncode == 0) == reaches, through_env.stdout + through_env.stderr
    if reaches:
        assert _imports(tmp_path / "env" / "bin" / "python", "bomb", "old")

    # `-c` on the command line never reaches a build environment: not a way to pass it.
    command_line = install("command-line", "-c", str(constraints))
    assert command_line.returncode != 0


# -- uv --------------------------------------------------------------------------------------


def _uv_install(
    tmp_path: Path,
    links: Path,
    project: Path,
    req: Path,
    name: str,
    *options: str,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    python = _venv(tmp_path / name)
    return _run(
        [
            _uv(),
            "pip",
            "install",
            "--no-cache",
            "--no-index",
            "--find-links",
            str(links),
            "--python",
            str(python),
            *options,
            "-r",
            str(req),
        ],
        project,
        **env,
    )


def test_uv_keeps_the_global_table_on_the_wheel_path(tmp_path: Path, links: Path) -> None:
    req, text = _emit(tmp_path, links, "uv", "bomb==1.0", "old==1.0")
    assert tomllib.loads(text) == {
        "tool": {"uv": {"build-constraint-dependencies": ["setuptools<58.0.0"]}}
    }
    project = tmp_path / "project"
    project.mkdir()
    before = _uv_install(tmp_path, links, project, req, "before")
    assert before.returncode != 0

    # pasted into pyproject.toml
    (project / "pyproject.toml").write_text(text)
    after = _uv_install(tmp_path, links, project, req, "after")
    assert after.returncode == 0, after.stderr
    assert _imports(tmp_path / "after" / "bin" / "python", "bomb", "old")

    # into uv.toml without the tool.uv prefix, as the header says
    (project / "pyproject.toml").unlink()
    (project / "uv.toml").write_text(text.replace("[tool.uv]\n", ""))
    assert tomllib.loads((project / "uv.toml").read_text())["build-constraint-dependencies"]
    in_uv_toml = _uv_install(tmp_path, links, project, req, "uv-toml")
    assert in_uv_toml.returncode == 0, in_uv_toml.stderr
    (project / "uv.toml").unlink()

    # the same line as the --emit pip file, given to --build-constraint
    _, pip_text = _emit(tmp_path, links, "pip", "bomb==1.0", "old==1.0")
    (tmp_path / "bc.txt").write_text(pip_text)
    option = _uv_install(
        tmp_path, links, project, req, "option", "--build-constraint", str(tmp_path / "bc.txt")
    )
    assert option.returncode == 0, option.stderr
    named = _uv_install(
        tmp_path, links, project, req, "env", UV_BUILD_CONSTRAINT=str(tmp_path / "bc.txt")
    )
    assert named.returncode == 0, named.stderr


def test_uv_drops_a_per_package_cap_when_the_backend_asks_for_wheel(
    tmp_path: Path, links: Path
) -> None:
    # Why sapper does not write this form for `old` (astral-sh/uv#17950): uv installs
    # 57.5.0 under the cap, 57.5.0 asks for `wheel`, uv resolves the build requirements
    # again without the extra ones and installs 84.2.1. If this test starts failing, uv
    # has fixed it and the per-package table can be written for every package again.
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.uv.extra-build-dependencies]\nold = ["setuptools<58.0.0"]\n'
    )
    req = tmp_path / "requirements.txt"
    req.write_text("old==1.0\n")
    result = _uv_install(tmp_path, links, project, req, "env")
    assert result.returncode != 0
    assert "use_2to3 is invalid" in result.stderr


def test_uv_per_package_table_where_the_needs_conflict(tmp_path: Path, links: Path) -> None:
    # bomb needs <82, needsnew >=82: no global line; bomb's cap gets 81.0.0, which asks
    # for nothing more, so uv keeps it; old's would be lost, so it is only named.
    _, text = _emit(tmp_path, links, "uv", "bomb==1.0", "needsnew==1.0", "old==1.0")
    table = tomllib.loads(text)["tool"]["uv"]
    assert table == {"extra-build-dependencies": {"bomb": ["setuptools<82.0.0"]}}
    assert "old 1.0 fails" in text and "uv cannot cap old per package" in text
    project = tmp_path / "project"
    project.mkdir()
    req = tmp_path / "buildable.txt"
    req.write_text("bomb==1.0\nneedsnew==1.0\n")
    before = _uv_install(tmp_path, links, project, req, "before")
    assert before.returncode != 0
    (project / "pyproject.toml").write_text(text)
    after = _uv_install(tmp_path, links, project, req, "after")
    assert after.returncode == 0, after.stderr
    assert _imports(tmp_path / "after" / "bin" / "python", "bomb", "needsnew")


# -- Poetry ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _index(links: Path, root: Path) -> Iterator[str]:
    """``links`` as a PEP 503 simple index on 127.0.0.1 (directory listings serve as the
    project pages)."""
    from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

    for f in links.iterdir():
        if f.name.endswith(".whl"):
            name = parse_wheel_filename(f.name)[0]
        elif f.name.endswith(".tar.gz"):
            name = parse_sdist_filename(f.name)[0]
        else:
            continue
        page = root / "simple" / canonicalize_name(name)
        page.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, page)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def test_poetry_keeps_each_per_package_cap(tmp_path: Path, links: Path) -> None:
    poetry = _tool_venv(f"poetry-{POETRY}", f"poetry=={POETRY}", "poetry")
    # the conflict set: per-package caps serve all three, the wheel path included
    _, text = _emit(tmp_path, links, "poetry", "bomb==1.0", "needsnew==1.0", "old==1.0")
    assert tomllib.loads(text) == {
        "tool": {
            "poetry": {
                "build-constraints": {
                    "bomb": {"setuptools": "<82.0.0"},
                    "old": {"setuptools": "<58.0.0"},
                }
            }
        }
    }
    with _index(links, tmp_path / "index") as url:
        project = tmp_path / "project"
        project.mkdir()
        pyproject = (
            '[project]\nname = "consumer"\nversion = "0"\nrequires-python = ">=3.10"\n'
            'dependencies = ["bomb==1.0", "needsnew==1.0", "old==1.0"]\n\n'
            "[tool.poetry]\npackage-mode = false\n\n"
            f'[[tool.poetry.source]]\nname = "local"\nurl = "{url}"\npriority = "primary"\n'
        )

        def install(name: str) -> subprocess.CompletedProcess[str]:
            return _run(
                [str(poetry), "install", "--no-interaction"],
                project,
                POETRY_CACHE_DIR=str(tmp_path / f"poetry-cache-{name}"),
                POETRY_VIRTUALENVS_IN_PROJECT="true",
                POETRY_VIRTUALENVS_CREATE="true",
                POETRY_NO_INTERACTION="1",
                POETRY_CONFIG_DIR=str(tmp_path / "poetry-config"),
            )

        (project / "pyproject.toml").write_text(pyproject)
        before = install("before")
        assert before.returncode != 0
        assert "pkg_resources" in before.stdout + before.stderr or "use_2to3" in (
            before.stdout + before.stderr
        )

        shutil.rmtree(project / ".venv", ignore_errors=True)
        (project / "poetry.lock").unlink(missing_ok=True)
        (project / "pyproject.toml").write_text(pyproject + "\n" + text)
        after = install("after")
        assert after.returncode == 0, after.stdout + after.stderr
        assert _imports(project / ".venv" / "bin" / "python", "bomb", "needsnew", "old")
