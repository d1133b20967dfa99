"""The sandbox diagnosis: each cause that stops bubblewrap, faked with a /proc tree and a fake
``bwrap`` on PATH that prints bubblewrap's real message for it, named with its fix.

The messages are bubblewrap's own (bubblewrap.c; the ENOSPC one is also produced for real on
this machine by ``test_real_enospc``), as reported on its issue tracker:
AppArmor on Ubuntu 24.04 (``setting up uid map``, and ``loopback: Failed RTM_NEWADDR`` in
ocaml/opam#5968), Debian's patched wording for EPERM (``See <https://deb.li/bubblewrap>``),
upstream's EPERM wording under Docker's default seccomp profile (containers/bubblewrap#505),
a masked /proc in a container (containers/bubblewrap#284).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sapper.build import _sandbox
from sapper.build._sandbox import diagnose_sandbox

UID_MAP = "bwrap: setting up uid map: Permission denied"
LOOPBACK = "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted"
ENOSPC = (
    "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces "
    "exceeded (ENOSPC)"
)
EPERM_DEBIAN = (
    "bwrap: No permissions to create new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces. See <https://deb.li/bubblewrap> or "
    "<file:///usr/share/doc/bubblewrap/README.Debian.gz>."
)
EPERM_UPSTREAM = (
    "bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces. On e.g. debian this can be enabled with "
    "'sysctl kernel.unprivileged_userns_clone=1'."
)
EPERM_ROOT = "bwrap: Creating new namespace failed: Operation not permitted"
MOUNT_PROC = "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"
NO_USERNS = (
    "bwrap: Creating new namespace failed, likely because the kernel does not support user "
    "namespaces.  bwrap must be installed setuid on such systems."
)

UBUNTU_2404 = 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n'
UBUNTU_2504 = 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="25.04"\n'
DEBIAN = 'ID=debian\nVERSION_ID="12"\n'
APPARMOR = "proc/sys/kernel/apparmor_restrict_unprivileged_userns"
MAX_USERNS = "proc/sys/user/max_user_namespaces"
CLONE = "proc/sys/kernel/unprivileged_userns_clone"
STATUS = "proc/self/status"
PROFILE = "etc/apparmor.d/bwrap-userns-restrict"
EXTRA = "usr/share/apparmor/extra-profiles/bwrap-userns-restrict"


def fake_root(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def fake_bwrap(tmp_path: Path, message: str, code: int = 1) -> str:
    """A directory holding a ``bwrap`` that prints ``message`` on stderr and exits ``code``."""
    where = tmp_path / "bin"
    where.mkdir(parents=True)
    script = where / "bwrap"
    quoted = message.replace("'", "'\"'\"'")
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' '{quoted}' >&2\nexit {code}\n")
    script.chmod(0o755)
    return str(where)


CASES = [
    pytest.param(
        {APPARMOR: "1\n", "etc/os-release": UBUNTU_2404},
        1001,
        UID_MAP,
        "apparmor",
        [
            "apparmor_restrict_unprivileged_userns = 1",
            "ubuntu-24.04 GitHub Actions runner",
            "sudo apt-get install apparmor-profiles",
            "sudo install -m 0644 /usr/share/apparmor/extra-profiles/bwrap-userns-restrict "
            "/etc/apparmor.d/bwrap-userns-restrict",
            "sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict",
            "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
        ],
        ["unprivileged_userns_clone=1"],
        id="apparmor-ubuntu-24.04",
    ),
    pytest.param(
        {APPARMOR: "1\n", "etc/os-release": UBUNTU_2404, EXTRA: "profile\n"},
        1001,
        UID_MAP,
        "apparmor",
        ["sudo install -m 0644 /usr/share/apparmor/extra-profiles/bwrap-userns-restrict"],
        ["apt-get install apparmor-profiles"],
        id="apparmor-extra-profile-installed",
    ),
    pytest.param(
        {APPARMOR: "1\n", "etc/os-release": UBUNTU_2504, PROFILE: "profile\n"},
        1001,
        LOOPBACK,
        "apparmor",
        ["sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict"],
        ["apt-get install apparmor-profiles", "sudo install -m"],
        id="apparmor-loopback-profile-shipped",
    ),
    pytest.param(
        {MAX_USERNS: "0\n", APPARMOR: "0\n"},
        1001,
        ENOSPC,
        "max-user-namespaces",
        ["/proc/sys/user/max_user_namespaces = 0", "sudo sysctl -w user.max_user_namespaces="],
        ["apparmor"],
        id="max-user-namespaces-0",
    ),
    pytest.param(
        {CLONE: "0\n", MAX_USERNS: "63000\n", "etc/os-release": DEBIAN},
        1001,
        EPERM_DEBIAN,
        "userns-clone",
        [
            "unprivileged_userns_clone = 0",
            "sudo sysctl -w kernel.unprivileged_userns_clone=1",
            "/etc/sysctl.d/",
        ],
        ["docker run"],
        id="debian-unprivileged-userns-clone-0",
    ),
    pytest.param(
        {".dockerenv": "", STATUS: "Name:\tpython\nSeccomp:\t2\nSeccomp_filters:\t1\n"},
        1001,
        EPERM_UPSTREAM,
        "container",
        [
            "Docker container",
            "Seccomp 2",
            "docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined "
            "--security-opt systempaths=unconfined",
        ],
        ["SYS_ADMIN", "unprivileged_userns_clone=1\n"],
        id="docker-seccomp-user",
    ),
    pytest.param(
        {".dockerenv": "", STATUS: "Seccomp:\t2\n"},
        0,
        EPERM_ROOT,
        "container",
        ["docker run --cap-add SYS_ADMIN --security-opt seccomp=unconfined"],
        [],
        id="docker-seccomp-root",
    ),
    pytest.param(
        {"run/.containerenv": ""},
        1001,
        MOUNT_PROC,
        "container",
        ["Podman container", "podman run --security-opt seccomp=unconfined"],
        [],
        id="podman-masked-proc",
    ),
    pytest.param(
        {"proc/1/cgroup": "0::/kubepods/besteffort/pod1234/abcd\n"},
        1001,
        EPERM_UPSTREAM,
        "container",
        ["Kubernetes container"],
        [],
        id="kubernetes-cgroup",
    ),
    pytest.param(
        {},
        1001,
        NO_USERNS,
        "no-userns",
        ["CONFIG_USER_NS"],
        [],
        id="kernel-without-user-namespaces",
    ),
    pytest.param(
        # AppArmor's restriction does not apply to root, which sapper runs without a user
        # namespace: the knob is no explanation then.
        {APPARMOR: "1\n"},
        0,
        EPERM_ROOT,
        "unknown",
        ["none of the known causes", EPERM_ROOT],
        ["apparmor_parser"],
        id="apparmor-knob-but-root",
    ),
    pytest.param(
        {APPARMOR: "0\n", MAX_USERNS: "63000\n"},
        1001,
        "bwrap: execvp /bin/true: No such file or directory",
        "unknown",
        ["none of the known causes", "execvp /bin/true"],
        ["sysctl"],
        id="unknown",
    ),
]


@pytest.mark.parametrize(("files", "euid", "output", "cause", "says", "never"), CASES)
def test_each_cause_is_named_with_its_fix(tmp_path, files, euid, output, cause, says, never):  # noqa: PLR0917
    root = fake_root(tmp_path, files)
    path = fake_bwrap(tmp_path, output)
    found = diagnose_sandbox(root=root, path=path, euid=euid, platform="linux")
    assert not found.works
    assert found.cause == cause
    assert found.bwrap == str(Path(path) / "bwrap")
    assert found.output == output
    message = found.message()
    assert message.startswith(f"bubblewrap ({found.bwrap}) cannot start a sandbox here: {output}")
    for text in says:
        assert text in message, message
    for text in never:
        assert text not in message, message
    assert "--no-sandbox" in message
    assert "sapper doctor" in message


def test_a_bwrap_outside_usr_bin_is_told_the_profile_does_not_cover_it(tmp_path):
    root = fake_root(tmp_path, {APPARMOR: "1\n", PROFILE: "profile\n"})
    path = fake_bwrap(tmp_path, UID_MAP)
    found = diagnose_sandbox(root=root, path=path, euid=1001, platform="linux")
    assert found.cause == "apparmor"
    assert f"it attaches to /usr/bin/bwrap, not to {path}/bwrap" in found.message()


@pytest.mark.parametrize(
    ("os_release", "command"),
    [
        (UBUNTU_2404, "sudo apt-get install bubblewrap"),
        (DEBIAN, "sudo apt-get install bubblewrap"),
        ('ID=fedora\nVERSION_ID="41"\n', "sudo dnf install bubblewrap"),
        ('ID="rocky"\nID_LIKE="rhel centos fedora"\n', "sudo dnf install bubblewrap"),
        ("ID=arch\n", "sudo pacman -S bubblewrap"),
        ('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n', "sudo zypper install bubblewrap"),
        ("ID=alpine\n", "sudo apk add bubblewrap"),
    ],
)
def test_no_bwrap_says_how_to_install_it_here(tmp_path, os_release, command):
    root = fake_root(tmp_path, {"etc/os-release": os_release})
    empty = tmp_path / "empty"
    empty.mkdir()
    found = diagnose_sandbox(root=root, path=str(empty), euid=1001, platform="linux")
    assert (found.works, found.cause, found.bwrap) == (False, "no-bwrap", None)
    assert found.remedies[0].commands == (command,)
    assert found.message().startswith("bubblewrap (bwrap) is not installed")


def test_no_bwrap_on_an_unknown_distribution_lists_every_installer(tmp_path):
    root = fake_root(tmp_path, {})
    empty = tmp_path / "empty"
    empty.mkdir()
    found = diagnose_sandbox(root=root, path=str(empty), euid=1001, platform="linux")
    assert len(found.remedies[0].commands) == 5


def test_macos_has_no_bubblewrap(tmp_path):
    found = diagnose_sandbox(root=tmp_path, path=str(tmp_path), euid=501, platform="darwin")
    assert (found.works, found.cause) == (False, "no-bwrap")
    assert "Linux only, and this is darwin" in found.reason
    assert "Linux virtual machine" in found.message()


def test_a_bwrap_that_starts_works(tmp_path):
    root = fake_root(tmp_path, {APPARMOR: "1\n"})
    path = fake_bwrap(tmp_path, "", code=0)
    found = diagnose_sandbox(root=root, path=path, euid=1001, platform="linux")
    assert (found.works, found.cause, found.remedies) == (True, "ok", ())


def test_check_sandbox_raises_the_diagnosis(tmp_path, monkeypatch):
    from sapper._exceptions import SandboxError

    root = fake_root(tmp_path, {APPARMOR: "1\n", "etc/os-release": UBUNTU_2404})
    path = fake_bwrap(tmp_path, UID_MAP)
    fake = functools.partial(diagnose_sandbox, root=root, path=path, euid=1001, platform="linux")
    monkeypatch.setattr(_sandbox, "diagnose_sandbox", fake)
    _sandbox.check_sandbox.cache_clear()
    try:
        with pytest.raises(SandboxError) as caught:
            _sandbox.check_sandbox()
    finally:
        _sandbox.check_sandbox.cache_clear()
    text = str(caught.value)
    assert UID_MAP in text
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in text
    # the old advice, a Debian knob that does nothing on Ubuntu, is gone
    assert "unprivileged_userns_clone=1" not in text


def test_the_cli_error_names_the_cause(tmp_path, monkeypatch, capsys):
    from sapper.cli import main

    root = fake_root(tmp_path, {MAX_USERNS: "0\n"})
    path = fake_bwrap(tmp_path, ENOSPC)
    fake = functools.partial(diagnose_sandbox, root=root, path=path, euid=1001, platform="linux")
    monkeypatch.setattr(_sandbox, "diagnose_sandbox", fake)
    _sandbox.check_sandbox.cache_clear()
    try:
        code = main(["wheelhouse", str(tmp_path / "req.txt"), "-o", str(tmp_path / "out")])
    finally:
        _sandbox.check_sandbox.cache_clear()
    err = capsys.readouterr().err
    assert code == 3
    assert "cause: user namespaces are switched off" in err
    assert "    sudo sysctl -w user.max_user_namespaces=15000" in err


def test_real_machine_answer_agrees_with_bwrap():
    """The probe on this machine: works exactly when bubblewrap starts a sandbox here."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("no bubblewrap here")
    found = diagnose_sandbox()
    probe = subprocess.run(
        [bwrap, "--unshare-net", "--ro-bind", "/", "/", "/bin/true"], check=False
    )
    assert found.works == (probe.returncode == 0)


