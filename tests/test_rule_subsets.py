"""Any subset of rules gives a subset of the findings, and never crashes.

Rules of a family share one detection (every SC rule reads one analysis of setup.cfg), so a
rule left out may still have its findings built before they are filtered. Whether a rule
module is imported depends on the selection, so each selection runs in a fresh interpreter
(a forked child of one that has imported no rule module), as ``sapper check`` does: the
pytest process has every rule loaded and would hide a finding that needs a module the
selection did not import.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from oracle.cases import BINARY, REAL_KEYS, SYNTAX

from sapper.check import Options, check_files
from sapper.inputs.sources import ProjectFiles, read_directory
from sapper.model import Finding
from sapper.render.explain import example_files
from sapper.rules import all_rules

CODES = tuple(r.code for r in all_rules())
#: (select, ignore) -> project label -> its findings, or the traceback of a crash.
Picked = tuple[tuple[str, ...], tuple[str, ...]]
Runs = dict[Picked, dict[str, tuple[Finding, ...] | str]]
TODAY = "2026-12-03"


def _projects() -> list[ProjectFiles]:
    """Every rule's example, every project tree among the test data, and the oracle's
    setup.cfg syntax and key cases."""
    found = []
    for rule in all_rules():
        files = example_files(rule)
        found.append(ProjectFiles(label=rule.code, root="", files=files, names=tuple(files)))
    data = Path(__file__).parent / "data"
    roots = {
        p.parent for name in ("setup.py", "setup.cfg", "pyproject.toml") for p in data.rglob(name)
    }
    found.extend(read_directory(root) for root in sorted(roots))
    cases = [(n, t.encode()) for n, t in (*REAL_KEYS, *SYNTAX)] + list(BINARY)
    for name, text in cases:
        files = {"setup.cfg": text}
        found.append(ProjectFiles(label=name, root="", files=files, names=tuple(files)))
    return found


PROJECTS = _projects()

# Run in a fresh interpreter: reads the projects and the selections (pickled) from stdin,
# forks one child per selection (the parent never imports a rule module), and writes
# {selection: {label: findings, or the child's traceback}} (pickled) to stdout.
_WORKER = textwrap.dedent(
    """
    import datetime, os, pickle, sys, traceback
    from sapper.check import Options, check_files
    projects, selections, today = pickle.load(sys.stdin.buffer)
    out = {}
    for select, ignore in selections:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            options = Options(select=select, ignore=ignore, today=today)
            got = {}
            for files in projects:
                try:
                    got[files.label] = check_files(
                        files, target=files.label, kind="directory", options=options
                    ).findings
                except Exception:
                    got[files.label] = traceback.format_exc()
            with os.fdopen(write, "wb") as stream:
                pickle.dump(got, stream)
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as stream:
            out[(select, ignore)] = pickle.load(stream)
        os.waitpid(pid, 0)
    pickle.dump(out, sys.stdout.buffer)
    """
)


def _run_fresh(selections: list[Picked]) -> Runs:
    import datetime as dt

    payload = pickle.dumps((PROJECTS, selections, dt.date.fromisoformat(TODAY)))
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", _WORKER], input=payload, capture_output=True, check=True, env=env
    )
    result: Runs = pickle.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def everything() -> dict[str, tuple[Finding, ...]]:
    import datetime as dt

    options = Options(today=dt.date.fromisoformat(TODAY))
    return {
        files.label: check_files(
            files, target=files.label, kind="directory", options=options
        ).findings
        for files in PROJECTS
    }


@pytest.fixture(scope="module")
def subsets() -> Runs:
    selections = [((), (code,)) for code in CODES] + [((code,), ()) for code in CODES]
    return _run_fresh(selections)


def test_the_projects_trigger_every_rule(everything: dict[str, tuple[Finding, ...]]) -> None:
    """The property below is only as strong as its inputs: each code has findings somewhere."""
    seen = {f.code for findings in everything.values() for f in findings}
    assert set(CODES) <= seen


@pytest.mark.parametrize("code", CODES)
def test_leaving_out_one_rule_removes_only_its_findings(
    code: str,
    everything: dict[str, tuple[Finding, ...]],
    subsets: Runs,
) -> None:
    got = subsets[((), (code,))]
    for label, findings in everything.items():
        assert got[label] == tuple(f for f in findings if f.code != code), (
            f"--ignore {code} on {label}"
        )


@pytest.mark.parametrize("code", CODES)
def test_selecting_one_rule_keeps_only_its_findings(
    code: str,
    everything: dict[str, tuple[Finding, ...]],
    subsets: Runs,
) -> None:
    got = subsets[((code,), ())]
    for label, findings in everything.items():
        assert got[label] == tuple(f for f in findings if f.code == code), (
            f"--select {code} on {label}"
        )


STRINGCASE = Path(__file__).parent / "data" / "projects" / "stringcase-1.2.0"
MIXED = "[metadata]\nname = probe\ndescription-file = README\nAuthor = Jo\n"


@pytest.mark.parametrize(
    ("argv", "config", "codes"),
    [
        pytest.param(["check", "--ignore", "SC001"], "", {"SC002"}, id="check-ignore"),
        pytest.param(["check", "--select", "SC002"], "", {"SC002"}, id="check-select"),
        pytest.param(["check", "--select", "SC003"], "", set(), id="check-select-another"),
        pytest.param(
            ["check"], '[tool.sapper]\nignore = ["SC002"]\n', {"SC001"}, id="config-ignore"
        ),
        pytest.param(
            ["check"],
            "[tool.sapper.per-file-ignores]\n'setup.cfg' = ['SC001']\n",
            {"SC002"},
            id="per-file-ignores",
        ),
        pytest.param(
            ["check", "--select", "SC001", "--ignore", "SC"], "", {"SC001"}, id="most-specific"
        ),
        pytest.param(["fix", "--diff", "--ignore", "SC001"], "", set(), id="fix-ignore"),
    ],
)
def test_cli_runs_any_selection(
    tmp_path: Path, argv: list[str], config: str, codes: set[str]
) -> None:
    """In a fresh interpreter, as a user runs it: a selection that leaves out the rule whose
    finding the shared setup.cfg analysis builds first does not crash (it did, with
    KeyError in ``slug_of``), and reports just the selected codes."""
    (tmp_path / "setup.cfg").write_text(MIXED)
    if config:
        (tmp_path / "pyproject.toml").write_text(config)
    done = subprocess.run(
        [sys.executable, "-m", "sapper", *argv, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    if argv[0] == "check":
        found = {c for c in ("SC001", "SC002") if f" {c} " in done.stdout}
        assert found == codes, done.stdout
        assert done.returncode == (1 if codes else 0), done.stdout + done.stderr
    else:
        assert done.returncode == 1, done.stderr  # --diff: 1 when it would rewrite
        assert "+author = Jo" in done.stdout, done.stdout
        assert "-description-file" not in done.stdout, done.stdout
