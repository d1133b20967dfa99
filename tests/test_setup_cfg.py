"""Tables of setup.cfg inputs and the findings sapper must report for them."""

from __future__ import annotations

import pytest
from helpers import DATA, check


def _summary(cfg: str | bytes) -> list[tuple[str, int | None, tuple[str, ...], tuple[str, ...]]]:
    result = check({"setup.cfg": cfg})
    return [(f.code, f.line, f.fails, f.fails_enforced) for f in result.findings]


@pytest.mark.parametrize(
    ("cfg", "expected"),
    [
        pytest.param(
            "[metadata]\nname = x\nauthor-email = a@b.c\n",
            [("SC001", 3, ("==78.0.1",), (">=67.7.0",))],
            id="metadata-dash",
        ),
        pytest.param(
            "[metadata]\nName = x\n",
            [("SC002", 2, ("==78.0.1",), (">=67.7.0",))],
            id="metadata-uppercase",
        ),
        pytest.param(
            "[metadata]\nAuthor-Email = a@b.c\n",
            [("SC001", 2, ("==78.0.1",), (">=67.7.0",))],
            id="dash-and-uppercase-is-one-finding",
        ),
        pytest.param(
            # Uppercase keys in [options] were only checked from 78.0.0 on.
            "[options]\nZip_Safe = False\n",
            [("SC002", 2, ("==78.0.1",), (">=78.0.1",))],
            id="options-uppercase-78-only",
        ),
        pytest.param(
            "[options]\ninstall-requires = six\n",
            [("SC001", 2, ("==78.0.1",), (">=67.7.0",))],
            id="options-dash",
        ),
        pytest.param(
            # [options.entry_points] became exempt in 78.0.0; before, dashes warned.
            "[options.entry_points]\nconsole-scripts =\n    x = os:getcwd\n",
            [("SC001", 2, (), (">=67.7.0,<78.0.1",))],
            id="entry-points-exempt-from-78",
        ),
        pytest.param("[options.extras_require]\ndev-tools = pytest\n", [], id="extras-exempt"),
        pytest.param(
            # Exempt from the key check, but the section itself only exists since 40.5.0.
            "[options.data_files]\nshare-dir = a.txt\n",
            [("SC007", 1, ("<40.5.0",), ("<40.5.0",))],
            id="data-files-exempt",
        ),
        pytest.param(
            "[options.extras]\ntest = pytest\n",
            [("SC007", 1, (">=0",), (">=0",))],
            id="unsupported-options-subsection",
        ),
        pytest.param(
            "[options_extra]\nx = 1\n",
            [("SC007", 1, (">=0",), (">=0",))],
            id="options-prefix-without-dot",
        ),
        pytest.param(
            "[metadata.extra]\nx = 1\n",
            [("SC007", 1, (">=0",), (">=0",))],
            id="metadata-subsection",
        ),
        pytest.param(
            # "replace" (before 67.5.1) strips every "options": handler for extras_require.
            "[options.extras_require.options]\nx = 1\n",
            [("SC007", 1, (">=67.5.1",), (">=67.5.1",))],
            id="split-rule-changed-in-67.5.1",
        ),
        pytest.param("[options.packages.find]\nwhere = src\n", [], id="packages-find"),
        pytest.param("[optional]\nfoo-bar = 1\n", [], id="not-an-options-section"),
        pytest.param("[flake8]\nmax-line-length = 100\n", [], id="flake8"),
        pytest.param("[tool:pytest]\nAddopts = -ra\n", [], id="tool-pytest"),
        pytest.param("[build_sphinx]\nsource-dir = docs\n", [], id="build-sphinx"),
        pytest.param(
            # bdist_wheel is a setuptools command (an entry point) only from 70.1.0.
            "[bdist_wheel]\npython-tag = py3\n",
            [("SC001", 2, ("==78.0.1",), (">=70.1.0",))],
            id="bdist-wheel-command-from-70.1",
        ),
        pytest.param(
            "[egg_info]\ntag-build = dev\n",
            [("SC001", 2, ("==78.0.1",), (">=67.7.0",))],
            id="egg-info",
        ),
        pytest.param(
            # A digit-only key: str.islower() is false, so setuptools calls it uppercase.
            "[metadata]\n123 = x\n",
            [("SC002", 2, ("==78.0.1",), (">=67.7.0",))],
            id="islower-false-without-letters",
        ),
        pytest.param(
            # Inside a virtual environment setuptools skips these options entirely.
            "[install]\ninstall-lib = /tmp\n",
            [],
            id="venv-ignored-install-option",
        ),
        pytest.param(
            "[DEFAULT]\nfoo-bar = 1\n\n[metadata]\nname = x\n",
            [("SC001", 2, ("==78.0.1",), (">=67.7.0",))],
            id="default-section-inherited",
        ),
        pytest.param(
            "[metadata]\nname = x\nname = y\n",
            [("SC005", 3, (">=0",), (">=0",))],
            id="duplicate-option",
        ),
        pytest.param(
            # Case-insensitive clash only before 53.1.0 (optionxform lowercased keys).
            "[metadata]\nname = x\nName = y\n",
            [("SC002", 3, ("==78.0.1",), (">=67.7.0",)), ("SC005", 3, ("<53.1.0",), ("<53.1.0",))],
            id="duplicate-option-case",
        ),
        pytest.param(
            "[metadata]\nname = x\n[metadata]\nversion = 1\n",
            [("SC005", 3, (">=0",), (">=0",))],
            id="duplicate-section",
        ),
        pytest.param(
            "name = x\n[metadata]\n",
            [("SC004", 1, (">=0",), (">=0",))],
            id="missing-section-header",
        ),
        pytest.param(
            "\ufeff[metadata]\nname = x\n",
            [("SC004", 1, (">=0",), (">=0",))],
            id="byte-order-mark",
        ),
        pytest.param(
            "[metadata]\nname = x\nversion\n",
            [("SC004", 3, (">=0",), (">=0",))],
            id="parsing-error",
        ),
        pytest.param(
            "[metadata]\nname = x\n[tool:pytest]\nlog_format = %(asctime)s\n",
            [("SC006", 4, (">=0",), (">=0",))],
            id="interpolation-missing",
        ),
        pytest.param("[metadata]\ndescription = 100%% sure\n", [], id="escaped-percent"),
        pytest.param(
            # UTF-8 since 41.0.0; older releases used the locale's encoding, which is
            # UTF-8 on the build machines sapper models.
            b"[metadata]\nname = x\nauthor = Jos\xe9\n",
            [("SC003", 3, (">=0",), (">=0",))],
            id="latin-1",
        ),
        pytest.param("", [], id="empty"),
        pytest.param("[metadata]\nname = x\nversion = 1.0\n", [], id="clean"),
    ],
)
def test_findings(
    cfg: str | bytes, expected: list[tuple[str, int, tuple[str, ...], tuple[str, ...]]]
) -> None:
    assert _summary(cfg) == expected


