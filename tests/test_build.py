"""sapper.build: signatures, setuptools' warning format, and real sandboxed builds."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from canary_support import builder, require_sandbox, sdist

from sapper._exceptions import BuildError
from sapper.build import parse_setuptools_message, signature
from sapper.build._capture import BuildWarning
from sapper.build._runner import _apply_override, _build_system

SIGNATURES = [
    (
        "setuptools.errors.InvalidConfigError",
        "Invalid dash-separated key 'description-file' in 'metadata' (setup.cfg), please use "
        "the underscore name 'description_file' instead.",
        "InvalidConfigError: Invalid dash-separated key '<name>' in '<name>' (setup.cfg), "
        "please use the underscore name '<name>' instead.",
    ),
    (
        "builtins.ModuleNotFoundError",
        "No module named 'pkg_resources'",
        "ModuleNotFoundError: No module named 'pkg_resources'",
    ),
    (
        "builtins.FileNotFoundError",
        "[Errno 2] No such file or directory: '/tmp/sapper-build-x1/src/pkg-1.2.3/README.md'",
        "FileNotFoundError: [Errno <n>] No such file or directory: '<name>'",
    ),
    (
        "builtins.SystemExit",
        "error: Setup script exited with error: command 'gcc' failed: No such file",
        "SystemExit: error: Setup script exited with error: command '<name>' failed: No such file",
    ),
    (
        "builtins.RuntimeError",
        "needs numpy 1.21.0 under /opt/x/y",
        "RuntimeError: needs numpy <version> under <path>",
    ),
    ("builtins.ValueError", "", "ValueError"),
    (None, "first line\nsecond line", "error: first line"),
]


@pytest.mark.parametrize(("kind", "message", "expected"), SIGNATURES)
def test_signature(kind, message, expected):
    assert signature(kind, message) == expected


def test_signatures_group_different_keys():
    a = signature("InvalidConfigError", "Invalid dash-separated key 'home-page' in 'metadata'")
    b = signature("InvalidConfigError", "Invalid dash-separated key 'Name' in 'metadata'")
    assert a == b


FUTURE = """Invalid dash-separated key 'description-file' in 'metadata' (setup.cfg)
!!

        ********************************************************************************
        Usage of dash-separated 'description-file' will not be supported in future
        versions. Please use the underscore name 'description_file' instead.

        By 2026-Mar-03, you need to update your project and remove deprecated calls
        or your builds will no longer be supported.

        See https://github.com/pypa/setuptools/discussions/5011 for details.
        ********************************************************************************

