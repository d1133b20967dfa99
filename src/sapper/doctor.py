"""What this machine allows sapper to do: ``sapper doctor``.

:func:`doctor` answers, without building anything:

* **sandbox** — whether bubblewrap starts a sandbox as the builds start it and, when not,
  the cause found on this machine and its fix (:func:`sapper.build.diagnose_sandbox`);
* **build cache** — where the build environments and the wheelhouse of build requirements
  live (``CACHE/build``), how many environments, and their size;
* **index** — whether the configured index answers a ``HEAD`` request within a timeout
  (offline is a finding, never an exception);
* **installers** — the pip of sapper's interpreter (and the ``pip`` on ``PATH`` when it is
  another one) and uv: their versions and whether each has ``--build-constraint``, read from
  the real tool's ``install --help`` (pip has it from 25.3; ``sapper audit --emit pip``
  writes a file for it).

The sandbox and the index are *problems* when they fail (canary and wheelhouse cannot run
without them); a pip without ``--build-constraint`` or a missing uv are *notes*.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .build._sandbox import SandboxDiagnosis, diagnose_sandbox

__all__ = [
    "BuildCache",
    "DoctorReport",
    "IndexCheck",
    "Installer",
    "build_cache",
    "check_index",
    "doctor",
    "installer",
]

#: Seconds the index check waits for an answer.
INDEX_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildCache:
    """The build environments' cache (``CACHE/build``)."""

    location: Path
    exists: bool
    #: Build environments (``build/envs/*``), each one requirement set for one interpreter.
    environments: int = 0
    #: Wheels in the wheelhouse of build requirements (``build/wheelhouse``).
    wheels: int = 0
    #: Bytes of every file under ``build/``.
    bytes: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexCheck:
    """Whether the package index answered."""

    url: str
    reachable: bool
    #: The HTTP status of the answer (None: no answer, or a file:// index).
    status: int | None = None
    #: Why it is not reachable (the network error, the HTTP status, the missing folder).
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Installer:
    """One installer: where, which version, and whether it takes ``--build-constraint``."""

    name: str
    #: The command that runs it (``PYTHON -m pip``, a ``uv`` path); empty when not found.
    command: tuple[str, ...] = ()
    version: str | None = None
    #: Whether ``install --help`` lists ``--build-constraint`` (None: could not run it).
    build_constraint: bool | None = None
    error: str | None = None

    @property
    def found(self) -> bool:
        return self.version is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class DoctorReport:
    """Everything :func:`doctor` found."""

    sandbox: SandboxDiagnosis
    cache: BuildCache
    index: IndexCheck
    installers: tuple[Installer, ...] = field(default_factory=tuple)

    @property
    def problems(self) -> list[str]:
        """What stops sapper's builds or downloads here (an empty list: nothing)."""
        out = []
        if not self.sandbox.works:
            out.append(f"no sandbox: {self.sandbox.reason}")
        if not self.index.reachable:
            out.append(f"index {self.index.url} not reachable: {self.index.error}")
        return out

    @property
    def notes(self) -> list[str]:
        """What limits some uses only (pip without ``--build-constraint``, no uv)."""
        out = []
        for tool in self.installers:
            if not tool.found:
                out.append(f"{tool.name}: not found ({tool.error})")
            elif tool.name.startswith("pip") and tool.build_constraint is False:
                out.append(
                    f"{tool.name} {tool.version} has no --build-constraint (pip >= 25.3 has it): "
                    "the file `sapper audit --emit pip` writes needs a newer pip "
                    "(python -m pip install -U 'pip>=25.3')"
                )
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``sapper doctor --format json`` (``schema`` ``sapper.doctor/1``)."""
        s = self.sandbox
        return {
            "schema": "sapper.doctor/1",
            "ok": not self.problems,
            "problems": self.problems,
            "notes": self.notes,
            "sandbox": {
                "works": s.works,
                "cause": s.cause,
                "bwrap": s.bwrap,
                "reason": s.reason,
                "output": s.output,
                "remedies": [{"title": r.title, "commands": list(r.commands)} for r in s.remedies],
            },
            "build_cache": {
                "location": str(self.cache.location),
                "exists": self.cache.exists,
                "environments": self.cache.environments,
                "wheels": self.cache.wheels,
                "bytes": self.cache.bytes,
            },
            "index": {
                "url": self.index.url,
                "reachable": self.index.reachable,
                "status": self.index.status,
                "error": self.index.error,
            },
            "installers": [
                {
                    "name": t.name,
                    "command": list(t.command),
                    "version": t.version,
                    "build_constraint": t.build_constraint,
                    "error": t.error,
                }
                for t in self.installers
            ],
        }


def build_cache(cache_dir: Path) -> BuildCache:
    """Count the build environments and wheels under ``cache_dir/build`` and their bytes."""
    root = cache_dir / "build"
    if not root.is_dir():
        return BuildCache(location=root, exists=False)
    envs = root / "envs"
    environments = (
        sum(1 for p in envs.iterdir() if p.is_dir() and not p.name.startswith("."))
        if envs.is_dir()
        else 0
    )
    wheelhouse = root / "wheelhouse"
    wheels = len(list(wheelhouse.glob("*.whl"))) if wheelhouse.is_dir() else 0
    size = 0
    seen: set[tuple[int, int]] = set()  # environments hard-link uv's cache: count once
    for folder, _dirs, files in os.walk(root):
        for name in files:
            try:
                st = (Path(folder) / name).lstat()
            except OSError:  # pragma: no cover - removed while walking
                continue
            if st.st_nlink > 1:
                if (st.st_dev, st.st_ino) in seen:
                    continue
                seen.add((st.st_dev, st.st_ino))
            size += st.st_size
    return BuildCache(
        location=root, exists=True, environments=environments, wheels=wheels, bytes=size
    )


def check_index(url: str, *, timeout: float = INDEX_TIMEOUT) -> IndexCheck:
    """Ask ``url`` for its headers (``HEAD``, then ``GET`` when HEAD is refused), waiting at
    most ``timeout`` seconds; a ``file://`` index is a folder that must exist."""
    import http.client
    import urllib.error
    import urllib.request
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    if parts.scheme == "file":
        folder = Path(unquote(parts.path))
        if folder.is_dir():
            return IndexCheck(url=url, reachable=True)
        return IndexCheck(url=url, reachable=False, error=f"no such folder: {folder}")
    if parts.scheme not in ("http", "https"):
        return IndexCheck(url=url, reachable=False, error="not an http(s) or file URL")
    target = url.rstrip("/") + "/"
    opener = urllib.request.build_opener()
    status: int | None = None
    for method in ("HEAD", "GET"):
        # GET only when HEAD is refused; the body is never read (closing drops it)
        request = urllib.request.Request(target, method=method)
        try:
            with opener.open(request, timeout=timeout) as response:
                status = int(response.status)
        except urllib.error.HTTPError as exc:
            status = exc.code
            if method == "HEAD" and exc.code in (405, 501):
                continue
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            return IndexCheck(url=url, reachable=False, error=str(reason) or type(reason).__name__)
        break
    if status is not None and status < 400:
        return IndexCheck(url=url, reachable=True, status=status)
    return IndexCheck(url=url, reachable=False, status=status, error=f"HTTP {status}")