@pytest.mark.parametrize(
    ("cfg", "fix"),
    [
        (
            "[metadata]\ndescription-file = README.rst\n",
            "long_description = file: README.rst\nlong_description_content_type = text/x-rst",
        ),
        ("[metadata]\ndescription_file = README.md\n", None),  # no finding: no dash, lowercase
        ("[metadata]\nhome-page = https://x\n", "url = https://x"),
        ("[metadata]\nauthor-email = a@b.c\n", "author_email = a@b.c"),
        ("[metadata]\nSummary = short\n", "description = short"),
        ("[metadata]\nrequires-dist = six\n", "[options]\ninstall_requires =\n    six"),
        ("[metadata]\npython-requires = >=3.8\n", "[options]\npython_requires = >=3.8"),
    ],
)
def test_fix_advice(cfg: str, fix: str | None) -> None:
    findings = check({"setup.cfg": cfg}).findings
    assert [f.fix for f in findings] == ([fix] if fix else [])


def test_description_file_message_says_setuptools_ignores_it() -> None:
    (finding,) = check({"setup.cfg": "[metadata]\ndescription-file = README.rst\n"}).findings
    assert "never read `description-file`" in finding.message
    assert "long_description = file: README.rst" in finding.message
    assert finding.due_date == "2026-03-03"


def test_requests_2_32_3() -> None:
    cfg = (DATA / "projects/requests-2.32.3/setup.cfg").read_bytes()
    result = check({"setup.cfg": cfg, "LICENSE": b"Apache-2.0\n"})
    got = [(f.code, f.line, f.message.split(":")[0]) for f in result.findings]
    assert got == [
        ("SC001", 3, "dash-separated key `provides-extra` in [metadata]"),
        ("SC001", 6, "dash-separated key `requires-dist` in [metadata]"),
    ]
    assert [f.fails for f in result.findings] == [("==78.0.1",)] * 2
    assert "install_requires" in result.findings[1].message
    # The flake8 section's per-file-ignores is not a setuptools section.
    assert all(f.line and f.line < 12 for f in result.findings)


def test_stringcase_1_2_0_verdicts() -> None:
    cfg = (DATA / "projects/stringcase-1.2.0/setup.cfg").read_bytes()
    at = {
        (v, e): check({"setup.cfg": cfg}, setuptools=v, enforce_deprecations=e).verdict
        for v in ("77.0.3", "78.0.1", "78.0.2", "84.2.1")
        for e in (False, True)
    }
    outcomes = {k: v.outcome for k, v in at.items() if v}
    assert outcomes == {
        ("77.0.3", False): "builds",
        ("77.0.3", True): "fails",
        ("78.0.1", False): "fails",
        ("78.0.1", True): "fails",
        ("78.0.2", False): "builds",
        ("78.0.2", True): "fails",
        ("84.2.1", False): "builds",
        ("84.2.1", True): "fails",
    }


@pytest.mark.parametrize(
    ("version", "status"),
    [("78.0.1", "removed"), ("84.2.1", "overdue"), ("60.0.0", "deprecated")],
)
def test_status_depends_on_evaluated_version(version: str, status: str) -> None:
    (finding,) = check({"setup.cfg": "[metadata]\nauthor-email = a\n"}, setuptools=version).findings
    assert finding.status == status


