"""``sapper doctor``: each finding faked (a machine without a sandbox, an index that does not
answer, an old pip), and the real tools of this machine read as they are."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import sapper.doctor
from sapper.build._sandbox import diagnose_sandbox
from sapper.cli import main
from sapper.cli.doctor import render_text
from sapper.doctor import build_cache, check_index, doctor, installer
from tests.audit_fixtures import clean_env
from tests.test_sandbox_diagnosis import APPARMOR, UBUNTU_2404, UID_MAP, fake_bwrap, fake_root

# --------------------------------------------------------------------------- a small server


@contextlib.contextmanager
def server(head: int, get: int = 200) -> Iterator[tuple[str, list[str]]]:
    """An HTTP server answering HEAD with ``head`` and GET with ``get``; yields its URL and
    the methods it received."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int) -> None:
            seen.append(f"{self.command} {self.path}")
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_HEAD(self) -> None:
            self._answer(head)

        def do_GET(self) -> None:
            self._answer(get)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/simple", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple"


# --------------------------------------------------------------------------- the index


def test_index_answering_head_is_reachable():
    with server(head=200) as (url, seen):
        found = check_index(url)
    assert (found.reachable, found.status, found.error) == (True, 200, None)
    assert seen == ["HEAD /simple/"]


def test_index_refusing_head_is_asked_with_get():
    with server(head=405, get=200) as (url, seen):
        found = check_index(url)
    assert (found.reachable, found.status) == (True, 200)
    assert seen == ["HEAD /simple/", "GET /simple/"]


@pytest.mark.parametrize("status", [403, 404, 503])
def test_index_answering_an_error_is_not_reachable(status):
    with server(head=status, get=status) as (url, _):
        found = check_index(url)
    assert (found.reachable, found.status, found.error) == (False, status, f"HTTP {status}")


def test_offline_is_a_finding_not_a_crash():
    found = check_index(closed_port(), timeout=5)
    assert not found.reachable
    assert found.status is None
    assert "refused" in (found.error or "").lower()


def test_index_that_never_answers_times_out():
    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/simple"
        found = check_index(url, timeout=0.5)
    assert not found.reachable
    assert "timed out" in (found.error or "")


def test_file_index(tmp_path):
    assert check_index(tmp_path.as_uri()).reachable
    missing = check_index((tmp_path / "nope").as_uri())
    assert not missing.reachable
    assert "no such folder" in (missing.error or "")


# --------------------------------------------------------------------------- the build cache


def test_build_cache_counts_environments_wheels_and_bytes(tmp_path):
    assert build_cache(tmp_path).exists is False
    build = tmp_path / "build"
    for env in ("a1b2", "c3d4"):
        (build / "envs" / env / "lib").mkdir(parents=True)
        (build / "envs" / env / "lib" / "x.py").write_bytes(b"x" * 100)
    (build / "wheelhouse").mkdir()
    (build / "wheelhouse" / "setuptools-78.0.1-py3-none-any.whl").write_bytes(b"w" * 1000)
    (build / "wheelhouse" / ".lock").write_bytes(b"")
    found = build_cache(tmp_path)
    assert (found.location, found.exists) == (build, True)
    assert (found.environments, found.wheels, found.bytes) == (2, 1, 1200)


def test_build_cache_counts_a_hard_link_once(tmp_path):
    # environments hard-link the files uv unpacked into its cache: the disk holds them once
    build = tmp_path / "build"
    unpacked = build / "uv-cache" / "archive-v0" / "k" / "setuptools" / "__init__.py"
    unpacked.parent.mkdir(parents=True)
    unpacked.write_bytes(b"s" * 500)
    for env in ("a1b2", "c3d4"):
        linked = build / "envs" / env / "lib" / "setuptools" / "__init__.py"
        linked.parent.mkdir(parents=True)
        linked.hardlink_to(unpacked)
    (build / "envs" / ".trash-a1b2-1-2").mkdir()  # being removed by an eviction
    found = build_cache(tmp_path)
    assert (found.environments, found.bytes) == (2, 500)


# --------------------------------------------------------------------------- installers


def fake_tool(where: Path, name: str, version_line: str, help_text: str) -> Path:
    """An executable that prints ``version_line`` for --version and ``help_text`` for
    ``install --help`` (or ``pip install --help``)."""
    where.mkdir(parents=True, exist_ok=True)
    tool = where / name
    tool.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f"  *--version*) echo '{version_line}' ;;\n"
        f"  *install*--help*) echo '{help_text}' ;;\n"
        "  *) exit 2 ;;\n"
        "esac\n"
    )
    tool.chmod(0o755)
    return tool


@pytest.mark.parametrize(
    ("version_line", "help_text", "version", "has"),
    [
        (
            "pip 25.3 from /x/pip (python 3.12)",
            "  --build-constraint <file>  Constrain",
            "25.3",
            True,
        ),
        ("pip 24.2 from /x/pip (python 3.12)", "  -c, --constraint <file>", "24.2", False),
    ],
)
def test_installer_reads_version_and_build_constraint(
    tmp_path, version_line, help_text, version, has
):
    tool = fake_tool(tmp_path, "pip", version_line, help_text)
    found = installer("pip", (str(tool),))
    assert (found.version, found.build_constraint, found.error) == (version, has, None)


