"""The build-environment cache is bounded: environments hard-linked from uv's cache, each
recording its own size and last use; above the bound the least recently used go first,
never one a build holds (a real second process holds it here), and half-made ones go too.

Real uv, real setuptools wheels from the test wheelhouse (``canary_support.BUILD_CACHE``,
filled from PyPI once, then read offline).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from canary_support import BUILD_CACHE, require_sandbox

from sapper._exceptions import UsageError
from sapper.build import DEFAULT_ENVS_MAX_SIZE, Builder
from sapper.build._env import EnvironmentCache, Wheelhouse

A = ["setuptools==84.2.1"]
B = ["setuptools==82.0.0"]
C = ["setuptools==81.0.0"]


@pytest.fixture(scope="module")
def wheelhouse() -> Wheelhouse:
    house = Builder(cache_dir=BUILD_CACHE).wheelhouse
    for requirements in (A, B, C):
        house.fetch(requirements)  # from PyPI once; then a marker says they are there
    return Wheelhouse(house.path, online=False)


def cache(tmp_path: Path, wheelhouse: Wheelhouse, max_size: int | None) -> EnvironmentCache:
    return EnvironmentCache(tmp_path / "envs", wheelhouse, max_size=max_size)


def own_bytes(env: Path) -> int:
    """Blocks of the directories and of the files no other link shares, as a reader of the
    tree would count what removing it frees (sapper's own marker files aside)."""
    total = 0
    for base, dirs, files in os.walk(env):
        for name in dirs + [f for f in files if not f.startswith(".sapper-")]:
            st = Path(base, name).lstat()
            if stat.S_ISDIR(st.st_mode) or st.st_nlink == 1:
                total += st.st_blocks * 512
    return total + env.stat().st_blocks * 512


def recorded(env: Path) -> int:
    return int((env / ".sapper-size").read_text())


def envs(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}


def test_environments_link_uv_cache_and_record_their_own_size(tmp_path, wheelhouse) -> None:
    c = cache(tmp_path, wheelhouse, None)
    env = c.get(A)
    module = next(env.glob("lib/python*/site-packages/setuptools/__init__.py"))
    linked = module.stat()
    assert linked.st_nlink > 1  # hard-linked, not copied
    in_uv_cache = [
        p
        for p in (tmp_path / "uv-cache").rglob("setuptools/__init__.py")
        if p.stat().st_ino == linked.st_ino
    ]
    assert in_uv_cache
    assert recorded(env) == own_bytes(env)
    everything = sum(p.lstat().st_blocks * 512 for p in env.rglob("*"))
    assert recorded(env) < everything * 0.75  # what a copy would hold is far more


def test_the_least_recently_used_go_first(tmp_path, wheelhouse) -> None:
    c = cache(tmp_path, wheelhouse, None)
    made = {tuple(r): c.get(r) for r in (A, B, C)}
    for when, requirements in ((1000, B), (2000, C), (3000, A)):
        os.utime(made[tuple(requirements)] / ".sapper-used", (when, when))
    with c.use(B):  # used now: the most recent
        pass
    a, b, cc = (made[tuple(r)] for r in (A, B, C))
    c.max_size = recorded(b) + recorded(a)
    size_c = recorded(cc)
    done = c.trim()
    assert envs(c.path) == {a.name, b.name}  # C, the least recently used
    assert (done.removed, done.removed_bytes) == (1, size_c)
    c.max_size = recorded(b)
    c.trim()
    assert envs(c.path) == {b.name}
    # what is left stays usable, and what went is made again when asked for
    assert c.get(B) == b
    assert (c.get(A) / ".sapper-ready").exists()


HOLD = """
import sys
from pathlib import Path
from sapper.build._env import EnvironmentCache, Wheelhouse

cache = EnvironmentCache(Path(sys.argv[1]), Wheelhouse(Path(sys.argv[2])), max_size=None)
with cache.use(sys.argv[3:]) as env:
    print(env.name, flush=True)
    sys.stdin.read()
"""


def test_an_environment_a_build_holds_is_never_evicted(tmp_path, wheelhouse) -> None:
    c = cache(tmp_path, wheelhouse, None)
    other = c.get(B)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(c.path), str(wheelhouse.path), *A],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        held = holder.stdout.readline().strip()
        assert held == c.get(A).name
        c.max_size = 0
        done = c.trim()
        assert envs(c.path) == {held}  # the other one went, the held one stayed
        assert not other.exists()
        assert done.kept_bytes == recorded(c.path / held) > 0
        # a new environment evicts, at creation, all it may: the held one stays
        made = c.get(C)
        assert envs(c.path) == {held, made.name}
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0
    c.trim()
    assert envs(c.path) == set()  # let go: evicted