@pytest.mark.parametrize(
    ("cfg", "expected"),
    [
        pytest.param(
            "[metadata]\nlicense = file: LICENSE\n",
            [("SC008", 2, (">=40.7.0",), (">=40.7.0",))],
            id="license-file",
        ),
        pytest.param("[metadata]\nlicense = MIT\n", [], id="license-name"),
        pytest.param(
            "[bdist_wheel]\nuniversal = 1\n",
            [("SC009", 2, (), (">=75.1.0",))],
            id="universal-overdue",
        ),
        pytest.param(
            "[bdist_wheel]\nuniversal = true\n", [("SC009", 2, (), (">=75.1.0",))], id="true"
        ),
        pytest.param("[bdist_wheel]\nuniversal = 0\n", [], id="universal-off"),
        pytest.param(
            "[wheel]\nuniversal = 1\n",
            [("SC009", 2, (), (">=75.1.0",))],
            id="old-wheel-section-still-read",
        ),
        pytest.param("[wheel]\nuniversal = on\n", [], id="wheel-section-only-1-true-yes"),
        pytest.param(
            "[bdist_wheel]\nuniversal = on\n",
            [("SC009", 2, (), (">=75.1.0",))],
            id="strtobool-on",
        ),
        pytest.param(
            "[options]\ninstall_requires = six; python_version<'3.8'\n",
            [("SC010", 2, (">=0",), (">=0",))],
            id="one-line-marker-split",
        ),
        pytest.param(
            "[options]\ninstall_requires =\n    six; python_version<'3.8'\n    # comment\n",
            [],
            id="ok",
        ),
        pytest.param(
            "[options]\ninstall_requires = six; requests\n", [], id="one-line-semicolon-list"
        ),
        pytest.param(
            "[options]\ninstall_requires =\n    dnspython>=2.0.0 # optional\n"
            "    six>=1.9,<2   # keep it\n",
            [],
            id="trailing-comments-are-dropped",
        ),
        pytest.param(
            "[options.extras_require]\ntest = pytest>=2012f\n",
            [("SC010", 2, (">=0",), (">=0",))],
            id="extra",
        ),
        pytest.param(
            "[options]\npython_requires = >=3.6.*\n",
            [("SC010", 2, (">=67.0.0",), (">=67.0.0",))],
            id="python-requires",
        ),
        pytest.param(
            "[options]\ninstall_requires = file: requirements.in\n",
            [("SC010", 2, ("<62.6.0",), ("<62.6.0",))],
            id="file-directive-needs-62.6",
        ),
        pytest.param(
            "[metadata]\nversion = 1.0-SNAPSHOT\n",
            [("SC011", 2, (">=66.0.0",), (">=66.0.0",))],
            id="version",
        ),
        pytest.param("[metadata]\nversion = attr: pkg.__version__\n", [], id="version-attr"),
        pytest.param(
            "[metadata]\nsummary = one\n  two\n",
            [
                (
                    "SC012",
                    2,
                    (">=51.3.0,<51.3.3", ">=59.0.1,<59.4.0"),
                    (">=51.3.0,<51.3.3", ">=59.0.1,<59.4.0"),
                )
            ],
            id="summary-newline",
        ),
    ],
)
def test_setup_cfg_values(cfg: str, expected: list[tuple[str, int, tuple, tuple]]) -> None:
    result = check({"setup.cfg": cfg, "setup.py": "from setuptools import setup\nsetup()\n"})
    got = [
        (f.code, f.line, f.fails, f.fails_enforced)
        for f in result.findings
        if f.code in {"SC008", "SC009", "SC010", "SC011", "SC012"}
    ]
    assert got == expected


def test_universal_before_due_date_is_only_a_warning() -> None:
    import datetime as dt

    from helpers import project

    from sapper.check import Options, check_files

    result = check_files(
        project({"setup.cfg": "[bdist_wheel]\nuniversal = 1\n"}),
        target="t",
        kind="directory",
        options=Options(today=dt.date(2025, 1, 1)),
    )
    (finding,) = result.findings
    assert finding.fails_enforced == ()
    assert finding.warns == (">=75.1.0",)
    assert finding.due_date == "2025-08-30"  # setuptools' own due date, shown to users


# Mutants of SC009, SC010 and SC012 that the tables above let survive (docs/testing.md).

FILE_MESSAGE = (
    "`file:` for requirements needs setuptools 62.6.0; older releases read {value!r} as a "
    "requirement and reject it"
)
FILE_FIX = 'require "setuptools>=62.6" in build-system.requires, or list the requirements inline'
MARKER_HINT = (
    " (a one-line value is split at `;`, so an environment marker must go on its own line "
    "with its requirement)"
)
REQUIREMENT_TAIL = (
    "; setuptools 67 and later reject it, and so does the `wheel` package that writes the "
    "metadata with older setuptools"
)


def _sc(cfg: str, code: str) -> list[tuple[int | None, tuple[str, ...], str, str | None]]:
    return [
        (f.line, f.fails, f.message, f.fix)
        for f in check({"setup.cfg": cfg}).findings
        if f.code == code
    ]