def installer(name: str, command: Sequence[str], *, timeout: float = 60.0) -> Installer:
    """Run ``COMMAND --version`` and ``COMMAND install --help`` (``uv``: ``uv pip install
    --help``) and read the version and whether ``--build-constraint`` is offered."""
    base = tuple(command)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *args], capture_output=True, text=True, timeout=timeout, check=False
        )

    try:
        done = run("--version")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Installer(name=name, command=base, error=str(exc))
    words = done.stdout.split()
    if done.returncode != 0 or len(words) < 2:
        detail = (done.stderr or done.stdout).strip().splitlines()
        return Installer(name=name, command=base, error=detail[-1] if detail else "no version")
    version = words[1]
    install = ("pip", "install", "--help") if name == "uv" else ("install", "--help")
    try:
        helped = run(*install)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Installer(name=name, command=base, version=version, error=str(exc))
    has = "--build-constraint" in helped.stdout if helped.returncode == 0 else None
    return Installer(name=name, command=base, version=version, build_constraint=has)


def _uv() -> str | None:
    try:
        from uv import find_uv_bin
    except ImportError:  # pragma: no cover - uv is a dependency
        return shutil.which("uv")
    try:
        return str(find_uv_bin())
    except FileNotFoundError:  # pragma: no cover - a broken uv install
        return shutil.which("uv")


def _installers(python: str, path: str | None) -> tuple[Installer, ...]:
    tools = [installer("pip", (python, "-m", "pip"))]
    on_path = shutil.which("pip", path=path)
    # in the interpreter's folder: the same pip (not resolved: a venv's python is a link to
    # the system's, its pip is not)
    if on_path is not None and Path(on_path).absolute().parent != Path(python).absolute().parent:
        tools.append(installer("pip on PATH", (on_path,)))
    uv = _uv() if path is None else shutil.which("uv", path=path)
    tools.append(installer("uv", (uv,)) if uv else Installer(name="uv", error="no uv executable"))
    return tuple(tools)


def doctor(
    *,
    cache_dir: Path | None = None,
    index_url: str | None = None,
    python: str | None = None,
    index_timeout: float = INDEX_TIMEOUT,
    root: Path = Path("/"),
    path: str | None = None,
    euid: int | None = None,
) -> DoctorReport:
    """Check the sandbox, the build cache, the index and the installers.

    ``cache_dir`` defaults to sapper's cache; ``index_url`` to ``$SAPPER_INDEX_URL``, then
    PyPI; ``python`` (whose ``-m pip`` is checked) to sapper's interpreter. ``root``,
    ``path`` and ``euid`` are passed to :func:`~sapper.build.diagnose_sandbox` (``path``
    also finds ``pip`` and ``uv``): tests fake a machine with them.
    """
    from .pypi import DEFAULT_INDEX_URL, default_cache_dir

    cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
    url = index_url or os.environ.get("SAPPER_INDEX_URL") or DEFAULT_INDEX_URL
    return DoctorReport(
        sandbox=diagnose_sandbox(root=root, path=path, euid=euid),
        cache=build_cache(cache_dir),
        index=check_index(url, timeout=index_timeout),
        installers=_installers(python or sys.executable, path),
    )