def test_making_an_environment_evicts_above_the_bound(tmp_path, wheelhouse) -> None:
    c = cache(tmp_path, wheelhouse, None)
    first = c.get(A)
    c.max_size = recorded(first) + 1  # room for one
    second = c.get(B)
    assert envs(c.path) == {second.name}
    assert not (c.path / f"{first.name}.use").exists()  # its lock files went with it


LOCK = """
import fcntl, sys
with open(sys.argv[1], "a") as handle:
    fcntl.flock(handle, fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.read()
"""


@pytest.mark.parametrize("creating", [False, True])
def test_a_half_made_environment_is_removed_unless_being_made(
    tmp_path, wheelhouse, creating
) -> None:
    c = cache(tmp_path, wheelhouse, None)
    kept = c.get(B)
    key = c._key(A)
    half = c.path / key
    (half / "lib").mkdir(parents=True)  # what a killed creator left: no ready marker
    (half / "lib" / "partial.py").write_text("x = 1\n")
    (c.path / f"{key}.lock").touch()
    creator = None
    if creating:  # a process making it (an older sapper holds only KEY.lock)
        creator = subprocess.Popen(
            [sys.executable, "-c", LOCK, str(c.path / f"{key}.lock")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert creator.stdout is not None
        assert creator.stdout.readline().strip() == "locked"
    try:
        done = c.trim()
    finally:
        if creator is not None:
            assert creator.stdin is not None
            creator.stdin.close()
            creator.wait(timeout=60)
    assert half.exists() is creating
    assert done.removed == (0 if creating else 1)
    assert kept.exists()
    if not creating:
        assert not (c.path / f"{key}.lock").exists()
        assert (c.get(A) / ".sapper-ready").exists()  # made anew when asked for


# ----------------------------------------------------------------- where the bound comes from


def test_the_bound_of_the_library(monkeypatch) -> None:
    monkeypatch.delenv("SAPPER_BUILD_ENVS_MAX_SIZE", raising=False)
    assert DEFAULT_ENVS_MAX_SIZE == 10 * 1024**3
    assert Builder().environments.max_size == DEFAULT_ENVS_MAX_SIZE
    assert Builder(envs_max_size=123).environments.max_size == 123
    monkeypatch.setenv("SAPPER_BUILD_ENVS_MAX_SIZE", "300M")
    assert Builder().environments.max_size == 300_000_000
    assert Builder(envs_max_size=5).environments.max_size == 5  # an option wins
    monkeypatch.setenv("SAPPER_BUILD_ENVS_MAX_SIZE", "lots")
    with pytest.raises(UsageError, match=r"\$SAPPER_BUILD_ENVS_MAX_SIZE: 'lots' is not a size"):
        Builder()


class _Captured(Exception):
    pass


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["canary", "--top", "1", "--baseline", "81.0.0", "--candidate", "82.0.0"], None),
        (
            [
                "canary",
                "--top",
                "1",
                "--baseline",
                "81.0.0",
                "--candidate",
                "82.0.0",
                "--build-envs-max-size",
                "300M",
            ],
            300_000_000,
        ),
        (["canary", "bisect", "x.tar.gz", "--good", "1", "--bad", "2"], None),
        (
            [
                "canary",
                "bisect",
                "x.tar.gz",
                "--good",
                "1",
                "--bad",
                "2",
                "--build-envs-max-size",
                "2GiB",
            ],
            2 * 1024**3,
        ),
        (["wheelhouse", "requirements.txt", "-o", "out", "--build-envs-max-size", "1G"], 10**9),
        (["audit", "requirements.txt", "--verify", "--build-envs-max-size", "1.5G"], 1.5e9),
    ],
)
def test_the_option_reaches_the_builder(monkeypatch, tmp_path, argv, expected) -> None:
    from sapper import build
    from sapper.canary import engine
    from sapper.cli import audit, main, wheelhouse  # imported before anything is patched

    assert wheelhouse.run_audit is audit.run_audit
    seen: list[int | None] = []

    class Recording(Builder):
        def __init__(self, **kwargs: object) -> None:
            seen.append(kwargs.get("envs_max_size"))  # type: ignore[arg-type]
            raise _Captured

    monkeypatch.setattr(build, "Builder", Recording)
    monkeypatch.setattr(engine, "Builder", Recording)
    if argv[0] == "audit":  # its report is not needed to reach the builds
        monkeypatch.setattr(audit, "run_audit", lambda *args, **kwargs: None)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "requirements.txt").write_text("")
    with pytest.raises(_Captured):
        main(argv)
    assert seen == [expected]


