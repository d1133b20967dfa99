"""sapper._requirement: the fast path gives what packaging gives, or leaves the text to it."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from sapper import _requirement
from sapper._requirement import canonical_name, parse_requirement

TEXTS = [
    "setuptools",
    "setuptools>=61",
    "setuptools >= 61.0.0",
    "setuptools>=40.8.0,<70",
    "setuptools >=40.8.0 , <70",
    "  setuptools_scm[toml]>=6.2  ",
    "pkg[a, b]==1.*",
    "pkg[]",
    "pkg [a]",
    "pkg==1.0+local",
    "pkg>=1.0+local",
    "pkg>=1.0.*",
    "pkg~=1",
    "pkg~=1.4",
    "pkg!=1.2.*",
    "pkg===1.0-weird",
    "pkg==1.0-dev",
    "pkg>=1.0abc",
    "pkg>=1.0,",
    "pkg>=1.0,,<2",
    "pkg (>=1.0)",
    "pkg>=1.0; python_version<'3.8'",
    "pkg @ https://example.org/pkg.tar.gz",
    "pkg>=",
    "pkg>=1.0 <2",
    "-pkg",
    "pkg_",
    "pkg.",
    "",
    "pkg\t>=\t1",
    "Pkg.Name_x>=1!2.0rc1.post3.dev4",
    "pkg>=v1.0",
    "pkg==1.0.*.*",
    "pkg<=1.0-1",
]


def _parts(req: object) -> tuple[object, ...]:
    return (
        req.name,  # type: ignore[attr-defined]
        req.url,  # type: ignore[attr-defined]
        sorted(req.extras),  # type: ignore[attr-defined]
        str(req.specifier),  # type: ignore[attr-defined]
        req.specifier,  # type: ignore[attr-defined]
        str(req.marker) if req.marker is not None else None,  # type: ignore[attr-defined]
    )


def _packaging(text: str) -> tuple[object, ...] | None:
    try:
        return _parts(Requirement(text))
    except InvalidRequirement:
        return None


def _fast_only(text: str) -> tuple[object, ...] | None:
    """What the fast path makes of ``text`` (None: it declines or finds it invalid)."""
    if _requirement._SIMPLE.fullmatch(text) is None:
        return None
    got = parse_requirement(text)
    return None if got is None else _parts(got)


@pytest.mark.parametrize("text", TEXTS)
def test_same_as_packaging(text: str) -> None:
    got = parse_requirement(text)
    assert (None if got is None else _parts(got)) == _packaging(text)


def test_the_fast_path_takes_the_common_forms() -> None:
    for text in ("setuptools>=61", "requests >= 2, <3", "pkg[a,b]==1.*", "wheel"):
        assert type(parse_requirement(text)) is _requirement._Simple, text
    for text in ("pkg; python_version<'3'", "pkg @ https://x/y.tgz", "pkg===1", "pkg (>=1)"):
        assert type(parse_requirement(text)) is Requirement, text


ALPHABET = ["a", "Z", "0", "9", ".", "-", "_", "*", "+", "!", " ", "\t", ",", "[", "]"]
PIECES = ["pkg", "==", ">=", "<", "~=", "!=", "===", "1.0", "1", ".*", "rc1", "post", "dev"]


def _random_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 8)):
        out.append(rng.choice(PIECES) if rng.random() < 0.6 else rng.choice(ALPHABET))
    return "".join(out)


def test_generated_texts_agree_with_packaging() -> None:
    """Whatever the fast path accepts, packaging accepts with the same parts; whatever it
    accepts and finds invalid, packaging rejects too."""
    rng = random.Random(13)
    accepted = 0
    for _ in range(20000):
        text = _random_text(rng)
        if _requirement._SIMPLE.fullmatch(text) is None:
            continue
        accepted += 1
        assert _fast_only(text) == _packaging(text), repr(text)
    assert accepted > 1000  # the generator reaches the fast path


@pytest.mark.parametrize(
    "name", ["Setuptools_SCM", "setuptools-scm", "zope.interface", "A..B__C--d", "x"]
)
def test_canonical_name(name: str) -> None:
    assert canonical_name(name) == canonicalize_name(name)


def test_simple_requirements_do_not_import_packaging_requirements() -> None:
    code = (
        "import sys; from sapper._requirement import parse_requirement as p; "
        "r = p('setuptools >= 61, <80'); assert r is not None and r.specifier; "
        "print('packaging.requirements' in sys.modules, 'packaging.markers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
