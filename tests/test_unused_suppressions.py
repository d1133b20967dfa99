"""SAP100 ``unused-suppression``: ``sapper: ignore`` comments that suppress nothing (ruff's
RUF100), reported only when a selection names it, never by default."""

from __future__ import annotations

import argparse
import json
import os

import jsonschema
import pytest
from helpers import DATA, check

from sapper.cli import main
from sapper.cli._settings import settings_for
from sapper.config import Config
from sapper.suppress import directives

PROJECT = DATA / "projects" / "unused-suppressions"
GOLDEN = DATA / "golden" / "unused-suppressions.txt"
FORMATS = ("text", "concise", "json", "sarif", "github")
SARIF = json.loads((DATA / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

SETUP_PY = "from setuptools import setup\nsetup(\n    name='x',\n    use_2to3=True,{c}\n)\n"
SETUP_CFG = "[metadata]\nname = x\n{c}home-page = a\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def _unused(files: dict[str, str], **options: object) -> list[tuple[str, int | None, str]]:
    result = check(files, suppressions=True, unused_suppressions=True, **options)
    return [(f.path, f.line, f.message) for f in result.findings if f.code == "SAP100"]


@pytest.mark.parametrize(
    ("files", "options", "expected"),
    [
        # used: nothing to report
        ({"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP002]")}, {}, []),
        # a prefix that matches the finding is used
        ({"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP]")}, {}, []),
        # a code with no finding on its line
        (
            {"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP001]")},
            {},
            [("setup.py", 4, "unused: SP001 (no such finding on line 4); remove the comment")],
        ),
        # one code used, one not: keep only the used one
        (
            {"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP002, SP001]")},
            {},
            [("setup.py", 4, "unused: SP001 (no such finding on line 4); keep only SP002")],
        ),
        # unknown code
        (
            {"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP002, QQ123]")},
            {},
            [("setup.py", 4, "unknown: QQ123 (no rule has this code); keep only SP002")],
        ),
        # a code whose rule did not run cannot be judged: non-enabled
        (
            {"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP002]")},
            {"select": ("SC001",)},
            [
                (
                    "setup.py",
                    4,
                    "non-enabled: SP002 (not selected in this run); select their rules to "
                    "judge them",
                )
            ],
        ),
        # a directive naming SAP100 is never reported
        ({"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP001, SAP100]")}, {}, []),
        # setup.cfg: a comment line above the option; used, then unused
        ({"setup.cfg": SETUP_CFG.format(c="# sapper: ignore[SC001]\n")}, {}, []),
        (
            {"setup.cfg": SETUP_CFG.format(c="# sapper: ignore[SC009]\n")},
            {},
            [("setup.cfg", 3, "unused: SC009 (no such finding on line 4); remove the comment")],
        ),
        # setup.cfg: a blank line ends the comment's reach, so it covers nothing
        (
            {"setup.cfg": SETUP_CFG.format(c="# sapper: ignore[SC001]\n\n")},
            {},
            [
                (
                    "setup.cfg",
                    3,
                    "unused: SC001 (the comment covers no line: a blank line or the end of the "
                    "file follows it); remove the comment",
                )
            ],
        ),
        # per-file-ignores win: the comment below them suppresses nothing (as in ruff)
        (
            {"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP002]")},
            {"per_file_ignores": (("setup.py", ("SP002",)),)},
            [("setup.py", 4, "unused: SP002 (no such finding on line 4); remove the comment")],
        ),
        # per-file-ignores may turn SAP100 off for a file
        (
            {
                "setup.py": SETUP_PY.format(c="  # sapper: ignore[SP001]"),
                "setup.cfg": SETUP_CFG.format(c="# sapper: ignore[SC009]\n"),
            },
            {"per_file_ignores": (("setup.py", ("SAP",)),)},
            [("setup.cfg", 3, "unused: SC009 (no such finding on line 4); remove the comment")],
        ),
        # pyproject.toml comments count too
        (
            {
                "pyproject.toml": (
                    "[build-system]\nrequires = ['setuptools']  # sapper: ignore[PP001]\n"
                ),
                "setup.py": "from setuptools import setup\nsetup()\n",
            },
            {},
            [
                (
                    "pyproject.toml",
                    2,
                    "unused: PP001 (no such finding on line 2); remove the comment",
                )
            ],
        ),
    ],
)
def test_unused_suppressions(files: dict[str, str], options: dict, expected: list) -> None:
    got = _unused(files, **options)
    assert [(p, line) for p, line, _ in got] == [(p, line) for p, line, _ in expected]
    for (_, _, message), (_, _, tail) in zip(got, expected, strict=True):
        assert message.startswith("unused suppression `# sapper: ignore[")
        assert message.endswith(tail)


