"""Unreadable inputs against the real tools: a setup.py that does not compile fails with
real setuptools on that Python (SP900), for old and new releases, and a setup.py that only a
newer Python reads fails on the older one and builds on the newer (``--python``); a
pyproject.toml that is not TOML (or not UTF-8) is refused by real pip (PP900), while the
same tree with valid TOML builds. (Unreadable setup.cfg files, SC003-SC006, are proven
against ``parse_config_files`` in test_setupcfg_oracle.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .agree import comparisons
from .harness import older_python, pip_wheel, reason_mismatch, require_runnable, run_hooks
from .reasons import reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]

SETUP = 'from setuptools import setup\n{body}\nsetup(name="probe", version="1.0", py_modules=[])\n'

#: Python 2 setup.py files as old sdists have them; the control is the same file ported.
PY2_CASES = [
    ("print-statement", 'print "building probe"'),
    ("except-comma", "try:\n    import json\nexcept ImportError, e:\n    json = None"),
    ("octal-literal", "MODE = 0755"),
    ("control-ported", 'print("building probe")'),
]


@pytest.mark.parametrize(("name", "body"), PY2_CASES, ids=[c[0] for c in PY2_CASES])
def test_python_2_setup_py_fails_with_every_setuptools(
    tmp_path: Path, name: str, body: str
) -> None:
    versions = ("58.0.4", "84.2.1")
    require_runnable(versions)
    (tmp_path / "setup.py").write_text(SETUP.format(body=body))
    seen = comparisons(tmp_path, versions)
    mismatches = [c.problem for c in seen if c.problem]
    for c in seen:
        real, result = c.real, c.result
        if not name.startswith("control"):
            # the finding names the line and the message Python gives
            finding = next(f for f in result.findings if f.code == "SP900")
            assert real.exc_name == "SyntaxError"
            text, _, where = real.message.rpartition(" (")
            assert f"SyntaxError: {text}" in finding.message, real.message
            assert where.endswith(f"line {finding.line})"), real.message
    assert not mismatches, "\n".join(mismatches)


MATCH = SETUP.format(body="match 1:\n    case 1:\n        pass")


@pytest.mark.parametrize(
    ("python", "outcome"), [((3, 9), "fails"), ((3, 10), "builds")], ids=["3.9", "3.10"]
)
def test_the_python_of_the_build_decides(
    tmp_path: Path, python: tuple[int, int], outcome: str
) -> None:
    """`match` is Python 3.10 syntax: real setuptools 68.2.2 fails on a real Python 3.9 and
    builds on a real 3.10, as sapper (running on a newer Python) says with ``--python``."""
    interpreter = older_python(python)
    if interpreter is None or f"python{python[0]}.{python[1]}" not in interpreter.name:
        pytest.skip(f"no Python {python[0]}.{python[1]} interpreter on this machine")
    (tmp_path / "setup.py").write_text(MATCH)
    real = run_hooks("68.2.2", tmp_path, python=interpreter)
    result = check_target(
        str(tmp_path), Options(setuptools="68.2.2", python=f"{python[0]}.{python[1]}")
    )
    assert result.verdict is not None
    assert real.outcome == outcome, real.describe()
    because = result.verdict.because
    problem = reason_mismatch(real, result.verdict.outcome, reasons_for(because), because=because)
    assert problem is None, problem


#: pyproject.toml files pip cannot read; the control is valid TOML.
TOML_CASES = [
    ("no-value", b"[tool.black]\nline-length =\n", "TOMLDecodeError: Invalid value"),
    ("table-twice", b"[tool.black]\n[tool.black]\n", "TOMLDecodeError"),
    ("latin-1", b"[tool.black]\ntarget = 'caf\xe9'\n", "UnicodeDecodeError"),
    ("control-valid", b"[tool.black]\nline-length = 100\n", None),
]


@pytest.mark.parametrize(("name", "text", "refused"), TOML_CASES, ids=[c[0] for c in TOML_CASES])
def test_invalid_pyproject_is_refused_by_pip(
    tmp_path: Path, name: str, text: bytes, refused: str | None
) -> None:
    project = tmp_path / "probe"
    project.mkdir()
    (project / "pyproject.toml").write_bytes(text)
    (project / "setup.py").write_text(SETUP.format(body=""))
    proc = pip_wheel(project, tmp_path / "dist")
    result = check_target(str(project), Options())
    assert result.verdict is not None
    if refused is None:
        assert proc.returncode == 0, proc.stderr[-1500:]
        assert (result.verdict.outcome, result.verdict.because) == ("builds", ())
        return
    assert proc.returncode != 0
    assert refused in proc.stderr, proc.stderr[-1500:]
    assert not list((tmp_path / "dist").glob("*.whl"))
    assert (result.verdict.outcome, result.verdict.because) == ("fails", ("PP900",))
    finding = result.findings[0]
    if "TOMLDecodeError" in refused:
        # the line and column pip reports are the finding's
        assert f"(at line {finding.line}, column {finding.column})" in proc.stderr


#: A project module setup.py imports that does not compile (Python 2 syntax): the import
#: raises SyntaxError inside the build, with the legacy backend (setup.py's directory on
#: sys.path); the control is the module ported.
MODULE_CASES = [
    ("print-in-package", '__version__ = "1.0"\nprint "imported"\n'),
    ("control-ported", '__version__ = "1.0"\nprint("imported")\n'),
]


@pytest.mark.parametrize(("name", "module"), MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_python_2_project_module_fails_with_every_setuptools(
    tmp_path: Path, name: str, module: str
) -> None:
    versions = ("58.0.4", "84.2.1")
    require_runnable(versions)
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom pkg import __version__\n"
        'setup(name="pkg", version=__version__, packages=["pkg"])\n'
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(module)
    seen = comparisons(tmp_path, versions)
    mismatches = [c.problem for c in seen if c.problem]
    for c in seen:
        real, result = c.real, c.result
        if not name.startswith("control"):
            finding = next(f for f in result.findings if f.code == "SP900")
            assert real.exc_name == "SyntaxError"
            assert "pkg/__init__.py:2" in finding.message
            assert "__init__.py, line 2" in real.message or "line 2" in real.message
    assert not mismatches, "\n".join(mismatches)