def test_sc010_file_directive_message_and_fix() -> None:
    cfg = "[options.extras_require]\ntest = file: requirements-test.txt\n"
    message = "[options.extras_require] test: " + FILE_MESSAGE.format(
        value="file: requirements-test.txt"
    )
    assert _sc(cfg, "SC010") == [(2, ("<62.6.0",), message, FILE_FIX)]


def test_sc010_setup_requires_reads_no_file_directive() -> None:
    """setuptools parses setup_requires with ``_parse_list_semicolon`` in every release
    (62.6.0 taught only install_requires and extras_require `file:`), so
    ``file: requirements.txt`` is an invalid requirement there everywhere."""
    ((line, fails, message, fix),) = _sc(
        "[options]\nsetup_requires = file: requirements.txt\n", "SC010"
    )
    assert (line, fails, fix) == (2, (">=0",), "one PEP 508 requirement per line")
    assert message.startswith("[options] setup_requires: 'file: requirements.txt' is not a PEP")


@pytest.mark.parametrize(
    ("cfg", "lines"),
    [
        pytest.param("[options]\nsetup_requires = pytz>=2012f\n", [2], id="setup_requires"),
        pytest.param("[options]\npackages = find:\n", [], id="other-options-key"),
        pytest.param("[metadata]\ninstall_requires = pytz>=2012f\n", [], id="other-section"),
        pytest.param(
            "[options]\ninstall_requires = file: requirements.txt\nsetup_requires = pytz>=2012f\n",
            [2, 3],
            id="after-a-file-directive",
        ),
        pytest.param(
            "[options]\npython_requires = >=3.6\ninstall_requires = pytz>=2012f\n",
            [3],
            id="after-a-valid-python_requires",
        ),
        pytest.param(
            "[options]\nlong_description = file: README\ninstall_requires = pytz>=2012f\n",
            [3],
            id="after-a-file-directive-elsewhere",
        ),
    ],
)
def test_sc010_which_keys_hold_requirements(cfg: str, lines: list[int]) -> None:
    assert [line for line, *_ in _sc(cfg, "SC010")] == lines


def test_sc010_python_requires_message_and_fix() -> None:
    ((line, fails, message, fix),) = _sc("[options]\npython_requires = >=3.6.*\n", "SC010")
    assert (line, fails, fix) == (2, (">=67.0.0",), "write a PEP 440 specifier such as `>=3.6`")
    assert message.startswith(
        "[options] python_requires: '>=3.6.*' is not a valid specifier for `packaging` ("
    )
    assert message.endswith("); setuptools 67 and later reject it")


@pytest.mark.parametrize(
    ("cfg", "hint"),
    [
        pytest.param("[options]\ninstall_requires = six; python_version<'3.8'\n", True, id="1"),
        pytest.param("[options]\ninstall_requires = pytz>=2012f\n", False, id="no-semicolon"),
        pytest.param(
            "[options]\ninstall_requires =\n    six; python_version<<'3.8'\n",
            False,
            id="own-line-marker",
        ),
    ],
)
def test_sc010_marker_hint_only_for_a_one_line_value(cfg: str, hint: bool) -> None:
    ((_, _, message, fix),) = _sc(cfg, "SC010")
    assert message.endswith((MARKER_HINT if hint else ")") + REQUIREMENT_TAIL)
    assert (MARKER_HINT in message) is hint
    assert fix == "one PEP 508 requirement per line"


@pytest.mark.parametrize(
    ("cfg", "lines"),
    [
        pytest.param("[bdist_wheel]\nplat_name = 1\n", [], id="other-bdist_wheel-key"),
        pytest.param("[metadata]\nuniversal = 1\n", [], id="other-section"),
        pytest.param(
            "[bdist_wheel]\npython_tag = py3\nuniversal = 0\n[wheel]\nuniversal = 1\n",
            [5],
            id="after-a-false-universal",
        ),
    ],
)
def test_sc009_only_a_true_universal_in_the_wheel_sections(cfg: str, lines: list[int]) -> None:
    assert [line for line, *_ in _sc(cfg, "SC009")] == lines


PROJECT_TABLE = '[project]\nname = "x"\nversion = "1.0"\n\n'


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        pytest.param("universal = true\n", [(6, (">=75.1.0",))], id="toml-true"),
        pytest.param("universal = 1\n", [(6, (">=75.1.0",))], id="toml-one"),
        pytest.param('universal = "yes"\n', [(6, (">=75.1.0",))], id="string-strtobool"),
        pytest.param("python-tag = 'py3'\nuniversal = 1\n", [(7, (">=75.1.0",))], id="line"),
        pytest.param("universal = false\n", [], id="toml-false"),
        pytest.param("universal = 0\n", [], id="toml-zero"),
        pytest.param('universal = "0"\n', [], id="string-false"),
        pytest.param("python-tag = 'py3'\n", [], id="no-universal"),
    ],
)
def test_sc009_tool_distutils_bdist_wheel_in_pyproject(
    table: str, expected: list[tuple[int, tuple[str, ...]]]
) -> None:
    """setuptools copies [tool.distutils.*] of pyproject.toml into the command options
    (authlib 1.9.10 fails when enforced this way: a canary run in enforce mode)."""
    toml = PROJECT_TABLE + "[tool.distutils.bdist_wheel]\n" + table
    found = [f for f in check({"pyproject.toml": toml}).findings if f.code == "SC009"]
    assert [(f.line, f.fails_enforced) for f in found] == expected
    assert all(f.path == "pyproject.toml" and f.fails == () for f in found)


