"""Run one command inside bubblewrap with resource caps, a timeout and a scrubbed environment.

The sandbox sees a read-only system (``/usr`` and the few files of ``/etc`` a dynamic
loader, a compiler and Python need), read-only bindings of what the caller names (the build
environment, the interpreter it links to, sapper's capture module), and one writable
directory per build. Network, IPC, PID and UTS namespaces are unshared; the user namespace
too when sapper runs as an ordinary user. When sapper runs as root, bubblewrap runs without a
user namespace and the command drops to uid/gid 65534 (``nobody``) through ``setpriv``: the
kernel exempts uid 0 from the process cap, and a build should never run as root anyway.

Caps (``setrlimit`` before ``exec``, inherited by every process of the build): address space,
CPU time, file size, processes, no core files. The wall-clock timeout kills bubblewrap's
whole process group; ``--die-with-parent`` and the PID namespace take every process of the
build with it.

When bubblewrap cannot start, :func:`diagnose_sandbox` names the cause it finds on the
machine (AppArmor's restriction of unprivileged user namespaces, ``max_user_namespaces`` = 0,
Debian's ``unprivileged_userns_clone`` = 0, a container's profile, a kernel without user
namespaces, no bubblewrap) from bubblewrap's message and the settings under ``/proc``, and the
fix for that cause with the exact commands; :func:`check_sandbox` raises it as the error.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._exceptions import SandboxError
from ._diagnosis import (
    Remedy,
    SandboxCause,
    SandboxDiagnosis,
    _classify,
    _install_commands,
    _machine,
)

__all__ = [
    "LOG_NAME",
    "Limits",
    "Remedy",
    "SandboxCause",
    "SandboxDiagnosis",
    "SandboxRun",
    "check_sandbox",
    "diagnose_sandbox",
    "give_to_builder",
    "kill_group",
    "limits_hook",
    "log_tail",
    "run_sandboxed",
    "sandbox_argv",
    "signal_name",
]

GiB = 1024**3
NOBODY = 65534
#: The file in a work directory that :func:`run_sandboxed` appends the output to by default.
LOG_NAME = ".sapper-log"

#: Files of /etc a build may need (dynamic loader cache, user names, alternatives symlinks).
_ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/mime.types",
)
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Caps for one sandboxed hook.

    ``timeout`` is wall-clock seconds; ``memory`` bytes of address space per process;
    ``cpu_seconds`` CPU time per process (default: the timeout); ``file_size`` the largest
    file a build may write; ``processes`` the processes (and threads) of the build user.
    """

    timeout: float = 300.0
    memory: int = 4 * GiB
    cpu_seconds: int | None = None
    file_size: int = 2 * GiB
    processes: int = 512


@dataclass(frozen=True, slots=True, kw_only=True)
class SandboxRun:
    """How a sandboxed command ended."""

    returncode: int
    timed_out: bool
    seconds: float
    #: The last bytes of its combined stdout and stderr.
    output: str
    #: The signal that ended it, when a signal did (``SIGXCPU``, ``SIGKILL``...).
    signal_name: str | None = None


def _bwrap() -> str | None:
    return shutil.which("bwrap") or ("/usr/bin/bwrap" if Path("/usr/bin/bwrap").exists() else None)


@functools.cache
def check_sandbox() -> str:
    """The bubblewrap executable, after checking that it can start a sandbox here.

    :raises SandboxError: when bubblewrap is missing or cannot create the namespaces; the
        message names the cause found on this machine and its fix (see
        :func:`diagnose_sandbox`).
    """
    found = diagnose_sandbox()
    if not found.works or found.bwrap is None:
        raise SandboxError(found.message())
    return found.bwrap