def test_missing_installer_is_reported(tmp_path):
    found = installer("pip", (str(tmp_path / "nope"),))
    assert not found.found
    assert "No such file" in (found.error or "")


def test_real_pip_of_this_interpreter():
    """This interpreter's real pip: its version, and --build-constraint exactly from 25.3."""
    import importlib.metadata

    found = installer("pip", (sys.executable, "-m", "pip"))
    version = importlib.metadata.version("pip")
    assert found.version == version
    major, minor = (int(x) for x in version.split(".")[:2])
    assert found.build_constraint is ((major, minor) >= (25, 3))


@pytest.mark.network
def test_real_pip_25_3_has_build_constraint_and_25_2_has_not(tmp_path):
    """Real pip releases from PyPI, installed into fresh environments: the flag is read from
    their own --help, and it first appears in 25.3."""
    for version, expected in (("25.3", True), ("25.2", False)):
        env = tmp_path / f"env-{version}"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
        python = env / "bin" / "python"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(python),
                "install",
                "-q",
                f"pip=={version}",
            ],
            check=True,
            env=clean_env(),
        )
        found = installer("pip", (str(python), "-m", "pip"))
        assert (found.version, found.build_constraint) == (version, expected)


# --------------------------------------------------------------------------- the report


@pytest.fixture
def tools(tmp_path) -> str:
    """A PATH with an old pip and a uv, and no bwrap."""
    where = tmp_path / "tools"
    fake_tool(where, "pip", "pip 24.0 from /x (python 3.12)", "  -c, --constraint")
    fake_tool(where, "uv", "uv 0.9.0 (abc 2025-10-01)", "  -b, --build-constraint <FILE>")
    return str(where)


def test_report_without_sandbox_names_cause_fix_and_exit_code(tmp_path, tools):
    root = fake_root(tmp_path, {"etc/os-release": 'ID=fedora\nVERSION_ID="41"\n'})
    with server(head=200) as (url, _):
        report = doctor(
            cache_dir=tmp_path / "cache", index_url=url, root=root, path=tools, euid=1000
        )
    assert report.sandbox.cause == "no-bwrap"
    assert report.problems == ["no sandbox: no bwrap on PATH (" + tools + ")"]
    names = [t.name for t in report.installers]
    assert names == ["pip", "pip on PATH", "uv"]
    assert report.installers[1].command == (f"{tools}/pip",)
    assert report.installers[1].build_constraint is False
    assert report.installers[2].build_constraint is True
    assert any(n.startswith("pip on PATH 24.0 has no --build-constraint") for n in report.notes)
    text = render_text(report)
    assert "sandbox      no: no bwrap on PATH" in text
    assert "    sudo dnf install bubblewrap" in text
    assert "build cache  " in text and "empty (made by the first build)" in text
    assert f"index        {url}: reachable (HTTP 200)" in text
    data = report.to_json()
    assert data["schema"] == "sapper.doctor/1"
    assert data["ok"] is False
    assert data["sandbox"]["remedies"][0]["commands"] == ["sudo dnf install bubblewrap"]


def test_cli_exit_codes_and_json(tmp_path, monkeypatch, capsys):
    root = fake_root(tmp_path, {APPARMOR: "1\n", "etc/os-release": UBUNTU_2404})
    path = fake_bwrap(tmp_path, UID_MAP)
    cache = ["--cache-dir", str(tmp_path / "cache")]

    def machine(**settings):
        # doctor() passes its own root/path/euid: the fake machine's replace them
        return lambda **_: diagnose_sandbox(platform="linux", **settings)

    # this machine's sandbox (whatever it is), a reachable index: 0 exactly when it works
    with server(head=200) as (url, _):
        code = main(["doctor", "--index-url", url, *cache, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == (0 if data["sandbox"]["works"] else 1)
    assert data["index"] == {"url": url, "reachable": True, "status": 200, "error": None}

    # AppArmor's restriction: 1, the cause and the fix printed
    monkeypatch.setattr(sapper.doctor, "diagnose_sandbox", machine(root=root, path=path, euid=1001))
    with server(head=200) as (url, _):
        code = main(["doctor", "--index-url", url, *cache])
    out = capsys.readouterr().out
    assert code == 1
    assert "sandbox      no: AppArmor denies unprivileged user namespaces" in out
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in out

    # offline, with a working sandbox: 1, and the index named
    ok = fake_bwrap(tmp_path / "ok", "", code=0)
    monkeypatch.setattr(sapper.doctor, "diagnose_sandbox", machine(root=root, path=ok, euid=1001))
    url = closed_port()
    code = main(["doctor", "--index-url", url, *cache, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["sandbox"]["works"] is True
    assert data["problems"] == [f"index {url} not reachable: {data['index']['error']}"]
