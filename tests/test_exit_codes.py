"""Every sub-command's ``--help`` lists its exit codes from one table
(``COMMAND_EXIT_CODES``), and docs/cli.md's per-command table says the same."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from sapper.cli import _parser, main
from sapper.cli._common import COMMAND_EXIT_CODES, EXIT_MEANINGS, ExitCode

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def _commands() -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        if name:
            found[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(f"{name} {sub_name}".strip(), sub)

    walk("", _parser())
    return found


def _table(meanings) -> dict[int, str]:
    return {int(code): text for code, text in meanings.items()}


def help_exit_codes(text: str) -> dict[int, str]:
    """The ``exit codes:`` block of a help text, continuation lines joined."""
    block = text.split("\nexit codes:\n", 1)[1].split("\n\n", 1)[0]
    codes: dict[int, str] = {}
    last = None
    for line in block.splitlines():
        match = re.match(r"^  (\d+)\s+(.*)$", line)
        if match:
            last = int(match.group(1))
            codes[last] = match.group(2).strip()
        elif line.strip() and last is not None:
            codes[last] += " " + line.strip()
    return codes


def doc_exit_codes() -> dict[str, dict[int, str]]:
    text = DOC.read_text(encoding="utf-8")
    out: dict[str, dict[int, str]] = {}
    for match in re.finditer(r"^\| `([a-z ]+)` \| (\d+) \| (.*) \|$", text, re.M):
        out.setdefault(match.group(1), {})[int(match.group(2))] = match.group(3)
    return out


def test_every_command_has_exit_codes() -> None:
    assert set(_commands()) == set(COMMAND_EXIT_CODES)
    for meanings in COMMAND_EXIT_CODES.values():
        assert set(meanings) <= set(ExitCode)
        assert ExitCode.OK in meanings and ExitCode.USAGE in meanings


@pytest.mark.parametrize("command", sorted(COMMAND_EXIT_CODES))
def test_help_lists_the_commands_exit_codes(capsys, monkeypatch, command: str) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    out = capsys.readouterr().out
    assert help_exit_codes(out) == _table(COMMAND_EXIT_CODES[command])


def test_docs_agree_with_the_table() -> None:
    doc = doc_exit_codes()
    assert doc == {cmd: _table(m) for cmd, m in COMMAND_EXIT_CODES.items()}


def test_exit_code_3_mentions_wheelhouse_without_sandbox() -> None:
    assert "wheelhouse" in EXIT_MEANINGS[ExitCode.TARGET_ERROR]
    assert "sandbox" in COMMAND_EXIT_CODES["wheelhouse"][ExitCode.TARGET_ERROR]
    general = DOC.read_text(encoding="utf-8").split("\n| 3 | ", 1)[1].split("\n", 1)[0]
    assert "wheelhouse" in general and "sandbox" in general


def test_help_parser_joins_wrapped_lines() -> None:
    text = "usage\n\nexit codes:\n  0   done\n  1   a long\n      meaning\n\nmore\n"
    assert help_exit_codes(text) == {0: "done", 1: "a long meaning"}