def test_sap100_is_not_part_of_the_verdict() -> None:
    files = {"setup.py": SETUP_PY.format(c="  # sapper: ignore[SP001, SP002]")}
    with_sap = check(files, suppressions=True, unused_suppressions=True)
    without = check(files, suppressions=True)
    assert [f.code for f in with_sap.findings] == ["SAP100"]
    assert with_sap.findings[0].status == "suppression"
    assert with_sap.findings[0].fix == "# sapper: ignore[SP002]"
    assert with_sap.verdict == without.verdict
    assert without.findings == ()


def test_directive_positions() -> None:
    text = "[metadata]\n  ; sapper: ignore[SC001]\nhome-page = a\n  continued\n"
    (d,) = directives("setup.cfg", text)
    assert (d.line, d.column, d.codes, d.covers) == (2, 3, ("SC001",), (3, 4))


def _args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**{"select": (), "ignore": (), **kw})


@pytest.mark.parametrize(
    ("config_select", "select", "ignore", "on"),
    [
        (None, (), (), False),  # the default: every rule, not SAP100
        (None, ("ALL",), (), True),
        (None, ("SC", "SAP100"), (), True),
        (None, ("SP", "SA"), (), True),
        (None, ("ALL",), ("SAP100",), False),
        (None, ("SC",), (), False),
        (("ALL",), (), (), True),  # [tool.sapper] select = ["ALL"]
        (("ALL",), ("SC", "SP"), (), False),  # the command line's select starts over
        (("ALL",), (), ("SAP",), False),
        (None, (), ("SC009",), False),
    ],
)
def test_selection_turns_it_on(config_select, select, ignore, on: bool) -> None:
    settings = settings_for(_args(select=select, ignore=ignore), Config(select=config_select))
    assert settings.unused_suppressions is on
    assert "SAP100" not in settings.select


def test_sap100_alone_leaves_no_rule_to_run(capsys) -> None:
    code = main(["check", str(PROJECT), "--select", "SAP100"])
    assert code == 2
    assert "SAP100 checks the suppressions of the rules that run" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", FORMATS)
def test_default_output_is_unchanged(capsys, fmt: str) -> None:
    """By default (and with SAP100 ignored) nothing about unused suppressions is printed:
    the output is the same as with every rule selected but SAP100."""
    _, default = run(capsys, "check", str(PROJECT), "--format", fmt, "--setuptools", "84.2.1")
    _, explicit = run(
        capsys,
        "check",
        str(PROJECT),
        "--format",
        fmt,
        "--setuptools",
        "84.2.1",
        "--select",
        "ALL",
        "--ignore",
        "SAP100",
    )
    assert "SAP100" not in default
    assert default == explicit
    _, selected = run(
        capsys, "check", str(PROJECT), "--format", fmt, "--setuptools", "84.2.1", "--select", "ALL"
    )
    assert "SAP100" in selected


