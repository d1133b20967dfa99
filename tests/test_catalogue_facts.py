"""The catalogue as loaded from data/setuptools.json: the facts each era must have.

Built fresh (``Catalogue(raw)``, not the cached ``catalogue()``) so that the loading code
itself runs under test. The expected values are setuptools behaviour the oracle proved
(test_setupcfg_oracle.py): which sections each era checks for dash-separated and uppercase
keys, what it does with them, and the due dates after which enforcement fails.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from sapper.versions import Catalogue, CfgFacts


@pytest.fixture
def cat() -> Catalogue:
    """Per test (not per module): each test then runs the loading code itself, which is
    what a mutation run's coverage map needs to send its mutants to these tests."""
    raw = json.loads(resources.files("sapper").joinpath("data/setuptools.json").read_text())
    return Catalogue(raw)


def _era(cat: Catalogue, version: str) -> CfgFacts:
    (facts,) = [f for versions, f in cat.cfg_eras if version in versions]
    return facts


# (version, section, dash checked, upper checked)
CHECKED = [
    # 53.1.0: dashes silently converted, uppercase left alone: nothing checked.
    ("53.1.0", "metadata", False, False),
    # 54.1.0 warns about dashes in every section (also tools' own), uppercase not yet.
    ("54.1.0", "flake8", True, False),
    ("54.1.0", "metadata", True, False),
    ("54.1.0", "options.extras_require", False, False),  # exempt
    # 54.1.1: uppercase warned in [metadata] only.
    ("54.1.1", "metadata", True, True),
    ("54.1.1", "options", True, False),
    # 54.1.2: dashes only in setuptools' own sections (metadata, options*, commands).
    ("54.1.2", "flake8", False, False),
    ("54.1.2", "options.packages.find", True, False),
    ("54.1.2", "egg_info", True, False),
    ("54.1.2", "bdist_wheel", False, False),  # wheel's command, not setuptools' then
    ("54.1.2", "options.data_files", False, False),
    # 78.0.1: both raise in setuptools' sections but the user-named ones (extras, entry points).
    ("78.0.1", "options", True, True),
    ("78.0.1", "options.extras_require", False, False),  # exempt
    ("78.0.1", "options.entry_points", False, False),  # exempt
    ("78.0.1", "flake8", False, False),
    ("84.2.1", "install", True, True),
    ("84.2.1", "tool:pytest", False, False),
]


@pytest.mark.parametrize(("version", "section", "dash", "upper"), CHECKED)
def test_sections_checked(
    cat: Catalogue, version: str, section: str, dash: bool, upper: bool
) -> None:
    facts = _era(cat, version)
    assert facts.checks(facts.dash, section) is dash
    assert facts.checks(facts.upper, section) is upper


# (version, dash action, upper action, due date, enforceable, dash outside checked sections)
ACTIONS = [
    ("38.0.0", "convert", "none", None, False, "convert"),
    ("54.1.1", "warn", "warn", None, False, "convert"),
    ("67.7.0", "warn", "warn", "2023-09-26", True, "convert"),
    ("69.0.0", "warn", "warn", "2024-09-26", True, "convert"),
    ("75.2.0", "warn", "warn", "2025-03-03", True, "convert"),
    ("78.0.1", "raise", "raise", None, False, "keep"),
    ("78.0.2", "warn", "warn", "2026-03-03", True, "keep"),
]


@pytest.mark.parametrize(("version", "dash", "upper", "due", "enforceable", "outside"), ACTIONS)
def test_actions_and_due_dates(
    cat: Catalogue,
    version: str,
    dash: str,
    upper: str,
    due: str | None,
    *,
    enforceable: bool,
    outside: str,
) -> None:
    facts = _era(cat, version)
    assert (facts.dash.action, facts.upper.action) == (dash, upper)
    assert facts.dash.due_date == facts.upper.due_date == due
    assert facts.dash.enforceable is facts.upper.enforceable is enforceable
    assert facts.dash.outside == outside
    if dash == "warn":
        assert facts.dash.warning
    if version >= "67.7.0" and dash == "warn":
        assert facts.dash.warning == "SetuptoolsDeprecationWarning"