@pytest.mark.parametrize(
    ("head", "found"),
    [
        pytest.param("[tool.setuptools]\npy-modules = []\n\n", True, id="tool-setuptools"),
        pytest.param("[tool.black]\nline-length = 100\n\n", False, id="neither-table"),
        pytest.param("", False, id="tool-distutils-alone"),
    ],
)
def test_sc009_pyproject_is_read_only_with_project_or_tool_setuptools(
    head: str, found: bool
) -> None:
    toml = head + "[tool.distutils.bdist_wheel]\nuniversal = true\n"
    files = {"pyproject.toml": toml, "setup.py": "from setuptools import setup\nsetup()\n"}
    assert any(f.code == "SC009" for f in check(files).findings) is found


def test_sc012_a_one_line_description_before_the_multi_line_summary() -> None:
    cfg = "[metadata]\nname = x\ndescription = one\nsummary = two\n  lines\n"
    assert [line for line, *_ in _sc(cfg, "SC012")] == [4]


# Mutants of setup_cfg/_shared.py (`_advice`, `_ini_option`) that survived.


@pytest.mark.parametrize(
    ("cfg", "message", "fix"),
    [
        pytest.param(
            "[metadata]\nname = x\ndescription-file = README.md docs/x.md\n",
            "dash-separated key `description-file` in [metadata]: setuptools never read "
            "`description-file` (a pbr key) and ignores it; write `long_description = file: "
            "README.md, docs/x.md` and `long_description_content_type = text/markdown`",
            "long_description = file: README.md, docs/x.md\n"
            "long_description_content_type = text/markdown",
            id="pbr-description-file",
        ),
        pytest.param(
            "[metadata]\ndescription-file =\n",
            "dash-separated key `description-file` in [metadata]: setuptools never read "
            "`description-file` (a pbr key) and ignores it; write `long_description = file: "
            "README.rst` and `long_description_content_type = text/x-rst`",
            "long_description = file: README.rst\nlong_description_content_type = text/x-rst",
            id="pbr-description-file-empty",
        ),
        pytest.param(
            "[metadata]\nRequires = six\n",
            "uppercase key `Requires` in [metadata]: setuptools does not install requirements "
            "listed in `Requires`; move them to `install_requires` in [options]",
            "[options]\ninstall_requires =\n    six",
            id="requires",
        ),
        pytest.param(
            "[metadata]\nrequires-dist =\n    six\n\n    requests\n",
            "dash-separated key `requires-dist` in [metadata]: setuptools does not install "
            "requirements listed in `requires-dist`; move them to `install_requires` in "
            "[options]",
            "[options]\ninstall_requires =\n    six\n\n    requests",
            id="requires-dist-blank-line-stays-empty",
        ),
        pytest.param(
            "[metadata]\nprovides-extra = test docs\n",
            "dash-separated key `provides-extra` in [metadata]: setuptools ignores "
            "`provides-extra`; declare each extra as a key of [options.extras_require] with "
            "its requirements",
            "[options.extras_require]\ntest =\ndocs =",
            id="provides-extra",
        ),
        pytest.param(
            "[metadata]\nrequires-python = >=3.8\n",
            "dash-separated key `requires-python` in [metadata]: setuptools ignores "
            "`requires-python` in [metadata]; write `python_requires` in [options]",
            "[options]\npython_requires = >=3.8",
            id="requires-python",
        ),
        pytest.param(
            "[metadata]\nhome-page-x = a\n    b\n",
            "dash-separated key `home-page-x` in [metadata]: setuptools does not know "
            "`home_page_x` either and ignores it; delete the key or use an option listed in "
            "the setuptools docs",
            "# sapper fix: setuptools ignores home-page-x (SC001)\n# home-page-x = a\n#     b",
            id="unknown-key-commented-out",
        ),
    ],
)
def test_metadata_key_advice(cfg: str, message: str, fix: str) -> None:
    (finding,) = check({"setup.cfg": cfg}).findings
    assert (finding.message, finding.fix) == (message, fix)


# Mutants of what was setup_cfg/_shared.py (`_error_finding`, `_analyse`, `_find_location`,
# `_section_method`; now each rule's `_describe` in sc003-sc006, `_check` in sc001, sc002 and
# sc007, and `SetupCfgFacts.key_location`) that survived: what configparser's exceptions
# make sapper say.

