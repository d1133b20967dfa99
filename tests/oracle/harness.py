"""Real setuptools, installed from PyPI into cached virtual environments.

Each version gets its own venv under ``$SAPPER_ORACLE_CACHE`` (default
``~/.cache/sapper-tests``), created once and reused. Nothing here imports setuptools into
the test process: every call runs in a subprocess of that venv's interpreter.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from pathlib import Path

CACHE = Path(os.environ.get("SAPPER_ORACLE_CACHE", Path.home() / ".cache" / "sapper-tests"))
PY = f"{sys.version_info.major}.{sys.version_info.minor}"


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def setuptools_python(version: str) -> Path:
    """The interpreter of a venv holding exactly ``setuptools==version`` (created once)."""
    # Before 70.1.0 setuptools asks the frontend for `wheel` (get_requires_for_build_wheel
    # returns it); pip then installs it into the build environment, so the venv has it too.
    needs_wheel = tuple(int(x) for x in version.split(".")[:2]) < (70, 1)
    extra = ["wheel==0.43.0"] if needs_wheel else []
    suffix = "-wheel" if needs_wheel else ""
    env_dir = CACHE / "venvs" / f"py{PY}-setuptools-{version}{suffix}"
    python = env_dir / "bin" / "python"
    marker = env_dir / ".complete"
    if marker.exists():
        return python
    with _lock(CACHE / "venvs" / f".{version}.lock"):
        if marker.exists():
            return python
        if env_dir.exists():
            subprocess.run(["rm", "-rf", str(env_dir)], check=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
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
            raise RuntimeError(msg)
        marker.write_text(version)
    return python


_PARSE_SCRIPT = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from setuptools.dist import Distribution
out = {}
for path in sys.argv[1:]:
    try:
        Distribution().parse_config_files(filenames=[path])
    except BaseException as exc:  # SystemExit included: distutils errors exit
        text = str(exc).splitlines()[0][:300] if str(exc) else ""
        out[path] = type(exc).__name__ + (": " + text if text else "")
    else:
        out[path] = None
json.dump(out, sys.stdout)
"""


def parse_config_outcomes(
    version: str, paths: Sequence[Path], *, enforce: bool
) -> dict[str, str | None]:
    """``Distribution().parse_config_files()`` on each path: None (ok) or the error."""
    python = setuptools_python(version)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETUPTOOLS_", "PYTHON"))}
    if enforce:
        env["SETUPTOOLS_ENFORCE_DEPRECATION"] = "1"
    proc = subprocess.run(
        [str(python), "-c", _PARSE_SCRIPT, *map(str, paths)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=paths[0].parent if paths else None,
    )
    result: dict[str, str | None] = json.loads(proc.stdout)
    return result


def purelib() -> str:
    return sysconfig.get_path("purelib")


_METADATA_SCRIPT = r"""
import json, os, sys, tempfile, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, os.getcwd())
from setuptools import build_meta
backend = build_meta.__legacy__ if sys.argv[1] == "legacy" else build_meta
try:
    backend.get_requires_for_build_wheel()
    out = tempfile.mkdtemp()
    backend.prepare_metadata_for_build_wheel(out)
except BaseException as exc:
    text = str(exc).splitlines()[0][:300] if str(exc) else ""
    print(json.dumps(type(exc).__name__ + (": " + text if text else "")))
else:
    print(json.dumps(None))
"""


def metadata_outcome(version: str, project: Path, *, enforce: bool = False) -> str | None:
    """Run the PEP 517 hooks pip calls first (get_requires_for_build_wheel, then
    prepare_metadata_for_build_wheel) with real setuptools; None when both succeed."""
    python = setuptools_python(version)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETUPTOOLS_", "PYTHON"))}
    if enforce:
        env["SETUPTOOLS_ENFORCE_DEPRECATION"] = "1"
    proc = subprocess.run(
        [str(python), "-c", _METADATA_SCRIPT, "legacy"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith(("null", '"'))]
    if not lines:
        return f"no result (exit {proc.returncode}): {proc.stderr[-300:]}"
    result: str | None = json.loads(lines[-1])
    return result


_METADATA_TEXT_SCRIPT = r"""
import json, os, sys, tempfile, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, os.getcwd())
from setuptools import build_meta
backend = build_meta.__legacy__
try:
    backend.get_requires_for_build_wheel()
    out = tempfile.mkdtemp()
    name = backend.prepare_metadata_for_build_wheel(out)
    with open(os.path.join(out, name, "METADATA"), encoding="utf-8") as fh:
        text = fh.read()
except BaseException as exc:
    msg = str(exc).splitlines()[0][:300] if str(exc) else ""
    print(json.dumps({"error": type(exc).__name__ + (": " + msg if msg else "")}))
else:
    print(json.dumps({"metadata": text}))
"""


def metadata_text(
    version: str, project: Path, *, enforce: bool = False, timeout: float = 300
) -> tuple[str | None, str | None]:
    """(METADATA text, None) from ``prepare_metadata_for_build_wheel`` with real setuptools
    ``version`` in ``project``, or (None, the error)."""
    python = setuptools_python(version)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETUPTOOLS_", "PYTHON"))}
    if enforce:
        env["SETUPTOOLS_ENFORCE_DEPRECATION"] = "1"
    try:
        proc = subprocess.run(
            [str(python), "-c", _METADATA_TEXT_SCRIPT],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:g} s"
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return None, f"no result (exit {proc.returncode}): {proc.stderr[-300:]}"
    result = json.loads(lines[-1])
    return result.get("metadata"), result.get("error")
