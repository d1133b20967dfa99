"""``sapper check --show-fix`` prints valid INI and agrees with what ``sapper fix`` writes."""

from __future__ import annotations

import configparser

import pytest
from helpers import TODAY, check, project

from sapper.fix import fix_files

README = {"README.md": "text\n", "README.rst": "text\n", "CHANGES.md": "text\n"}

CASES = {
    "rename": "[metadata]\nname = x\nhome-page = https://x\n",
    "multi-line-classifiers": "[metadata]\nname = x\nClassifier =\n  A :: B\n  C :: D\n",
    "multi-line-first-value": "[metadata]\nname = x\nClassifier = A :: B\n  C :: D\n",
    "license-file": "[metadata]\nname = x\nlicense-file = COPYING\n",
    "content-type": "[metadata]\nname = x\ndescription-content-type = text/markdown\n",
    "description-file": "[metadata]\nname = x\ndescription-file = README.md\n",
    "description-file-two": "[metadata]\nname = x\ndescription-file = README.md CHANGES.md\n",
    "ignored-key": "[metadata]\nname = x\ndecsription-file = README.md\n",
    "ignored-multi-line": "[metadata]\nname = x\nproject-keywords =\n    a\n    b\n",
    "options-section": "[options]\npython-requires = >=3.8\ninstall-requires =\n    a\n    b\n",
    "egg-info": "[egg_info]\ntag-build =\ntag-date = 0\n",
    "uppercase": "[metadata]\nName = x\nVersion = 1.0\n",
}


def _parse(text: str, section: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    body = text if text.lstrip().startswith("[") else f"[{section}]\n{text}"
    parser.read_string(body)
    return parser


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.strip().splitlines() if line.strip()]


@pytest.mark.parametrize("case", sorted(CASES))
def test_show_fix_is_valid_ini_and_agrees_with_fix(case: str) -> None:
    files = {"setup.cfg": CASES[case], "COPYING": "text\n", **README}
    result = check(files)
    fixed = fix_files(project(files), today=TODAY)
    applied = {(e.code, e.line) for e in fixed.edits if e.status == "applied"}
    new_cfg = fixed.files.get("setup.cfg", CASES[case].encode()).decode()
    after = _parse(new_cfg, "metadata")
    before = _parse(CASES[case], "metadata")
    shown = [f for f in result.findings if f.code in ("SC001", "SC002") and f.fix]
    assert shown, "every case has a finding with a suggested fix"
    for finding in shown:
        assert finding.fix is not None
        assert (finding.code, finding.line) in applied
        section = next(
            s
            for s in before.sections()
            for k in before[s]
            if CASES[case].splitlines()[(finding.line or 1) - 1].lstrip().startswith(k)
        )
        suggested = _parse(finding.fix, section)  # valid INI, or configparser raises
        for sec in suggested.sections():
            for key, value in suggested[sec].items():
                assert after.has_option(sec, key), (finding.fix, new_cfg)
                assert _lines(after[sec][key]) == _lines(value), (finding.fix, new_cfg)
        if not suggested.sections() or not any(suggested[s] for s in suggested.sections()):
            # the suggestion is a commented-out key: fix comments it out too
            assert all(line.startswith("#") for line in finding.fix.splitlines())
            assert all(line in new_cfg for line in finding.fix.splitlines()[:1])
