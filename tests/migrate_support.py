"""Real wheel builds for the migrate tests: the newest setuptools of the catalogue (the one
pip's isolated build would install), run through its PEP 517 hooks in a cached venv (no
network), and a summary of the wheel to compare: METADATA fields, entry points, files."""

from __future__ import annotations

import email.parser
import subprocess
import sys
import zipfile
from pathlib import Path

from sapper.versions import catalogue

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from tests.oracle.harness import setuptools_python

__all__ = ["NEWEST", "build_wheel", "wheel_summary"]

NEWEST = catalogue().newest

_BUILD = """
import importlib, sys
name, _, attr = sys.argv[1].partition(":")
backend = importlib.import_module(name)
if attr:
    backend = getattr(backend, attr)
print(backend.build_wheel(sys.argv[2]))
"""


def build_wheel(project: Path, out: Path) -> Path:
    """Build ``project`` with real setuptools as pip would (the legacy backend when
    pyproject.toml names none)."""
    backend = "setuptools.build_meta:__legacy__"
    pyproject = project / "pyproject.toml"
    if pyproject.exists():
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        backend = data.get("build-system", {}).get("build-backend", backend)
    python = setuptools_python(NEWEST)
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [str(python), "-c", _BUILD, backend, str(out)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        msg = f"build of {project} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        raise AssertionError(msg)
    return out / done.stdout.strip().splitlines()[-1]


def wheel_summary(wheel: Path) -> dict[str, object]:
    """What must not change: METADATA fields (sorted, the description body apart), the
    entry points and the file list of the wheel."""
    with zipfile.ZipFile(wheel) as zf:
        names = sorted(zf.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(zf.read(info).decode("utf-8"))
        eps_name = info.replace("METADATA", "entry_points.txt")
        eps = zf.read(eps_name).decode("utf-8") if eps_name in names else ""
    fields = sorted((k, str(v)) for k, v in meta.items())
    return {
        "fields": fields,
        "description": meta.get_payload(),
        "entry_points": sorted(line.strip() for line in eps.splitlines() if line.strip()),
        "files": names,
    }