def test_real_enospc(tmp_path):
    """The real bubblewrap, in a user namespace whose max_user_namespaces is set to 0 (what
    `sysctl user.max_user_namespaces=0` does on a host), fails with its ENOSPC message, and
    the diagnosis reads the real /proc and names the setting. Inside ``unshare -r`` the
    process is uid 0, for which sapper asks for no user namespace, so a wrapper adds
    ``--unshare-user`` as an ordinary user's run would."""
    bwrap = shutil.which("bwrap")
    unshare = shutil.which("unshare")
    if bwrap is None or unshare is None:
        pytest.skip("needs bwrap and unshare")
    wrapper = tmp_path / "bin"
    wrapper.mkdir()
    (wrapper / "bwrap").write_text(f'#!/bin/sh\nexec {bwrap} --unshare-user "$@"\n')
    (wrapper / "bwrap").chmod(0o755)
    code = (
        "from sapper.build._sandbox import diagnose_sandbox\n"
        f"d = diagnose_sandbox(path={str(wrapper)!r}, euid=1001)\n"
        "print(d.cause); print(d.output)\n"
    )
    (tmp_path / "probe.py").write_text(code)
    script = (
        "echo 0 > /proc/sys/user/max_user_namespaces && "
        f"exec {sys.executable} {tmp_path / 'probe.py'}"
    )
    done = subprocess.run(
        [unshare, "-U", "-r", "sh", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(_sandbox.__file__).parents[2])},
    )
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"cannot create a user namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    cause, output = done.stdout.splitlines()[:2]
    assert output == ENOSPC
    assert cause == "max-user-namespaces"


