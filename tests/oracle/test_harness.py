"""The oracle harness itself: reasons are compared, crashes are never "fails", the clock is
injected where setuptools reads it, and versions that cannot run are skipped with a reason."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from . import harness
from .harness import HookResult, OracleError, Reason, assert_reason, reason_mismatch, run_hooks


def _fails(exc_type: str, message: str, version: str = "84.2.1") -> HookResult:
    return HookResult(
        setuptools=version,
        enforce=False,
        today=None,
        outcome="fails",
        exc_type=exc_type,
        message=message,
        hook="get_requires_for_build_wheel",
        where="<string>:2",
    )


BUILDS = HookResult(setuptools="84.2.1", enforce=False, today=None, outcome="builds")
NO_PKG_RESOURCES = Reason(("ModuleNotFoundError",), r"No module named 'pkg_resources'")
DASH = Reason(("setuptools.errors.InvalidConfigError",), r"Invalid dash-separated key")

# (real, predicted, reasons, expected problem substring or None)
REASON_TABLE = [
    (BUILDS, "builds", None, None),
    (BUILDS, "builds", NO_PKG_RESOURCES, None),
    (
        _fails("builtins.ModuleNotFoundError", "No module named 'pkg_resources'"),
        "fails",
        NO_PKG_RESOURCES,
        None,
    ),
    # The qualified name matches too; a tuple of reasons needs one match.
    (
        _fails("setuptools.errors.InvalidConfigError", "Invalid dash-separated key 'a-b'"),
        "fails",
        (NO_PKG_RESOURCES, DASH),
        None,
    ),
    (
        _fails("builtins.ModuleNotFoundError", "No module named 'pkg_resources'"),
        "builds",
        None,
        "sapper says builds; setuptools 84.2.1 fails: ModuleNotFoundError",
    ),
    (BUILDS, "fails", NO_PKG_RESOURCES, "sapper says fails (SP001); setuptools 84.2.1 builds"),
    # Agreement on "fails" for another reason is a mismatch that shows both messages.
    (
        _fails("builtins.ModuleNotFoundError", "No module named 'numpy'"),
        "fails",
        NO_PKG_RESOURCES,
        "both fail, for different reasons",
    ),
    (
        _fails("builtins.ImportError", "No module named 'pkg_resources'"),
        "fails",
        NO_PKG_RESOURCES,
        "expects ModuleNotFoundError matching",
    ),
    # A base class is not the declared type.
    (
        _fails("setuptools.errors.InvalidConfigError", "Invalid dash-separated key"),
        "fails",
        Reason(("Exception",), "dash"),
        "for different reasons",
    ),
    (
        _fails("builtins.SystemExit", "error in probe setup command"),
        "fails",
        None,
        "declares no reason",
    ),
    (BUILDS, "unknown", None, "sapper says unknown"),
]


@pytest.mark.parametrize(("real", "predicted", "reasons", "problem"), REASON_TABLE)
def test_reason_mismatch(
    real: HookResult,
    predicted: str,
    reasons: Reason | tuple[Reason, ...] | None,
    problem: str | None,
) -> None:
    got = reason_mismatch(real, predicted, reasons, because=("SP001",))
    if problem is None:
        assert got is None
        assert_reason(real, predicted, reasons)
    else:
        assert got is not None
        assert problem in got
        with pytest.raises(AssertionError, match="sapper"):
            assert_reason(real, predicted, reasons, because=("SP001",))


def test_reason_message_shows_both_sides() -> None:
    real = _fails("builtins.ModuleNotFoundError", "No module named 'numpy'")
    got = reason_mismatch(real, "fails", NO_PKG_RESOURCES, because=("SP001",), label="case-x")
    assert got is not None
    assert got.startswith("case-x: ")
    assert "No module named 'pkg_resources'" in got  # what sapper expected
    assert "No module named 'numpy'" in got  # what setuptools said


def test_reason_rejects_bad_declarations() -> None:
    with pytest.raises(ValueError, match="at least one exception type"):
        Reason((), "x")
    with pytest.raises(Exception, match=r"unterminated|missing"):
        Reason(("X",), "(unclosed")


@pytest.mark.parametrize(
    ("version", "python", "expected"),
    [
        ("59.8.0", (3, 12), "needs distutils in the standard library"),
        ("59.8.0", (3, 11), None),
        ("60.0.0", (3, 13), None),
        ("84.2.1", (3, 11), None),
        # setuptools 84.2.1 declares Requires-Python >=3.10.
        ("84.2.1", (3, 9), "requires Python >=3.10"),
        # py33compat builds HTMLParser().unescape at import until 41.1.0
        ("41.0.1", (3, 9), "HTMLParser().unescape"),
        ("41.0.1", (3, 8), None),
        ("41.1.0", (3, 11), None),
    ],
)
def test_cannot_run(version: str, python: tuple[int, int], expected: str | None) -> None:
    why = harness.cannot_run(version, python)
    if expected is None:
        assert why is None
    else:
        assert why is not None
        assert expected in why
        assert version in why


def test_require_runnable_skips_naming_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(version: str, python: object = None) -> str | None:
        return f"no {version}" if version.startswith("5") else None

    monkeypatch.setattr(harness, "cannot_run", fake)
    with pytest.raises(pytest.skip.Exception, match=r"no 59\.8\.0"):
        harness.require_runnable(["84.2.1", "59.8.0"])
    harness.require_runnable(["84.2.1"])  # nothing to skip: returns


def _fake_venv(root: Path, setuptools_init: str | None) -> Path:
    """A venv whose ``setuptools`` is ``setuptools_init`` (None: no setuptools at all)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    if setuptools_init is not None:
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        (Path(purelib) / "setuptools").mkdir(parents=True)
        (Path(purelib) / "setuptools" / "__init__.py").write_text(setuptools_init)
    return python


