"""Enforce mode stage by stage, against real setuptools through the PEP 517 hooks pip calls:
``prepare_metadata_for_build_wheel`` (after ``get_requires_for_build_wheel``) and
``build_wheel``, each in a fresh copy of the project.

Proves the fact in ``sapper/data/backend.json``: with ``SETUPTOOLS_ENFORCE_DEPRECATION=1``
every ``build_wheel`` fails from 80.1.0 on ("setup.py install is deprecated.", overdue since
2025-10-31), while the metadata stage still passes; 80.0.1 and 77.0.3 build. And that
sapper's per-stage verdict equals what setuptools did.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sapper.check import Options, check_target
from sapper.stages import backend_facts

from .harness import setuptools_python

pytestmark = [pytest.mark.oracle, pytest.mark.network]

_HOOK_SCRIPT = r"""
import json, os, sys, tempfile, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, os.getcwd())
from setuptools import build_meta
backend = build_meta.__legacy__
stage = sys.argv[1]  # read first: the hooks rewrite sys.argv
try:
    backend.get_requires_for_build_wheel()
    out = tempfile.mkdtemp()
    if stage == "metadata":
        backend.prepare_metadata_for_build_wheel(out)
    else:
        backend.build_wheel(out)
except BaseException as exc:
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    print(json.dumps(type(exc).__name__ + (": " + text if text else "")))
else:
    print(json.dumps(None))
"""


def hook_outcome(version: str, project: Path, stage: str, *, enforce: bool) -> str | None:
    """Run one stage's hooks with real setuptools ``version`` in a fresh copy of ``project``;
    None when they succeed, else the exception."""
    python = setuptools_python(version)
    work = project.parent / f"{project.name}-{version}-{stage}-{int(enforce)}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(project, work)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SETUPTOOLS_", "PYTHON"))}
    if enforce:
        env["SETUPTOOLS_ENFORCE_DEPRECATION"] = "1"
    proc = subprocess.run(
        [str(python), "-c", _HOOK_SCRIPT, stage],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=300,
    )
    lines = [x for x in proc.stdout.splitlines() if x.startswith(("null", '"'))]
    if not lines:
        return f"no result (exit {proc.returncode}): {proc.stderr[-300:]}"
    result: str | None = json.loads(lines[-1])
    return result


CLEAN = {
    "setup.py": "from setuptools import setup\nsetup()\n",
    "setup.cfg": "[metadata]\nname = probe\nversion = 1.0\n\n[options]\npy_modules = probe\n",
    "probe.py": "",
}
UNIVERSAL = {**CLEAN, "setup.cfg": CLEAN["setup.cfg"] + "\n[bdist_wheel]\nuniversal = 1\n"}

# (id, files, version, enforce, metadata fails, wheel fails, the wheel error contains)
Case = tuple[str, dict[str, str], str, bool, bool, bool, str]
CASES: list[Case] = [
    ("clean-84-normal", CLEAN, "84.2.1", False, False, False, ""),
    ("clean-84-enforced", CLEAN, "84.2.1", True, False, True, "setup.py install is deprecated"),
    ("clean-80.1-enforced", CLEAN, "80.1.0", True, False, True, "setup.py install is deprecated"),
    ("clean-80.0.1-enforced", CLEAN, "80.0.1", True, False, False, ""),
    ("clean-77-enforced", CLEAN, "77.0.3", True, False, False, ""),
    # the project's own overdue practice fails at the metadata stage already
    ("universal-77-enforced", UNIVERSAL, "77.0.3", True, True, True, "universal"),
    ("universal-84-enforced", UNIVERSAL, "84.2.1", True, True, True, ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_stage_verdicts_match_setuptools(tmp_path: Path, case: Case) -> None:
    _, files, version, enforce, meta_fails, wheel_fails, wheel_error = case
    project = tmp_path / "probe"
    project.mkdir()
    for rel, text in files.items():
        (project / rel).write_text(text)
    with ThreadPoolExecutor(2) as pool:
        meta, wheel = pool.map(
            lambda stage: hook_outcome(version, project, stage, enforce=enforce),
            ("metadata", "wheel"),
        )
    # what real setuptools did
    assert (meta is not None, wheel is not None) == (meta_fails, wheel_fails), (meta, wheel)
    if wheel_error:
        assert wheel is not None and wheel_error in wheel, wheel
    # what sapper says, stage by stage
    result = check_target(
        str(project),
        Options(setuptools=version, enforce_deprecations=enforce, today=dt.date.today()),
    )
    assert result.verdict is not None
    stages = {st.name: st for st in result.verdict.stages}
    assert stages["metadata"].outcome == ("fails" if meta_fails else "builds")
    assert stages["wheel"].outcome == ("fails" if wheel_fails else "builds")
    own_fails = bool(result.verdict.because)
    backend_fails = stages["wheel"].backend is not None
    # the wheel failure is setuptools' own exactly when the project's practices pass there
    if wheel_fails and not own_fails:
        assert backend_fails
    if not wheel_fails:
        assert not backend_fails
    assert stages["metadata"].backend is None


def test_backend_fact_names_the_real_warning() -> None:
    """The declared warning text is the one setuptools raises (see the cases above)."""
    (wheel,) = [d for d in backend_facts().deprecations if d.stage == "wheel"]
    assert wheel.warning.rstrip(".") in "setup.py install is deprecated."
    assert wheel.versions == (">=80.1.0",)