PARSING_ERROR = (
    "line 3 is neither a `key = value` pair, a [section] header nor a comment: 'version'; "
    "configparser rejects the file (ParsingError)"
)
PARSING_FIX = "add `=` and a value, indent it as a continuation line, or comment it out with #"
HEADER_FIX = "put the line under a section header such as [metadata], or delete it"
INTERPOLATION = (
    "value of `{key}` in [{section}] uses `%` interpolation that configparser cannot resolve "
    "({error}); setuptools reads every value through it"
)


@pytest.mark.parametrize(
    ("cfg", "expected"),
    [
        pytest.param(
            b"[metadata]\nname = x\nauthor = Jos\xe9\n",
            (
                "SC003",
                3,
                13,
                "setup.cfg is not valid UTF-8 (invalid continuation byte: byte 0xe9); "
                "setuptools reads it as UTF-8 and stops with UnicodeDecodeError",
                "re-save setup.cfg as UTF-8",
            ),
            id="not-utf-8",
        ),
        pytest.param(
            "[metadata]\nname = x\n[metadata]\nversion = 1\n",
            (
                "SC005",
                3,
                1,
                "section [metadata] appears twice; configparser rejects the file "
                "(DuplicateSectionError)",
                "merge the two [metadata] sections into one",
            ),
            id="duplicate-section",
        ),
        pytest.param(
            "[options]\nzip_safe = 0\nzip_safe = 1\n",
            (
                "SC005",
                3,
                1,
                "key `zip_safe` appears twice in [options]; configparser rejects the file "
                "(DuplicateOptionError)",
                "keep one `zip_safe` in [options]",
            ),
            id="duplicate-option",
        ),
        pytest.param(
            "name = x\n[metadata]\n",
            (
                "SC004",
                1,
                1,
                "line 1 comes before any [section] header: 'name = x'; configparser rejects "
                "the file (MissingSectionHeaderError)",
                HEADER_FIX,
            ),
            id="missing-section-header",
        ),
        pytest.param(
            "\ufeff[metadata]\nname = x\n",
            (
                "SC004",
                1,
                1,
                "line 1 comes before any [section] header: '\\ufeff[metadata]'; configparser "
                "rejects the file (MissingSectionHeaderError)",
                HEADER_FIX
                + " (the file starts with a byte-order mark: save it as UTF-8 without BOM)",
            ),
            id="byte-order-mark",
        ),
        # configparser keeps repr(line) in ParsingError.errors on Python 3.11, the line
        # itself on newer Pythons: the message quotes the line of the file once.
        pytest.param(
            "[metadata]\nname = x\nversion\n",
            ("SC004", 3, 1, PARSING_ERROR, PARSING_FIX),
            id="parsing-error",
        ),
        pytest.param(
            "[metadata]\r\nname = x\r\nversion\r\n",
            ("SC004", 3, 1, PARSING_ERROR, PARSING_FIX),
            id="parsing-error-crlf",
        ),
        pytest.param(
            "[metadata]\rname = x\rversion\r",
            ("SC004", 3, 1, PARSING_ERROR, PARSING_FIX),
            id="parsing-error-cr",
        ),
        pytest.param(
            "[metadata]\nname = x\n[tool:pytest]\nlog_format = %(asctime)s\n",
            (
                "SC006",
                4,
                1,
                INTERPOLATION.format(
                    key="log_format", section="tool:pytest", error="InterpolationMissingOptionError"
                ),
                "write a literal percent sign as `%%`",
            ),
            id="interpolation-missing-option",
        ),
        pytest.param(
            "[metadata]\nname = x\n  # c\ndescription = 100%\n",
            (
                "SC006",
                4,
                1,
                INTERPOLATION.format(
                    key="description", section="metadata", error="InterpolationSyntaxError"
                ),
                "write a literal percent sign as `%%`",
            ),
            id="interpolation-syntax",
        ),
    ],
)
def test_read_error_message_and_fix(
    cfg: str | bytes, expected: tuple[str, int, int, str, str]
) -> None:
    (finding,) = check({"setup.cfg": cfg}).findings
    assert (finding.code, finding.line, finding.column, finding.message, finding.fix) == expected


