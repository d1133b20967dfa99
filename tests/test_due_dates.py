"""Due dates, both sides of each: a deprecation that warns in setuptools V with due date D
builds under ``SETUPTOOLS_ENFORCE_DEPRECATION=1`` on D itself and fails from D+1 on
(setuptools: ``due < date.today()``), and never fails without enforcement.

Every dated deprecation sapper models has a row here: sapper is checked with an injected
``today`` (and, once, with the clock frozen by time-machine, where ``Options.today`` is left
unset); the oracle runs real setuptools V with its clock fixed at D and D+1 and checks that
it warns, then fails with the deprecation, as sapper says.
"""

from __future__ import annotations

import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import time_machine
from helpers import project

from sapper.check import Options, check_files
from sapper.model import TargetResult
from sapper.versions import contains

CFG = "[metadata]\nname = probe\nversion = 1.0\n"
NAME = '[project]\nname = "probe"\nversion = "1.0"\n'
SETUP = 'from setuptools import setup\n{head}\nsetup(name="probe", version="1.0", py_modules=[])\n'


@dataclass(frozen=True)
class Dated:
    id: str
    code: str
    files: dict[str, str]
    #: The setuptools versions whose warning carries ``due`` (each checked on both sides).
    versions: tuple[str, ...]
    due: dt.date
    #: What the warning (and, past due under enforcement, the error) says.
    pattern: str
    #: The class setuptools raises once the deprecation is enforced.
    types: tuple[str, ...] = ("SetuptoolsDeprecationWarning",)


CASES = [
    Dated(
        "SC001-dash-84",
        "SC001",
        {"setup.cfg": CFG + "author-email = a@example.org\n"},
        ("78.0.2", "84.2.1"),
        dt.date(2026, 3, 3),
        r"Invalid dash-separated (key|options)",
    ),
    Dated(
        "SC001-dash-77",
        "SC001",
        {"setup.cfg": CFG + "author-email = a@example.org\n"},
        ("75.2.0", "77.0.3"),
        dt.date(2025, 3, 3),
        r"Invalid dash-separated (key|options)",
    ),
    Dated(
        "SC001-dash-69",
        "SC001",
        {"setup.cfg": CFG + "author-email = a@example.org\n"},
        ("69.0.0", "75.1.0"),
        dt.date(2024, 9, 26),
        r"Invalid dash-separated (key|options)",
    ),
    Dated(
        "SC001-dash-67",
        "SC001",
        {"setup.cfg": CFG + "author-email = a@example.org\n"},
        ("67.7.0", "68.2.2"),
        dt.date(2023, 9, 26),
        r"Invalid dash-separated (key|options)",
    ),
    Dated(
        "SC002-upper-84",
        "SC002",
        {"setup.cfg": CFG + "Author = A\n"},
        ("78.0.2", "84.2.1"),
        dt.date(2026, 3, 3),
        r"Invalid uppercase (key|configuration)",
    ),
    Dated(
        "SC002-upper-77",
        "SC002",
        {"setup.cfg": CFG + "Author = A\n"},
        ("77.0.3",),
        dt.date(2025, 3, 3),
        r"Invalid uppercase (key|configuration)",
    ),
    Dated(
        "PP004-license-table-new",
        "PP004",
        {"pyproject.toml": NAME + 'license = {text = "MIT"}\n'},
        ("80.10.2", "84.2.1"),
        dt.date(2027, 2, 18),
        r"project\.license. as a TOML table is deprecated",
    ),
    Dated(
        "PP004-license-table-old",
        "PP004",
        {"pyproject.toml": NAME + 'license = {text = "MIT"}\n'},
        ("77.0.1", "80.10.1"),
        dt.date(2026, 2, 18),
        r"project\.license. as a TOML table is deprecated",
    ),
    *[
        Dated(
            f"PP006-tool-license-files-{versions[0]}",
            "PP006",
            {
                "pyproject.toml": NAME + '\n[tool.setuptools]\nlicense-files = ["LICENSE"]\n',
                "LICENSE": "MIT\n",
            },
            versions,
            due,
            r"tool\.setuptools\.license-files",
        )
        for versions, due in (
            (("77.0.1", "80.10.1"), dt.date(2026, 2, 18)),
            (("80.10.2", "84.2.1"), dt.date(2027, 2, 18)),
        )
    ],
    Dated(
        "PP008-missing-dynamic",
        "PP008",
        {
            "pyproject.toml": NAME,
            "setup.py": "from setuptools import setup\n"
            'setup(py_modules=[], install_requires=["six"])\n',
        },
        ("67.7.0", "68.2.2"),
        dt.date(2023, 10, 30),
        r"`dependencies` defined outside of `pyproject.toml` would be ignored",
        ("_WouldIgnoreField",),
    ),
    Dated(
        "LY002-no-match-77.0.1",
        "LY002",
        {"setup.cfg": CFG + "license_files = COPYING*\n", "LICENSE": "MIT\n"},
        ("77.0.1",),
        dt.date(2026, 2, 20),
        r"Cannot find any files for the given pattern",
    ),
    Dated(
        "LY002-no-match-77.0.3",
        "LY002",
        {"setup.cfg": CFG + "license_files = COPYING*\n", "LICENSE": "MIT\n"},
        ("77.0.3", "80.10.1"),
        dt.date(2026, 3, 20),
        r"Cannot find any files for the given pattern",
    ),
    Dated(
        "LY002-no-match-new",
        "LY002",
        {"setup.cfg": CFG + "license_files = COPYING*\n", "LICENSE": "MIT\n"},
        ("80.10.2", "84.2.1"),
        dt.date(2027, 2, 18),
        r"Cannot find any files for the given pattern",
    ),
    Dated(
        "SC009-universal",
        "SC009",
        {
            "setup.cfg": CFG + "\n[bdist_wheel]\nuniversal = 1\n",
            "setup.py": "from setuptools import setup\nsetup(py_modules=[])\n",
        },
        ("75.1.0", "84.2.1"),
        dt.date(2025, 8, 30),
        r"universal",
    ),
    Dated(
        "SP003-test-command",
        "SP003",
        {"setup.py": SETUP.format(head="from setuptools.command.test import test")},
        ("72.1.0", "84.2.1"),
        dt.date(2024, 11, 15),
        r"test",
    ),
    Dated(
        "SP003-dist-sequence",
        "SP003",
        {"setup.py": SETUP.format(head="from setuptools.dist import sequence")},
        ("75.2.0", "84.2.1"),
        dt.date(2025, 8, 28),
        r"sequence",
    ),
    Dated(
        "SP003-script-writer",
        "SP003",
        {"setup.py": SETUP.format(head="from setuptools.command.easy_install import ScriptWriter")},
        ("80.3.1", "84.2.1"),
        dt.date(2025, 10, 31),
        r"ScriptWriter|easy_install",
    ),
]
IDS = [c.id for c in CASES]