@pytest.mark.parametrize(
    ("version", "optionxform_str", "encoding"),
    [
        ("38.0.0", False, "locale"),
        ("40.7.0", False, "coding-header"),
        ("41.0.0", False, "utf-8"),
        ("53.1.0", True, "utf-8"),
        ("84.2.1", True, "utf-8"),
    ],
)
def test_reading(cat: Catalogue, version: str, optionxform_str: bool, encoding: str) -> None:
    facts = _era(cat, version)
    assert facts.optionxform_str is optionxform_str
    assert facts.encoding == encoding
    assert "install-base" in facts.venv_ignored


# (version, how the section name is split, [options.data_files] handled, error class)
SECTION_ERAS = [
    ("38.0.0", "replace", False, "DistutilsOptionError"),
    ("40.4.3", "replace", False, "DistutilsOptionError"),
    ("40.5.0", "replace", True, "DistutilsOptionError"),
    ("67.5.0", "replace", True, "DistutilsOptionError"),
    ("67.5.1", "partition", True, "DistutilsOptionError"),
    ("84.2.1", "partition", True, "OptionError"),
]


@pytest.mark.parametrize(("version", "split", "data_files", "error"), SECTION_ERAS)
def test_section_eras(
    cat: Catalogue, version: str, split: str, error: str, *, data_files: bool
) -> None:
    """What SC007 reads: the section handlers of each era, loaded by ``Catalogue``."""
    (handlers,) = [h for versions, h in cat.section_eras if version in versions]
    assert handlers["split"] == split
    assert handlers["error"] == error
    assert handlers["metadata"] == ["parse_section"]
    assert "parse_section_packages__find" in handlers["options"]
    assert ("parse_section_data_files" in handlers["options"]) is data_files


def test_section_eras_cover_every_release_once(cat: Catalogue) -> None:
    eras = [versions for versions, _ in cat.section_eras]
    assert all(isinstance(versions, tuple) for versions in eras)
    assert len(eras) == 6
    every = [v for versions in eras for v in versions]
    assert sorted(every) == sorted(r.version for r in cat.releases)
    assert len(every) == len(set(every))


def test_commands_come_from_the_wheels(cat: Catalogue) -> None:
    assert not _era(cat, "54.1.1").commands
    assert {"bdist_wheel", "egg_info", "sdist"} <= _era(cat, "84.2.1").commands
    assert "test" in _era(cat, "71.1.0").commands
    assert "test" not in _era(cat, "72.0.0").commands


def test_releases(cat: Catalogue) -> None:
    newest = cat.release("84.2.1")
    assert newest is not None
    assert (newest.date, newest.yanked, newest.requires_python) == ("2026-10-20", False, ">=3.10")
    yanked = cat.release("59.1.0")
    assert yanked is not None
    assert yanked.yanked
    assert yanked.yanked_reason == "https://github.com/pypa/setuptools/issues/2885"
    assert cat.universe[:2] == ("38.0.0", "38.1.0")
    assert "63.0.0b1" not in cat.universe  # pre-releases are not in verdict ranges
    assert cat.release("63.0.0b1") is not None
    assert cat.modules["pkg_resources"] == [["38.0.0", "81.0.0"]]
    assert "setuptools" in cat.names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("78.0.1", "78.0.1"),
        ("78.0.01", "78.0.1"),  # normalised to the release's own spelling
        ("nope", "--setuptools 'nope' is not a valid version; pass one such as 78.0.1"),
        (
            "1.0",
            "setuptools 1.0 is older than the oldest release sapper models (38.0.0); "
            "pass a newer version",
        ),
        (
            "999",
            "setuptools 999 is newer than the newest release sapper knows (84.2.1); "
            "upgrade sapper, or pass a known version",
        ),
        (
            "78.0.3",
            "setuptools 78.0.3 was never published on PyPI, so no build can get it; "
            "the releases around it are 78.0.2 and 78.1.0",
        ),
        (  # version order, not string order: 60.10.0 sorts before 60.9.3 as text
            "60.10.1",
            "setuptools 60.10.1 was never published on PyPI, so no build can get it; "
            "the releases around it are 60.10.0 and 61.0.0",
        ),
        (
            "60.1.2",
            "setuptools 60.1.2 was never published on PyPI, so no build can get it; "
            "the releases around it are 60.1.1 and 60.2.0",
        ),
        (  # just above the oldest release: a gap, not "older than the oldest"
            "38.0.5",
            "setuptools 38.0.5 was never published on PyPI, so no build can get it; "
            "the releases around it are 38.0.0 and 38.1.0",
        ),
    ],
)
def test_validate_version(cat: Catalogue, text: str, expected: str) -> None:
    """The whole message: it says what is wrong and what to do."""
    from sapper._exceptions import UsageError

    if expected[0].isdigit():
        assert cat.validate_version(text) == expected
    else:
        with pytest.raises(UsageError) as info:
            cat.validate_version(text)
        assert str(info.value) == expected


