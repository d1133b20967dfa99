"""Rule selection (as ruff), [tool.sapper], suppression comments and usage errors."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from sapper._exceptions import UsageError
from sapper._reqtext import requirement_problem
from sapper.cli import main
from sapper.config import find_config, load_config, parse_size
from sapper.selection import Selection, resolve, selected
from sapper.suppress import suppressed_lines

CODES = ("SC001", "SC002", "SC009", "SP001", "SP002", "PP001")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- selection


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        ((), (), set(CODES)),
        (("SC",), (), {"SC001", "SC002", "SC009"}),
        (("SC",), ("SC001",), {"SC002", "SC009"}),
        (("SC001",), ("SC",), {"SC001"}),  # a more specific select beats a broader ignore
        (("SC001",), ("SC001",), set()),  # equal specificity: ignore wins
        (("ALL",), ("SP",), {"SC001", "SC002", "SC009", "PP001"}),
        ((), ("SC00",), {"SP001", "SP002", "PP001"}),
        (("SC00", "SP"), ("SC0", "SP002"), {"SC001", "SC002", "SC009", "SP001"}),
        (("SC0", "SP"), ("SC00", "SP002"), {"SP001"}),
    ],
)
def test_selected_within_one_layer(select, ignore, expected) -> None:
    assert {c for c in CODES if selected(c, select, ignore)} == expected
    assert resolve([Selection(select or None, ignore)], CODES) == frozenset(expected)


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        # config select, CLI select: the CLI starts over (the config's ignore goes too)
        ([Selection(("SC",), ("SC001",)), Selection(("SC001",))], {"SC001"}),
        # config select, CLI ignore only: removes from what the config selected
        ([Selection(("SC",), ("SC001",)), Selection(None, ("SC009",))], {"SC002"}),
        # a later ignore removes even what an earlier, more specific select chose
        ([Selection(("SC001",)), Selection(None, ("SC",))], set()),
        ([Selection(None, ("SP",)), Selection(None, ("PP",))], {"SC001", "SC002", "SC009"}),
    ],
)
def test_layers(layers, expected) -> None:
    assert resolve(layers, CODES) == frozenset(expected)


@pytest.fixture
def dashed(tmp_path: Path) -> Path:
    d = tmp_path / "dashed"
    d.mkdir()
    (d / "setup.cfg").write_text(
        "[metadata]\nname = bad\nauthor-email = a@b.c\n[bdist_wheel]\nuniversal = 1\n"
    )
    return d


def test_specific_select_beats_broad_ignore_on_the_command_line(capsys, dashed: Path) -> None:
    code, out, _ = run(capsys, "check", str(dashed), "--select", "SC001", "--ignore", "SC")
    assert code == 1
    assert "SC001" in out
    assert "SC009" not in out


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--select", "SC999", "--select: unknown rule code 'SC999'"),
        ("--ignore", "XX", "--ignore: unknown rule code 'XX'"),
        ("--select", "SC9", "--select: unknown rule code 'SC9'"),
    ],
)
def test_unknown_codes_are_usage_errors(capsys, dashed: Path, option, value, message) -> None:
    code, _, err = run(capsys, "check", str(dashed), option, value)
    assert code == 2
    assert message in err


def test_unknown_code_in_fix_is_a_usage_error(capsys, dashed: Path) -> None:
    code, _, err = run(capsys, "fix", str(dashed), "--select", "SC999")
    assert code == 2
    assert "unknown rule code 'SC999'" in err


# ---------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("foo==1.2.O", "invalid version '1.2.O'"),
        ("foo>=1,<2x", "invalid version '2x'"),
        ("foo===", "no version after '==='"),
        ("foo!=1.0.*", None),
        ("foo[bar", "expected matching RIGHT_BRACKET"),
        ("foo==1.0", None),
        ("!!", None),
    ],
)
def test_requirement_problem(target: str, problem: str | None) -> None:
    found = requirement_problem(target)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(problem)


def test_malformed_requirement_exits_2_naming_the_bad_part(capsys) -> None:
    code, out, err = run(capsys, "check", "foo==1.2.O")
    assert code == 2
    assert out == ""
    assert "foo==1.2.O: not a valid requirement: invalid version '1.2.O'" in err


def test_setuptools_that_does_not_run_on_python_is_a_usage_error(capsys, dashed: Path) -> None:
    code, _, err = run(capsys, "check", str(dashed), "--setuptools", "84.2.1", "--python", "3.8")
    assert code == 2
    assert "setuptools 84.2.1 does not run on Python 3.8 (it requires Python >=3.10)" in err
    assert "the newest setuptools for Python 3.8 is 75.3." in err
    assert run(capsys, "check", str(dashed), "--setuptools", "75.3.0", "--python", "3.8")[0] == 1


def test_nothing_to_build_is_an_error_record(capsys, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hi\n")
    code, out, _ = run(capsys, "check", str(tmp_path), "--format", "json")
    assert code == 3
    (target,) = json.loads(out)["targets"]
    assert target["verdict"] is None
    assert target["errors"] == [
        {
            "type": "no-project",
            "message": f"{tmp_path}: no setup.py, setup.cfg or pyproject.toml, so there is "
            "nothing to build",
        }
    ]


def test_folder_of_sdists_says_to_use_scan(capsys, tmp_path: Path) -> None:
    for name in ("a-1.0", "b-2.0"):
        with tarfile.open(tmp_path / f"{name}.tar.gz", "w:gz") as tar:
            data = b"from setuptools import setup\nsetup()\n"
            info = tarfile.TarInfo(f"{name}/setup.py")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    code, out, _ = run(capsys, "check", str(tmp_path), "--color", "never")
    assert code == 3
    assert f"a folder of 2 sdist(s), not a project: run `sapper scan {tmp_path}`" in out
    assert "pass the files to `sapper check`" in out


# ---------------------------------------------------------------- configuration


def test_find_config_takes_the_nearest_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.sapper]\nignore = ['SC009']\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no table
    assert find_config(inner) == tmp_path / "pyproject.toml"
    (inner / "pyproject.toml").write_text("[tool.sapper]\n")
    assert find_config(inner) == inner / "pyproject.toml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.sapper]\nselct = ['SC']\n", "unknown key 'selct' (did you mean 'select'?)"),
        ("[tool.sapper]\nselect = 'SC'\n", "select must be a list of rule codes"),
        ("[tool.sapper]\nenforce-deprecations = 1\n", "must be true or false"),
        ("[tool.sapper]\ncache-max-size = 'lots'\n", "'lots' is not a size"),
        ("[tool.sapper\n", "not valid TOML"),
    ],
)
def test_bad_config_is_a_usage_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    with pytest.raises(UsageError) as exc:
        load_config(path)
    assert message in str(exc.value)
    assert str(path) in str(exc.value)


@pytest.mark.parametrize(
    ("text", "size"),
    [("1000", 1000), ("2 GB", 2 * 10**9), ("1.5G", 1_500_000_000), ("1 GiB", 2**30), ("5kb", 5000)],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_config_selects_and_the_command_line_overrides(capsys, dashed: Path) -> None:
    (dashed / "pyproject.toml").write_text(
        "[tool.sapper]\nignore = ['SC009']\nsetuptools = '78.0.1'\n"
    )
    code, out, _ = run(capsys, "check", str(dashed), "--format", "json")
    assert code == 1
    (target,) = json.loads(out)["targets"]
    assert {f["code"] for f in target["findings"]} == {"SC001"}
    assert target["verdict"]["setuptools"] == "78.0.1"
    assert target["verdict"]["outcome"] == "fails"
    _code, out, _ = run(
        capsys, "check", str(dashed), "--format", "json", "--select", "SC", "--setuptools", "77.0.3"
    )
    (target,) = json.loads(out)["targets"]
    assert {f["code"] for f in target["findings"]} == {"SC001", "SC009"}
    assert target["verdict"]["setuptools"] == "77.0.3"
    _, out, _ = run(capsys, "check", str(dashed), "--format", "json", "--isolated")
    (target,) = json.loads(out)["targets"]
    assert {f["code"] for f in target["findings"]} == {"SC001", "SC009"}


def test_config_unknown_code_names_the_file(capsys, dashed: Path) -> None:
    (dashed / "pyproject.toml").write_text("[tool.sapper]\nselect = ['SX']\n")
    code, _, err = run(capsys, "check", str(dashed))
    assert code == 2
    assert f"{dashed / 'pyproject.toml'} [tool.sapper] select: unknown rule code 'SX'" in err


def test_per_file_ignores(capsys, dashed: Path) -> None:
    (dashed / "pyproject.toml").write_text(
        "[tool.sapper.per-file-ignores]\n'setup.cfg' = ['SC001']\n"
    )
    _code, out, _ = run(capsys, "check", str(dashed), "--format", "json")
    (target,) = json.loads(out)["targets"]
    assert {f["code"] for f in target["findings"]} == {"SC009"}
    assert "1 finding suppressed" in target["verdict"]["reason"]
    _, out, _ = run(capsys, "check", str(dashed), "--format", "json", "--ignore-suppressions")
    (target,) = json.loads(out)["targets"]
    assert {f["code"] for f in target["findings"]} == {"SC001", "SC009"}


# ---------------------------------------------------------------- suppression comments


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        # setup.cfg: a comment line covers the option below it, with its continuation lines
        (
            "setup.cfg",
            "[metadata]\n# sapper: ignore[SC001]\nauthor-email = a@b.c\nhome-page = x\n",
            {3: ("SC001",)},
        ),
        (
            "setup.cfg",
            "[metadata]\n; sapper: ignore[SC001, SC002]\nclassifiers =\n  A\n  B\nx = 1\n",
            {3: ("SC001", "SC002"), 4: ("SC001", "SC002"), 5: ("SC001", "SC002")},
        ),
        # above a section header: the whole section
        (
            "setup.cfg",
            "# sapper: ignore[SC009]\n[bdist_wheel]\nuniversal = 1\n[metadata]\nname = x\n",
            {2: ("SC009",), 3: ("SC009",)},
        ),
        # a blank line ends the comment's reach; a trailing comment is part of the value
        ("setup.cfg", "[metadata]\n# sapper: ignore[SC001]\n\nauthor-email = a\n", {}),
        ("setup.cfg", "[metadata]\nauthor-email = a  # sapper: ignore[SC001]\n", {}),
        # a bare directive suppresses nothing
        ("setup.cfg", "[metadata]\n# sapper: ignore\nauthor-email = a\n", {}),
        # setup.py: its own line, or the next code line when alone on a line
        (
            "setup.py",
            "from setuptools import setup\n"
            "setup(\n    use_2to3=True,  # sapper: ignore[SP002]\n)\n",
            {3: ("SP002",)},
        ),
        (
            "setup.py",
            "# sapper: ignore[SP001]\n\nfrom setuptools.command.test import test\n",
            {3: ("SP001",)},
        ),
        # a directive inside a string is not a comment
        ("setup.py", "x = '# sapper: ignore[SP001]'\n", {}),
        (
            "pyproject.toml",
            "[project]\nlicense = {text = 'MIT'}  # sapper: ignore[PP]\n",
            {2: ("PP",)},
        ),
    ],
)
def test_suppressed_lines(path: str, text: str, expected: dict) -> None:
    assert suppressed_lines(path, text) == expected


def test_suppression_comment_in_setup_cfg(capsys, dashed: Path) -> None:
    (dashed / "setup.cfg").write_text(
        "[metadata]\nname = bad\n# sapper: ignore[SC001]\nauthor-email = a@b.c\nhome-page = x\n"
    )
    code, out, _ = run(capsys, "check", str(dashed), "--format", "concise", "-q")
    assert code == 1
    assert out.count("SC001") == 1
    assert ":5:1: SC001" in out


def test_unknown_code_in_scan_is_a_usage_error(capsys, tmp_path: Path) -> None:
    db = str(tmp_path / "x.duckdb")
    code, _, err = run(capsys, "scan", str(tmp_path), "--ignore", "QQ1", "--db", db)
    assert code == 2
    assert "--ignore: unknown rule code 'QQ1'" in err


def test_fix_leaves_a_suppressed_setup_cfg_finding_alone(capsys, dashed: Path) -> None:
    text = "[metadata]\nname = bad\n# sapper: ignore[SC001]\nauthor-email = a@b.c\nhome-page = x\n"
    (dashed / "setup.cfg").write_text(text)
    assert main(["fix", str(dashed)]) == 1
    assert (dashed / "setup.cfg").read_text() == text.replace("home-page", "url")
    capsys.readouterr()
    (dashed / "setup.cfg").write_text(text)
    assert main(["fix", str(dashed), "--ignore-suppressions"]) == 1
    assert "author_email = a@b.c" in (dashed / "setup.cfg").read_text()


@pytest.mark.parametrize("command", ["scan", "fix"])
def test_malformed_requirement_in_scan_and_fix(capsys, tmp_path: Path, command: str) -> None:
    extra = ["--db", str(tmp_path / "x.duckdb")] if command == "scan" else ["--diff"]
    code, _, err = run(capsys, command, "foo==1.2.O", *extra)
    assert code == 2
    assert "foo==1.2.O: not a valid requirement: invalid version '1.2.O'" in err


def test_fix_quiet(capsys, dashed: Path) -> None:
    assert main(["fix", str(dashed), "-q", "--diff"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("--- a/")
    assert err == ""


def test_sapper_toml_wins_over_pyproject_in_the_same_folder(capsys, dashed: Path) -> None:
    (dashed / "pyproject.toml").write_text("[tool.sapper]\nignore = ['SC009']\n")
    (dashed / "sapper.toml").write_text("ignore = ['SC001']\n")
    assert find_config(dashed) == dashed / "sapper.toml"
    _, out, _ = run(capsys, "check", str(dashed), "--format", "json")
    (target,) = json.loads(out)["targets"]
    assert {f["code"] for f in target["findings"]} == {"SC009"}
    (dashed / ".sapper.toml").write_text("ignore = ['SC']\n")
    assert find_config(dashed) == dashed / ".sapper.toml"


def test_bad_key_in_sapper_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sapper.toml"
    path.write_text("ignore = 'SC001'\n")
    with pytest.raises(UsageError) as exc:
        load_config(path)
    assert str(exc.value) == (
        f'{path}: ignore must be a list of rule codes, such as ["SC001", "SP"]'
    )


WINDOWS_ONLY = (
    "import sys\nfrom setuptools import setup\n"
    "if sys.platform == 'win32':\n    import distutils.msvccompiler\n"
    "setup(name='p', version='1.0', py_modules=[])\n"
)


@pytest.mark.parametrize(
    ("argv", "config", "reported"),
    [
        (("--platform", "linux"), None, False),
        (("--platform", "win32"), None, True),
        ((), 'platform = "win32"', True),
        (("--platform", "linux"), 'platform = "win32"', False),  # the command line wins
    ],
)
def test_platform_decides_setup_py_branches(
    capsys, tmp_path: Path, argv: tuple[str, ...], config: str | None, reported: bool
) -> None:
    (tmp_path / "setup.py").write_text(WINDOWS_ONLY)
    if config:
        (tmp_path / "pyproject.toml").write_text(f"[tool.sapper]\n{config}\n")
    code, out, _ = run(
        capsys, "check", str(tmp_path), "--setuptools", "74.0.0", "--select", "SP001", *argv
    )
    assert ("SP001" in out) is reported
    assert code == (1 if reported else 0)


@pytest.mark.parametrize("value", ["win 32", "", "linux/x86"])
def test_bad_platform_is_a_usage_error(capsys, tmp_path: Path, value: str) -> None:
    (tmp_path / "setup.py").write_text(WINDOWS_ONLY)
    code, _, err = run(capsys, "check", str(tmp_path), "--platform", value)
    assert code == 2
    assert "--platform" in err
