"""sapper's setup.cfg verdicts against real setuptools' ``Distribution.parse_config_files``.

For every generated setup.cfg and every setuptools version below, with and without
``SETUPTOOLS_ENFORCE_DEPRECATION=1``, sapper's outcome (``fails``/``builds``) must equal
whether real setuptools raised.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sapper.check import Options, check_files
from sapper.inputs.sources import ProjectFiles

from .cases import all_cases
from .harness import HookResult, older_python, parse_config, reason_mismatch, require_runnable
from .reasons import reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]

#: The versions the issue names (77.0.3, 78.0.1, 84.2.1) and the era boundaries around them.
#: The rules about what ``parse_config_files`` itself does; later stages of a build (SC008+:
#: option values, ``bdist_wheel`` finalisation) are proven through the PEP 517 hooks in
#: test_values_oracle.py.
PARSE_STAGE_RULES = ("SC001", "SC002", "SC003", "SC004", "SC005", "SC006", "SC007")
VERSIONS = ("54.1.2", "67.6.1", "67.7.0", "75.2.0", "77.0.3", "78.0.1", "78.0.2", "84.2.1")
CASES = all_cases()
#: One clock for both sides: setuptools' due dates and sapper's are compared on this day.
TODAY = dt.date.today()


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cfg")
    paths = {}
    for name, data in CASES:
        path = root / f"{name}.cfg"
        path.write_bytes(data)
        paths[name] = path
    return paths


@pytest.fixture(scope="module")
def real(case_dir: dict[str, Path]) -> dict[tuple[str, bool], dict[str, HookResult]]:
    require_runnable(VERSIONS)
    out = {}
    for version in VERSIONS:
        for enforce in (False, True):
            raw = parse_config(version, list(case_dir.values()), enforce=enforce, today=TODAY)
            out[version, enforce] = {name: raw[str(p)] for name, p in case_dir.items()}
    return out


@pytest.mark.parametrize("enforce", [False, True], ids=["plain", "enforced"])
@pytest.mark.parametrize("version", VERSIONS)
def test_verdicts_match_setuptools(version: str, enforce: bool, real) -> None:
    """Outcome and reason: a predicted failure must be the error one of the verdict's rules
    declares (a dash-key error does not confirm an unsupported-section verdict)."""
    mismatches = []
    for name, data in CASES:
        files = ProjectFiles(label=name, root="", files={"setup.cfg": data}, names=("setup.cfg",))
        result = check_files(
            files,
            target=name,
            kind="directory",
            options=Options(
                setuptools=version,
                enforce_deprecations=enforce,
                today=TODAY,
                select=PARSE_STAGE_RULES,
            ),
        )
        assert result.verdict is not None
        because = result.verdict.because
        problem = reason_mismatch(
            real[version, enforce][name],
            result.verdict.outcome,
            reasons_for(because),
            because=because,
            label=name,
        )
        if problem:
            mismatches.append(problem)
    assert not mismatches, "\n".join(mismatches)


#: setuptools 40.7.0-40.9.0 decode setup.cfg with the codec a `coding:` comment on its first
#: line names; the releases around them ignore the comment. The boundaries, both sides.
CODING_VERSIONS = ("40.6.3", "40.7.0", "40.9.0", "41.0.0")
CODING_CASES = (
    ("coding-unknown", b"# -*- coding: bogus -*-\n[metadata]\nname = probe\n"),
    ("coding-not-text", b"# vim: set fileencoding=hex :\n[metadata]\nname = probe\n"),
    ("coding-latin1", b"# -*- coding: latin-1 -*-\n[metadata]\nname = probe\nauthor = Jos\xe9\n"),
    ("coding-second-line", b"# x\n# -*- coding: bogus -*-\n[metadata]\nname = probe\n"),
)


def test_coding_comment_matches_setuptools_40(tmp_path: Path) -> None:
    """setuptools before 41.1.0 does not import on Python 3.9+, so these releases run on an
    older interpreter (``older_python``); the test is skipped without one."""
    python = older_python()
    if python is None:
        pytest.skip("no Python <= 3.8 to run setuptools 40.x (set SAPPER_ORACLE_OLD_PYTHON)")
    paths = []
    for name, data in CODING_CASES:
        path = tmp_path / f"{name}.cfg"
        path.write_bytes(data)
        paths.append(path)
    outcomes: dict[str, list[str]] = {name: [] for name, _ in CODING_CASES}
    mismatches = []
    for version in CODING_VERSIONS:
        raw = parse_config(version, paths, enforce=False, python=python)
        for (name, data), path in zip(CODING_CASES, paths, strict=True):
            real = raw[str(path)]
            outcomes[name].append(real.outcome)
            files = ProjectFiles(
                label=name, root="", files={"setup.cfg": data}, names=("setup.cfg",)
            )
            options = Options(setuptools=version, today=TODAY, select=PARSE_STAGE_RULES)
            result = check_files(files, target=name, kind="directory", options=options)
            assert result.verdict is not None
            because = result.verdict.because
            problem = reason_mismatch(
                real, result.verdict.outcome, reasons_for(because), because=because, label=name
            )
            if problem:
                mismatches.append(f"{version}: {problem}")
    assert not mismatches, "\n".join(mismatches)
    # the boundaries themselves, as real setuptools drew them
    era = ["builds", "fails", "fails", "builds"]
    assert outcomes == {
        "coding-unknown": era,
        "coding-not-text": era,
        # decoded with the comment's codec by 40.7.0-40.9.0 only; as UTF-8 by 41.0.0, and in
        # the locale's encoding by 40.6.3 (sapper assumes UTF-8; a Latin-1 locale differs)
        "coding-latin1": ["fails", "builds", "builds", "fails"],
        "coding-second-line": ["builds"] * 4,
    }