!!"""


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            FUTURE,
            (
                "Invalid dash-separated key 'description-file' in 'metadata' (setup.cfg)",
                "2026-03-03",
                "https://github.com/pypa/setuptools/discussions/5011",
            ),
        ),
        (
            FUTURE.replace("By 2026-Mar-03, you need", "This deprecation is overdue, you need"),
            (
                "Invalid dash-separated key 'description-file' in 'metadata' (setup.cfg)",
                None,
                "https://github.com/pypa/setuptools/discussions/5011",
            ),
        ),
        ("plain summary only", ("plain summary only", None, None)),
    ],
)
def test_parse_setuptools_message(message, expected):
    assert parse_setuptools_message(message) == expected


@pytest.mark.parametrize(
    ("requires", "override", "expected"),
    [
        (["setuptools>=61", "wheel"], ["setuptools==78.0.1"], ["wheel", "setuptools==78.0.1"]),
        (
            ["setuptools_scm", "Setuptools"],
            ["setuptools==77.0.3"],
            ["setuptools_scm", "setuptools==77.0.3"],
        ),
        # another backend: the side's setuptools is not forced on it
        (["hatchling"], ["setuptools==78.0.1"], ["hatchling"]),
        ([], ["setuptools==78.0.1"], []),
    ],
)
def test_apply_override(requires, override, expected):
    assert _apply_override(requires, override) == expected


@pytest.mark.parametrize(
    ("requires", "backend", "expected"),
    [
        # setuptools' backend reached only through setuptools_scm: pinned all the same,
        # as pip's --build-constraint pins the setuptools that setuptools_scm pulls in
        (["setuptools_scm"], "setuptools.build_meta", ["setuptools_scm", "setuptools==78.0.1"]),
        (["wheel"], "setuptools.build_meta:__legacy__", ["wheel", "setuptools==78.0.1"]),
        ([], "setuptools.build_meta", ["setuptools==78.0.1"]),
        # another backend stays free of the pin
        (["hatchling", "hatch-vcs"], "hatchling.build", ["hatchling", "hatch-vcs"]),
        (["setuptools_rust"], "setuptools_rust_backend", ["setuptools_rust"]),
    ],
)
def test_apply_override_pins_setuptools_backend(requires, backend, expected):
    assert _apply_override(requires, ["setuptools==78.0.1"], backend=backend) == expected


LEGACY = "setuptools.build_meta:__legacy__"

#: pyproject.toml (None: no such file) -> (backend, backend-path, requires) the builder runs,
#: or the start of the message it refuses the sdist with (as pip refuses it).
BUILD_SYSTEMS = [
    (None, (LEGACY, None, ["setuptools>=40.8.0"])),
    ('[project]\nname = "x"\n', (LEGACY, None, ["setuptools>=40.8.0"])),
    (
        '[build-system]\nrequires = ["setuptools>=61", "wheel"]\n',
        (LEGACY, None, ["setuptools>=61", "wheel"]),
    ),
    (
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["_b"]\n',
        ("backend", ["_b"], []),
    ),
    ('[build-system]\nrequires = ["x"]\nbackend-path = []\n', (LEGACY, [], ["x"])),
    ('[build-system]\nbuild-backend = "b"\n', "pyproject.toml: `build-system.requires` is missing"),
    ("[build-system]\nrequires = [1]\n", "pyproject.toml: `build-system.requires` is missing"),
    ('[build-system]\nrequires = "setuptools"\n', "pyproject.toml: `build-system.requires` is"),
    (
        '[build-system]\nrequires = []\nbackend-path = "."\n',
        "pyproject.toml: `build-system.backend-path` must be a list of strings",
    ),
    ("build-system = 1\n", "pyproject.toml: `build-system` is not a table"),
    ("[build-system\n", "pyproject.toml is not valid TOML: "),
]


@pytest.mark.parametrize(("text", "expected"), BUILD_SYSTEMS)
def test_build_system_read_as_a_frontend_reads_it(tmp_path, text, expected):
    if text is not None:
        (tmp_path / "pyproject.toml").write_text(text)
    if isinstance(expected, str):
        with pytest.raises(BuildError, match=f"^{re.escape(expected)}"):
            _build_system(tmp_path)
    else:
        assert _build_system(tmp_path) == expected


# --------------------------------------------------------------------------- real builds


@pytest.fixture(scope="module")
def sandboxed():
    require_sandbox()


def test_dash_key_warning_is_structured_under_84_2_1(sandboxed, tmp_path):
    result = builder(timeout=120).build(
        sdist("regress-dash", tmp_path), override=["setuptools==84.2.1"]
    )
    assert result.outcome == "ok", result.log_tail
    dash = [w for w in result.warnings if "dash-separated" in w.summary]
    assert dash, result.warnings
    warning = dash[0]
    assert isinstance(warning, BuildWarning)
    assert warning.is_setuptools_deprecation
    assert warning.category == "setuptools.warnings.SetuptoolsDeprecationWarning"
    # overdue on the day the test runs (setuptools then omits the date from its text):
    # the due date comes from SetuptoolsWarning.emit itself
    assert warning.due_date == "2026-03-03"
    assert warning.url == "https://github.com/pypa/setuptools/discussions/5011"
    assert warning.summary.startswith("Invalid dash-separated key 'description-file'")


def test_dash_key_fails_under_78_0_1_in_wheel_mode(sandboxed, tmp_path):
    result = builder(timeout=120).build(
        sdist("regress-dash", tmp_path), override=["setuptools==78.0.1"], mode="wheel"
    )
    assert result.outcome == "fail"
    assert result.error_type == "setuptools.errors.InvalidConfigError"
    assert result.signature is not None
    assert result.signature.startswith("InvalidConfigError: Invalid dash-separated key '<name>'")
    assert "description-file" in (result.message or "")


def test_wheel_is_kept(sandboxed, tmp_path):
    keep = tmp_path / "wheels"
    result = builder(timeout=120).build(
        DATA_DIR / "fail-both", override=["setuptools==84.2.1"], mode="wheel", keep=keep
    )
    assert result.outcome == "fail"
    assert result.error_type == "builtins.RuntimeError"
    assert result.signature == "RuntimeError: this project never builds"
    ok = builder(timeout=120).build(DATA_DIR / "nonsetuptools-ok", mode="wheel", keep=keep)
    assert ok.outcome == "ok", ok.log_tail
    assert ok.artifact == "tinypkg-1.0-py3-none-any.whl"
    assert ok.requires == ()  # the in-tree backend asks for nothing; setuptools not forced
    assert (keep / ok.artifact).is_file()


DATA_DIR = Path(__file__).parent / "data" / "canary"
# (fixture, reason, timeout): generous timeouts where the timeout is not what is tested, so
# that a loaded CI machine cannot turn a memory error into a timeout
ESCAPES = [
    ("escape-socket", "network", 120),
    ("escape-write", "sandbox", 120),
    ("escape-memory", "memory", 120),
    ("escape-forkbomb", "processes", 30),
    ("escape-sleep", "timeout", 6),
]


@pytest.mark.parametrize(("name", "reason", "timeout"), ESCAPES)
def test_sandbox_escapes_end_spurious(sandboxed, name, reason, timeout):
    result = builder(timeout=timeout, memory=2 * 1024**3, processes=64).build(
        DATA_DIR / name, override=["setuptools==84.2.1"]
    )
    assert result.outcome == "spurious", (result, result.log_tail)
    assert result.spurious_reason == reason, (result.error_type, result.message)
    assert not Path("/usr/lib/sapper-escape-marker").exists()


def _processes_with(token: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if token.encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_timeout_kills_the_whole_tree(sandboxed):
    import uuid

    token = f"SAPPER_TEST_TOKEN_{uuid.uuid4().hex}"
    result = builder(timeout=3).build(
        DATA_DIR / "escape-sleep", override=["setuptools==84.2.1"], env={token: "1"}
    )
    assert result.spurious_reason == "timeout"
    assert result.seconds < 30
    # SIGKILL is delivered at once, but on a loaded machine a killed process may take a
    # moment to exit: wait (bounded) for it to be gone, as a user's `ps` would
    deadline = time.monotonic() + 15
    while (left := _processes_with(token)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []


# --------------------------------------------------------------------------- hook server

# (fixture, setuptools, mode): each is built with one interpreter per hook and with the hook
# server, and must end the same way (see sapper.build._server)
SAME_BOTH_WAYS = [
    ("regress-dash", "77.0.3", "metadata"),
    ("regress-dash", "78.0.1", "metadata"),
    ("regress-dash", "84.2.1", "wheel"),
    ("regress-pkgres", "82.0.0", "metadata"),
    ("fail-both", "84.2.1", "metadata"),
    ("hooks-fresh", "84.2.1", "metadata"),
    ("hooks-fresh", "84.2.1", "wheel"),
    ("setup-requires", "84.2.1", "metadata"),
    ("nonsetuptools-ok", "84.2.1", "metadata"),
    ("backend-missing", "84.2.1", "metadata"),
    ("escape-write", "84.2.1", "metadata"),
]


def _verdict(result):
    return {
        "outcome": result.outcome,
        "hook": result.hook,
        "error_type": result.error_type,
        "signature": result.signature,
        "spurious_reason": result.spurious_reason,
        "requires": result.requires,
        "dynamic_requires": result.dynamic_requires,
        "artifact": result.artifact,
        "warnings": sorted(
            (w.category, w.summary, w.due_date, w.url, w.lineno) for w in result.warnings
        ),
    }


@pytest.mark.parametrize(("name", "setuptools", "mode"), SAME_BOTH_WAYS)
def test_hook_server_ends_as_one_interpreter_per_hook(sandboxed, tmp_path, name, setuptools, mode):
    source = DATA_DIR / name
    results = []
    for server in (False, True):
        b = builder(timeout=120)
        b.hook_server = server
        results.append(b.build(source, override=[f"setuptools=={setuptools}"], mode=mode))
    fresh, served = results
    assert _verdict(served) == _verdict(fresh), (served.log_tail, fresh.log_tail)


def test_hook_server_cases(sandboxed):
    b = builder(timeout=120)
    fresh = b.build(DATA_DIR / "hooks-fresh", override=["setuptools==84.2.1"])
    assert fresh.outcome == "ok", fresh.log_tail
    assert [w.summary for w in fresh.warnings if "hooks-fresh" in w.summary] == [
        "hooks-fresh: setup.py ran"
    ]
    dynamic = b.build(DATA_DIR / "setup-requires", override=["setuptools==84.2.1"])
    assert dynamic.outcome == "ok", dynamic.log_tail
    assert dynamic.dynamic_requires == ("wheel",)
    missing = b.build(DATA_DIR / "backend-missing", override=["setuptools==84.2.1"])
    assert missing.outcome == "fail"
    assert missing.error_type == "pyproject_hooks._impl.BackendUnavailable"


def test_environment_key_is_the_interpreter_not_its_name(tmp_path):
    import os
    import sys

    from sapper.build import EnvironmentCache, Wheelhouse

    names = []
    for name in ("python-a", "python-b"):
        link = tmp_path / name
        link.symlink_to(os.path.realpath(sys.executable))
        names.append(str(link))
    wheelhouse = Wheelhouse(tmp_path / "wheelhouse", online=False)
    first = EnvironmentCache(tmp_path / "envs", wheelhouse, python=names[0]).get([])
    second = EnvironmentCache(tmp_path / "envs", wheelhouse, python=names[1]).get([])
    assert first == second
    assert (first / "bin" / "python").exists()