# --------------------------------------------------------------------------- --no-sandbox policy


@pytest.fixture
def no_sandbox_here(tmp_path, monkeypatch):
    """A machine whose bubblewrap fails (AppArmor, as on the ubuntu-24.04 runner)."""
    root = fake_root(tmp_path, {APPARMOR: "1\n"})
    path = fake_bwrap(tmp_path, UID_MAP)
    fake = functools.partial(diagnose_sandbox, root=root, path=path, euid=1001, platform="linux")
    monkeypatch.setattr(_sandbox, "diagnose_sandbox", fake)
    _sandbox.check_sandbox.cache_clear()
    yield
    _sandbox.check_sandbox.cache_clear()


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("sapper: warning:")]


def test_wheelhouse_allows_no_sandbox_with_one_warning(tmp_path, capsys, no_sandbox_here):
    from sapper.cli import main

    req = tmp_path / "requirements.txt"
    req.write_text("# nothing to build\n")
    out = tmp_path / "wheels"
    assert main(["wheelhouse", str(req), "-o", str(out), "--no-verify"]) == 3
    assert "cause: AppArmor" in capsys.readouterr().err
    assert main(["wheelhouse", str(req), "-o", str(out), "--no-verify", "--no-sandbox"]) == 0
    (warning,) = _warnings(capsys.readouterr().err)
    assert "--no-sandbox" in warning
    assert "as pip would run it" in warning


