"""The command line: exit codes, text and JSON output, golden reports on real projects."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from helpers import DATA

from sapper.cli import main

GOLDEN = DATA / "golden"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def make_sdist(path: Path, name: str, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for member, data in files.items():
            info = tarfile.TarInfo(f"{name}/{member}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def clean_tree(tmp_path: Path) -> Path:
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = ok\nversion = 1.0\n")
    return tmp_path


@pytest.fixture
def dashed_tree(tmp_path: Path) -> Path:
    d = tmp_path / "dashed"
    d.mkdir()
    (d / "setup.cfg").write_text("[metadata]\nname = bad\nauthor-email = a@b.c\n")
    return d


def test_exit_0_when_clean(capsys, clean_tree: Path) -> None:
    code, out, _ = run(capsys, "check", str(clean_tree))
    assert code == 0
    assert "builds with setuptools" in out


def test_exit_1_with_findings(capsys, dashed_tree: Path) -> None:
    code, out, _ = run(capsys, "check", str(dashed_tree), "--color", "never")
    assert code == 1
    assert f"{dashed_tree}/setup.cfg:3:1: SC001 dash-separated key `author-email`" in out


def test_exit_zero_flag(capsys, dashed_tree: Path) -> None:
    assert run(capsys, "check", str(dashed_tree), "--exit-zero")[0] == 0


def test_exit_2_on_usage_error(capsys, clean_tree: Path) -> None:
    code, _, err = run(capsys, "check", str(clean_tree), "--setuptools", "not-a-version")
    assert code == 2
    assert "not a valid version" in err
    assert run(capsys, "check", str(clean_tree), "--python", "three")[0] == 2
    with pytest.raises(SystemExit) as exc:
        main(["check", "--format", "xml"])
    assert exc.value.code == 2


def test_check_without_target_checks_the_current_directory(
    capsys, monkeypatch, dashed_tree: Path
) -> None:
    monkeypatch.chdir(dashed_tree)
    code, out, _ = run(capsys, "check", "--color", "never")
    assert code == 1
    assert "setup.cfg:3:1: SC001" in out


def test_exit_3_when_a_target_cannot_be_analysed(capsys, tmp_path: Path, dashed_tree: Path) -> None:
    broken = tmp_path / "broken-1.0.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    code, out, _ = run(capsys, "check", str(broken), str(dashed_tree), "--format", "json")
    assert code == 3
    report = json.loads(out)
    first, second = report["targets"]
    assert first["verdict"] is None
    assert first["errors"][0]["type"] == "archive"
    assert "broken-1.0.tar.gz" in first["errors"][0]["message"]
    # The other target still ran.
    assert second["findings"][0]["code"] == "SC001"


def test_missing_path_is_a_usage_error(capsys, tmp_path: Path, dashed_tree: Path) -> None:
    """As in fix: a path that does not exist is a usage error (2), found before any target
    is checked; the message names it."""
    code, out, err = run(
        capsys, "check", str(dashed_tree), str(tmp_path / "nope"), "--format", "json"
    )
    assert code == 2
    assert out == ""
    assert (
        err.splitlines()[-1]
        == f"sapper check: error: {tmp_path / 'nope'}: no such file or directory"
    )


def test_setuptools_and_enforce_options(capsys, dashed_tree: Path) -> None:
    def verdict(*extra: str) -> dict[str, object]:
        out = run(capsys, "check", str(dashed_tree), "--format", "json", *extra)[1]
        return json.loads(out)["targets"][0]["verdict"]

    assert verdict("--setuptools", "78.0.1")["outcome"] == "fails"
    assert verdict("--setuptools", "78.0.2")["outcome"] == "builds"
    enforced = verdict("--setuptools", "78.0.2", "--enforce-deprecations")
    assert enforced["outcome"] == "fails"
    assert enforced["because"] == ["SC001"]
    assert enforced["enforce_deprecations"] is True


def test_select_and_ignore(capsys, dashed_tree: Path) -> None:
    assert run(capsys, "check", str(dashed_tree), "--ignore", "SC001")[0] == 0
    assert run(capsys, "check", str(dashed_tree), "--select", "SC002")[0] == 0
    assert run(capsys, "check", str(dashed_tree), "--select", "SC")[0] == 1


def test_sdist_target(capsys, tmp_path: Path) -> None:
    sdist = make_sdist(
        tmp_path / "demo-1.0.tar.gz",
        "demo-1.0",
        {
            "setup.cfg": b"[metadata]\nName = demo\n",
            "PKG-INFO": b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
        },
    )
    code, out, _ = run(capsys, "check", str(sdist), "--format", "json")
    assert code == 1
    target = json.loads(out)["targets"][0]
    assert target["kind"] == "sdist"
    assert target["project"] == {"name": "demo", "version": "1.0"}
    assert target["findings"][0]["path"] == "setup.cfg"
    assert target["findings"][0]["code"] == "SC002"


def test_other_backend_is_unknown(capsys, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
    )
    (tmp_path / "setup.cfg").write_text("[metadata]\ndescription-file = README.md\n")
    code, out, _ = run(capsys, "check", str(tmp_path), "--format", "json")
    target = json.loads(out)["targets"][0]
    assert code == 0
    assert target["findings"] == []
    assert target["verdict"]["outcome"] == "unknown"
    assert "hatchling" in target["verdict"]["reason"]


def test_build_requires_caps_setuptools(capsys, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools<78.0.2,>=78"]\n'
        'build-backend = "setuptools.build_meta"\n'
    )
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\nhome-page = https://x\n")
    out = run(capsys, "check", str(tmp_path), "--format", "json")[1]
    verdict = json.loads(out)["targets"][0]["verdict"]
    assert verdict["setuptools"] == "78.0.1"
    assert verdict["outcome"] == "fails"


def test_python_caps_setuptools(capsys, dashed_tree: Path) -> None:
    out = run(capsys, "check", str(dashed_tree), "--format", "json", "--python", "3.8")[1]
    assert json.loads(out)["targets"][0]["verdict"]["setuptools"].startswith("75.3.")


def test_color_respects_no_color(
    capsys, dashed_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = run(capsys, "check", str(dashed_tree))[1]
    assert "\x1b[" not in out
    monkeypatch.delenv("NO_COLOR")
    out = run(capsys, "check", str(dashed_tree))[1]
    assert "\x1b[" in out
    assert "\x1b[" in run(capsys, "check", str(dashed_tree), "--color", "always")[1]


def test_rules_and_rule(capsys) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert "SC001  setupcfg-dash-separated-key" in out
    code, out, _ = run(capsys, "rule", "sc001")
    assert code == 0
    for heading in (
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "## Use instead",
        "## References",
        "- fails: ==78.0.1",
    ):
        assert heading in out
    assert run(capsys, "rule", "XX999")[0] == 2


@pytest.mark.parametrize("name", ["requests-2.32.3", "stringcase-1.2.0"])
def test_golden_json(capsys, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON report of a real project's files, compared with a reviewed golden file."""
    monkeypatch.chdir(DATA / "projects")
    out = run(capsys, "check", name, "--format", "json", "--setuptools", "84.2.1")[1]
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("SAPPER_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out)
    assert json.loads(out) == json.loads(golden.read_text())


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            "78.0.0",
            "78.0.0 was never published on PyPI, so no build can get it; the releases "
            "around it are 77.0.3 and 78.0.1",
        ),
        ("77.0.0", "the releases around it are 76.1.0 and 77.0.1"),
        ("99.0", "newer than the newest release sapper knows"),
        ("20.0", "older than the oldest release sapper models"),
        ("abc", "is not a valid version"),
    ],
)
def test_unpublished_or_unknown_setuptools_is_a_usage_error(
    capsys, tmp_path: Path, version: str, message: str
) -> None:
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    code, _, err = run(capsys, "check", str(tmp_path), "--setuptools", version)
    assert code == 2
    assert message in err


def test_findings_outside_the_required_setuptools_are_dropped() -> None:
    from helpers import check

    setup = "from setuptools import setup\nfrom wheel.bdist_wheel import bdist_wheel\nsetup()\n"
    capped = (
        '[build-system]\nrequires = ["setuptools>=80.9"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    old = '[build-system]\nrequires = ["setuptools<71"]\nbuild-backend = "setuptools.build_meta"\n'
    assert [f.code for f in check({"setup.py": setup}).findings] == ["SP009"]
    assert check({"setup.py": setup, "pyproject.toml": capped}).findings == ()
    result = check({"setup.py": setup, "pyproject.toml": old})
    assert [f.code for f in result.findings] == ["SP009"]
    assert result.verdict is not None and result.verdict.setuptools == "70.3.0"
    assert result.verdict.outcome == "fails"
