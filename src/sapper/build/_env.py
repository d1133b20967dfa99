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
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from .._exceptions import BuildError

__all__ = ["EnvironmentCache", "Wheelhouse", "uv_binary"]

_READY = ".sapper-ready"


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
    from a :class:`Wheelhouse`."""

    def __init__(self, path: Path, wheelhouse: Wheelhouse, *, python: str | None = None) -> None:
        self.path = path
        self.wheelhouse = wheelhouse
        self.python = python or sys.executable

    def _key(self, requirements: Sequence[str], *, resolved: bool = False) -> str:
        # v2: environments carry compiled bytecode (the sandbox cannot write it, and without
        # it every hook pays for compiling setuptools again: about twice the start-up).
        # v3: keyed by the interpreter's real file, not the name it was reached by (`sapper`
        # runs .venv/bin/python3, `python -m sapper` .venv/bin/python: one environment)
        # resolved: made after the set was resolved against the index (a set with a range)
        mark = "|resolved" if resolved else ""
        return requirement_key(requirements, salt=f"v3{mark}|{_interpreter_id(self.python)}")

    def get(self, requirements: Sequence[str], *, resolved: bool = False) -> Path:
        """The environment directory with exactly ``requirements`` installed (and their
        dependencies), creating it when needed. Its interpreter is ``ENV/bin/python``.
        ``resolved``: the set was resolved against the index first (it has a range), and
        its environment is kept apart from one made from the wheelhouse alone.

        :raises BuildError: when uv cannot install them from the wheelhouse.
        """
        key = self._key(requirements, resolved=resolved)
        env = self.path / key
        if (env / _READY).exists():
            return env
        with _locked(self.path / f"{key}.lock"):
            if (env / _READY).exists():
                return env
            shutil.rmtree(env, ignore_errors=True)
            uv = uv_binary()
            cache = self.path.parent / "uv-cache"
            base = [
                "--no-config",
                "--quiet",
                "--cache-dir",
                str(cache),
            ]
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
                        "copy",
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
            (env / _READY).write_text("\n".join(requirements) + "\n", encoding="utf-8")
            _make_readable(env)
        return env


def _interpreter_id(python: str) -> str:
    real = os.path.realpath(python)
    try:
        stat = Path(real).stat()
    except OSError:
        return real
    return f"{real}:{stat.st_size}:{int(stat.st_mtime)}"


def _make_readable(root: Path) -> None:
    """Let any user read (and enter) the environment: builds run as an unprivileged user."""
    for base, dirs, files in os.walk(root):
        for name in dirs:
            p = Path(base) / name
            with contextlib.suppress(OSError):
                p.chmod(p.stat().st_mode | 0o555)
        for name in files:
            p = Path(base) / name
            with contextlib.suppress(OSError):
                if not p.is_symlink():
                    p.chmod(p.stat().st_mode | 0o444)
    with contextlib.suppress(OSError):
        root.chmod(root.stat().st_mode | 0o555)


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
