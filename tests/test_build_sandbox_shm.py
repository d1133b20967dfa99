"""The sandbox gives builds a writable /dev/shm of their own, as pip's builds have one.

Found by the ecosystem check (docs/precision.md): scipy 1.7.1's setup.py cythonizes with a
process pool, whose lock is a POSIX semaphore in /dev/shm; in the sandbox, where a build run
by root drops to an unprivileged user, /dev/shm was a root directory and the build failed
with ``PermissionError`` where pip's succeeds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canary_support import DATA, builder, require_sandbox


@pytest.fixture(scope="module")
def sandboxed() -> None:
    require_sandbox()


@pytest.mark.parametrize("work_root", [None, Path("/dev/shm")])
def test_multiprocessing_lock_in_the_sandbox(sandboxed, tmp_path, work_root):
    if work_root is not None and not work_root.is_dir():
        pytest.skip("no /dev/shm on this machine")
    build = builder(timeout=120)
    build.work_root = work_root
    result = build.build(DATA / "multiprocessing-lock", override=["setuptools==84.2.1"])
    assert result.outcome == "ok", result.log_tail


def test_the_hosts_dev_shm_stays_out_of_reach(sandboxed, tmp_path):
    """The build's /dev/shm is its own: what a build writes there is not on the host."""
    marker = Path("/dev/shm/sapper-shm-escape-marker")
    marker.unlink(missing_ok=True)
    project = tmp_path / "shm-write"
    project.mkdir()
    (project / "setup.cfg").write_text("[metadata]\nname = shm-write\nversion = 1.0\n")
    (project / "setup.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\nfrom setuptools import setup\nsetup()\n"
    )
    result = builder(timeout=120).build(project, override=["setuptools==84.2.1"])
    assert result.outcome == "ok", result.log_tail
    assert not marker.exists()
