"""The start-up of ``sapper check``: the garbage collector is paused until the first target
is checked (the hand-written parser that used to come with this pause is gone, issue 23:
``benchmarks/check_parser.py``)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest


def test_check_collects_no_garbage_until_the_first_target_is_done(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Start-up runs without the garbage collector; it is back on from the second target on,
    and after the command, even when the command fails; a collector the caller turned off
    stays off; other commands leave it alone."""
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
        with pytest.raises(SystemExit):  # argparse's own usage error
            main(["check", "--format", "xml"])
        assert gc.isenabled()
        gc.disable()
        assert main(["check", str(tmp_path), str(tmp_path), "--exit-zero", "-q"]) == 0
        assert seen == [False, False]
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_only_check_turns_the_collector_off(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sapper.cli.rules
    from sapper.cli import main

    states: list[bool] = []
    real = sapper.cli.rules._run_rules

    def spy(args: object) -> int:
        states.append(gc.isenabled())
        return real(args)  # type: ignore[arg-type]

    monkeypatch.setattr(sapper.cli.rules, "_run_rules", spy)
    assert main(["rules"]) == 0
    capsys.readouterr()
    assert states == [True]
