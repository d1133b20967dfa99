"""SP001/SP002 against real setuptools: minimal projects built through the PEP 517 hooks pip
calls, at the last version that builds, the first that fails and the newest. A predicted
failure must be the failure the case declares (exception type and message)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .agree import disagreements
from .harness import Reason, require_runnable

pytestmark = [pytest.mark.oracle, pytest.mark.network]

SETUP = (
    'from setuptools import setup\n{imp}\nsetup(name="probe", version="1.0", py_modules=[]{kw})\n'
)


def _no_module(name: str) -> Reason:
    return Reason(("ModuleNotFoundError",), f"^No module named '{name}'")


USE_2TO3 = Reason(("SystemExit",), r"error in probe setup command: use_2to3 is invalid")
FALSY_2TO3 = ("False", "0", '""', "[]", "()", "{}", "set()")

CASES: list[tuple[str, str, str, tuple[str, ...], Reason | None]] = [
    (
        "pkg-resources",
        "import pkg_resources",
        "",
        ("81.0.0", "82.0.0", "84.2.1"),
        _no_module("pkg_resources"),
    ),
    (
        "test-command",
        "from setuptools.command.test import test",
        "",
        ("71.1.0", "72.0.0", "72.1.0"),
        _no_module(r"setuptools\.command\.test"),
    ),
    (
        "extern",
        "from setuptools.extern import packaging",
        "",
        ("70.3.0", "71.0.0", "84.2.1"),
        _no_module(r"setuptools\.extern"),
    ),
    (
        "guarded",
        "try:\n    import pkg_resources\nexcept ImportError:\n    pass",
        "",
        ("84.2.1",),
        None,
    ),
    ("use-2to3-true", "", ", use_2to3=True", ("58.0.1", "58.0.2", "84.2.1"), USE_2TO3),
    # A false value only failed in 58.0.2; None is never even checked.
    *[
        (f"use-2to3-{lit}", "", f", use_2to3={lit}", ("58.0.1", "58.0.2", "58.0.3"), USE_2TO3)
        for lit in FALSY_2TO3
    ],
    ("use-2to3-None", "", ", use_2to3=None", ("58.0.2", "58.0.3", "84.2.1"), None),
    ("use-2to3-false-newest", "", ", use_2to3=False", ("58.0.4", "84.2.1"), None),
]


@pytest.mark.parametrize(
    ("name", "imp", "kw", "versions", "reason"), CASES, ids=[c[0] for c in CASES]
)
def test_setup_py_matches_setuptools(
    tmp_path: Path,
    name: str,
    imp: str,
    kw: str,
    *,
    versions: tuple[str, ...],
    reason: Reason | None,
) -> None:
    require_runnable(versions)
    (tmp_path / "setup.py").write_text(SETUP.format(imp=imp, kw=kw))

    mismatches = disagreements(tmp_path, versions, reasons=reason)
    assert not mismatches, "\n".join(mismatches)