def diagnose_sandbox(
    *,
    root: Path = Path("/"),
    path: str | None = None,
    euid: int | None = None,
    platform: str | None = None,
) -> SandboxDiagnosis:
    """Try to start bubblewrap as the builds do and, when it fails, name the cause.

    ``root`` is where ``/proc``, ``/etc/os-release`` and the container marks are read
    (tests pass a fake tree); ``path`` the ``PATH`` bubblewrap is looked up on (default:
    the process's, then ``/usr/bin/bwrap``); ``euid`` and ``platform`` default to the
    process's. Never raises for a machine that cannot sandbox: that is the answer.
    """
    import sys

    platform = platform or sys.platform
    euid = os.geteuid() if euid is None else euid
    bwrap = _bwrap() if path is None else shutil.which("bwrap", path=path)
    if not platform.startswith("linux"):
        return SandboxDiagnosis(
            works=False,
            cause="no-bwrap",
            bwrap=None,
            reason=f"bubblewrap runs on Linux only, and this is {platform}",
            remedies=(
                Remedy(
                    title="run sapper in a Linux virtual machine, a Linux container started as "
                    "docs/ci.md shows, or on a Linux CI runner",
                ),
            ),
        )
    machine = _machine(root)
    if bwrap is None:
        return SandboxDiagnosis(
            works=False,
            cause="no-bwrap",
            bwrap=None,
            reason="no bwrap on PATH" + (f" ({path})" if path is not None else ""),
            remedies=(Remedy(title="install bubblewrap", commands=_install_commands(machine)),),
        )
    argv = [*_base_argv(bwrap, Path("/"), ()), "/bin/true"]
    if euid == 0:
        argv = [*argv[:-1], *_drop_root(), "/bin/true"]
    env = None if path is None else {**os.environ, "PATH": path}
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        output = str(exc)
    else:
        if done.returncode == 0:
            return SandboxDiagnosis(
                works=True, cause="ok", bwrap=bwrap, reason="bubblewrap started a sandbox"
            )
        output = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
    cause, reason, remedies = _classify(output, machine, euid=euid, bwrap=bwrap)
    return SandboxDiagnosis(
        works=False, cause=cause, bwrap=bwrap, reason=reason, output=output, remedies=remedies
    )