@pytest.mark.parametrize(
    ("cfg", "fix"),
    [
        pytest.param(
            # configparser reads `%%` as `%`: the suggestion must escape it again to read back
            # the same value (a lone `%` is an InterpolationSyntaxError, SC006).
            "[metadata]\nauthor-email = 100%% a\n",
            "author_email = 100%% a",
            id="percent-escaped",
        ),
        pytest.param(
            # The fix carries the key's own value: with optionxform=str (53.1.0 on) [metadata]
            # has both `NAME` (s) and the inherited DEFAULT `name` (d).
            "[DEFAULT]\nname = d\n[metadata]\nNAME = s\n",
            "name = s",
            id="own-value-not-the-inherited-one",
        ),
        pytest.param(
            # The content type is the first file's (the README); the rest is appended.
            "[metadata]\ndescription-file = README.md\n    CHANGES.rst\n",
            "long_description = file: README.md, CHANGES.rst\n"
            "long_description_content_type = text/markdown",
            id="description-file-type-of-the-first-file",
        ),
        pytest.param(
            # configparser keeps a blank line inside a value; commented out it is a bare `#`.
            "[metadata]\nhome-page-x = a\n\n    b\n",
            "# sapper fix: setuptools ignores home-page-x (SC001)\n# home-page-x = a\n#\n#     b",
            id="commented-out-blank-line",
        ),
    ],
)
def test_key_fix_text(cfg: str, fix: str) -> None:
    findings = check({"setup.cfg": cfg}).findings
    assert [f.fix for f in findings if f.code in {"SC001", "SC002"}] == [fix]


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        pytest.param(
            "[metadata]\nAuthor-Email = a@b.c\n",
            "dash-separated and uppercase key `Author-Email` in [metadata]: write `author_email`",
            id="dash-and-uppercase",
        ),
        pytest.param(
            "[DEFAULT]\nfoo-bar = 1\n\n[metadata]\nname = x\n",
            "dash-separated key `foo-bar` in [metadata] (inherited from [DEFAULT]): setuptools "
            "does not know `foo_bar` either and ignores it; delete the key or use an option "
            "listed in the setuptools docs",
            id="inherited-from-default",
        ),
    ],
)
def test_key_message(cfg: str, message: str) -> None:
    (finding,) = check({"setup.cfg": cfg}).findings
    assert finding.message == message


UNSUPPORTED = (
    "section [{section}] starts with `options` but is not a section setuptools knows (it looks "
    "for a handler for [{handler}]) and stops with 'Unsupported distribution option section'"
)


@pytest.mark.parametrize(
    ("section", "handler", "fails"),
    [
        # setuptools' OptionError names [options.<name>] with dots for the `__` of the method.
        pytest.param("options.packages.foo", "options.packages.foo", (">=0",), id="dotted"),
        # a sub-name of one letter X is still a name: both spellings of the lookup keep it
        pytest.param("options.X", "options.X", (">=0",), id="one-letter"),
        # from 67.5.1 `partition("options")` keeps what follows the prefix: "_extra"
        pytest.param("options_extra", "options._extra", (">=0",), id="no-dot"),
        # "partition" only strips leading dots (lstrip), "replace" strips both ends
        pytest.param(
            "options.packages.find.", "options.packages.find.", (">=67.5.1",), id="trailing-dot"
        ),
    ],
)
def test_unsupported_section_message(section: str, handler: str, fails: tuple[str, ...]) -> None:
    (finding,) = check({"setup.cfg": f"[{section}]\nx = 1\n"}).findings
    assert (finding.code, finding.fails) == ("SC007", fails)
    assert finding.message == UNSUPPORTED.format(section=section, handler=handler)


def test_findings_in_line_order_with_an_inherited_key() -> None:
    """configparser lists a section's own keys before those it inherits from [DEFAULT], so
    the inherited key (line 2) is met after the own one (line 4); findings go by line."""
    cfg = "[DEFAULT]\nfoo-bar = 1\n[metadata]\nhome-page = x\n"
    assert [(f.code, f.line) for f in check({"setup.cfg": cfg}).findings] == [
        ("SC001", 2),
        ("SC001", 4),
    ]


def test_keys_after_one_that_only_old_releases_flagged() -> None:
    """A key flagged only where nothing fails or warns today (54.1.0 and 54.1.1 checked
    every section, so `[flake8] max-line-length` drew a warning there) is not reported, and
    the keys after it still are; so are those after an unflagged key."""
    cfg = "[flake8]\nmax-line-length = 100\n[metadata]\nname = x\nauthor-email = a@b.c\n"
    assert _summary(cfg) == [("SC001", 5, ("==78.0.1",), (">=67.7.0",))]


def test_parsing_error_in_a_file_only_40_7_to_40_9_can_decode() -> None:
    """40.7.0-40.9.0 decode a latin-1 file (its coding header) and then stop at a line
    configparser rejects; the other releases stop at the undecodable byte. The rejected
    line is quoted from the file, whatever its bytes."""
    cfg = b"# -*- coding: latin-1 -*-\n[metadata]\nauthor = Jos\xe9\nnot an option line\n"
    findings = check({"setup.cfg": cfg}).findings
    assert [(f.code, f.line, f.fails) for f in findings] == [
        ("SC003", 3, ("<40.7.0", ">=41.0.0")),
        ("SC004", 4, (">=40.7.0,<41.0.0",)),
    ]
    assert findings[1].message.endswith(
        ": 'not an option line'; configparser rejects the file (ParsingError)"
    )


def test_setup_cfg_checks_survive_pickling() -> None:
    """Rules travel to worker processes (scan -j, Dask) pickled: each SC check is its own
    module's function, and comes back as itself."""
    import pickle

    from sapper.rules import all_rules

    checks = [r.check for r in all_rules() if r.code.startswith("SC")]
    assert len({id(c) for c in checks}) == len(checks)
    for check_fn in checks:
        assert pickle.loads(pickle.dumps(check_fn)) is check_fn