def check(files: dict[str, str], **options: object) -> TargetResult:
    opts = Options(**options)  # type: ignore[arg-type]
    return check_files(project(files), target="t", kind="directory", options=opts)


ONE_DAY = dt.timedelta(days=1)


def _sides(case: Dated) -> list[tuple[dt.date, bool]]:
    """(today, overdue): the day before, the due date itself, the day after."""
    return [(case.due - ONE_DAY, False), (case.due, False), (case.due + ONE_DAY, True)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_enforced_only_after_the_due_date(case: Dated) -> None:
    for version in case.versions:
        for today, overdue in _sides(case):
            label = f"{version} on {today}"
            enforced = check(case.files, setuptools=version, enforce_deprecations=True, today=today)
            plain = check(case.files, setuptools=version, today=today)
            assert enforced.verdict is not None
            assert plain.verdict is not None
            finding = next(f for f in enforced.findings if f.code == case.code)
            # Warned in that version whatever the day; enforceable only once overdue.
            assert contains(finding.warns, version), label
            assert not contains(finding.fails, version), label
            assert contains(finding.fails_enforced, version) == overdue, label
            assert enforced.verdict.outcome == ("fails" if overdue else "builds"), label
            assert (case.code in enforced.verdict.because) == overdue, label
            assert plain.verdict.outcome == "builds", label


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_status_follows_the_clock_when_today_is_not_given(case: Dated) -> None:
    """``Options.today`` unset: sapper reads the clock (UTC); frozen on both sides."""
    version = case.versions[-1]
    seen = []
    for today, overdue in _sides(case)[1:]:
        at = dt.datetime.combine(today, dt.time(12), tzinfo=dt.timezone.utc)
        with time_machine.travel(at, tick=False):
            result = check_files(
                project(case.files),
                target="t",
                kind="directory",
                options=Options(setuptools=version, enforce_deprecations=True),
            )
        assert result.verdict is not None
        seen.append(result.verdict.outcome)
        finding = next(f for f in result.findings if f.code == case.code)
        assert finding.status == ("overdue" if overdue else "deprecated")
    assert seen == ["builds", "fails"]


# -- the oracle: real setuptools with its clock fixed on each side ------------------------


@pytest.mark.oracle
@pytest.mark.network
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_due_dates_match_setuptools(tmp_path: Path, case: Dated) -> None:
    from oracle.harness import Reason, reason_mismatch, require_runnable, run_hooks

    require_runnable(case.versions)
    for rel, text in case.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    reason = Reason(case.types, case.pattern)
    runs = [(v, today) for v in case.versions for today, _ in _sides(case)]

    def one(run: tuple[str, dt.date]) -> list[str]:
        version, today = run
        real = run_hooks(version, tmp_path, enforce=True, today=today)
        result = check(case.files, setuptools=version, enforce_deprecations=True, today=today)
        assert result.verdict is not None
        problems = []
        problem = reason_mismatch(
            real,
            result.verdict.outcome,
            reason,
            because=result.verdict.because,
            label=f"{version} on {today}",
        )
        if problem:
            problems.append(problem)
        if real.outcome == "builds" and not any(real.warned(case.pattern, t) for t in case.types):
            problems.append(
                f"{version} on {today}: builds but never warned /{case.pattern}/: {real.warnings}"
            )
        return problems

    with ThreadPoolExecutor(2) as pool:
        problems = [p for ps in pool.map(one, runs) for p in ps]
    assert not problems, "\n".join(problems)
