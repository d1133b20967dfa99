"""setup.py shapes static analysis used to miss: keywords reaching setup() through a dict
built step by step, and ``except ImportError`` fallbacks that fail themselves.
(tests/oracle/test_misses_oracle.py checks the verdicts against real setuptools.)"""

from __future__ import annotations

import ast

import pytest
from helpers import check

from sapper.facts.setup_py import py3_truth

HEAD = "import sys\nfrom setuptools import setup\n"


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (HEAD + "kw = {}\nkw['use_2to3'] = True\nsetup(name='p', **kw)\n", 4),
        (HEAD + "kw = {}\nif sys.version_info >= (3,):\n    kw['use_2to3'] = 1\nsetup(**kw)\n", 5),
        (HEAD + "kw = dict(name='p')\nkw.update(use_2to3=True)\nsetup(**kw)\n", 4),
        (HEAD + "kw = dict(name='p')\nkw.update({'use_2to3': True})\nsetup(**kw)\n", 4),
        (HEAD + "kw = {}\nkw.setdefault('use_2to3', True)\nsetup(**kw)\n", 4),
        (HEAD + "kw = dict({'use_2to3': True})\nsetup(**kw)\n", 3),
        (HEAD + "def f():\n    return {'use_2to3': True}\nsetup(**f())\n", 4),
        (
            HEAD
            + "def f():\n    d = {}\n    d['use_2to3'] = True\n    return d\n"
            + "kw = f()\nsetup(**kw)\n",
            5,
        ),
        (
            HEAD + "kw = {}\nif sys.version_info[0] == 2:\n    pass\nelse:\n"
            "    kw['use_2to3'] = True\nsetup(**kw)\n",
            7,
        ),
    ],
)
def test_use_2to3_through_a_kwargs_dict(source: str, line: int) -> None:
    findings = [f for f in check({"setup.py": source}).findings if f.code == "SP002"]
    assert [(f.line, f.fails) for f in findings] == [(line, (">=58.0.2",))]


@pytest.mark.parametrize(
    "source",
    [
        HEAD + "kw = {}\nif sys.version_info < (3,):\n    kw['use_2to3'] = True\nsetup(**kw)\n",
        HEAD + "kw = {}\nif sys.version_info.major == 2:\n    kw['use_2to3'] = True\nsetup(**kw)\n",
        HEAD + "kw = {}\nkw['use_2to3_fixers'] = []\nsetup(**kw)\n",
        HEAD + "other = {}\nother['use_2to3'] = True\nkw = {}\nsetup(**kw)\n",
    ],
)
def test_kwargs_dict_without_use_2to3(source: str) -> None:
    assert not [f for f in check({"setup.py": source}).findings if f.code == "SP002"]


@pytest.mark.parametrize(
    ("test", "truth"),
    [
        ("sys.version_info >= (3,)", True),
        ("sys.version_info >= (3, 0)", True),
        ("sys.version_info < (3,)", False),
        ("sys.version_info > (2, 7)", True),
        ("sys.version_info[0] == 2", False),
        ("sys.version_info[0] >= 3", True),
        ("sys.version_info.major < 3", False),
        ("sys.version_info >= (3, 8)", None),  # a minor version: the build's Python decides
        ("PY3", None),
    ],
)
def test_py3_truth(test: str, truth: bool | None) -> None:
    node = ast.parse(test, mode="eval").body
    assert py3_truth(node) is truth


GUARD = (
    "import sys\nfrom setuptools import setup\ntry:\n    import pkg_resources\n"
    "except ImportError:\n{handler}\nsetup(name='p')\n"
)


@pytest.mark.parametrize(
    ("handler", "files", "fails"),
    [
        ("    from ez_setup import use_setuptools\n    use_setuptools()", {}, True),
        ("    import ez_setup", {}, True),
        ("    sys.exit('need setuptools')", {}, True),
        ("    raise SystemExit(1)", {}, True),
        ("    print('no pkg_resources')\n    exit(1)", {}, True),
        # fallbacks that work
        ("    pkg_resources = None", {}, False),
        ("    import json as pkg_resources", {}, False),
        ("    from ez_setup import use_setuptools", {"ez_setup.py": "x = 1\n"}, False),
        (
            "    import numpy",
            {"pyproject.toml": '[build-system]\nrequires = ["setuptools", "numpy"]\n'},
            False,
        ),
    ],
)
def test_guarded_import_whose_fallback_fails(
    handler: str, files: dict[str, str], fails: bool
) -> None:
    result = check({"setup.py": GUARD.format(handler=handler), **files})
    sp001 = [f for f in result.findings if f.code == "SP001"]
    assert bool(sp001) is fails
    if fails:
        assert sp001[0].fails == (">=82.0.0",)
        assert sp001[0].line == 4
