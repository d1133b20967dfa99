"""The local wheelhouse (filled online) and build environments made from it offline with uv.

A build environment is created once per (interpreter, requirement set) under
``CACHE/build/envs/KEY`` and then only read: the sandbox binds it read-only, so no build can
change what the next one sees. Creation holds a file lock, so parallel workers (processes,
or builds on the same machine) create each environment once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from .._exceptions import BuildError, UsageError

__all__ = [
    "DEFAULT_ENVS_MAX_SIZE",
    "ENVS_MAX_SIZE_VARIABLE",
    "EnvironmentCache",
    "Trimmed",
    "Wheelhouse",
    "default_envs_max_size",
    "uv_binary",
]

#: Written last when an environment is made: without it, the directory is half made.
_READY = ".sapper-ready"
#: The bytes the environment holds of its own, measured when it was made.
_SIZE = ".sapper-size"
#: Touched at every use: the least recently used environments are evicted first.
_USED = ".sapper-used"
#: ``KEY.use``: held shared while an environment is used, exclusive while it is removed.
_USE = ".use"
_TRASH = ".trash-"
_KEY = re.compile(r"[0-9a-f]{24}")

#: The default bound of the build environments (docs/canary.md, "The build cache").
DEFAULT_ENVS_MAX_SIZE = 10 * 1024**3
#: The variable that sets the bound where no option does.
ENVS_MAX_SIZE_VARIABLE = "SAPPER_BUILD_ENVS_MAX_SIZE"


def default_envs_max_size() -> int:
    """``$SAPPER_BUILD_ENVS_MAX_SIZE`` (``"2 GB"``, ``"500M"``), else 10 GiB.

    :raises UsageError: for a value that is not a size.
    """
    text = os.environ.get(ENVS_MAX_SIZE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_ENVS_MAX_SIZE
    from ..config import parse_size

    try:
        return parse_size(text)
    except UsageError as exc:
        msg = f"${ENVS_MAX_SIZE_VARIABLE}: {exc}"
        raise UsageError(msg) from exc


def uv_binary() -> str:
    """The ``uv`` executable of the ``uv`` package (a sapper dependency), else on PATH."""
    try:
        import uv

        return str(uv.find_uv_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found:
            return found
    msg = "uv is not installed; install sapper with its dependencies (pip install uv)"
    raise BuildError(msg)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def requirement_key(requirements: Sequence[str], *, salt: str = "") -> str:
    """A stable key for a requirement set (order and duplicates ignored)."""
    text = json.dumps([salt, *sorted(set(requirements))])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


class Wheelhouse:
    """A directory of wheels for build requirements, filled online, read offline.

    :meth:`fetch` downloads the wheels a requirement set needs (with their dependencies,
    binary only: no code runs) with pip, which checks each file against the index's sha256;
    a set fetched once is remembered and not asked for again.
    """

    def __init__(self, path: Path, *, index_url: str | None = None, online: bool = True) -> None:
        self.path = path
        self.index_url = index_url
        self.online = online

    def fetched(self, requirements: Sequence[str]) -> bool:
        """Whether :meth:`fetch` already fetched exactly this set."""
        key = requirement_key(requirements, salt=self.index_url or "")
        return not requirements or (self.path / ".sets" / key).exists()

    def fetch(self, requirements: Sequence[str]) -> None:
        """Make sure the wheels of ``requirements`` are here.

        :raises BuildError: when they cannot be downloaded (no wheel, unknown project,
            offline), with pip's reason.
        """
        if not requirements:
            return
        key = requirement_key(requirements, salt=self.index_url or "")
        marker = self.path / ".sets" / key
        if marker.exists():
            return
        if not self.online:
            msg = (
                f"the wheels of {', '.join(requirements)} are not in the wheelhouse "
                f"{self.path}, and fetching is off; run once online to fill it"
            )
            raise BuildError(msg)
        # one fetch at a time per wheelhouse: two pips writing the same wheel into one
        # directory, or uv reading a half-written one, is never safe
        with _locked(self.path / ".sets" / ".lock"):
            if marker.exists():
                return
            argv = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--only-binary=:all:",
                "--dest",
                str(self.path),
                "--find-links",
                str(self.path),
                "--disable-pip-version-check",
                "--no-input",
                "--progress-bar",
                "off",
                "-q",
            ]
            if self.index_url:
                argv += ["--index-url", self.index_url]
            env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
            done = subprocess.run(
                [*argv, *requirements], capture_output=True, text=True, env=env, check=False
            )
            if done.returncode != 0:
                lines = [
                    line
                    for line in (done.stderr + done.stdout).splitlines()
                    if line.strip() and not line.startswith("WARNING: Location")
                ]
                msg = (
                    f"cannot fetch the build requirements {', '.join(requirements)} as wheels: "
                    + (_tail("\n".join(lines), 4) or f"pip exit {done.returncode}")
                )
                raise BuildError(msg)
            marker.write_text("\n".join(requirements) + "\n", encoding="utf-8")


class EnvironmentCache:
    """Build environments, one per (interpreter, requirement set), created with uv offline
    from a :class:`Wheelhouse`, at most ``max_size`` bytes of them (None: no bound).

    Each environment records, when it is created, the bytes it holds of its own (files
    linked from uv's cache are counted there, once) and its last use. After creating one,
    the least recently used environments are removed until the total fits the bound, never
    one a build holds (:meth:`use`) or a process is creating; environments left half
    created by a killed process are removed too. Several processes may share one cache.
    """

    def __init__(
        self,
        path: Path,
        wheelhouse: Wheelhouse,
        *,
        python: str | None = None,
        max_size: int | None = DEFAULT_ENVS_MAX_SIZE,
    ) -> None:
        self.path = path
        self.wheelhouse = wheelhouse
        self.python = python or sys.executable
        self.max_size = max_size

    def _key(self, requirements: Sequence[str], *, resolved: bool = False) -> str:
        # v2: environments carry compiled bytecode (the sandbox cannot write it, and without
        # it every hook pays for compiling setuptools again: about twice the start-up).
        # v3: keyed by the interpreter's real file, not the name it was reached by (`sapper`
        # runs .venv/bin/python3, `python -m sapper` .venv/bin/python: one environment)
        # resolved: made after the set was resolved against the index (a set with a range)
        # (hard links from uv's cache, since, change no file an environment holds: an
        # environment an older sapper copied is the same environment, and is reused)
        mark = "|resolved" if resolved else ""
        return requirement_key(requirements, salt=f"v3{mark}|{_interpreter_id(self.python)}")

    def get(self, requirements: Sequence[str], *, resolved: bool = False) -> Path:
        """The environment directory with exactly ``requirements`` installed (and their
        dependencies), creating it when needed. Its interpreter is ``ENV/bin/python``.
        ``resolved``: the set was resolved against the index first (it has a range), and
        its environment is kept apart from one made from the wheelhouse alone.

        Nothing holds the environment once this returns: another process may evict it.
        Hold it with :meth:`use` for as long as it is used.

        :raises BuildError: when uv cannot install them from the wheelhouse.
        """
        with self.use(requirements, resolved=resolved) as env:
            return env

    @contextlib.contextmanager
    def use(self, requirements: Sequence[str], *, resolved: bool = False) -> Iterator[Path]:
        """:meth:`get`, held for the ``with`` block: no process evicts the environment
        while it is held (a shared lock on ``KEY.use``), and its last use is now.

        :raises BuildError: when uv cannot install them from the wheelhouse.
        """
        key = self._key(requirements, resolved=resolved)
        env = self.path / key
        self.path.mkdir(parents=True, exist_ok=True)
        # Locks, always taken in this order: KEY.use shared (held while the environment
        # is used or created), then KEY.lock exclusive (one creator). An evictor takes
        # KEY.use exclusive and never waits for it (a busy environment is skipped), and
        # removes an environment only while it holds that lock.
        held = _flock(self.path / f"{key}{_USE}", shared=True)
        assert held is not None  # a blocking lock is always had
        try:
            if not (env / _READY).exists():
                created = False
                with _locked(self.path / f"{key}.lock"):
                    if not (env / _READY).exists():
                        self._create(env, requirements)
                        created = True
                if created:
                    with contextlib.suppress(OSError):  # a failed eviction fails no build
                        self.trim()
            _touch(env / _USED)
            yield env
        finally:
            os.close(held)

    def _create(self, env: Path, requirements: Sequence[str]) -> None:
        shutil.rmtree(env, ignore_errors=True)  # a half-made one: its creator was killed
        uv = uv_binary()
        cache = self.path.parent / "uv-cache"
        base = ["--no-config", "--quiet", "--cache-dir", str(cache)]
        venv = subprocess.run(
            [uv, "venv", *base, "--python", self.python, "--no-project", str(env)],
            capture_output=True,
            text=True,
            check=False,
        )
        if venv.returncode != 0:
            msg = f"uv could not create a build environment in {env}: {_tail(venv.stderr)}"
            raise BuildError(msg)
        if requirements:
            # Hard links to the wheels uv unpacked into its cache (uv copies where it
            # cannot link: another file system): the environment holds only what is its
            # own (bytecode, scripts, RECORD), half of a copy for setuptools alone. Safe
            # because no one writes a linked file in place: the sandbox binds the
            # environment read-only, uv replaces cache entries by renaming, compiling
            # writes new .pyc files, and cleaning uv's cache unlinks its names only.
            install = subprocess.run(
                [
                    uv,
                    "pip",
                    "install",
                    *base,
                    "--python",
                    str(env / "bin" / "python"),
                    "--offline",
                    "--no-index",
                    "--find-links",
                    str(self.wheelhouse.path),
                    "--compile-bytecode",
                    "--link-mode",
                    "hardlink",
                    *requirements,
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            if install.returncode != 0:
                shutil.rmtree(env, ignore_errors=True)
                msg = (
                    f"uv could not install {', '.join(requirements)} from the wheelhouse: "
                    f"{_tail(install.stderr, 6)}"
                )
                raise BuildError(msg)
        (env / _USED).write_bytes(b"")
        own = _make_readable(env)
        (env / _SIZE).write_text(f"{own}\n", encoding="utf-8")
        (env / _READY).write_text("\n".join(requirements) + "\n", encoding="utf-8")

    def trim(self) -> Trimmed:
        """Remove the environments left half created (no ready marker, no process making
        them), then the least recently used ones until the total fits ``max_size``; an
        environment a build holds is never removed (it stays over the bound instead)."""
        removed = removed_bytes = kept = 0
        if not self.path.is_dir():
            return Trimmed(0, 0, 0)
        with _locked(self.path / ".evict.lock"):
            ready: list[tuple[float, str, int]] = []
            for entry in os.scandir(self.path):
                if entry.name.startswith(_TRASH):  # left by a killed evictor
                    shutil.rmtree(entry.path, ignore_errors=True)
                elif not _KEY.fullmatch(entry.name) or not entry.is_dir(follow_symlinks=False):
                    continue
                elif (Path(entry.path) / _READY).exists():
                    env = Path(entry.path)
                    ready.append((_last_use(env), entry.name, _recorded_size(env)))
                elif self._remove(entry.name, ready=False):
                    removed += 1
            total = sum(size for _, _, size in ready)
            for _, key, size in sorted(ready):
                if self.max_size is None or total <= self.max_size:
                    break
                if self._remove(key, ready=True):
                    removed += 1
                    removed_bytes += size
                    total -= size
            kept = total
            gone = {  # lock files of environments no longer there
                key
                for key in (
                    p.name.removesuffix(_USE).removesuffix(".lock") for p in self.path.iterdir()
                )
                if _KEY.fullmatch(key) and not (self.path / key).exists()
            }
            for key in sorted(gone):
                self._remove(key, ready=False)
        return Trimmed(removed, removed_bytes, kept)

    def _remove(self, key: str, *, ready: bool) -> bool:
        """Remove the environment ``key`` (and its lock files) unless a process holds it
        (``KEY.use``: a build; ``KEY.lock``: a creator, also an older sapper's, which
        creates without ``KEY.use``), or it is no longer ``ready`` as it was seen (half
        made: ``ready=False``). Never waits for a lock."""
        held: list[int] = []
        env = self.path / key
        trash = self.path / f"{_TRASH}{key}-{os.getpid()}-{time.monotonic_ns()}"
        try:
            for suffix in (_USE, ".lock"):
                fd = _flock(self.path / f"{key}{suffix}", shared=False, blocking=False)
                if fd is None:
                    return False
                held.append(fd)
            if env.exists() and (env / _READY).exists() != ready:
                return False  # made (or removed) since it was seen
            with contextlib.suppress(FileNotFoundError):
                env.rename(trash)
            # unlinked while held: a process waiting for the old file finds it replaced
            # and opens the new one (see _flock)
            for suffix in (".lock", _USE):
                (self.path / f"{key}{suffix}").unlink(missing_ok=True)
        finally:
            for fd in held:
                os.close(fd)
        shutil.rmtree(trash, ignore_errors=True)
        return True


class Trimmed(NamedTuple):
    """What :meth:`EnvironmentCache.trim` did."""

    removed: int
    removed_bytes: int
    #: The recorded bytes of the environments left.
    kept_bytes: int


def _flock(path: Path, *, shared: bool, blocking: bool = True) -> int | None:
    """A descriptor of ``path`` holding a shared or exclusive ``flock`` on it (close it to
    release), None when ``blocking`` is off and another process holds a conflicting lock.
    The lock is on the file that is at ``path`` once it is held: a file an evictor
    unlinked meanwhile is let go and the new one locked instead."""
    import fcntl

    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    if not blocking:
        mode |= fcntl.LOCK_NB
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, mode)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        try:
            now = path.stat()
        except FileNotFoundError:
            now = None
        held = os.fstat(fd)
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):
        try:
            os.utime(path)
        except FileNotFoundError:  # made by an older sapper
            path.touch()


def _last_use(env: Path) -> float:
    for name in (_USED, _READY):
        with contextlib.suppress(OSError):
            return (env / name).stat().st_mtime
    return 0.0


def _recorded_size(env: Path) -> int:
    """The bytes ``env`` recorded when it was created; measured (once) for an environment
    an older sapper made."""
    with contextlib.suppress(OSError, ValueError):
        return int((env / _SIZE).read_text(encoding="utf-8"))
    own = _own_bytes(env)
    with contextlib.suppress(OSError):
        (env / _SIZE).write_text(f"{own}\n", encoding="utf-8")
    return own


def _interpreter_id(python: str) -> str:
    real = os.path.realpath(python)
    try:
        stat = Path(real).stat()
    except OSError:
        return real
    return f"{real}:{stat.st_size}:{int(stat.st_mtime)}"


def _make_readable(root: Path) -> int:
    """Let any user read (and enter) the environment: builds run as an unprivileged user.
    Returns the bytes the environment holds of its own (:func:`_own_bytes`).

    A mode is changed only where a bit is missing: a file linked from uv's cache shares its
    mode with the cache's copy (and with every environment linking it), which gains read
    bits at most, as it would in any environment made from it."""
    own = 0
    for base, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            p = Path(base) / name
            with contextlib.suppress(OSError):
                st = p.lstat()
                wanted = 0o555 if stat.S_ISDIR(st.st_mode) else 0o444
                if not stat.S_ISLNK(st.st_mode) and st.st_mode & wanted != wanted:
                    p.chmod(st.st_mode | wanted)
                own += _own(st)
    with contextlib.suppress(OSError):
        st = root.stat()
        if st.st_mode & 0o555 != 0o555:
            root.chmod(st.st_mode | 0o555)
        own += _own(st)
    return own


def _own(st: os.stat_result) -> int:
    # a file with other links (uv's cache, other environments) is not this one's own:
    # removing the environment frees nothing of it
    if stat.S_ISDIR(st.st_mode) or st.st_nlink == 1:
        return st.st_blocks * 512
    return 0


def _own_bytes(root: Path) -> int:
    """The bytes of disk the files and folders under ``root`` use that no other link
    shares: what removing the tree frees."""
    own = 0
    for base, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            with contextlib.suppress(OSError):
                own += _own((Path(base) / name).lstat())
    with contextlib.suppress(OSError):
        own += _own(root.stat())
    return own


def base_prefix(env: Path) -> Path | None:
    """The prefix of the interpreter the environment's ``bin/python`` links to."""
    try:
        text = (env / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home":
            home = Path(value.strip())
            return Path(os.path.realpath(home.parent if home.name == "bin" else home))
    return None


def all_pinned(requirements: Sequence[str]) -> bool:
    """Whether every requirement names one exact release (``name==1.2``, no wildcard)."""
    from packaging.requirements import InvalidRequirement, Requirement

    for text in requirements:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            return False
        specs = list(req.specifier)
        if req.url or not any(
            s.operator in {"==", "==="} and not s.version.endswith(".*") for s in specs
        ):
            return False
    return True


def is_installed(env_dir: Path, name: str) -> bool:
    """Whether the distribution ``name`` (canonical) is installed in the environment."""
    from packaging.utils import canonicalize_name

    if not name:
        return False
    for site in env_dir.glob("lib/python*/site-packages"):
        with contextlib.suppress(OSError):
            for entry in os.scandir(site):
                if entry.name.endswith(".dist-info"):
                    dist = entry.name.removesuffix(".dist-info").partition("-")[0]
                    if canonicalize_name(dist) == name:
                        return True
    return False
