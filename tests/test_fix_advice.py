"""`sapper check --show-fix` and `sapper fix` suggest the same key (one source of advice)."""

from __future__ import annotations

import configparser

import pytest
from helpers import TODAY, check, project

from sapper.fix import fix_files

#: (key as written in [metadata], key setuptools reads that both must name)
KEYS = [
    # license_file is deprecated since setuptools 56.0.0 (#2620: "Use license_files
    # instead"); license_files reads the same pattern, so both name license_files.
    ("license-file", "license_files"),
    ("License_File", "license_files"),
    ("home-page", "url"),
    ("Home_Page", "url"),
    ("description-content-type", "long_description_content_type"),
    ("author-email", "author_email"),
    ("Author", "author"),
    ("summary", None),  # not flagged: already lowercase with underscores
]


@pytest.mark.parametrize(("key", "expected"), KEYS)
def test_show_fix_and_fix_agree(key: str, expected: str | None) -> None:
    files = {
        "setup.cfg": f"[metadata]\nname = example\nversion = 1.0\n{key} = LICENSE.txt\n",
        "setup.py": "from setuptools import setup\nsetup()\n",
    }
    findings = [f for f in check(files).findings if f.code in ("SC001", "SC002")]
    if expected is None:
        assert not findings
        return
    (finding,) = findings
    assert finding.fix is not None
    suggested = finding.fix.split("=", 1)[0].strip()
    assert suggested == expected
    result = fix_files(project(files), today=TODAY)
    parser = configparser.ConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(result.files["setup.cfg"].decode())
    assert parser["metadata"][expected] == "LICENSE.txt"
    assert key not in parser["metadata"]