@pytest.mark.parametrize("command", [["canary", "corpus"], ["canary", "bisect", "x==1"]])
def test_canary_refuses_no_sandbox_without_the_acknowledgement(tmp_path, capsys, command):
    from sapper.cli import main

    db = tmp_path / "store.duckdb"
    argv = [*command, "--baseline", "77.0.3", "--candidate", "78.0.1", "--db", str(db)]
    assert main([*argv, "--no-sandbox"]) == 2
    err = capsys.readouterr().err
    assert "other people's code" in err
    assert "--i-trust-the-corpus" in err
    assert not db.exists()  # refused before anything ran
    # the acknowledgement alone is a usage error too: it only qualifies --no-sandbox
    assert main([*argv, "--i-trust-the-corpus"]) == 2
    assert "goes with --no-sandbox" in capsys.readouterr().err


def test_canary_with_the_acknowledgement_runs_unconfined_and_warns(
    tmp_path, capsys, monkeypatch, no_sandbox_here
):
    import sapper.canary
    from sapper.cli import main

    seen = []

    class Stop(Exception):
        pass

    def run_canary(sources, *, top, options, on_progress):
        seen.append(options)
        raise Stop

    monkeypatch.setattr(sapper.canary, "run_canary", run_canary)
    argv = ["canary", str(tmp_path), "--baseline", "77.0.3", "--candidate", "78.0.1"]
    with pytest.raises(Stop):
        main([*argv, "--db", str(tmp_path / "s.duckdb"), "--no-sandbox", "--i-trust-the-corpus"])
    assert seen[0].sandbox is False
    (warning,) = _warnings(capsys.readouterr().err)
    assert "--i-trust-the-corpus" in warning
    assert "unconfined" in warning