def test_golden_concise(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind of unused directive in the three files, as ``--format concise`` prints it."""
    monkeypatch.chdir(PROJECT)
    code, out = run(
        capsys, "check", ".", "--format", "concise", "--setuptools", "84.2.1", "--select", "ALL"
    )
    assert code == 1
    if os.environ.get("SAPPER_UPDATE_GOLDEN"):
        GOLDEN.write_text(out)
    assert out == GOLDEN.read_text()


def test_json_and_sarif_carry_it(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECT)
    _, out = run(capsys, "check", ".", "--format", "json", "--select", "ALL")
    findings = json.loads(out)["targets"][0]["findings"]
    sap = [f for f in findings if f["code"] == "SAP100"]
    assert sap and all(f["status"] == "suppression" for f in sap)
    assert all(f["slug"] == "unused-suppression" and f["fails"] == [] for f in sap)
    _, out = run(capsys, "check", ".", "--format", "sarif", "--select", "ALL")
    log = json.loads(out)
    jsonschema.validate(log, SARIF)
    levels = {r["level"] for r in log["runs"][0]["results"] if r["ruleId"] == "SAP100"}
    assert levels == {"note"}
    (rule,) = [r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "SAP100"]
    assert rule["shortDescription"]["text"]


def test_ignore_suppressions_reports_no_unused(capsys) -> None:
    """With --ignore-suppressions no comment is honoured, so none is judged."""
    _, out = run(
        capsys,
        "check",
        str(PROJECT),
        "--format",
        "concise",
        "--select",
        "ALL",
        "--ignore-suppressions",
    )
    assert "SAP100" not in out


def test_rule_explains_sap100(capsys) -> None:
    code, out = run(capsys, "rule", "sap100")
    assert code == 0
    assert out.startswith("# SAP100 unused-suppression\n")
    assert "## When it runs" in out


# ---------------------------------------------------------------- sapper fix


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        # a trailing comment that suppresses nothing goes, the code stays
        (
            "setup.py",
            "from setuptools import setup  # sapper: ignore[SP002]\nsetup(name='x')\n",
            "from setuptools import setup\nsetup(name='x')\n",
        ),
        # a comment alone on its line goes with its line
        (
            "setup.py",
            "from setuptools import setup\n# sapper: ignore[SP001]\nsetup(name='x')\n",
            "from setuptools import setup\nsetup(name='x')\n",
        ),
        # stale codes leave, used ones stay; text after the directive stays
        (
            "setup.py",
            "from setuptools import setup\n"
            "setup(name='x', use_2to3=True)  # sapper: ignore[SP001, SP002] legacy\n",
            "from setuptools import setup\n"
            "setup(name='x', use_2to3=True)  # sapper: ignore[SP002] legacy\n",
        ),
        (
            "setup.py",
            "from setuptools import setup  # sapper: ignore[SP002] -- old\nsetup(name='x')\n",
            "from setuptools import setup  # -- old\nsetup(name='x')\n",
        ),
        # setup.cfg: a full-line comment covering nothing; CRLF line endings kept
        (
            "setup.cfg",
            "[metadata]\r\nname = x\r\n; sapper: ignore[SC009]\r\nurl = y\r\n",
            "[metadata]\r\nname = x\r\nurl = y\r\n",
        ),
        (
            "pyproject.toml",
            "[build-system]\nrequires = ['setuptools']  # sapper: ignore[PP001]\n",
            "[build-system]\nrequires = ['setuptools']\n",
        ),
        # a `#` inside a TOML string before the comment stays
        (
            "pyproject.toml",
            "[project]\nname = 'x'\nurls = {a = 'https://x.org/#top'}  # sapper: ignore[PP001]\n",
            "[project]\nname = 'x'\nurls = {a = 'https://x.org/#top'}\n",
        ),
    ],
)
def test_fix_removes_unused_suppressions(path: str, before: str, after: str) -> None:
    from helpers import TODAY, project

    from sapper.fix import fix_files

    files = {path: before}
    if path != "setup.py":
        files["setup.py"] = "from setuptools import setup\nsetup()\n"
    result = fix_files(project(files), today=TODAY, suppressions=True, unused_suppressions=True)
    assert result.files[path].decode() == after
    assert result.originals[path].decode() == before
    assert {e.code for e in result.edits} == {"SAP100"}
    # nothing is left to report, and without SAP100 selected nothing changes
    fixed = {**files, path: after}
    assert _unused(fixed) == []
    assert not fix_files(project(files), today=TODAY, suppressions=True).changed


def test_fix_cli_with_select_all(capsys, tmp_path) -> None:
    """`sapper fix --select ALL` drops the unused comment and fixes the rest; without SAP100
    selected the comment stays."""
    text = (
        "from setuptools import setup  # sapper: ignore[SP001]\nsetup(name='x', use_2to3=False)\n"
    )
    (tmp_path / "setup.py").write_text(text)
    assert main(["fix", str(tmp_path), "--select", "SP"]) == 1
    assert (tmp_path / "setup.py").read_text() == text.replace(", use_2to3=False", "")
    (tmp_path / "setup.py").write_text(text)
    assert main(["fix", str(tmp_path), "--select", "ALL"]) == 1
    assert (tmp_path / "setup.py").read_text() == (
        "from setuptools import setup\nsetup(name='x')\n"
    )
    out = capsys.readouterr().out
    assert "SAP100 fixed: unused suppression: comment removed" in out


def test_fix_keeps_codes_it_cannot_judge() -> None:
    """With SP not selected, an SP001 code is non-enabled: the fix drops only the unknown
    code, and a comment of non-enabled codes only is left alone."""
    from helpers import TODAY, project

    from sapper.fix import fix_files

    files = {
        "setup.py": "from setuptools import setup  # sapper: ignore[SP001, QQ999]\nsetup()\n",
        "setup.cfg": "[metadata]\n# sapper: ignore[SP002]\nname = x\nhome-page = y\n",
    }
    result = fix_files(
        project(files), select=("SC",), today=TODAY, suppressions=True, unused_suppressions=True
    )
    assert result.files["setup.py"].decode() == (
        "from setuptools import setup  # sapper: ignore[SP001]\nsetup()\n"
    )
    assert result.files["setup.cfg"].decode() == (
        "[metadata]\n# sapper: ignore[SP002]\nname = x\nurl = y\n"
    )
    edits = [(e.code, e.path) for e in result.edits]
    assert edits == [("SAP100", "setup.py"), ("SC001", "setup.cfg")]


def test_toml_directive_starts_at_the_directive() -> None:
    """pyproject.toml is not tokenised: a `#` in a string before the comment is not where
    the comment starts."""
    line = "urls = {a = 'https://x.org/#top'}  # sapper: ignore[PP001]"
    (d,) = directives("pyproject.toml", f"[project]\n{line}\n")
    assert (d.line, d.column, d.text) == (2, line.index("# sapper") + 1, "# sapper: ignore[PP001]")
