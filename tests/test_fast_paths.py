"""The fast paths of the scan (issue 13) give what the slow, reference path gives.

* PKG-INFO's Name and Version read line by line against ``email.parser.HeaderParser``;
* setup.cfg read once per text and shared between eras against a fresh ``ConfigParser``
  per call (what setuptools does);
* the releases a ``build-system.requires`` admits, cached per specifier, against the
  catalogue filtered directly.
"""

from __future__ import annotations

import configparser
import io
import itertools
from email.parser import HeaderParser

import pytest
from packaging.specifiers import SpecifierSet

from sapper.check import _allowed
from sapper.facts._cfgparse import parse_setup_cfg
from sapper.project import _name_and_version
from sapper.versions import catalogue

PKG_INFOS = [
    "Metadata-Version: 2.1\nName: foo\nVersion: 1.0\n\nName: body\n",
    "Name: foo\r\nVersion: 1.0  \r\n\r\n",
    "name:foo\nVERSION:\t2\n",
    "Name: a\n continued\nVersion: 1\n\n",  # folded Name: the email package decides
    "Name: a\nVersion: 1\n more\n\n",  # folded Version
    "From x\nName: a\n",  # a mailbox From line
    "Name: a\nbad line\nVersion: 2\n",  # a defect ends the headers
    "Version: 1\n",
    "",
    "\nName: a\n",
    "Name: a:b\nName: c\nVersion: 1\rVersion: 2\r\r",  # the first one wins; bare CRs
    "Name: \u00e4\nVersion: 1\x0bx\n\n",  # \x0b is not a line end for email
    ":x\nName: a\n\n",
    "Name: a\nLicense: MIT\n        \n        Copyright\nVersion: 1\n\n",  # folded License
    " x\nName: a\n",  # a continuation before any header
    "License: a\n b\nName: n\n c\n",
    "Name: a\nName: b\n cont\nVersion: 2\n",
    "Name: a\nVersion: 1",  # no line end at all
    "Name:\nVersion: \n\n",
    "Name: a\n\tVersion: 2\n",
]


def _reference(text: str) -> tuple[str | None, str | None]:
    headers = HeaderParser().parsestr(text)
    name, version = headers.get("Name"), headers.get("Version")
    return (str(name) if name is not None else None, str(version) if version is not None else None)


@pytest.mark.parametrize("text", PKG_INFOS)
def test_pkg_info_name_and_version_as_the_email_package(text: str) -> None:
    assert _name_and_version(text) == _reference(text)


def test_pkg_info_every_combination_of_lines() -> None:
    """Every header block of up to four lines built from tricky lines reads the same."""
    lines = ["Name: a", "Version: 1", "name: b", " folded", "\t", "x", "", "From y", "K: v"]
    for size in range(1, 5):
        for combo in itertools.product(lines, repeat=size):
            for end in ("\n", "\r\n"):
                text = end.join(combo) + end + "Name: late\n"
                assert _name_and_version(text) == _reference(text), text


SETUP_CFGS = [
    "[metadata]\nname = demo\nversion = 1\n",
    "[metadata]\nName = demo\nname = other\n",  # a duplicate only when lowercased
    "[metadata]\nname = demo\n[options]\nx = %(name)s\n",
    "[metadata]\nName = demo\nsummary = %(Name)s\n",  # the reference lowercases
    "[metadata]\nname = demo\nsummary = %(name)s\n",
    "[metadata]\nname = demo\nsummary = %(Name)s\n",  # resolves only when lowercased
    "[DEFAULT]\nHome = /x\n[options]\na = 1\n",
    "[metadata]\nname = demo\nname = again\n",  # a duplicate either way
    "[metadata]\nnoequals\n",
    "[metadata]\nvalue = 100%\n",  # a bad interpolation
    "[install]\nprefix = %(nope)s\n[metadata]\nname = a\n",  # skipped before it fails
    "[metadata]\n\u0130 = dotted capital I\n",  # a name lower() lengthens
    "[metadata]\nname = a\n[metadata]\nname = b\n",  # a duplicate section
]


def _reference_cfg(
    text: str, optionxform_str: bool, skip: frozenset[str]
) -> tuple[tuple[tuple[str, str, str], ...], str | None, tuple[str, ...]]:
    parser = configparser.ConfigParser()
    if optionxform_str:
        parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_file(io.StringIO(text), source="setup.cfg")
    except configparser.Error as exc:
        return (), repr(exc), ()
    options = []
    sections = tuple(parser.sections())
    try:
        for section in sections:
            for opt in parser.options(section):
                if opt == "__name__" or opt in skip:
                    continue
                options.append((section, opt, parser.get(section, opt)))
    except configparser.Error as exc:
        return tuple(options), repr(exc), sections
    return tuple(options), None, sections


@pytest.mark.parametrize("text", SETUP_CFGS)
def test_setup_cfg_shared_reading_as_a_fresh_parser_each_time(text: str) -> None:
    data = text.encode()
    # in the order a check asks: every era group in turn, then again
    for xform, skip in [
        (True, frozenset()),
        (False, frozenset({"prefix"})),
        (True, frozenset({"prefix"})),
        (False, frozenset()),
    ] * 2:
        got = parse_setup_cfg(data, optionxform_str=xform, encoding="utf-8", skip=skip)
        error = repr(got.error) if got.error is not None else None
        assert (got.options, error, got.sections) == _reference_cfg(text, xform, skip)


@pytest.mark.parametrize(
    "spec", [">=40", "<78", ">=61,<78.0.1", "==77.0.3", ">=1000", "!=78.0.1,>=70", ""]
)
def test_allowed_releases_as_the_catalogue_filtered(spec: str) -> None:
    cat = catalogue()
    parsed = SpecifierSet(spec)
    expected = tuple(v for v in cat.universe if parsed.contains(cat.parsed(v), prereleases=True))
    assert _allowed(cat, spec) == expected
    assert _allowed(cat, spec) == expected  # and from the cache
