"""sapper fix on setup.cfg: before/after pairs for every fix, the no-op cases, and the
properties every fix keeps (idempotent, comments kept, no finding left for fixed rules)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from helpers import TODAY, check, project

from sapper.fix import fix_files

FIXED = ("SC001", "SC002", "SC008", "SC009")


@dataclass(frozen=True)
class Case:
    id: str
    before: str
    after: str
    #: (code, status) of every edit, in order.
    edits: tuple[tuple[str, str], ...]
    other: dict[str, str] = field(default_factory=dict)
    unsafe: bool = False


CASES = [
    # ------------------------------------------------------------------ no-op
    Case(
        "noop-clean",
        "[metadata]\nname = x\nauthor_email = a@b\n\n[flake8]\nmax-line-length = 99\n",
        "[metadata]\nname = x\nauthor_email = a@b\n\n[flake8]\nmax-line-length = 99\n",
        (),
    ),
    Case(
        "noop-data-sections",
        "[options.extras_require]\nSome-Extra = foo\n\n[tool:pytest]\nAddopts = -q\n",
        "[options.extras_require]\nSome-Extra = foo\n\n[tool:pytest]\nAddopts = -q\n",
        (),
    ),
    # ------------------------------------------------------------------ renames
    Case(
        "dash-key",
        "[metadata]\n# who\nauthor-email = a@b  # not a comment for configparser\n",
        "[metadata]\n# who\nauthor_email = a@b  # not a comment for configparser\n",
        (("SC001", "applied"),),
    ),
    Case(
        "uppercase-keys",
        "[metadata]\nName = x\nVersion : 1.0\n",
        "[metadata]\nname = x\nversion : 1.0\n",
        (("SC002", "applied"), ("SC002", "applied")),
    ),
    Case(
        "dash-and-uppercase",
        "[metadata]\nAuthor-Email=a@b\n",
        "[metadata]\nauthor_email=a@b\n",
        (("SC001", "applied"),),
    ),
    Case(
        "aliases",
        "[metadata]\nhome-page = https://x.org\nSummary = short\nlicense-file = COPYING\n",
        "[metadata]\nurl = https://x.org\ndescription = short\nlicense_files = COPYING\n",
        (("SC001", "applied"), ("SC002", "applied"), ("SC001", "applied")),
    ),
    Case(
        "description-content-type",
        "[metadata]\ndescription-content-type = text/markdown\n",
        "[metadata]\nlong_description_content_type = text/markdown\n",
        (("SC001", "applied"),),
    ),
    Case(
        "options-and-commands",
        "[options]\npython-requires = >=3.8\nzip-safe = false\n\n[egg_info]\ntag-build =\n",
        "[options]\npython_requires = >=3.8\nzip_safe = false\n\n[egg_info]\ntag_build =\n",
        (("SC001", "applied"), ("SC001", "applied"), ("SC001", "applied")),
    ),
    Case(
        "multiline-value-kept",
        "[metadata]\nClassifiers =\n\tA\n  # inside the value\n\tB\n\n[options]\nx = 1\n",
        "[metadata]\nclassifiers =\n\tA\n  # inside the value\n\tB\n\n[options]\nx = 1\n",
        (("SC002", "applied"),),
    ),
    Case(
        "crlf-kept",
        "[metadata]\r\nauthor-email = a@b\r\nname = x\r\n",
        "[metadata]\r\nauthor_email = a@b\r\nname = x\r\n",
        (("SC001", "applied"),),
    ),
    Case(
        "no-final-newline",
        "[metadata]\nname = x\nauthor-email = a@b",
        "[metadata]\nname = x\nauthor_email = a@b",
        (("SC001", "applied"),),
    ),
    # ------------------------------------------------------------------ description-file
    Case(
        "description-file-rst",
        "[metadata]\nname = x\ndescription-file = README.rst\nversion = 1\n",
        "[metadata]\nname = x\nlong_description = file: README.rst\n"
        "long_description_content_type = text/x-rst\nversion = 1\n",
        (("SC001", "applied"),),
        other={"README.rst": "hello\n"},
    ),
    Case(
        "description_file-md-keeps-content-type",
        "[metadata]\nDescription_File = README.md\nlong_description_content_type = text/plain\n",
        "[metadata]\nlong_description = file: README.md\n"
        "long_description_content_type = text/plain\n",
        (("SC002", "applied"),),
        other={"README.md": "hello\n"},
    ),
    Case(
        "description-file-long-description-in-cfg",
        "[metadata]\nlong_description = file: README.md\ndescription-file = README.md\n",
        "[metadata]\nlong_description = file: README.md\n",
        (("SC001", "applied"),),
        other={"README.md": "hello\n"},
    ),
    Case(
        "description-file-long-description-in-setup-py",
        "[metadata]\ndescription-file = README.rst\n",
        "[metadata]\n",
        (("SC001", "applied"),),
        other={
            "README.rst": "hello\n",
            "setup.py": "from setuptools import setup\nsetup(long_description=open('R').read())\n",
        },
    ),
    Case(
        "description-file-missing-file",
        "[metadata]\ndescription-file = README.rst\n",
        "[metadata]\n",
        (("SC001", "applied"),),
    ),
    # ------------------------------------------------------------------ conflicts
    Case(
        "conflict-left-alone",
        "[metadata]\nauthor-email = a@b\nauthor_email = c@d\n",
        "[metadata]\nauthor-email = a@b\nauthor_email = c@d\n",
        (("SC001", "skipped"),),
    ),
    Case(
        "duplicate-same-value-removed",
        "[metadata]\nauthor-email = a@b\nauthor_email = a@b\n",
        "[metadata]\nauthor_email = a@b\n",
        (("SC001", "applied"),),
    ),
    # a key setuptools ignores under both spellings is commented out (issue 12): nothing it
    # reads changes, and the dash no longer fails the build
    Case(
        "unknown-key-commented-out",
        "[metadata]\nfoo-bar = 1\n",
        "[metadata]\n# sapper fix: setuptools ignores foo-bar (SC001)\n# foo-bar = 1\n",
        (("SC001", "applied"),),
    ),
    Case(
        "misspelt-key-with-continuation-commented-out",
        "[metadata]\nname = x\ndecsription-file =\n    README.md\n\n    ; note\n"
        "    CHANGES.md\nurl = u\n",
        "[metadata]\nname = x\n# sapper fix: setuptools ignores decsription-file (SC001)\n"
        "# decsription-file =\n#     README.md\n\n    ; note\n#     CHANGES.md\nurl = u\n",
        (("SC001", "applied"),),
    ),
    Case(
        "misspelt-key-crlf-no-final-newline",
        "[metadata]\r\n  home-pgae = x",
        "[metadata]\r\n  # sapper fix: setuptools ignores home-pgae (SC001)\r\n  # home-pgae = x",
        (("SC001", "applied"),),
    ),
    Case(
        "default-section-reported",
        "[DEFAULT]\nsome-key = 1\n\n[metadata]\nname = x\n",
        "[DEFAULT]\nsome-key = 1\n\n[metadata]\nname = x\n",
        (("SC001", "skipped"),),
    ),
    Case(
        "syntax-error-not-edited",
        "[metadata]\nauthor-email = a@b\nnot an option\n",
        "[metadata]\nauthor-email = a@b\nnot an option\n",
        (),
    ),
    # ------------------------------------------------------------------ requires-dist etc.
    Case(
        "requires-dist-with-setup-py",
        "[metadata]\nrequires-dist =\n\tfoo\n\tbar>=1\nname = x\n",
        "[metadata]\nname = x\n",
        (("SC001", "applied"),),
        other={"setup.py": "from setuptools import setup\nsetup(install_requires=['foo'])\n"},
    ),
    Case(
        "requires-dist-of-extras-with-setup-py-extras",
        "[metadata]\nrequires-dist =\n\tPySocks; extra == 'socks'\n",
        "[metadata]\n",
        (("SC001", "applied"),),
        other={"setup.py": "from setuptools import setup\nsetup(extras_require={'socks': []})\n"},
    ),
    Case(
        "requires-dist-of-extras-reported",
        "[metadata]\nrequires-dist =\n\tfoo\n\tPySocks; extra == 'socks'\n",
        "[metadata]\nrequires-dist =\n\tfoo\n\tPySocks; extra == 'socks'\n",
        (("SC001", "skipped"),),
        unsafe=True,
    ),
    Case(
        "requires-dist-invalid-reported",
        "[metadata]\nrequires-dist = foo (>=1.0\n",
        "[metadata]\nrequires-dist = foo (>=1.0\n",
        (("SC001", "skipped"),),
        unsafe=True,
    ),
    Case(
        "requires-dist-unsafe-not-made",
        "[metadata]\nrequires-dist = foo\n",
        "[metadata]\nrequires-dist = foo\n",
        (("SC001", "unsafe"),),
    ),
    Case(
        "requires-dist-merged",
        "[metadata]\nrequires-dist =\n    foo\n    bar>=1\n\n[options]\n"
        "install_requires =\n    foo\n# end of list\n",
        "[metadata]\n\n[options]\ninstall_requires =\n    foo\n    bar>=1\n# end of list\n",
        (("SC001", "applied"),),
        unsafe=True,
    ),
    Case(
        "requires-dist-new-section",
        "[metadata]\nname = x\nrequires-dist = foo; python_version<'3.8'\n",
        "[metadata]\nname = x\n\n[options]\ninstall_requires =\n    foo; python_version<'3.8'\n",
        (("SC001", "applied"),),
        unsafe=True,
    ),
    Case(
        "provides-extra-with-setup-py",
        "[metadata]\nprovides-extra = socks\n",
        "[metadata]\n",
        (("SC001", "applied"),),
        other={"setup.py": "from setuptools import setup\nsetup(extras_require={'socks': []})\n"},
    ),
    Case(
        "provides-extra-already-declared",
        "[metadata]\nprovides-extra = socks\n\n[options.extras_require]\nsocks = PySocks\n",
        "[metadata]\n\n[options.extras_require]\nsocks = PySocks\n",
        (("SC001", "applied"),),
    ),
    Case(
        "provides-extra-added",
        "[metadata]\nprovides-extra =\n\tsocks\n\tcli\n\n[options.extras_require]\nsocks = x\n",
        "[metadata]\n\n[options.extras_require]\nsocks = x\ncli =\n",
        (("SC001", "applied"),),
        unsafe=True,
    ),
    Case(
        "requires-python-moved",
        "[metadata]\nrequires-python = >=3.9\n",
        "[metadata]\n\n[options]\npython_requires = >=3.9\n",
        (("SC001", "applied"),),
        unsafe=True,
    ),
    # ------------------------------------------------------------------ SC008, SC009
    Case(
        "license-file-directive",
        "[metadata]\nname = x\nlicense = file: LICENSE\n",
        "[metadata]\nname = x\nlicense_files = LICENSE\n",
        (("SC008", "applied"),),
        other={"LICENSE": "MIT\n"},
    ),
    Case(
        "license-file-directive-already-listed",
        "[metadata]\nlicense = file: LICENSE\nlicense_files = LICENSE\n",
        "[metadata]\nlicense_files = LICENSE\n",
        (("SC008", "applied"),),
        other={"LICENSE": "MIT\n"},
    ),
    Case(
        "license-file-directive-missing-file",
        "[metadata]\nlicense = file: LICENSE\n",
        "[metadata]\nlicense = file: LICENSE\n",
        (("SC008", "skipped"),),
    ),
    Case(
        "universal-section-removed",
        "[metadata]\nname = x\n\n[bdist_wheel]\nuniversal = 1\n\n[flake8]\nx = 1\n",
        "[metadata]\nname = x\n\n[flake8]\nx = 1\n",
        (("SC009", "applied"),),
    ),
    Case(
        "universal-section-with-comment-kept",
        "[bdist_wheel]\n# py2 and py3\nuniversal = true\npython_tag = py3\n",
        "[bdist_wheel]\n# py2 and py3\npython_tag = py3\n",
        (("SC009", "applied"),),
    ),
    Case(
        "universal-zero-noop",
        "[bdist_wheel]\nuniversal = 0\n",
        "[bdist_wheel]\nuniversal = 0\n",
        (),
    ),
    # ------------------------------------------------------------------ pbr
    Case(
        "pbr-underscore-rename",
        "[metadata]\nname = x\nhome-page = https://x.org\nDescription-File = README\n",
        "[metadata]\nname = x\nhome_page = https://x.org\ndescription_file = README\n",
        (("SC001", "applied"), ("SC001", "applied")),
        other={"setup.py": "import setuptools\nsetuptools.setup(pbr=True)\n"},
    ),
    Case(
        "pbr-imported-by-setup-py",
        "[metadata]\nsummary = s\nhome-page = https://x.org\n",
        "[metadata]\nsummary = s\nhome_page = https://x.org\n",
        (("SC001", "applied"),),
        other={
            "setup.py": "import setuptools\nfrom pbr import util\n"
            "setuptools.setup(**util.cfg_to_args())\n"
        },
    ),
    Case(
        "pbr-section",
        "[metadata]\nsummary = s\nrequires-dist = foo\n\n[pbr]\nskip_authors = true\n",
        "[metadata]\nsummary = s\nrequires_dist = foo\n\n[pbr]\nskip_authors = true\n",
        (("SC001", "applied"),),
    ),
]


def _run(case: Case, cfg: str | None = None):
    files = {"setup.cfg": cfg if cfg is not None else case.before, **case.other}
    return fix_files(project(files), unsafe_fixes=case.unsafe, today=TODAY)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_before_after(case: Case) -> None:
    result = _run(case)
    after = result.files.get("setup.cfg", case.before.encode()).decode()
    assert after == case.after
    assert tuple((e.code, e.status) for e in result.edits) == case.edits
    assert result.changed == (case.before != case.after)


def _fixed(case: Case) -> str:
    """What the fixer actually wrote (the input when it changed nothing)."""
    return _run(case).files.get("setup.cfg", case.before.encode()).decode()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_idempotent(case: Case) -> None:
    again = _run(case, cfg=_fixed(case))
    assert "setup.cfg" not in again.files
    assert not again.changed


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_comment_line_kept(case: Case) -> None:
    comments = [ln for ln in case.before.splitlines() if ln.strip().startswith(("#", ";"))]
    after = _fixed(case).splitlines()
    missing = [c for c in comments if c not in after]
    assert not missing


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_no_finding_left_but_reported_ones(case: Case) -> None:
    result = _run(case)
    fixed_cfg = result.files.get("setup.cfg", case.before.encode())
    left = check({**case.other, "setup.cfg": fixed_cfg}, select=FIXED).findings
    reported = {e.line for e in result.edits if e.status != "applied"}
    # Whatever is left was reported as unsafe or to fix by hand (at its original line,
    # which a file left alone keeps).
    assert {f.line for f in left} <= reported


def test_select_and_ignore() -> None:
    cfg = "[metadata]\nName = x\nauthor-email = a@b\n"
    only_upper = fix_files(project({"setup.cfg": cfg}), select=("SC002",), today=TODAY)
    assert only_upper.files["setup.cfg"] == b"[metadata]\nname = x\nauthor-email = a@b\n"
    no_cfg = fix_files(project({"setup.cfg": cfg}), ignore=("SC",), today=TODAY)
    assert not no_cfg.changed
    assert no_cfg.edits == ()


def test_other_backend_left_alone() -> None:
    files = {
        "setup.cfg": "[metadata]\nauthor-email = a@b\n",
        "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'
        'build-backend = "hatchling.build"\n',
    }
    result = fix_files(project(files), today=TODAY)
    assert not result.changed
    assert result.edits == ()
    assert not check(files, select=FIXED).findings