def test_a_bad_bound_is_a_usage_error(capsys) -> None:
    from sapper.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["canary", "--top", "1", "--build-envs-max-size", "big"])
    assert exit_info.value.code == 2
    assert "'big' is not a size" in capsys.readouterr().err


# ----------------------------------------------------------------- immutable under links

TAMPER = """
import os
import setuptools
from setuptools import setup

target = setuptools.__file__
errors = []
for what, act in (
    ("write", lambda: open(target, "a").write("# changed by a build\\n")),
    ("chmod", lambda: os.chmod(target, 0o777)),
    ("utime", lambda: os.utime(target, (0, 0))),
    ("unlink", lambda: os.unlink(target)),
):
    try:
        act()
    except OSError as exc:
        errors.append(f"{what}: {exc.strerror}")
    else:
        errors.append(f"{what}: done")
raise SystemExit("; ".join(errors))
"""


def test_a_linked_environment_is_read_only_to_the_build(tmp_path, wheelhouse) -> None:
    require_sandbox()
    wheel = next(wheelhouse.path.glob("setuptools-84.2.1-*.whl"))
    house = tmp_path / "cache" / "build" / "wheelhouse"
    house.mkdir(parents=True)
    (house / wheel.name).write_bytes(wheel.read_bytes())
    tree = tmp_path / "tamper"
    tree.mkdir()
    (tree / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    (tree / "setup.py").write_text(TAMPER)
    builder = Builder(cache_dir=tmp_path / "cache", envs_max_size=None)
    env = builder.environment(A)
    module = next(env.glob("lib/python*/site-packages/setuptools/__init__.py"))
    before = module.stat()
    assert before.st_nlink > 1  # shared with uv's cache
    result = builder.build(tree, override=A)
    # every attempt refused (writing: by the mode first when the build runs as another
    # user than the owner), so the build fails as one the sandbox stopped
    assert result.outcome == "spurious", result.log_tail
    assert result.spurious_reason == "sandbox"
    assert re.fullmatch(
        r"write: (Permission denied|Read-only file system); chmod: Read-only file system; "
        r"utime: Read-only file system; unlink: Read-only file system",
        result.message or "",
    )
    after = module.stat()
    assert (after.st_ino, after.st_nlink, after.st_mode, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_nlink,
        before.st_mode,
        before.st_mtime_ns,
        before.st_size,
    )
    with zipfile.ZipFile(wheel) as archive:
        original = archive.read("setuptools/__init__.py")
    assert hashlib.sha256(module.read_bytes()).digest() == hashlib.sha256(original).digest()
