"""Why bubblewrap cannot start here, and the fix: the machine as read under ``/proc``,
``/etc/os-release`` and the container marks (:class:`_Machine`), and the classification of
bubblewrap's message against it (:func:`_classify`) into a :class:`SandboxDiagnosis` with
:class:`Remedy` commands. :func:`sapper.build._sandbox.diagnose_sandbox` runs bubblewrap
and asks this module; nothing here starts a process.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["Remedy", "SandboxCause", "SandboxDiagnosis"]


#: What stops bubblewrap, as :func:`diagnose_sandbox` names it.
SandboxCause = Literal[
    "ok",
    "no-bwrap",
    "apparmor",
    "max-user-namespaces",
    "userns-clone",
    "container",
    "no-userns",
    "unknown",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Remedy:
    """One way out: what it does, and the exact commands."""

    title: str
    commands: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SandboxDiagnosis:
    """Whether bubblewrap starts a sandbox on this machine and, when not, why and what to do."""

    works: bool
    cause: SandboxCause
    #: The bubblewrap executable found (None: not installed).
    bwrap: str | None
    #: What was found, one sentence (the setting read and its value, or the container).
    reason: str
    #: bubblewrap's own error output (empty when it started or is missing).
    output: str = ""
    #: Ways out, the preferred first.
    remedies: tuple[Remedy, ...] = ()

    def message(self) -> str:
        """The error text: what failed, the cause, each fix with its commands."""
        if self.works:
            return f"bubblewrap ({self.bwrap}) starts a sandbox here"
        if self.bwrap is None:
            head = "bubblewrap (bwrap) is not installed, and sapper runs builds only in a sandbox"
        else:
            head = f"bubblewrap ({self.bwrap}) cannot start a sandbox here"
            if self.output:
                head += f": {self.output}"
        lines = [head, f"cause: {self.reason}"]
        for i, remedy in enumerate(self.remedies):
            lines.append(f"{'fix' if i == 0 else 'or'}: {remedy.title}")
            lines.extend(f"    {command}" for command in remedy.commands)
        lines.append(
            "or run the builds unconfined where sapper allows it (--no-sandbox: wheelhouse; "
            "canary only with --i-trust-the-corpus; see docs/ci.md); `sapper doctor` checks "
            "again"
        )
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class _Machine:
    """The settings and files of a machine that decide whether bubblewrap can start."""

    apparmor_restrict: int | None
    max_user_namespaces: int | None
    unprivileged_userns_clone: int | None
    seccomp: int | None
    container: str | None
    os_id: str
    os_like: tuple[str, ...]
    profile_loaded: bool
    profile_extra: bool


_APPARMOR_KNOB = "kernel.apparmor_restrict_unprivileged_userns"
_PROFILE = "/etc/apparmor.d/bwrap-userns-restrict"
_PROFILE_EXTRA = "/usr/share/apparmor/extra-profiles/bwrap-userns-restrict"
_DOCKER_FLAGS = (
    "--security-opt seccomp=unconfined --security-opt apparmor=unconfined "
    "--security-opt systempaths=unconfined"
)


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _os_release(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    text = _read_text(root / "etc/os-release") or _read_text(root / "usr/lib/os-release")
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip().strip("\"'")
    return out


def _container(root: Path) -> str | None:
    """The container runtime this process runs under, when there is a sign of one."""
    if (root / ".dockerenv").exists():
        return "Docker"
    if (root / "run/.containerenv").exists():
        return "Podman"
    cgroup = _read_text(root / "proc/1/cgroup")
    for mark, name in (
        ("kubepods", "Kubernetes"),
        ("docker", "Docker"),
        ("containerd", "containerd"),
        ("lxc", "LXC"),
    ):
        if mark in cgroup:
            return name
    return None


def _machine(root: Path) -> _Machine:
    proc = root / "proc"
    seccomp = None
    for line in _read_text(proc / "self/status").splitlines():
        if line.startswith("Seccomp:"):
            with contextlib.suppress(ValueError):
                seccomp = int(line.split(":", 1)[1])
    release = _os_release(root)
    return _Machine(
        apparmor_restrict=_read_int(proc / "sys/kernel/apparmor_restrict_unprivileged_userns"),
        max_user_namespaces=_read_int(proc / "sys/user/max_user_namespaces"),
        unprivileged_userns_clone=_read_int(proc / "sys/kernel/unprivileged_userns_clone"),
        seccomp=seccomp,
        container=_container(root),
        os_id=release.get("ID", "").lower(),
        os_like=tuple(release.get("ID_LIKE", "").lower().split()),
        profile_loaded=(root / _PROFILE.lstrip("/")).exists(),
        profile_extra=(root / _PROFILE_EXTRA.lstrip("/")).exists(),
    )


def _install_commands(machine: _Machine) -> tuple[str, ...]:
    family = (machine.os_id, *machine.os_like)
    table = (
        (("debian", "ubuntu"), "sudo apt-get install bubblewrap"),
        (("fedora", "rhel", "centos"), "sudo dnf install bubblewrap"),
        (("arch",), "sudo pacman -S bubblewrap"),
        (
            ("suse", "opensuse", "opensuse-leap", "opensuse-tumbleweed"),
            "sudo zypper install bubblewrap",
        ),
        (("alpine",), "sudo apk add bubblewrap"),
    )
    for ids, command in table:
        if any(i in family for i in ids):
            return (command,)
    return tuple(command for _, command in table)


def _apparmor_remedies(machine: _Machine, bwrap: str) -> tuple[Remedy, ...]:
    profile: list[str] = []
    if not machine.profile_loaded:
        if not machine.profile_extra:
            profile.append("sudo apt-get install apparmor-profiles")
        profile.append(f"sudo install -m 0644 {_PROFILE_EXTRA} {_PROFILE}")
    profile.append(f"sudo apparmor_parser -r {_PROFILE}")
    title = (
        "load the AppArmor profile that lets bwrap (and only bwrap) create user namespaces "
        "(Ubuntu's bwrap-userns-restrict, shipped in /etc/apparmor.d from Ubuntu 25.04, in "
        "apparmor-profiles before)"
    )
    if bwrap != "/usr/bin/bwrap":
        title += f"; it attaches to /usr/bin/bwrap, not to {bwrap}: use the system's bubblewrap"
    return (
        Remedy(title=title, commands=tuple(profile)),
        Remedy(
            title="lift the restriction for every program (until reboot; the second line keeps it)",
            commands=(
                f"sudo sysctl -w {_APPARMOR_KNOB}=0",
                f"echo '{_APPARMOR_KNOB}=0' | sudo tee /etc/sysctl.d/60-userns.conf",
            ),
        ),
    )


def _container_remedies(machine: _Machine, euid: int) -> tuple[Remedy, ...]:
    flags = _DOCKER_FLAGS if euid != 0 else f"--cap-add SYS_ADMIN {_DOCKER_FLAGS}"
    return (
        Remedy(
            title="start the container with a seccomp profile, AppArmor profile and /proc that "
            "let bubblewrap create its namespaces (Docker's defaults refuse them)",
            commands=(f"docker run {flags} IMAGE ...",),
        ),
        Remedy(
            title="with Podman",
            commands=("podman run --security-opt seccomp=unconfined IMAGE ...",),
        ),
        Remedy(title="run sapper on the host (or a virtual machine) instead of the container"),
    )


def _classify(
    output: str, machine: _Machine, *, euid: int, bwrap: str
) -> tuple[SandboxCause, str, tuple[Remedy, ...]]:
    text = output.lower()
    apparmor = machine.apparmor_restrict == 1 and euid != 0
    seccomp = (
        " (a seccomp filter is active: Seccomp 2 in /proc/self/status)"
        if machine.seccomp == 2
        else ""
    )
    container = (
        f"this process runs in a {machine.container} container{seccomp}, whose default "
        "profile refuses the namespaces and mounts bubblewrap needs"
        if machine.container
        else None
    )
    if "enospc" in text or "max_*_namespaces" in text:
        if machine.max_user_namespaces == 0:
            return (
                "max-user-namespaces",
                "user namespaces are switched off: /proc/sys/user/max_user_namespaces = 0",
                (
                    Remedy(
                        title="allow user namespaces (until reboot; the second line keeps it)",
                        commands=(
                            "sudo sysctl -w user.max_user_namespaces=15000",
                            "echo 'user.max_user_namespaces=15000' | sudo tee "
                            "/etc/sysctl.d/60-userns.conf",
                        ),
                    ),
                ),
            )
        if container:
            return "container", container, _container_remedies(machine, euid)
    if "does not support user namespaces" in text:
        return (
            "no-userns",
            "the kernel has no user namespaces (built without CONFIG_USER_NS)",
            (
                Remedy(
                    title="use a kernel with user namespaces, or a setuid-root bubblewrap "
                    "as RHEL 7 shipped it",
                    commands=("sudo chmod u+s " + bwrap,),
                ),
            ),
        )
    if apparmor and (
        "uid map" in text
        or "gid map" in text
        or "rtm_newaddr" in text
        or "permission denied" in text
    ):
        return (
            "apparmor",
            f"AppArmor denies unprivileged user namespaces to programs without a profile "
            f"(/proc/sys/{_APPARMOR_KNOB.replace('.', '/')} = 1), as on Ubuntu 23.10 and later "
            "and the ubuntu-24.04 GitHub Actions runner",
            _apparmor_remedies(machine, bwrap),
        )
    if "no permissions to creat" in text and machine.unprivileged_userns_clone == 0:
        return (
            "userns-clone",
            "unprivileged user namespaces are switched off: "
            "/proc/sys/kernel/unprivileged_userns_clone = 0 (Debian's setting)",
            (
                Remedy(
                    title="allow them (until reboot; the second line keeps it)",
                    commands=(
                        "sudo sysctl -w kernel.unprivileged_userns_clone=1",
                        "echo 'kernel.unprivileged_userns_clone=1' | sudo tee "
                        "/etc/sysctl.d/60-userns.conf",
                    ),
                ),
            ),
        )
    if container:
        return "container", container, _container_remedies(machine, euid)
    if apparmor:
        return (
            "apparmor",
            "AppArmor restricts unprivileged user namespaces "
            f"(/proc/sys/{_APPARMOR_KNOB.replace('.', '/')} = 1)",
            _apparmor_remedies(machine, bwrap),
        )
    return (
        "unknown",
        "none of the known causes (AppArmor's restriction, max_user_namespaces = 0, "
        "unprivileged_userns_clone = 0, a container) was found; bubblewrap's message above "
        "is all there is",
        (),
    )
