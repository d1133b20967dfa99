"""``sapper fix --diff`` output applies with the real ``git apply`` and ``patch -p1``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sapper.cli import main
from sapper.fix import fix_files
from sapper.inputs.sources import read_directory

CASES = {
    "final-newline": b"[metadata]\nname = x\nhome-page = u\n",
    "no-final-newline": b"[metadata]\nname = x\nhome-page = u",
    "no-final-newline-unchanged-last-line": b"[metadata]\nhome-page = u\nname = x",
    "crlf": b"[metadata]\r\nname = x\r\nhome-page = u\r\n",
    "crlf-no-final-newline": b"[metadata]\r\nname = x\r\nhome-page = u",
    # str.splitlines() would break these lines in two; diff and patch do not
    "form-feed": b"# a\x0cb\n[metadata]\nhome-page = u\nname = x\n",
    "line-separator": "# a\u2028b\x1cc\n[metadata]\nhome-page = u\n".encode(),
    "emptied-section": b"[bdist_wheel]\nuniversal = 1",
    "comment-out": b"[metadata]\nname = x\ndecsription-file =\n    README.md",
}


def _diff(capsysbinary: pytest.CaptureFixture[bytes], *argv: str) -> bytes:
    assert main(["fix", "--diff", *argv]) == 1
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("tool", ["git", "patch"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_diff_applies(capsysbinary, monkeypatch, tmp_path: Path, tool: str, case: str) -> None:
    if shutil.which(tool) is None:  # pragma: no cover - both are in CI
        pytest.skip(f"{tool} is not installed")
    original = CASES[case]
    project = tmp_path / "proj"
    project.mkdir()
    (project / "setup.cfg").write_bytes(original)
    expected = fix_files(read_directory(project)).files["setup.cfg"]
    assert expected != original
    monkeypatch.chdir(tmp_path)
    diff = _diff(capsysbinary, "proj")
    assert diff.startswith(b"--- a/proj/setup.cfg\n+++ b/proj/setup.cfg\n")
    if not original.endswith(b"\n") or not expected.endswith(b"\n"):
        assert b"\n\\ No newline at end of file\n" in diff
    (tmp_path / "fix.diff").write_bytes(diff)
    if tool == "git":
        cmd = ["git", "apply", "--unsafe-paths", "-p1", "fix.diff"]
    else:
        cmd = ["patch", "-p1", "--batch", "-i", "fix.diff"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr.decode() + proc.stdout.decode()
    assert (project / "setup.cfg").read_bytes() == expected
    # nothing left to fix for the rules the diff repaired
    assert main(["fix", "--diff", "proj"]) == 0


def test_diff_of_the_current_directory_has_bare_paths(capsysbinary, monkeypatch, tmp_path) -> None:
    (tmp_path / "setup.cfg").write_bytes(CASES["final-newline"])
    monkeypatch.chdir(tmp_path)
    assert _diff(capsysbinary, ".").startswith(b"--- a/setup.cfg\n+++ b/setup.cfg\n")
