"""sapper fix on setup.py: before/after pairs for every fix (no-op and skipped cases too)."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

import pytest
from helpers import TODAY, check, project

from sapper.fix import fix_files


@dataclass(frozen=True)
class Case:
    id: str
    before: str
    after: str
    edits: tuple[tuple[str, str], ...]
    unsafe: bool = False


CASES = [
    Case(
        "noop",
        "from setuptools import setup\nsetup(name='x')\n",
        "from setuptools import setup\nsetup(name='x')\n",
        (),
    ),
    Case(
        "use_2to3-false-multiline",
        "from setuptools import setup\n\nsetup(\n    name='x',  # the name\n"
        "    use_2to3=False,  # legacy\n    version='1',\n)\n",
        "from setuptools import setup\n\nsetup(\n    name='x',  # the name\n"
        "    # legacy\n    version='1',\n)\n",
        (("SP002", "applied"),),
    ),
    Case(
        "use_2to3-last-inline",
        "from setuptools import setup\nsetup(name='x', use_2to3=False)\n",
        "from setuptools import setup\nsetup(name='x')\n",
        (("SP002", "applied"),),
    ),
    Case(
        "use_2to3-empty-list-is-false",
        "from setuptools import setup\nsetup(name='x', use_2to3=[])\n",
        "from setuptools import setup\nsetup(name='x')\n",
        (("SP002", "applied"),),
    ),
    Case(
        "use_2to3-non-literal-unsafe",
        "from setuptools import setup\nsetup(name='x', use_2to3=FLAG)\n",
        "from setuptools import setup\nsetup(name='x', use_2to3=FLAG)\n",
        (("SP002", "unsafe"),),
    ),
    Case(
        "use_2to3-true-unsafe",
        "from setuptools import setup\nsetup(name='x', use_2to3=True)\n",
        "from setuptools import setup\nsetup(name='x', use_2to3=True)\n",
        (("SP002", "unsafe"),),
    ),
    Case(
        "use_2to3-true-with-unsafe-fixes",
        "import setuptools\nsetuptools.setup(\n    use_2to3=True,\n    name='x',\n)\n",
        "import setuptools\nsetuptools.setup(\n    name='x',\n)\n",
        (("SP002", "applied"),),
        unsafe=True,
    ),
    Case(
        "test-command-only-in-cmdclass",
        "from setuptools import setup\n# the test command\n"
        "from setuptools.command.test import test as TestCommand\n\n"
        "setup(\n    name='x',\n    cmdclass={'test': TestCommand},\n)\n",
        "from setuptools import setup\n# the test command\n\nsetup(\n    name='x',\n)\n",
        (("SP001", "applied"),),
    ),
    Case(
        "test-command-one-of-several",
        "from setuptools import setup\nfrom setuptools.command.test import test\n"
        "setup(cmdclass={'test': test, 'build': B})\n",
        "from setuptools import setup\nsetup(cmdclass={'build': B})\n",
        (("SP001", "applied"),),
    ),
    Case(
        "test-command-subclassed-unsafe",
        "from setuptools import setup\nfrom setuptools.command.test import test\n"
        "class T(test):\n    pass\nsetup(cmdclass={'test': T})\n",
        "from setuptools import setup\nfrom setuptools.command.test import test\n"
        "class T(test):\n    pass\nsetup(cmdclass={'test': T})\n",
        (("SP001", "unsafe"),),
    ),
    Case(
        "test-command-subclassed-with-unsafe-fixes",
        "from setuptools import setup\nfrom setuptools.command.test import test as TC\n\n\n"
        "class PyTest(TC):\n    def run_tests(self):\n        # run pytest\n"
        "        TC.run_tests(self)\n\n\n# the call\nsetup(\n    name='x',\n"
        "    cmdclass={'test': PyTest},\n)\n",
        "from setuptools import setup\n\n\n# the call\nsetup(\n    name='x',\n)\n",
        (("SP001", "applied"),),
        unsafe=True,
    ),
    Case(
        "test-command-subclass-used-elsewhere-skipped",
        "from setuptools import setup\nfrom setuptools.command.test import test\n"
        "class T(test):\n    pass\nprint(T)\nsetup(cmdclass={'test': T})\n",
        "from setuptools import setup\nfrom setuptools.command.test import test\n"
        "class T(test):\n    pass\nprint(T)\nsetup(cmdclass={'test': T})\n",
        (("SP001", "skipped"),),
        unsafe=True,
    ),
    Case(
        "get-distribution-version",
        "import pkg_resources  # for the version\nfrom setuptools import setup\n"
        "v = pkg_resources.get_distribution('numpy').version\nsetup(name='x')\n",
        "import importlib.metadata  # for the version\nfrom setuptools import setup\n"
        "v = importlib.metadata.version('numpy')\nsetup(name='x')\n",
        (("SP001", "applied"),),
    ),
    Case(
        "from-import-get-distribution",
        "from pkg_resources import get_distribution\nfrom setuptools import setup\n"
        "setup(name='x', version=get_distribution('y').version)\n",
        "import importlib.metadata\nfrom setuptools import setup\n"
        "setup(name='x', version=importlib.metadata.version('y'))\n",
        (("SP001", "applied"),),
    ),
    Case(
        "parse-version-unsafe",
        "from pkg_resources import parse_version\nfrom setuptools import setup\n"
        "if parse_version('1') < parse_version('2'):\n    pass\nsetup(name='x')\n",
        "from pkg_resources import parse_version\nfrom setuptools import setup\n"
        "if parse_version('1') < parse_version('2'):\n    pass\nsetup(name='x')\n",
        (("SP001", "unsafe"),),
    ),
    Case(
        "parse-version-with-unsafe-fixes",
        "from pkg_resources import parse_version\nfrom setuptools import setup\n"
        "if parse_version('1') < parse_version('2'):\n    pass\nsetup(name='x')\n",
        "import packaging.version\nfrom setuptools import setup\n"
        "if packaging.version.Version('1') < packaging.version.Version('2'):\n    pass\n"
        "setup(name='x')\n",
        (("SP001", "applied"),),
        unsafe=True,
    ),
    Case(
        "resource-filename-with-unsafe-fixes",
        "import pkg_resources\nfrom setuptools import setup\n"
        "p = pkg_resources.resource_filename('pkg', 'data/x.txt')\nsetup(name='x')\n",
        "import importlib.resources\nfrom setuptools import setup\n"
        "p = str(importlib.resources.files('pkg') / 'data/x.txt')\nsetup(name='x')\n",
        (("SP001", "applied"),),
        unsafe=True,
    ),
    Case(
        "pkg-resources-other-use-skipped",
        "import pkg_resources\nfrom setuptools import setup\n"
        "pkg_resources.require('x')\nsetup(name='x')\n",
        "import pkg_resources\nfrom setuptools import setup\n"
        "pkg_resources.require('x')\nsetup(name='x')\n",
        (("SP001", "skipped"),),
    ),
    Case(
        "distribution-not-found-skipped",
        "from pkg_resources import get_distribution, DistributionNotFound\n"
        "from setuptools import setup\ntry:\n    v = get_distribution('y').version\n"
        "except DistributionNotFound:\n    v = '0'\nsetup(name='x')\n",
        "from pkg_resources import get_distribution, DistributionNotFound\n"
        "from setuptools import setup\ntry:\n    v = get_distribution('y').version\n"
        "except DistributionNotFound:\n    v = '0'\nsetup(name='x')\n",
        (("SP001", "skipped"),),
    ),
    Case(
        "import-module-form-test-command-reported",
        "import setuptools.command.test\nsetuptools.setup(name='x')\n",
        "import setuptools.command.test\nsetuptools.setup(name='x')\n",
        (("SP001", "skipped"),),
    ),
]


def _comments(source: str) -> list[str]:
    return [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.COMMENT
    ]


def _run(case: Case, source: str | None = None):
    text = case.before if source is None else source
    return fix_files(project({"setup.py": text}), unsafe_fixes=case.unsafe, today=TODAY)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_before_after(case: Case) -> None:
    result = _run(case)
    after = result.files.get("setup.py", case.before.encode()).decode()
    assert after == case.after
    assert tuple((e.code, e.status) for e in result.edits) == case.edits
    ast.parse(after)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_idempotent_and_comments_kept(case: Case) -> None:
    fixed = _run(case).files.get("setup.py", case.before.encode()).decode()
    again = _run(case, fixed)
    assert "setup.py" not in again.files
    assert not again.changed
    kept = sorted(_comments(fixed))
    if "subclassed-with-unsafe" in case.id:  # the removed class's comments go with it
        assert kept == ["# the call"]
    else:
        assert sorted(_comments(case.before)) == kept


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_no_finding_left_but_reported_ones(case: Case) -> None:
    result = _run(case)
    fixed = result.files.get("setup.py", case.before.encode())
    left = check({"setup.py": fixed}, select=("SP001", "SP002")).findings
    if any(e.status == "applied" for e in result.edits):
        assert not left
    else:
        assert len(left) == len(case.edits)


def test_comment_that_would_be_lost_blocks_the_edit() -> None:
    source = "from setuptools import setup\nsetup(\n    use_2to3=False,  # keep me\n    name='x')\n"
    result = fix_files(project({"setup.py": source}), today=TODAY)
    assert not result.changed
    assert [e.status for e in result.edits] == ["skipped"]
    assert "# keep me" in result.edits[0].message


# The fixers work from the findings' locations: what `check` did not report is not edited.

_PINNED = '[build-system]\nrequires = ["setuptools<82"]\nbuild-backend = "setuptools.build_meta"\n'
_BOTH = (
    "import pkg_resources\n"
    "from setuptools import setup\n"
    "from setuptools.command.test import test\n"
    "V = pkg_resources.get_distribution('x').version\n"
    "setup(name='x', cmdclass={'test': test})\n"
)


@pytest.mark.parametrize(
    ("pyproject", "lines", "kept"),
    [
        # setuptools<82 still has pkg_resources: its finding is not reported, so the import
        # stays; the test command (gone in 72.0.0) is fixed
        pytest.param(_PINNED, [3], "import pkg_resources\n", id="pinned-below-82"),
        pytest.param(None, [3, 1], "import importlib.metadata\n", id="unpinned"),
    ],
)
def test_only_reported_findings_are_fixed(
    pyproject: str | None, lines: list[int], kept: str
) -> None:
    files = {"setup.py": _BOTH} | ({"pyproject.toml": pyproject} if pyproject else {})
    result = fix_files(project(files), today=TODAY)
    assert [(e.code, e.line, e.status) for e in result.edits] == [
        ("SP001", line, "applied") for line in lines
    ]
    assert result.files["setup.py"].decode().startswith(kept)


def test_a_fixer_edits_only_at_its_findings() -> None:
    """Two `use_2to3=` in two setup() calls, one finding handed over: one edit."""
    from sapper.fix.setup_py import fix_setup_py

    source = "from setuptools import setup\nsetup(use_2to3=False)\nsetup(use_2to3=False)\n"
    found = [f for f in check({"setup.py": source}).findings if f.code == "SP002"]
    assert [f.line for f in found] == [2, 3]
    new, edits = fix_setup_py(source.encode(), found[1:])
    assert [(e.code, e.line) for e in edits] == [("SP002", 3)]
    assert new == b"from setuptools import setup\nsetup(use_2to3=False)\nsetup()\n"
    assert fix_setup_py(source.encode(), []) == (None, [])
