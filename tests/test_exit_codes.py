"""Every sub-command's ``--help`` lists its exit codes from one table
(``COMMAND_EXIT_CODES``), and docs/cli.md's per-command table says the same."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
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


def test_docs_general_table_is_exit_meanings() -> None:
    """docs/cli.md's table of what each code means for every command is EXIT_MEANINGS, which
    `sapper --help` lists."""
    text = DOC.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\d+) \| (.*) \|$", text, re.M))
    assert {int(code): meaning for code, meaning in rows.items()} == _table(EXIT_MEANINGS)
    assert set(EXIT_MEANINGS) == set(ExitCode)


def test_help_parser_joins_wrapped_lines() -> None:
    text = "usage\n\nexit codes:\n  0   done\n  1   a long\n      meaning\n\nmore\n"
    assert help_exit_codes(text) == {0: "done", 1: "a long meaning"}


# ------------------------------------------------------------------ every command's error paths

BAD_DB = "bad.duckdb"


def _files(root: Path) -> dict[str, str]:
    """The inputs the error paths use, by the name the table writes in place of a path."""
    import gzip
    import tarfile

    clean = root / "clean"
    clean.mkdir()
    (clean / "setup.cfg").write_text("[metadata]\nname = clean\nversion = 1.0\n")
    dashed = root / "dashed"
    dashed.mkdir()
    (dashed / "setup.cfg").write_text("[metadata]\nname = bad\nauthor-email = a@b.c\n")
    broken = root / "broken-1.0.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    bomb = root / "bomb-1.0.tar.gz"  # a member that claims 4 GB: refused, never read
    header = tarfile.TarInfo("bomb-1.0/setup.py")
    header.size = 4 * 10**9
    bomb.write_bytes(gzip.compress(header.tobuf(format=tarfile.USTAR_FORMAT) + bytes(1024)))
    text = root / "notes.txt"
    text.write_text("not an sdist\n")
    (root / BAD_DB).write_text("not a database\n")
    reqs = root / "requirements.txt"
    reqs.write_text("# nothing to build\n")
    lock = root / "pylock.toml"  # a lock: audited without pip's resolver
    lock.write_text('lock-version = "1.0"\n\n[[packages]]\nname = "nothere"\nversion = "1.0"\n')
    return {
        "CLEAN": str(clean),
        "DASHED": str(dashed),
        "BROKEN": str(broken),
        "BOMB": str(bomb),
        "TEXT": str(text),
        "MISSING": str(root / "nope"),
        "BAD_DB": str(root / BAD_DB),
        "REQS": str(reqs),
        "LOCK": str(lock),
        "DIR": str(root / "out"),
        "CACHE": str(root / "cache"),
    }


#: (command, argv after the command, exit code, a regex the output (stderr, then stdout) must
#: match). Words in capitals are the inputs of :func:`_files`; INDEX is an index that knows
#: no project, UNREACHABLE an address nothing listens on.
ERROR_PATHS: list[tuple[str, list[str], int, str]] = [
    ("check", ["CLEAN"], 0, r"builds with setuptools"),
    ("check", ["DASHED"], 1, r"SC001"),
    ("check", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("check", ["--format", "xml"], 2, r"argument --format: invalid choice: 'xml'"),
    ("check", ["MISSING"], 2, r"nope: no such file or directory"),
    ("check", ["CLEAN", "MISSING"], 2, r"nope: no such file or directory"),
    ("check", ["TEXT"], 2, r"notes.txt: not a directory, an sdist"),
    ("check", ["foo==1.2.O"], 2, r"foo==1.2.O: not a valid requirement"),
    ("check", ["--select", "ZZ9", "CLEAN"], 2, r"--select: unknown rule code 'ZZ9'"),
    ("check", ["--setuptools", "999", "CLEAN"], 2, r"setuptools 999 is newer than"),
    ("check", ["--cache-max-size", "lots", "CLEAN"], 2, r"--cache-max-size: 'lots' is not"),
    ("check", ["--statistics", "--show-fix", "CLEAN"], 2, r"drop --show-fix"),
    ("check", ["BROKEN", "CLEAN"], 3, r"error \(archive\): .*broken-1.0.tar.gz"),
    ("check", ["BOMB"], 3, r"refusing to read a likely decompression bomb"),
    ("check", ["--index-url", "INDEX", "--no-cache", "nosuch==1.0"], 3, r"error \(fetch\)"),
    ("rules", [], 0, r"SC001"),
    ("rules", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("rules", ["--format", "xml"], 2, r"invalid choice: 'xml'"),
    ("rule", ["SC001"], 0, r"SC001"),
    ("rule", [], 2, r"the following arguments are required: CODE"),
    ("rule", ["XX999"], 2, r"no rule 'XX999'"),
    ("fix", ["CLEAN"], 0, r"rewrote 0 of 1 target"),
    ("fix", ["--diff", "DASHED"], 1, r"author_email"),
    ("fix", ["--bogus", "CLEAN"], 2, r"unrecognized arguments: --bogus"),
    ("fix", ["MISSING"], 2, r"nope: no such file or directory"),
    ("fix", ["TEXT"], 2, r"notes.txt: not a directory, an sdist"),
    ("fix", ["--select", "ZZ9", "CLEAN"], 2, r"--select: unknown rule code 'ZZ9'"),
    ("fix", ["BROKEN"], 2, r"never changed in place; pass -o DIR"),
    ("fix", ["--diff", "BROKEN"], 3, r"broken-1.0.tar.gz"),
    ("fix", ["--diff", "BOMB"], 3, r"refusing to read a likely decompression bomb"),
    ("migrate", ["--no-verify", "--diff", "CLEAN"], 0, r"migrated: would change pyproject.toml"),
    ("migrate", ["--bogus", "CLEAN"], 2, r"unrecognized arguments: --bogus"),
    ("migrate", ["MISSING"], 2, r"nope: no such file or directory"),
    ("migrate", ["TEXT"], 2, r"notes.txt: not a directory, an sdist"),
    ("migrate", ["BROKEN"], 2, r"never changed in place; pass -o DIR"),
    ("migrate", ["-o", "DIR", "CLEAN"], 2, r"-o is for sdists"),
    ("migrate", ["--diff", "BROKEN"], 3, r"broken-1.0.tar.gz: cannot unpack"),
    ("scan", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("scan", ["MISSING"], 2, r"nope: not a directory of sdists"),
    ("scan", ["--top", "0"], 2, r"argument --top: '0' is not a positive whole number"),
    ("scan", ["--versions", "bogus", "CLEAN"], 2, r"--versions 'bogus': use newest"),
    ("scan", ["--db", "BAD_DB", "BROKEN"], 3, r"cannot open the scan database"),
    ("report", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("report", ["MISSING"], 2, r"no scan results at .*nope"),
    ("report", ["BAD_DB"], 3, r"cannot open .*bad.duckdb as a DuckDB database"),
    ("cache", [], 2, r"usage: sapper cache"),
    ("cache", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("cache info", ["--cache-dir", "CACHE"], 0, r"cache"),
    ("cache info", ["--format", "xml"], 2, r"invalid choice: 'xml'"),
    ("cache clean", ["--cache-dir", "CACHE", "--dry-run"], 0, r""),
    ("cache clean", ["--max-size", "lots"], 2, r"'lots' is not a size"),
    ("cache clean", ["--older-than", "x"], 2, r"invalid float value: 'x'"),
    ("cache warm", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("cache warm", ["--setuptools", "999.0.0"], 2, r"999.0.0"),
    (
        "cache warm",
        ["--index-url", "INDEX", "--cache-dir", "CACHE", "--setuptools", "70.0.0"],
        3,
        r"setuptools",
    ),
    ("canary", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("canary", ["CLEAN"], 2, r"give both --baseline BACKEND and --candidate BACKEND"),
    ("canary", ["--mode", "sdist"], 2, r"argument --mode: invalid choice"),
    ("canary", ["CLEAN", "--no-sandbox"], 2, r"add --i-trust-the-corpus"),
    ("canary", ["CLEAN", "--i-trust-the-corpus"], 2, r"goes with --no-sandbox"),
    ("canary", ["bisect", "x"], 2, r"write: sapper canary bisect TARGET --good"),
    ("canary", ["--db", "BAD_DB", "--export", "DIR"], 3, r"cannot open the store"),
    ("canary", ["CLEAN", "--work-dir", "BAD_DB"], 2, r"argument --work-dir: .* is not a directory"),
    ("audit", [], 2, r"give the file\(s\) to audit"),
    ("audit", ["--bogus", "REQS"], 2, r"unrecognized arguments: --bogus"),
    ("audit", ["MISSING"], 2, r"nope: no such file"),
    ("audit", ["-o", "DIR", "REQS"], 2, r"-o/--output goes with --emit"),
    ("audit", ["LOCK", "--index-url", "INDEX"], 3, r"no project named 'nothere'"),
    ("wheelhouse", ["REQS"], 2, r"the following arguments are required: -o/--output"),
    ("wheelhouse", ["REQS", "-o", "DIR", "--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("wheelhouse", ["MISSING", "-o", "DIR", "--no-sandbox"], 2, r"nope: no such file"),
    ("doctor", ["--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("doctor", ["--format", "xml"], 2, r"invalid choice: 'xml'"),
]

#: Without a working sandbox, building commands could not build (3), and say so.
NO_SANDBOX_PATHS: list[tuple[str, list[str], int, str]] = [
    (
        "canary",
        ["CLEAN", "--baseline", "77.0.3", "--candidate", "78.0.1", "--db", "DIR/c.duckdb"],
        3,
        r"sapper: error: could not build: bubblewrap \(bwrap\) is not installed",
    ),
    (
        "canary",
        ["bisect", "BROKEN", "--good", "77.0.3", "--bad", "78.0.1", "--index-url", "INDEX"],
        3,
        r"sapper: error: could not build: bubblewrap",
    ),
    (
        "wheelhouse",
        ["REQS", "-o", "DIR", "--no-verify"],
        3,
        r"sapper: error: could not build: bubblewrap \(bwrap\) is not installed",
    ),
    ("doctor", ["--index-url", "INDEX"], 1, r"no bwrap on PATH"),
]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors and --help
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    from fake_index import FakeIndex, serve

    monkeypatch.setenv("SAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(tmp_path)
    files = _files(tmp_path)
    with serve(FakeIndex()) as url:
        yield {**files, "INDEX": url}


def _argv(command: str, args: list[str], inputs: dict[str, str]) -> list[str]:
    def one(arg: str) -> str:
        head, sep, tail = arg.partition("/")
        return inputs[head] + sep + tail if head in inputs else arg

    return [*command.split(), *(one(a) for a in args)]


def _check_path(command: str, code: int, pattern: str, result: tuple[int, str, str]) -> None:
    got, out, err = result
    assert got == code, (got, out, err)
    assert code in _table(COMMAND_EXIT_CODES[command]), f"{command} exits {code} undocumented"
    assert re.search(pattern, err) or re.search(pattern, out), (pattern, out, err)
    if code == ExitCode.USAGE:  # the command's own usage, then its error line
        usage = rf"^usage: sapper {command} "
        assert re.search(usage, err, re.M) or out.startswith(f"usage: sapper {command} "), err
        if command != "cache" or "--bogus" in err:
            assert re.search(rf"^sapper {command}: error: ", err, re.M), err


ErrorPath = tuple[str, list[str], int, str]


@pytest.mark.parametrize(
    "path", ERROR_PATHS, ids=[f"{c} {' '.join(a)}" for c, a, _, _ in ERROR_PATHS]
)
def test_error_paths(
    capsys: pytest.CaptureFixture[str], inputs: dict[str, str], path: ErrorPath
) -> None:
    """Each command's error paths, run as a user runs them: the exit code is the one the
    table gives, the message says what is wrong, and a usage error shows the usage of the
    command that got it."""
    command, args, code, pattern = path
    _check_path(command, code, pattern, _run(_argv(command, args, inputs), capsys))


@pytest.mark.parametrize(
    "path", NO_SANDBOX_PATHS, ids=[f"{c} {' '.join(a[:1])}" for c, a, _, _ in NO_SANDBOX_PATHS]
)
def test_no_sandbox_could_not_build(
    capsys: pytest.CaptureFixture[str],
    inputs: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    path: ErrorPath,
) -> None:
    from sapper.build import _sandbox

    command, args, code, pattern = path
    monkeypatch.setattr(_sandbox, "_bwrap", lambda: None)
    _sandbox.check_sandbox.cache_clear()
    try:
        result = _run(_argv(command, args, inputs), capsys)
    finally:
        _sandbox.check_sandbox.cache_clear()
    _check_path(command, code, pattern, result)


@pytest.mark.parametrize("command", sorted(COMMAND_EXIT_CODES))
def test_an_unknown_option_prints_the_commands_usage(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """argparse reports an unknown option with the usage of the parser that read the
    command line (the top-level one); sapper names the sub-command that got it."""
    required = {"fix": ["."], "rule": ["SC001"], "wheelhouse": ["-o", "out"]}
    argv = [*command.split(), "--no-such-option", *required.get(command, [])]
    code, _, err = _run(argv, capsys)
    assert code == ExitCode.USAGE
    assert err.startswith(f"usage: sapper {command} "), err
    assert (
        err.splitlines()[-1] == f"sapper {command}: error: unrecognized arguments: --no-such-option"
    )


def test_every_command_has_an_error_path() -> None:
    covered = {command for command, *_ in ERROR_PATHS}
    assert covered == set(COMMAND_EXIT_CODES)
    codes = {(command, code) for command, _, code, _ in ERROR_PATHS + NO_SANDBOX_PATHS}
    for command, meanings in COMMAND_EXIT_CODES.items():
        for code in meanings:
            if code not in (ExitCode.INTERRUPTED, ExitCode.FINDINGS, ExitCode.OK):
                assert (command, int(code)) in codes, f"no error path of {command} exits {code}"
