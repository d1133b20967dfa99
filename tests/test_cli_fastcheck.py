"""The argparse-free parser of ``sapper check`` (sapper.cli._fastcheck) against argparse: both
read one definition (sapper.cli._checkopts.define) and give the same namespace."""

from __future__ import annotations

import argparse

import pytest

from sapper.cli import _parser
from sapper.cli._fastcheck import Options, options, parse_check

#: Command lines both parsers read: the namespaces must be equal.
SAME = [
    [],
    ["."],
    [".", "--exit-zero"],
    ["a", "b", "c"],
    ["--format", "json", "."],
    ["--format=json", "."],
    [".", "--format", "sarif", "--exit-zero", "-q"],
    ["--select", "SC,pp00", "--ignore=sc001", "."],
    ["--select", "", "."],
    ["--select", "sc", "--select", "PP", "."],  # the last one wins
    ["--format", "json", "--format", "concise"],
    ["--setuptools", "78.0.1", "--python", "3.12", "--enforce-deprecations"],
    ["--setuptools=", "."],
    ["--index-url", "https://example.org/simple", "stringcase==1.2.0"],
    ["--cache-dir", "/tmp/c", "--no-cache", "--cache-max-size", "2 GB", "x.tar.gz"],
    ["--config", "sub/pyproject.toml", "--isolated", "."],
    ["--ignore-suppressions", "--show-fix", "--statistics", "--quiet", "--color", "never"],
    ["--color=always", "dir with spaces", "name=1.0"],
    ["--exit-zero", "a", "b"],
    ["a", "b", "--exit-zero", "--format", "github"],
]

#: Command lines the fast parser leaves to argparse (help, errors, unusual spellings).
FALLBACK = [
    ["-h"],
    ["--help"],
    ["--form", "json"],  # an abbreviation argparse accepts
    ["--exit"],
    ["--format", "xml"],  # argparse: invalid choice
    ["--format"],  # argparse: expected one argument
    ["--format=", "."],
    ["--select", "-SC"],
    ["--exit-zero=yes"],
    ["-qq"],
    ["-"],
    ["--", "."],
    ["a", "--exit-zero", "b"],  # argparse: unrecognized arguments: b
    ["--unknown"],
    ["-x"],
    ["--color", "sometimes"],
]


def _argparse(argv: list[str]) -> dict[str, object]:
    namespace = vars(_parser(["check"]).parse_args(["check", *argv]))
    del namespace["command_parser"]  # what a usage error's usage is taken from
    return namespace


@pytest.mark.parametrize("argv", SAME, ids=" ".join)
def test_fast_parser_gives_the_argparse_namespace(argv: list[str]) -> None:
    fast = parse_check(argv)
    assert fast is not None, argv
    assert vars(fast) == _argparse(argv)


def test_index_url_default_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAPPER_INDEX_URL", "https://mirror.example/simple")
    fast = parse_check(["."])
    assert fast is not None
    assert fast.index_url == "https://mirror.example/simple"
    assert vars(fast) == _argparse(["."])


@pytest.mark.parametrize("argv", FALLBACK, ids=" ".join)
def test_fast_parser_leaves_the_rest_to_argparse(argv: list[str]) -> None:
    assert parse_check(argv) is None


def test_fast_parser_knows_exactly_the_options_of_check() -> None:
    """The recorder reads the definition as argparse does: the same option strings, with the
    same destination, type and choices."""
    parser = _parser(["check"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    check = sub.choices["check"]
    known = options()
    assert not known.unsupported
    seen: set[str] = set()
    for action in check._actions:
        if isinstance(action, argparse._HelpAction) or not action.option_strings:
            continue
        for option in action.option_strings:
            seen.add(option)
            if isinstance(action, argparse._StoreTrueAction):
                assert known.flags.get(option) == action.dest, option
            else:
                dest, convert, choices = known.values[option]
                assert dest == action.dest, option
                assert choices == (tuple(action.choices) if action.choices else None), option
                expected = action.type("x") if action.type else "x"  # type: ignore[operator]
                assert convert("x") == expected, option
    assert seen == known.flags.keys() | known.values.keys()


@pytest.mark.parametrize(
    ("names", "spec"),
    [
        (("--count",), {"action": "count"}),
        (("--pin",), {"action": "append"}),
        (("--two",), {"nargs": 2}),
        (("--opt",), {"required": True}),
        (("target",), {}),  # a positional that is not "TARGET ..."
    ],
)
def test_a_definition_the_recorder_cannot_read_leaves_everything_to_argparse(
    names: tuple[str, ...], spec: dict[str, object]
) -> None:
    recorded = Options()
    recorded.add_argument("targets", nargs="*")
    recorded.add_argument(*names, **spec)
    assert recorded.unsupported


def test_an_option_added_to_the_definition_reaches_the_fast_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sapper.cli import _checkopts

    real = _checkopts.define

    def define(check: argparse.ArgumentParser) -> None:
        real(check)
        check.add_argument("--new-option", choices=("a", "b"), default="a", help="new")

    monkeypatch.setattr(_checkopts, "define", define)
    fast = parse_check([".", "--new-option", "b"])
    assert fast is not None
    assert fast.new_option == "b"
    assert vars(fast) == _argparse([".", "--new-option", "b"])
    assert parse_check([".", "--new-option", "c"]) is None  # argparse says why


def test_a_usage_error_on_the_fast_path_prints_checks_usage(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    from sapper.cli import main

    assert parse_check([str(tmp_path / "nope")]) is not None  # the fast path reads it
    assert main(["check", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: sapper check ")
    assert (
        err.splitlines()[-1]
        == f"sapper check: error: {tmp_path / 'nope'}: no such file or directory"
    )


def test_main_takes_the_fast_path_for_check(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """`sapper check` never builds an argparse parser on the simple forms; with an argument
    the fast parser does not read, argparse parses (and reports the error)."""
    from sapper import cli

    (tmp_path / "setup.cfg").write_text("[metadata]\nname = demo\n")
    built: list[object] = []
    real = cli._parser

    def spy(argv: object = None) -> argparse.ArgumentParser:
        built.append(argv)
        return real(argv)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "_parser", spy)
    assert cli.main(["check", str(tmp_path), "--exit-zero", "-q"]) == 0
    assert built == []
    with pytest.raises(SystemExit) as exc:  # argparse's usage error
        cli.main(["check", str(tmp_path), "--format", "xml"])
    assert exc.value.code == 2
    assert len(built) == 1


def test_fast_path_collects_no_garbage_until_the_first_target_is_done(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Start-up runs without the garbage collector; it is back on from the second target on,
    and after the command, even when the command fails; a collector the caller turned off
    stays off."""
    import gc

    import sapper.check
    from sapper.cli import main

    (tmp_path / "setup.cfg").write_text("[metadata]\nname = demo\n")
    seen: list[bool] = []
    real = sapper.check.check_target

    def spy(target: str, options: object = None):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(target, options)  # type: ignore[arg-type]

    monkeypatch.setattr(sapper.check, "check_target", spy)
    try:
        assert main(["check", str(tmp_path), str(tmp_path), "--exit-zero", "-q"]) == 0
        assert seen == [False, True]
        assert gc.isenabled()
        seen.clear()
        assert main(["check", str(tmp_path), "--statistics", "--show-fix"]) == 2  # raises
        assert gc.isenabled()
        gc.disable()
        assert main(["check", str(tmp_path), str(tmp_path), "--exit-zero", "-q"]) == 0
        assert seen == [False, False]
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
