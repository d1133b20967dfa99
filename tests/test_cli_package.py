"""The ``sapper.cli`` package: sub-command registration, exit codes defined once."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from sapper.cli import SUBCOMMAND_MODULES, SUBCOMMANDS, ExitCode, main
from sapper.cli._common import EXIT_MEANINGS

README = Path(__file__).resolve().parent.parent / "README.md"


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    from sapper.cli import _parser

    parser = _parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_module_registers_a_subcommand_with_a_handler() -> None:
    parsers = _subparsers()
    assert {"check", "rules", "rule", "fix", "scan", "report"} <= parsers.keys()
    for name, parser in parsers.items():
        assert callable(parser.get_default("handler")), name
    for name in SUBCOMMAND_MODULES:
        assert callable(importlib.import_module(name).add_parser), name


def test_subcommand_table_names_the_module_that_registers_each_subcommand() -> None:
    """``sapper NAME ...`` builds only the parser of SUBCOMMANDS[NAME]: the table must be
    exactly what the modules register."""
    registered: dict[str, str] = {}
    for module in SUBCOMMAND_MODULES:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(module).add_parser(sub)
        registered.update(dict.fromkeys(sub.choices, module))
    assert registered == SUBCOMMANDS


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_a_subcommand_builds_only_its_own_parser(name: str) -> None:
    from sapper.cli import _parser

    action = next(a for a in _parser([name])._actions if isinstance(a, argparse._SubParsersAction))
    assert {SUBCOMMANDS[n] for n in action.choices} == {SUBCOMMANDS[name]}
    assert name in action.choices


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"], ["chekc"], ["-q", "check"]])
def test_anything_else_builds_every_parser(argv: list[str]) -> None:
    from sapper.cli import _parser

    action = next(a for a in _parser(argv)._actions if isinstance(a, argparse._SubParsersAction))
    assert set(action.choices) == set(SUBCOMMANDS)


def test_help_lists_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert set(EXIT_MEANINGS) == set(ExitCode)
    for code in ExitCode:
        assert re.search(rf"^  {int(code)}\s+\S", out, re.MULTILINE), code


def test_readme_lists_every_exit_code() -> None:
    text = README.read_text(encoding="utf-8")
    line = text[text.index("Exit codes (the same for every sub-command") :].split("\n\n")[0]
    for code in ExitCode:
        assert f"**{int(code)}**" in line, code


def test_no_command_prints_help_and_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == ExitCode.USAGE
    assert "usage: sapper" in capsys.readouterr().out


def _all_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    from sapper.cli import _parser

    found: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(f"{name} {sub_name}".strip(), sub)

    walk("", _parser())
    return found


@pytest.mark.parametrize("name", [name for name, _ in _all_parsers()])
def test_help_is_complete_and_wrapped(monkeypatch, name: str) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    parser = dict(_all_parsers())[name]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                assert choice.help, f"sapper {name}: sub-command {choice.dest} has no help"
            continue
        assert action.help and action.help != argparse.SUPPRESS, (
            f"sapper {name}: {action.option_strings or action.dest} has no help"
        )
    text = parser.format_help()
    long = [line for line in text.splitlines() if len(line) > 80]
    assert not long, f"sapper {name} --help has lines over 80 columns: {long}"
    assert "exit codes:" in text


@pytest.mark.parametrize("columns", [None, "", "abc", "0", "-5", "1", "120"])
def test_terminal_columns_as_shutil_gives_them(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    import shutil

    from sapper.cli._common import _terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.delenv("LINES", raising=False)
    assert _terminal_columns(columns) == shutil.get_terminal_size().columns
