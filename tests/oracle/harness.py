"""Real setuptools, installed from PyPI into cached virtual environments.

Each version gets its own venv under ``$SAPPER_ORACLE_CACHE`` (default
``~/.cache/sapper-tests``), created once and reused. Nothing here imports setuptools into
the test process: every call runs in a subprocess of that venv's interpreter.

The API the oracle tests use:

* :func:`run_hooks` runs PEP 517 hooks of real setuptools ``version`` in a project directory
  and returns a :class:`HookResult`: the outcome (``builds``/``fails``), the exception's type
  and full message, where it was raised, and the warnings emitted on the way.
  :func:`parse_config` does the same for ``Distribution().parse_config_files()`` on many
  setup.cfg files at once.
* :class:`Reason` is what a rule (or a case) declares about the failure it predicts: the
  exception type(s) and a regular expression searched in the message.
* :func:`reason_mismatch` / :func:`assert_reason` compare sapper's prediction with the real
  result *and its reason*: a predicted failure must be the declared exception with a
  matching message; a real failure sapper did not predict, or one for another reason, is a
  mismatch that shows both sides.
* An interpreter that crashed, a venv that imports the wrong setuptools or none, or a hook
  script that produced no result raises :class:`OracleError`: it is never taken for
  "fails".
* Both setuptools and the oracle scripts read the clock through ``datetime.date.today()``
  (setuptools decides that a deprecation is overdue in ``setuptools/warnings.py``,
  ``due < date.today()``); ``today=`` fixes that date inside the subprocess, so both sides
  of a due date can be exercised.

Python requirement: setuptools < 60 uses the standard library's ``distutils``, which
Python 3.12 removed, so those versions only run on Python <= 3.11; a release whose
``Requires-Python`` excludes the running interpreter cannot run either. :func:`cannot_run`
says why, and :func:`require_runnable` turns that into a pytest skip naming the versions.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from sapper.versions import catalogue

__all__ = [
    "HOOKS_METADATA",
    "HookResult",
    "OracleError",
    "Reason",
    "assert_reason",
    "cannot_run",
    "metadata_outcome",
    "metadata_text",
    "older_python",
    "parse_config",
    "parse_config_outcomes",
    "reason_mismatch",
    "require_runnable",
    "run_hooks",
    "setuptools_python",
]

CACHE = Path(os.environ.get("SAPPER_ORACLE_CACHE", Path.home() / ".cache" / "sapper-tests"))

#: The hooks pip calls first for a wheel: what decides whether ``pip install`` gets past
#: "Preparing metadata".
HOOKS_METADATA = ("get_requires_for_build_wheel", "prepare_metadata_for_build_wheel")
_HOOKS = frozenset(
    {
        "get_requires_for_build_wheel",
        "prepare_metadata_for_build_wheel",
        "build_wheel",
        "get_requires_for_build_sdist",
        "build_sdist",
    }
)
#: How much of an exception message a result keeps (messages are matched with re.search).
MESSAGE_LIMIT = 4000


class OracleError(RuntimeError):
    """The oracle could not produce a verdict (crashed interpreter, broken venv, timeout).

    Never a build failure: a test that gets one fails (or errors) instead of agreeing with a
    predicted "fails".
    """


# -- interpreters ----------------------------------------------------------------------


def cannot_run(version: str, python: tuple[int, int] | None = None) -> str | None:
    """Why setuptools ``version`` cannot run on ``python`` (default: this interpreter), or
    None when it can."""
    major, minor = python or (sys.version_info.major, sys.version_info.minor)
    if Version(version) < Version("60") and (major, minor) >= (3, 12):
        return (
            f"setuptools {version} needs distutils in the standard library, which Python "
            f"{major}.{minor} no longer has (run the oracle on Python <= 3.11)"
        )
    if Version(version) < Version("41.1.0") and (major, minor) >= (3, 9):
        # py33compat.py: getattr(html, 'unescape', html_parser.HTMLParser().unescape)
        # evaluates its default at import (41.1.0 made it lazy)
        return (
            f"setuptools {version} calls HTMLParser().unescape at import, which Python "
            f"{major}.{minor} no longer has (run it on Python <= 3.8: older_python())"
        )
    release = catalogue().release(version)
    if release is not None and release.requires_python:
        try:
            spec = SpecifierSet(release.requires_python)
        except InvalidSpecifier:  # pragma: no cover - PyPI data is clean
            return None
        if not spec.contains(f"{major}.{minor}", prereleases=True):
            return (
                f"setuptools {version} requires Python {release.requires_python}; "
                f"this is Python {major}.{minor}"
            )
    return None


def older_python(highest: tuple[int, int] = (3, 8)) -> Path | None:
    """An interpreter no newer than ``highest`` for the releases this one cannot import:
    ``$SAPPER_ORACLE_OLD_PYTHON``, else ``pythonX.Y`` on PATH, else a pyenv version
    (``$PYENV_ROOT`` or ``~/.pyenv``), newest first from ``highest`` down to 3.7; None if
    there is none."""
    major, top = highest
    names = [f"python{major}.{minor}" for minor in range(top, 6, -1)]
    candidates: list[Path] = []
    if os.environ.get("SAPPER_ORACLE_OLD_PYTHON"):
        candidates.append(Path(os.environ["SAPPER_ORACLE_OLD_PYTHON"]))
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    for name in names:
        found = shutil.which(name)
        if found and "/shims/" not in found:  # a pyenv shim runs the global version
            candidates.append(Path(found))
        candidates += sorted((root / "versions").glob(f"{name[6:]}.*/bin/{name}"), reverse=True)
    for candidate in candidates:
        try:
            if _interpreter_version(candidate) <= highest:
                return candidate
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def _interpreter_version(python: Path) -> tuple[int, int]:
    out = subprocess.run(
        [str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    major, minor = out.split(".")
    return int(major), int(minor)


def require_runnable(versions: Iterable[str]) -> None:
    """Skip the calling test, naming each version and why, if any of ``versions`` cannot
    run on this interpreter (a comparison over a partial set of versions proves less than
    it claims, so it is not run at all)."""
    reasons = [r for r in (cannot_run(v) for v in versions) if r]
    if reasons:
        pytest.skip("; ".join(reasons))


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def setuptools_python(
    version: str, requires: Sequence[str] = (), *, python: Path | None = None
) -> Path:
    """The interpreter of a venv holding exactly ``setuptools==version`` and the pinned
    ``requires`` (``name==version`` each: a project's other build requirements), created
    once, on ``python`` (default: this interpreter; pip installs for its Python version).

    Skips the calling test when ``version`` cannot run on that interpreter
    (:func:`cannot_run`).
    """
    base = Path(sys.executable) if python is None else python
    pyver = (
        (sys.version_info.major, sys.version_info.minor)
        if python is None
        else _interpreter_version(python)
    )
    why = cannot_run(version, pyver)
    if why:
        pytest.skip(why)
    unpinned = [r for r in requires if "==" not in r]
    if unpinned:
        msg = f"pin each extra build requirement (name==version): {unpinned}"
        raise ValueError(msg)
    # Before 70.1.0 setuptools asks the frontend for `wheel` (get_requires_for_build_wheel
    # returns it); pip then installs it into the build environment, so the venv has it too.
    needs_wheel = tuple(int(x) for x in version.split(".")[:2]) < (70, 1)
    extra = ["wheel==0.43.0"] if needs_wheel else []
    extra += sorted(requires)
    suffix = "-wheel" if needs_wheel else ""
    suffix += "".join(f"+{r.replace('==', '-')}" for r in sorted(requires))
    env_dir = CACHE / "venvs" / f"py{pyver[0]}.{pyver[1]}-setuptools-{version}{suffix}"
    python = env_dir / "bin" / "python"
    marker = env_dir / ".complete"
    if marker.exists():
        return python
    with _lock(CACHE / "venvs" / f".{version}{suffix}.lock"):
        if marker.exists():
            return python
        if env_dir.exists():
            subprocess.run(["rm", "-rf", str(env_dir)], check=True)
        subprocess.run([str(base), "-m", "venv", "--without-pip", str(env_dir)], check=True)
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--only-binary=:all:",
                *([] if python is None else ["--python-version", f"{pyver[0]}.{pyver[1]}"]),
                "--target",
                purelib,
                f"setuptools=={version}",
                *extra,
            ],
            check=True,
        )
        check = subprocess.run(
            [str(python), "-c", "import setuptools; print(setuptools.__version__)"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        if check != version:
            msg = f"venv for setuptools {version} imports setuptools {check}"
            raise OracleError(msg)
        marker.write_text(version)
    return python


def pip_wheel(project: Path, dist: Path) -> subprocess.CompletedProcess[str]:
    """Real pip (this interpreter's, build isolation on) building ``project`` into ``dist``,
    as a user's ``pip wheel --no-deps`` would: the frontend's own verdict on a tree."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "-w",
            str(dist),
            str(project),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def purelib() -> str:
    return sysconfig.get_path("purelib")


# -- results ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class HookResult:
    """What real setuptools did with one project (or one setup.cfg)."""

    setuptools: str
    enforce: bool
    today: dt.date | None
    outcome: Literal["builds", "fails"]
    #: Qualified name of the exception's class (``setuptools.errors.InvalidConfigError``).
    exc_type: str | None = None
    #: ``str(exc)`` (up to MESSAGE_LIMIT characters).
    message: str = ""
    #: The hook that raised (or ``parse_config_files``).
    hook: str | None = None
    #: ``file:line`` of the innermost traceback frame.
    where: str | None = None
    #: (qualified category name, first line of the message) of each warning emitted.
    warnings: tuple[tuple[str, str], ...] = ()
    #: METADATA text, when prepare_metadata_for_build_wheel ran and succeeded.
    metadata: str | None = None

    @property
    def exc_name(self) -> str | None:
        return self.exc_type.rpartition(".")[2] if self.exc_type else None

    @property
    def error(self) -> str | None:
        """``Type: first line of the message``, or None when it built."""
        if self.outcome == "builds":
            return None
        first = self.message.splitlines()[0][:300] if self.message else ""
        return f"{self.exc_name}" + (f": {first}" if first else "")

    def describe(self) -> str:
        """One line for a failure message: what this setuptools did, and where."""
        label = f"setuptools {self.setuptools}" + (" (enforced)" if self.enforce else "")
        if self.today is not None:
            label += f" on {self.today.isoformat()}"
        if self.outcome == "builds":
            return f"{label} builds"
        where = f" [{self.hook} at {self.where}]" if self.where else f" [{self.hook}]"
        return f"{label} fails: {self.error}{where}"

    def warned(self, pattern: str, category: str | None = None) -> bool:
        """Whether a warning (of ``category``, by short or qualified name) matched
        ``pattern``."""
        rx = re.compile(pattern)
        return any(
            rx.search(text) and (category is None or _name_matches(category, cat))
            for cat, text in self.warnings
        )


def _name_matches(declared: str, qualified: str) -> bool:
    return declared in (qualified, qualified.rpartition(".")[2])


# The scripts run inside the setuptools venv; they must work on every Python that venv
# might be and every setuptools version (no f-string features newer than 3.8).
_PRELUDE = r"""
import datetime as _dt, json, os, sys, traceback, warnings
_TODAY = json.loads(os.environ.get("SAPPER_ORACLE_TODAY") or "null")
if _TODAY:
    class _FixedDate(_dt.date):
        @classmethod
        def today(cls):
            return cls(*_TODAY)
    _dt.date = _FixedDate  # setuptools.warnings does `from datetime import date`

def _error(exc, hook):
    tb = traceback.extract_tb(exc.__traceback__)
    where = None
    if tb:
        name = tb[-1].filename.replace(os.sep, "/")
        name = name.split("/site-packages/")[-1] if "/site-packages/" in name else name
        where = "%s:%s" % (name, tb[-1].lineno)
    cls = type(exc)
    return {
        "exc_type": cls.__module__ + "." + cls.__qualname__,
        "message": str(exc)[:%(limit)d],
        "hook": hook,
        "where": where,
    }

def _warnings(caught):
    return [
        [w.category.__module__ + "." + w.category.__qualname__,
         (str(w.message).strip().splitlines() or [""])[0][:300]]
        for w in caught
    ]

import setuptools
_HEADER = {"setuptools": setuptools.__version__}
if _TODAY:
    _HEADER["today"] = _dt.date.today().isoformat()
    try:
        import setuptools.warnings as _sw
    except ImportError:
        pass
    else:
        _HEADER["today_seen_by_setuptools"] = _sw.date.today().isoformat()
sys.stdout.write("\n@@SAPPER-ORACLE-HEADER@@" + json.dumps(_HEADER) + "\n")
sys.stdout.flush()
""".replace("%(limit)d", str(MESSAGE_LIMIT))

_HOOKS_SCRIPT = (
    _PRELUDE
    + r"""
sys.path.insert(0, os.getcwd())
from setuptools import build_meta
backend = build_meta.__legacy__ if sys.argv[1] == "legacy" else build_meta
hooks = sys.argv[2].split(",")
result = dict(_HEADER)
import tempfile
out = tempfile.mkdtemp()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    hook = None
    try:
        for hook in hooks:
            if hook == "prepare_metadata_for_build_wheel":
                name = backend.prepare_metadata_for_build_wheel(out)
                with open(os.path.join(out, name, "METADATA"), encoding="utf-8") as fh:
                    result["metadata"] = fh.read()
            elif hook in ("build_wheel", "build_sdist"):
                getattr(backend, hook)(tempfile.mkdtemp())
            else:
                result.setdefault("requires", {})[hook] = [str(r) for r in getattr(backend, hook)()]
    except BaseException as exc:  # SystemExit included: distutils errors exit
        result["error"] = _error(exc, hook)
result["warnings"] = _warnings(caught)
sys.stdout.write("\n@@SAPPER-ORACLE@@" + json.dumps(result) + "\n")
"""
)

_PARSE_SCRIPT = (
    _PRELUDE
    + r"""
from setuptools.dist import Distribution
out = dict(_HEADER)
out["results"] = {}
for path in sys.argv[1:]:
    entry = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Distribution().parse_config_files(filenames=[path])
        except BaseException as exc:  # SystemExit included: distutils errors exit
            entry["error"] = _error(exc, "parse_config_files")
    entry["warnings"] = _warnings(caught)
    out["results"][path] = entry
sys.stdout.write("\n@@SAPPER-ORACLE@@" + json.dumps(out) + "\n")
"""
)

_MARK = "@@SAPPER-ORACLE@@"
_HEADER_MARK = "@@SAPPER-ORACLE-HEADER@@"


def _env(enforce: bool, today: dt.date | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETUPTOOLS_", "PYTHON"))}
    if enforce:
        env["SETUPTOOLS_ENFORCE_DEPRECATION"] = "1"
    if today is not None:
        env["SAPPER_ORACLE_TODAY"] = json.dumps([today.year, today.month, today.day])
    return env


def _run(
    version: str,
    args: Sequence[str],
    *,
    cwd: Path | None,
    enforce: bool,
    today: dt.date | None,
    timeout: float,
    requires: Sequence[str] = (),
    python: Path | None = None,
) -> dict[str, object]:
    python = setuptools_python(version, requires, python=python)
    try:
        proc = subprocess.run(
            [str(python), "-c", *args],
            check=False,
            capture_output=True,
            text=True,
            env=_env(enforce, today),
            cwd=cwd,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        msg = f"setuptools {version}: the oracle script timed out after {timeout:g} s"
        raise OracleError(msg) from exc
    out = proc.stdout.splitlines()
    headers = [line for line in out if line.startswith(_HEADER_MARK)]
    lines = [line for line in out if line.startswith(_MARK)]
    if headers:
        header = json.loads(headers[-1][len(_HEADER_MARK) :])
        if header.get("setuptools") != version:
            msg = (
                f"the venv for setuptools {version} imports setuptools "
                f"{header.get('setuptools')}; delete its entry under {CACHE / 'venvs'} and rerun"
            )
            raise OracleError(msg)
        if today is not None:
            for key in ("today", "today_seen_by_setuptools"):
                if key in header and header[key] != today.isoformat():
                    seen = header[key]
                    msg = f"setuptools {version}: injected today {today}, but {key} is {seen}"
                    raise OracleError(msg)
    if not headers or not lines:
        stage = "could not import setuptools" if not headers else "produced no result"
        msg = (
            f"setuptools {version}: the oracle {stage} (exit {proc.returncode}); "
            f"a crashed interpreter or a broken venv is not a build failure.\n"
            f"stderr: {proc.stderr[-1500:]}"
        )
        raise OracleError(msg)
    data: dict[str, object] = json.loads(lines[-1][len(_MARK) :])
    return data


def _frontend_error(requires: object) -> dict[str, object] | None:
    """What a frontend (pip, uv, build) makes of the requirements ``get_requires_*`` returned:
    each is parsed as a PEP 508 requirement before it is installed, and one that does not
    parse stops the build there (``Invalid requirement``), whatever setuptools thought of it.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    if not isinstance(requires, dict):
        return None
    for hook, listed in requires.items():
        for text in listed:
            try:
                Requirement(text)
            except InvalidRequirement as exc:
                return {
                    "exc_type": "packaging.requirements.InvalidRequirement",
                    "message": str(exc),
                    "hook": f"frontend, after {hook}",
                    "where": None,
                }
    return None


def _result(
    version: str, enforce: bool, today: dt.date | None, entry: dict[str, object]
) -> HookResult:
    error = entry.get("error")
    raw_warnings = entry.get("warnings") or []
    assert isinstance(raw_warnings, list)
    warns = tuple((str(c), str(t)) for c, t in raw_warnings)
    metadata = entry.get("metadata")
    common = {
        "setuptools": version,
        "enforce": enforce,
        "today": today,
        "warnings": warns,
        "metadata": metadata if isinstance(metadata, str) else None,
    }
    if not error:
        error = _frontend_error(entry.get("requires"))
    if not error:
        return HookResult(outcome="builds", **common)  # type: ignore[arg-type]
    assert isinstance(error, dict)
    return HookResult(
        outcome="fails",
        exc_type=str(error["exc_type"]),
        message=str(error.get("message") or ""),
        hook=str(error.get("hook")),
        where=error.get("where"),
        **common,  # type: ignore[arg-type]
    )


def run_hooks(
    version: str,
    project: Path,
    *,
    enforce: bool = False,
    today: dt.date | None = None,
    hooks: Sequence[str] = HOOKS_METADATA,
    backend: Literal["legacy", "build_meta"] = "legacy",
    timeout: float = 300,
    requires: Sequence[str] = (),
    python: Path | None = None,
) -> HookResult:
    """Run ``hooks`` (in order, stopping at the first error) of real setuptools ``version``
    in ``project``, with ``SETUPTOOLS_ENFORCE_DEPRECATION=1`` if ``enforce`` and the clock
    fixed at ``today`` if given, on the interpreter ``python`` if given (see
    :func:`setuptools_python`).

    ``backend="legacy"`` is ``setuptools.build_meta:__legacy__``, what pip uses for a
    project without ``build-system.build-backend``; ``build_meta`` the declared backend.
    ``requires`` (pinned) are installed next to setuptools, as a frontend installs the
    project's other ``build-system.requires``. Raises :class:`OracleError` if no result
    came back (never reported as "fails").
    """
    unknown = set(hooks) - _HOOKS
    if unknown:
        msg = f"unknown PEP 517 hooks {sorted(unknown)}; choose from {sorted(_HOOKS)}"
        raise ValueError(msg)
    data = _run(
        version,
        [_HOOKS_SCRIPT, backend, ",".join(hooks)],
        cwd=project,
        enforce=enforce,
        today=today,
        timeout=timeout,
        requires=requires,
        python=python,
    )
    return _result(version, enforce, today, data)


def parse_config(
    version: str,
    paths: Sequence[Path],
    *,
    enforce: bool,
    today: dt.date | None = None,
    timeout: float = 600,
    python: Path | None = None,
) -> dict[str, HookResult]:
    """``Distribution().parse_config_files()`` of real setuptools ``version`` on each path
    (keyed by ``str(path)``), on ``python`` if given (see :func:`setuptools_python`)."""
    data = _run(
        version,
        [_PARSE_SCRIPT, *map(str, paths)],
        cwd=paths[0].parent if paths else None,
        enforce=enforce,
        today=today,
        timeout=timeout,
        python=python,
    )
    results = data["results"]
    assert isinstance(results, dict)
    return {path: _result(version, enforce, today, entry) for path, entry in results.items()}


# -- reasons ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reason:
    """The failure a rule predicts: one of ``types`` (exception class names, short
    ``"InvalidConfigError"`` or qualified ``"setuptools.errors.InvalidConfigError"``; the
    exact class, not a base class) with a message in which ``pattern`` is found
    (``re.search``)."""

    types: tuple[str, ...]
    pattern: str

    def __post_init__(self) -> None:
        re.compile(self.pattern)  # a typo in a declared pattern fails at import time
        if not self.types:
            msg = "a Reason needs at least one exception type"
            raise ValueError(msg)

    def matches(self, result: HookResult) -> bool:
        if result.outcome != "fails" or result.exc_type is None:
            return False
        if not any(_name_matches(t, result.exc_type) for t in self.types):
            return False
        return re.search(self.pattern, result.message) is not None

    def __str__(self) -> str:
        return f"{' | '.join(self.types)} matching /{self.pattern}/"


def reason_mismatch(
    real: HookResult,
    predicted: str,
    reasons: Reason | Sequence[Reason] | None,
    *,
    because: Sequence[str] = (),
    label: str = "",
) -> str | None:
    """None when sapper's ``predicted`` outcome agrees with ``real`` *for the declared
    reason*; otherwise a message showing both sides.

    ``reasons`` are the failures the prediction stands for (any one must match); a
    predicted failure without a declared reason is itself a mismatch, since agreement on
    "fails" alone proves nothing. ``because`` is the verdict's rule codes, shown in the
    message.
    """
    if isinstance(reasons, Reason):
        reasons = (reasons,)
    reasons = tuple(reasons or ())
    prefix = f"{label}: " if label else ""
    rules = f" ({', '.join(because)})" if because else ""
    if predicted not in ("fails", "builds"):
        return f"{prefix}sapper says {predicted}{rules}; {real.describe()}"
    if predicted == "builds":
        if real.outcome == "builds":
            return None
        return f"{prefix}sapper says builds; {real.describe()}\n    message: {real.message}"
    if real.outcome == "builds":
        return f"{prefix}sapper says fails{rules}; {real.describe()}"
    if not reasons:
        return (
            f"{prefix}sapper says fails{rules} but declares no reason to check; {real.describe()}"
        )
    if any(r.matches(real) for r in reasons):
        return None
    expected = " or ".join(str(r) for r in reasons)
    return (
        f"{prefix}both fail, for different reasons: sapper{rules} expects {expected}; "
        f"{real.describe()}\n    message: {real.message}"
    )


def assert_reason(
    real: HookResult,
    predicted: str,
    reasons: Reason | Sequence[Reason] | None,
    *,
    because: Sequence[str] = (),
    label: str = "",
) -> None:
    """:func:`reason_mismatch`, raising AssertionError with both messages."""
    problem = reason_mismatch(real, predicted, reasons, because=because, label=label)
    if problem:
        raise AssertionError(problem)


# -- older entry points (kept for callers that only need the outcome) ---------------------


def metadata_outcome(
    version: str, project: Path, *, enforce: bool = False, today: dt.date | None = None
) -> str | None:
    """None when both metadata hooks succeed, else ``Type: message`` (see run_hooks)."""
    return run_hooks(version, project, enforce=enforce, today=today).error


def metadata_text(
    version: str, project: Path, *, enforce: bool = False, timeout: float = 300
) -> tuple[str | None, str | None]:
    """(METADATA text, None) from ``prepare_metadata_for_build_wheel`` with real setuptools
    ``version`` in ``project``, or (None, the error)."""
    result = run_hooks(version, project, enforce=enforce, timeout=timeout)
    return result.metadata, result.error


def parse_config_outcomes(
    version: str, paths: Sequence[Path], *, enforce: bool
) -> dict[str, str | None]:
    """``Distribution().parse_config_files()`` on each path: None (ok) or the error."""
    return {p: r.error for p, r in parse_config(version, paths, enforce=enforce).items()}