@pytest.mark.parametrize(
    ("init", "problem"),
    [
        (None, "could not import setuptools"),
        ("raise ImportError('broken install')", "could not import setuptools"),
        ("__version__ = '81.0.0'\n", "imports setuptools 81.0.0"),
    ],
    ids=["no-setuptools", "broken-setuptools", "wrong-version"],
)
def test_broken_venv_is_an_error_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, init: str | None, problem: str
) -> None:
    python = _fake_venv(tmp_path / "venv", init)
    monkeypatch.setattr(harness, "setuptools_python", lambda version, requires=(), **_: python)
    project = tmp_path / "p"
    project.mkdir()
    (project / "setup.py").write_text("import pkg_resources\n")
    with pytest.raises(OracleError, match=problem):
        run_hooks("82.0.0", project)


@pytest.mark.oracle
@pytest.mark.network
def test_crashed_interpreter_is_an_error_not_a_failure(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("import os\nos._exit(3)\n")
    with pytest.raises(OracleError, match=r"no result \(exit 3\)"):
        run_hooks("84.2.1", tmp_path)


@pytest.mark.oracle
@pytest.mark.network
def test_hook_result_carries_type_message_and_place(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text(
        'from setuptools import setup\nimport pkg_resources\nsetup(name="p", version="1")\n'
    )
    real = run_hooks("84.2.1", tmp_path)
    assert real.outcome == "fails"
    assert real.exc_type == "builtins.ModuleNotFoundError"
    assert real.message == "No module named 'pkg_resources'"
    assert real.hook == "get_requires_for_build_wheel"
    assert_reason(real, "fails", NO_PKG_RESOURCES)
    ok = run_hooks("81.0.0", tmp_path)
    assert ok.outcome == "builds"
    assert ok.warned(r"pkg_resources is deprecated")


@pytest.mark.oracle
@pytest.mark.network
def test_today_is_injected_where_setuptools_reads_it(tmp_path: Path) -> None:
    """setuptools 80.10.2+ makes a license table an error under enforcement after
    2027-02-18 (``due < date.today()``): the day itself still builds, the next fails."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "probe"\nversion = "1.0"\nlicense = {text = "MIT"}\n'
    )
    on_due = run_hooks("84.2.1", tmp_path, enforce=True, today=dt.date(2027, 2, 18))
    after = run_hooks("84.2.1", tmp_path, enforce=True, today=dt.date(2027, 2, 19))
    plain = run_hooks("84.2.1", tmp_path, enforce=False, today=dt.date(2027, 2, 19))
    assert on_due.outcome == "builds"
    assert on_due.warned(r"project\.license. as a TOML table", "SetuptoolsDeprecationWarning")
    assert after.outcome == "fails"
    assert after.exc_name == "SetuptoolsDeprecationWarning"
    assert plain.outcome == "builds"


def test_every_rule_declares_its_failure() -> None:
    """A rule without a declared reason could only agree on "fails" by accident; RQ001 is
    checked through pip (test_requires_oracle.py), which reports the plugin's import."""
    from sapper.rules import all_rules

    from .reasons import REASONS, reasons_for

    missing = [r.code for r in all_rules() if r.code not in REASONS and r.code != "RQ001"]
    assert not missing
    assert reasons_for(["SP001", "SC001"]) == REASONS["SP001"] + REASONS["SC001"]
    assert reasons_for(["RQ001"]) == ()


@pytest.mark.oracle
@pytest.mark.network
@pytest.mark.parametrize(
    ("setup_requires", "outcome"),
    [("file: requirements.txt", "fails"), ("pytz>=2012", "builds")],
)
def test_requirements_a_frontend_cannot_parse_fail_the_build(
    tmp_path: Path, setup_requires: str, outcome: str
) -> None:
    """setuptools hands ``setup_requires`` to the frontend as they are, ``file:`` directive
    included; pip and uv then refuse the string as a requirement. The oracle parses what
    ``get_requires_for_build_wheel`` returned as they do (the control: a valid one builds)."""
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    (tmp_path / "requirements.txt").write_text("pytz\n")
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = probe\nversion = 1.0\n\n[options]\npy_modules =\n"
        f"setup_requires = {setup_requires}\n"
    )
    result = run_hooks("84.2.1", tmp_path)
    assert result.outcome == outcome
    if outcome == "fails":
        assert result.exc_name == "InvalidRequirement"
        assert result.hook == "frontend, after get_requires_for_build_wheel"
        assert "Expected" in result.message


def test_older_python_is_one_no_newer_than_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$SAPPER_ORACLE_OLD_PYTHON comes first, but only if it is old enough; None when no
    interpreter qualifies."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no pythonX.Y on PATH
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.setenv("SAPPER_ORACLE_OLD_PYTHON", sys.executable)
    running = (sys.version_info.major, sys.version_info.minor)
    assert harness.older_python(running) == Path(sys.executable)
    assert harness.older_python((running[0], running[1] - 1)) is None