def test_coding_header_read_by_40_7_to_40_9() -> None:
    """setuptools 40.7.0-40.9.0 opened setup.cfg in binary and decoded it with the encoding
    of a ``coding:`` comment on its first line (``unicode_utils.detect_encoding``);
    41.0.0 reads UTF-8, older releases the locale's encoding (UTF-8 here)."""
    cfg = b"# -*- coding: latin-1 -*-\n[metadata]\nname = x\nauthor = Jos\xe9\n"
    (finding,) = check({"setup.cfg": cfg}).findings
    assert (finding.code, finding.line, finding.fails) == ("SC003", 4, ("<40.7.0", ">=41.0.0"))
    # on the second line (PEP 263 would read it there) setuptools does not look for it
    cfg = b"# project settings\n# -*- coding: latin-1 -*-\n[metadata]\nauthor = Jos\xe9\n"
    (finding,) = check({"setup.cfg": cfg}).findings
    assert (finding.code, finding.line, finding.fails) == ("SC003", 4, (">=0",))


@pytest.mark.parametrize(
    ("first_line", "error"),
    [
        pytest.param("# -*- coding: bogus -*-", "unknown encoding: bogus", id="unknown-name"),
        pytest.param("# coding=nope", "unknown encoding: nope", id="coding-equals"),
        pytest.param(
            "# -*- coding: hex -*-",
            "'hex' is not a text encoding; use codecs.open() to handle arbitrary codecs",
            id="not-a-text-encoding",
        ),
        pytest.param(
            "# vim: set fileencoding=rot13 :",
            "'rot13' is not a text encoding; use codecs.open() to handle arbitrary codecs",
            id="vim-modeline",
        ),
    ],
)
def test_coding_header_without_a_text_codec_fails_40_7_to_40_9(first_line: str, error: str) -> None:
    """setuptools 40.7.0-40.9.0 hand the name to ``io.TextIOWrapper``, which raises
    LookupError for a name no codec has or a codec that is no text encoding (measured with
    real 40.6.3, 40.7.0, 40.7.3, 40.8.0, 40.9.0, 41.0.0, 41.0.1 on Python 3.8: only the
    40.7.0-40.9.0 ones raise); the others ignore the comment. SC003 at line 1, and the
    verdict follows."""
    cfg = f"{first_line}\n[metadata]\nname = x\n".encode()
    (finding,) = check({"setup.cfg": cfg}).findings
    assert (finding.code, finding.line, finding.fails) == ("SC003", 1, (">=40.7.0,<41.0.0",))
    assert f"({error})" in finding.message
    assert finding.message.endswith("stop with LookupError")
    for version, outcome in (
        ("40.6.3", "builds"),
        ("40.7.0", "fails"),
        ("40.9.0", "fails"),
        ("41.0.0", "builds"),
    ):
        verdict = check({"setup.cfg": cfg}, setuptools=version).verdict
        assert verdict is not None
        assert (verdict.outcome, verdict.because) == (
            (outcome, ("SC003",)) if outcome == "fails" else (outcome, ())
        ), version
    # a codec Python knows (any spelling) is read as before; so is a comment on line 2
    for ok in (b"# -*- coding: Latin_1 -*-\n", b"# x\n# -*- coding: bogus -*-\n"):
        assert check({"setup.cfg": ok + b"[metadata]\nname = x\n"}).findings == ()


@pytest.mark.parametrize(
    ("setup_py", "expected"),
    [
        pytest.param(
            "from setuptools import setup\n"
            "setup(name='x', options={'bdist_wheel': {'universal': True}})\n",
            [("SC009", "setup.py", 2, (), (">=75.1.0",))],
            id="literal",
        ),
        pytest.param(
            "from setuptools import setup\nopts = {}\nopts['bdist_wheel'] = {\n"
            "    'universal': '1',\n}\nsetup(name='x', options=opts)\n",
            [("SC009", "setup.py", 4, (), (">=75.1.0",))],
            id="built-up-string-through-strtobool",
        ),
        pytest.param(
            "from setuptools import setup\n"
            "setup(name='x', options={'bdist_wheel': {'universal': False}})\n",
            [],
            id="off",
        ),
        pytest.param(
            "from setuptools import setup\n"
            "setup(name='x', options={'bdist_wheel': {'universal': 'no'}})\n",
            [],
            id="strtobool-no",
        ),
        pytest.param(
            "import os\nfrom setuptools import setup\n"
            "setup(name='x', options={'bdist_wheel': {'universal': os.environ['U']}})\n",
            [],
            id="unknown-value-not-guessed",
        ),
        pytest.param(
            "from setuptools import setup\n"
            "setup(name='x', options={'build_py': {'universal': True}})\n",
            [],
            id="another-command",
        ),
    ],
)
def test_universal_in_setup_options(
    setup_py: str, expected: list[tuple[str, str, int, tuple[str, ...], tuple[str, ...]]]
) -> None:
    """SC009 for ``setup(options={"bdist_wheel": {"universal": ...}})`` (nodeenv 1.11.0,
    found by the enforce-mode ecosystem check)."""
    result = check({"setup.py": setup_py})
    got = [
        (f.code, f.path, f.line, f.fails, f.fails_enforced)
        for f in result.findings
        if f.code == "SC009"
    ]
    assert got == expected