@pytest.mark.parametrize(
    ("requirement", "python", "expected"),
    [
        (None, None, "84.2.1"),
        (None, "3.9", "82.0.1"),  # the newest whose Requires-Python admits 3.9
        ("==59.1.0", None, "59.1.0"),  # yanked, but pinned: pip takes it
        ("===59.1.0", None, "59.1.0"),  # arbitrary equality pins too
        ("<59.2", None, "59.1.1"),  # yanked 59.1.0 skipped when not pinned
        ("<63.0.0", None, "62.6.0"),  # pre-release 63.0.0b1 skipped
        ("==63.0.0b1", None, "63.0.0b1"),  # unless asked for
        (">=999", None, None),
    ],
)
def test_select(
    cat: Catalogue, requirement: str | None, python: str | None, expected: str | None
) -> None:
    from packaging.specifiers import SpecifierSet

    spec = SpecifierSet(requirement) if requirement is not None else None
    assert cat.select(spec, python=python) == expected


def test_version_sets_of_a_fresh_catalogue(cat: Catalogue) -> None:
    assert cat.to_specifiers({"78.0.1"}) == ("==78.0.1",)
    assert cat.to_specifiers({"84.2.1", "not-a-release"}) == (">=84.2.1",)
    assert cat.to_specifiers(set()) == ()


def test_data_without_eras() -> None:
    """Data that names only releases (as the generator's first stage writes it)."""
    bare = Catalogue({"releases": [{"version": "1.0"}, {"version": "2.0", "yanked": True}]})
    assert bare.cfg_eras == ()
    assert bare.section_eras == ()
    assert (bare.modules, bare.names) == ({}, {})
    assert bare.universe == ("1.0", "2.0")


@pytest.mark.parametrize(
    ("raw", "checked", "outside"),
    [
        ({"action": "warn"}, "setuptools", "convert"),
        ({"action": "warn", "checked": None, "outside": None}, "setuptools", "convert"),
        ({"action": "raise", "checked": "all", "outside": "keep"}, "all", "keep"),
    ],
)
def test_key_check_defaults(raw: dict[str, object], checked: str, outside: str) -> None:
    from sapper.versions import _key_check

    check = _key_check(raw)
    assert (check.checked, check.outside) == (checked, outside)
    assert check.exempt == frozenset()
    assert check.enforceable is False


def test_universe_in_version_order_and_parsed_unpublished(cat: Catalogue) -> None:
    from packaging.version import Version

    assert list(cat.universe) == sorted(cat.universe, key=Version)
    assert cat.universe.index("60.9.3") < cat.universe.index("60.10.0")
    assert cat.parsed("60.10.1") == Version("60.10.1")
    assert cat.parsed("60.10.0") == Version("60.10.0")


def test_select_skips_a_prerelease_the_requirement_does_not_name(cat: Catalogue) -> None:
    """63.0.0b1 matches `<63.0.1,!=63.0.0`, but a requirement without a prerelease in it
    does not allow prereleases (pip's rule), so the choice is the release before."""
    from packaging.specifiers import SpecifierSet

    assert cat.select(SpecifierSet("<63.0.1,!=63.0.0")) == "62.6.0"
    assert cat.select(SpecifierSet("<63.0.0b2")) == "63.0.0b1"


def test_to_specifiers_up_to_the_second_newest(cat: Catalogue) -> None:
    """A set that ends just before the newest release excludes it (`<newest`), and the
    specifiers match exactly the set."""
    from sapper.versions import contains

    universe = cat.universe
    for members in (universe[:-1], universe[1:-1], universe[-2:-1]):
        specs = cat.to_specifiers(members)
        assert [v for v in universe if contains(specs, v)] == list(members), specs
    assert cat.to_specifiers(universe[:-1]) == (f"<{universe[-1]}",)
