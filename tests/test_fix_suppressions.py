"""``sapper fix`` and suppressions: a suppressed finding is never fixed, per finding.

Each case has two findings of one rule in one file, one suppressed (by a comment or by
``per-file-ignores``) and one not: the unsuppressed one is fixed, the suppressed one stays
as written. Then the same project with suppressions ignored fixes both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import TODAY, check, project

from sapper.cli import main
from sapper.fix import fix_files
from sapper.fix.registry import fixable_codes


@dataclass(frozen=True)
class Case:
    id: str
    path: str
    before: str
    #: The text with suppressions honoured, then with them ignored.
    after: str
    after_all: str | None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (code, status) of the edits made with suppressions honoured.
    edits: tuple[tuple[str, str], ...] = ()


_TWO_SETUPS = (
    "from setuptools import setup\n"
    "if FLAG:\n"
    "    setup(name='x', use_2to3=False)  # sapper: ignore[SP002]\n"
    "else:\n"
    "    setup(name='x', use_2to3=False)\n"
)
_TEST_AND_PKG = (
    "import pkg_resources\n"
    "# sapper: ignore[SP001]\n"
    "from setuptools.command.test import test\n"
    "from setuptools import setup\n"
    "setup(name='x', version=pkg_resources.get_distribution('y').version,\n"
    "      cmdclass={'test': test})\n"
)
_PKG_SUPPRESSED = (
    "import pkg_resources  # sapper: ignore[SP001]\n"
    "from setuptools.command.test import test\n"
    "from setuptools import setup\n"
    "setup(name='x', version=pkg_resources.get_distribution('y').version,\n"
    "      cmdclass={'test': test})\n"
)
_FIXED_PKG = (
    "import importlib.metadata\n"
    "from setuptools import setup\n"
    "setup(name='x', version=importlib.metadata.version('y'),\n"
    "      )\n"
)

CASES = [
    Case(
        "setup.py-two-setup-calls-one-suppressed",
        "setup.py",
        _TWO_SETUPS,
        _TWO_SETUPS.replace("name='x', use_2to3=False)\n", "name='x')\n"),
        _TWO_SETUPS.replace(", use_2to3=False", ""),
        edits=(("SP002", "applied"),),
    ),
    Case(
        "setup.py-test-import-suppressed-pkg_resources-not",
        "setup.py",
        _TEST_AND_PKG,
        _TEST_AND_PKG.replace("import pkg_resources\n", "import importlib.metadata\n").replace(
            "pkg_resources.get_distribution('y').version", "importlib.metadata.version('y')"
        ),
        None,  # not compared
        edits=(("SP001", "applied"),),
    ),
    Case(
        "setup.py-pkg_resources-suppressed-test-import-not",
        "setup.py",
        _PKG_SUPPRESSED,
        _PKG_SUPPRESSED.replace("from setuptools.command.test import test\n", "").replace(
            ",\n      cmdclass={'test': test})", ",\n      )"
        ),
        None,
        edits=(("SP001", "applied"),),
    ),
    Case(
        "setup.cfg-one-of-two-dashed-keys-suppressed",
        "setup.cfg",
        "[metadata]\nname = x\n# sapper: ignore[SC001]\nhome-page = a\nauthor-email = b\n",
        "[metadata]\nname = x\n# sapper: ignore[SC001]\nhome-page = a\nauthor_email = b\n",
        "[metadata]\nname = x\n# sapper: ignore[SC001]\nurl = a\nauthor_email = b\n",
        edits=(("SC001", "applied"),),
    ),
    Case(
        "setup.cfg-section-suppressed-other-section-not",
        "setup.cfg",
        "[metadata]\nname = x\nhome-page = a\n\n# sapper: ignore[SC001]\n[options]\n"
        "python-requires = >=3.8\n",
        "[metadata]\nname = x\nurl = a\n\n# sapper: ignore[SC001]\n[options]\n"
        "python-requires = >=3.8\n",
        "[metadata]\nname = x\nurl = a\n\n# sapper: ignore[SC001]\n[options]\n"
        "python_requires = >=3.8\n",
        edits=(("SC001", "applied"),),
    ),
    Case(
        "setup.cfg-bdist_wheel-section-suppressed-old-wheel-section-not",
        "setup.cfg",
        "[metadata]\nname = x\n\n# sapper: ignore[SC009]\n[bdist_wheel]\nuniversal = 1\n\n"
        "[wheel]\nuniversal = 1\n",
        "[metadata]\nname = x\n\n# sapper: ignore[SC009]\n[bdist_wheel]\nuniversal = 1\n\n",
        "[metadata]\nname = x\n\n# sapper: ignore[SC009]\n",
        edits=(("SC009", "applied"),),
    ),
    Case(
        "setup.cfg-description-file-suppressed",
        "setup.cfg",
        "[metadata]\nname = x\n# sapper: ignore[SC001]\ndescription-file = README.md\n"
        "home-page = a\n",
        "[metadata]\nname = x\n# sapper: ignore[SC001]\ndescription-file = README.md\nurl = a\n",
        None,
        edits=(("SC001", "applied"),),
    ),
]


def _files(case: Case) -> dict[str, str]:
    files = {case.path: case.before}
    if case.path == "setup.cfg":
        files["setup.py"] = "from setuptools import setup\nsetup()\n"
    return files


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_suppressed_finding_is_not_fixed(case: Case) -> None:
    files = _files(case)
    kept = check(files, suppressions=True).findings
    everything = check(files).findings
    assert len(everything) > len(kept) >= 1, "the case needs a suppressed and a kept finding"
    result = fix_files(project(files), today=TODAY, suppressions=True)
    assert result.files[case.path].decode() == case.after
    assert [(e.code, e.status) for e in result.edits] == list(case.edits)
    # Of what fix repairs, what is left is exactly what was suppressed.
    left = check({**files, case.path: case.after}).findings
    assert sorted((f.code, f.line) for f in left if f.code in fixable_codes()) == sorted(
        (f.code, f.line) for f in everything if f not in kept
    )
    if case.after_all is not None:
        fixed = fix_files(project(files), today=TODAY).files[case.path].decode()
        assert fixed == case.after_all


def test_per_file_ignores_of_another_file_do_not_stop_setup_py_fixes() -> None:
    files = {"setup.py": _TWO_SETUPS.replace("  # sapper: ignore[SP002]", "")}
    result = fix_files(project(files), today=TODAY, per_file_ignores=(("setup.cfg", ("SP002",)),))
    assert ", use_2to3" not in result.files["setup.py"].decode()
    result = fix_files(project(files), today=TODAY, per_file_ignores=(("setup.py", ("SP",)),))
    assert not result.changed


_CLASS = (
    "from setuptools.command.test import test\n"
    "from setuptools import setup\n"
    "class PyTest(test):\n"
    "    def run_tests(self):\n"
    "        import pkg_resources\n"
    "setup(name='x', cmdclass={'test': PyTest})\n"
)


@pytest.mark.parametrize(
    ("held", "expected"),
    [
        # a suppressed line inside what the edit removes (the class): reported, not made
        ({"SP001": frozenset({5})}, [("SP001", "skipped", "line 5")]),
        # the edit's own line suppressed: nothing to say, nothing made
        ({"SP001": frozenset({1})}, []),
        # another rule's suppression does not hold this edit
        ({"SP002": frozenset({5})}, [("SP001", "applied", "")]),
        ({}, [("SP001", "applied", "")]),
    ],
)
def test_an_edit_reaching_a_suppressed_line_is_not_made(held, expected) -> None:
    """The guard itself: an edit spanning several lines (the import, the class built on it,
    the cmdclass entry) is held back when any of them carries a suppressed finding."""
    from sapper.fix.setup_py import fix_setup_py

    # the finding at the import (line 1) is the one fixed, unless it is suppressed itself
    # (then `sapper fix` does not hand it to the fixer)
    found = [
        f
        for f in check({"setup.py": _CLASS}, select=("SP001",)).findings
        if f.line == 1 and f.line not in held.get(f.code, frozenset())
    ]
    new, edits = fix_setup_py(_CLASS.encode(), found, unsafe_fixes=True, held=held)
    assert [(e.code, e.status) for e in edits] == [(c, s) for c, s, _ in expected]
    for edit, (_, _, text) in zip(edits, expected, strict=True):
        assert text in edit.message
    changed = bool(expected) and expected[0][1] == "applied"
    assert (new is not None) == changed


def test_cli_per_file_ignores_from_pyproject_toml(capsys, tmp_path: Path) -> None:
    """The same through ``sapper fix`` with ``[tool.sapper] per-file-ignores`` in
    pyproject.toml: a glob for setup.cfg leaves setup.cfg's findings alone, and setup.py's
    unsuppressed finding is fixed."""
    (tmp_path / "pyproject.toml").write_text(
        "[tool.sapper.per-file-ignores]\n'setup.cfg' = ['SC001']\n"
    )
    cfg = "[metadata]\nname = x\nhome-page = a\n"
    (tmp_path / "setup.cfg").write_text(cfg)
    (tmp_path / "setup.py").write_text(_TWO_SETUPS)
    assert main(["fix", str(tmp_path)]) == 1
    capsys.readouterr()
    assert (tmp_path / "setup.cfg").read_text() == cfg
    assert (tmp_path / "setup.py").read_text() == CASES[0].after
