"""Golden files: ``sapper fix`` on the setup.cfg and setup.py of real releases.

Inputs are the files of the sdists, in ``tests/data/fix/<release>/``; the expected fixed
files and the edit report are in ``tests/data/fix/golden/``. Regenerate them with
``SAPPER_UPDATE_GOLDEN=1 python -m pytest tests/test_fix_golden.py`` and review the diff.
"""

from __future__ import annotations

import io
import os
import tokenize
from pathlib import Path

import pytest
from helpers import DATA, TODAY

from sapper.fix import fix_files
from sapper.inputs.sources import read_directory

FIX = DATA / "fix"
GOLDEN = FIX / "golden"
RELEASES = ["requests-2.32.3", "stringcase-1.2.0"]


def _report(release: str, unsafe: bool) -> tuple[dict[str, bytes], str]:
    files = read_directory(FIX / release)
    result = fix_files(files, unsafe_fixes=unsafe, today=TODAY)
    lines = [f"{e.path}:{e.line}: {e.code} {e.status}: {e.message}" for e in result.edits]
    return dict(result.files), "\n".join(lines) + "\n"


def _compare(path: Path, actual: bytes) -> None:
    if os.environ.get("SAPPER_UPDATE_GOLDEN"):
        path.write_bytes(actual)
    assert actual == path.read_bytes(), f"{path} differs; see the module docstring"


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_golden(release: str, unsafe: bool) -> None:
    changed, report = _report(release, unsafe)
    suffix = ".unsafe" if unsafe else ""
    _compare(GOLDEN / f"{release}{suffix}.edits.txt", report.encode())
    for name in ("setup.cfg", "setup.py"):
        original = (FIX / release / name).read_bytes()
        _compare(GOLDEN / f"{release}{suffix}.{name}", changed.get(name, original))


def _comments(name: str, text: str) -> list[str]:
    """setup.cfg: its comment lines; setup.py: every comment token (also end-of-line ones)."""
    if name == "setup.py":
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [t.string for t in tokens if t.type == tokenize.COMMENT]
    return [ln for ln in text.splitlines() if ln.strip().startswith(("#", ";"))]


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_golden_comment_lines_kept(release: str, unsafe: bool) -> None:
    changed, _ = _report(release, unsafe=unsafe)
    assert changed, f"the fixer changed nothing in {release}: the comment check would be empty"
    for name, content in changed.items():
        before = (FIX / release / name).read_text()
        assert _comments(name, content.decode()) == _comments(name, before), name