def _drop_root() -> list[str]:
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [
        setpriv,
        f"--reuid={NOBODY}",
        f"--regid={NOBODY}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


#: Files of /etc a command with the network needs (name resolution, certificates).
_ETC_NETWORK = ("/etc/resolv.conf", "/etc/hosts", "/etc/ssl", "/etc/ca-certificates")


def _base_argv(
    bwrap: str, workdir: Path, readonly: Sequence[Path], *, network: bool = False
) -> list[str]:
    argv = [bwrap, "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        argv += [] if network else ["--unshare-net"]
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    else:
        argv += ["--unshare-all", "--cap-drop", "ALL"]
        argv += ["--share-net"] if network else []
    for path in _SYSTEM:
        p = Path(path)
        if p.is_symlink():
            argv += ["--symlink", str(p.readlink()), path]
        elif p.is_dir():
            argv += ["--ro-bind", path, path]
    made: set[str] = set()
    argv += _parents("/etc/x", made)
    for path in _ETC:
        if Path(path).exists():
            argv += ["--ro-bind", path, path]
    for path in _ETC_NETWORK if network else ():
        if Path(path).exists():
            argv += ["--ro-bind", os.path.realpath(path), path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    # POSIX semaphores and shared memory (multiprocessing's locks, so any process pool:
    # scipy 1.7 cythonizes with one) live in /dev/shm, writable by every user as on the
    # host; bubblewrap's --dev leaves it a root directory the unprivileged build cannot
    # write. A private tmpfs, like /tmp: the host's /dev/shm stays out of reach.
    argv += ["--perms", "1777", "--tmpfs", "/dev/shm"]
    argv += ["--perms", "0755", "--tmpfs", "/run"]
    made.update(("/tmp", "/run", "/dev/shm"))
    for entry in readonly:
        text = str(entry)
        argv += [*_parents(text, made), "--ro-bind", text, text]
    if str(workdir) != "/":
        argv += [*_parents(str(workdir), made), "--bind", str(workdir), str(workdir)]
    argv += ["--hostname", "sapper-build"]
    return argv


def _parents(path: str, made: set[str]) -> list[str]:
    """``--dir`` options creating the missing parents of ``path`` as 0755 directories
    (bubblewrap would make them 0700, closed to the unprivileged build user)."""
    out: list[str] = []
    parents = [str(p) for p in reversed(Path(path).parents) if str(p) != "/"]
    for parent in parents:
        if parent in made or parent.startswith(_SYSTEM):
            continue
        made.add(parent)
        out += ["--perms", "0755", "--dir", parent]
    return out


def _limits_hook(limits: Limits) -> None:
    import resource

    cpu = limits.cpu_seconds or max(1, int(limits.timeout))
    for name, value in (
        ("RLIMIT_AS", limits.memory),
        ("RLIMIT_CPU", cpu),
        ("RLIMIT_FSIZE", limits.file_size),
        ("RLIMIT_NPROC", limits.processes),
        ("RLIMIT_CORE", 0),
    ):
        kind = getattr(resource, name, None)
        if kind is None:  # pragma: no cover - Linux has them all
            continue
        try:
            _, hard = resource.getrlimit(kind)
            soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (soft, soft))
        except (ValueError, OSError):  # pragma: no cover - a hard cap already lower
            pass


def _tail(path: Path, limit: int) -> str:
    try:
        with path.open("rb") as stream:
            stream.seek(0, os.SEEK_END)
            size = stream.tell()
            stream.seek(max(0, size - limit))
            data = stream.read()
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def sandbox_argv(
    argv: Sequence[str],
    *,
    cwd: Path,
    workdir: Path,
    env: Mapping[str, str],
    readonly: Sequence[Path] = (),
    writable: Sequence[Path] = (),
    sandbox: bool = True,
    network: bool = False,
) -> list[str]:
    """The command line that runs ``argv`` confined as :func:`run_sandboxed` describes
    (``argv`` itself with ``sandbox=False``). As root, this also hands ``workdir`` and
    ``writable`` to the unprivileged build user. ``network`` keeps the host's network
    (and the files of /etc that name resolution and certificates need): only for a
    command that must reach an index, such as pip's resolver.

    :raises SandboxError: when the sandbox is asked for and not available.
    """
    full = list(argv)
    if not sandbox:
        return full
    bwrap = check_sandbox()
    prefix = _base_argv(bwrap, workdir, readonly, network=network)
    for path in writable:
        prefix += ["--bind", str(path), str(path)]
    prefix += ["--chdir", str(cwd), "--clearenv"]
    for key, value in env.items():
        prefix += ["--setenv", key, value]
    if os.geteuid() == 0:
        prefix += ["--", *_drop_root()]
        give_to_builder([workdir, *writable])
    else:
        prefix += ["--"]
    return [*prefix, *full]


def limits_hook(limits: Limits) -> functools.partial[None]:
    """A ``preexec_fn`` applying ``limits`` to the process and all it starts."""
    return functools.partial(_limits_hook, limits)


def log_tail(path: Path, limit: int = 64 * 1024) -> str:
    """The last ``limit`` bytes of a log file, decoded ("" when it is missing)."""
    return _tail(path, limit)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group (the session) ``proc`` leads."""
    _kill_group(proc)


def signal_name(returncode: int, *, sandbox: bool) -> str | None:
    """The signal a return code says ended a process (bubblewrap's pid 1 reports a child
    killed by a signal as 128 + the signal)."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    if returncode > 128 and sandbox:
        try:
            return signal.Signals(returncode - 128).name
        except ValueError:
            return None
    return None


def run_sandboxed(
    argv: Sequence[str],
    *,
    cwd: Path,
    workdir: Path,
    env: Mapping[str, str],
    readonly: Sequence[Path] = (),
    writable: Sequence[Path] = (),
    limits: Limits | None = None,
    sandbox: bool = True,
    log: Path | None = None,
    output_limit: int = 64 * 1024,
    network: bool = False,
) -> SandboxRun:
    """Run ``argv`` in ``cwd`` with exactly ``env`` as its environment, confined.

    ``workdir`` (and each of ``writable``) is the only writable place; ``readonly`` paths
    are visible read-only at their own paths. The combined output goes to ``log`` (default
    ``workdir/.sapper-log``); its tail is returned. With ``sandbox=False`` the command runs
    unconfined (resource caps and timeout still apply). ``network``: see
    :func:`sandbox_argv`.

    :raises SandboxError: when the sandbox is asked for and not available.
    """
    limits = limits or Limits()
    log = log or workdir / LOG_NAME
    full = sandbox_argv(
        argv,
        cwd=cwd,
        workdir=workdir,
        env=env,
        readonly=readonly,
        writable=writable,
        sandbox=sandbox,
        network=network,
    )
    start = time.monotonic()
    timed_out = False
    with log.open("ab") as out:
        proc = subprocess.Popen(
            full,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=functools.partial(_limits_hook, limits),  # noqa: PLW1509
        )
        try:
            returncode = proc.wait(timeout=limits.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            returncode = proc.wait()
        finally:
            if proc.returncode is None:  # interrupted: never leave a build behind
                _kill_group(proc)
                proc.wait()
    _kill_group(proc)  # stragglers of an unsandboxed run that left the group alive
    seconds = time.monotonic() - start
    name = signal_name(returncode, sandbox=sandbox)
    return SandboxRun(
        returncode=returncode,
        timed_out=timed_out,
        seconds=seconds,
        output=_tail(log, output_limit),
        signal_name=name,
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def give_to_builder(paths: Sequence[Path]) -> None:
    """Hand the build's writable directories to uid 65534 when sapper runs as root (the
    sandbox drops to that user); a no-op otherwise."""
    if os.geteuid() != 0:
        return
    for top in paths:
        os.chown(top, NOBODY, NOBODY)
        for root, dirs, files in os.walk(top):
            for name in (*dirs, *files):
                with contextlib.suppress(OSError):
                    os.chown(Path(root) / name, NOBODY, NOBODY, follow_symlinks=False)
