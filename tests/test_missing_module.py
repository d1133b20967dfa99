"""SP901 on an import of a module the isolated build environment lacks (weaviate-client
3.2.1: setup.py imports its package for the version, whose modules import `requests`):
pip (25.3 on), uv and build install only build-system.requires, so ModuleNotFoundError on
every wheel build, with every setuptools. An import that may not run, a module that may be
there, or a tree sapper cannot judge, never."""

from __future__ import annotations

import pytest
from helpers import check

SETUP = 'from setuptools import setup\nsetup(name="probe", version="1.0")\n'
SDIST = {"PKG-INFO": "Metadata-Version: 2.1\nName: probe\nVersion: 1.0\n"}
PACKAGE = {
    "pkg/__init__.py": "from .core import x\nversion = '1.0'\n",
    "pkg/core.py": "import os\nimport requests\nx = 1\n",
}

#: (id, setup.py, other files, (line in setup.py, the module named in the message) or None)
CASES: list[tuple[str, str, dict[str, str], tuple[int, str] | None]] = [
    ("direct", "import requests\n" + SETUP, {}, (1, "imports `requests`, which")),
    ("from-import", "from numpy import get_include\n" + SETUP, {}, (1, "imports `numpy`")),
    ("not-shipped", "from version import __version__\n" + SETUP, {}, (1, "imports `version`")),
    ("python-2-module", "import ConfigParser\n" + SETUP, {}, (1, "imports `ConfigParser`")),
    (
        "through-the-package",
        "from pkg import version\n" + SETUP,
        PACKAGE,
        (1, "pkg/core.py:2 imports `requests`"),
    ),
    (
        "python-2-implicit-relative",
        "import pkg\n" + SETUP,
        {"pkg/__init__.py": "from client import Client\n", "pkg/client.py": "Client = 1\n"},
        (1, "pkg/__init__.py:1 imports `client`"),
    ),
    (
        "decided-branch",
        "import sys\nif sys.version_info >= (3,):\n    import six\n",
        {},
        (3, "six"),
    ),
    # never reported
    ("stdlib", "import json, os.path\nfrom __future__ import annotations\n" + SETUP, {}, None),
    ("shipped-module", "import helper\n" + SETUP, {"helper.py": "X = 1\n"}, None),
    ("src-layout", "import pkg\n" + SETUP, {"src/pkg/__init__.py": ""}, None),
    ("vendored-by-setuptools", "import packaging.version\n" + SETUP, {}, None),
    ("wheel", "from wheel.bdist_wheel import bdist_wheel\n" + SETUP, {}, None),
    (
        "guarded",
        "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n" + SETUP,
        {},
        None,
    ),
    ("undecided-branch", "import os\nif os.environ.get('X'):\n    import numpy\n", {}, None),
    ("in-a-function", "def f():\n    import numpy\n" + SETUP, {}, None),
    (
        "declared",
        "import numpy\n" + SETUP,
        {"pyproject.toml": "[build-system]\nrequires = ['setuptools', 'numpy']\n"},
        None,
    ),
    (
        "other-build-requirement-may-bring-it",
        "import yaml\n" + SETUP,
        {"pyproject.toml": "[build-system]\nrequires = ['setuptools', 'pyyaml']\n"},
        None,
    ),
    (
        "pyproject-without-build-system-is-pp009",
        "import numpy\n" + SETUP,
        {"pyproject.toml": "[tool.black]\n"},
        None,
    ),
    ("sys-path-changed", "import sys\nsys.path.insert(0, 'lib')\nimport mod\n", {}, None),
    ("written-first", "open('gen.py', 'w').write('X = 1')\nimport gen\n" + SETUP, {}, None),
]


@pytest.mark.parametrize(("name", "body", "files", "expected"), CASES, ids=[c[0] for c in CASES])
def test_missing_module(
    name: str, body: str, files: dict[str, str], expected: tuple[int, str] | None
) -> None:
    result = check({"setup.py": body, **SDIST, **files})
    found = [f for f in result.findings if f.code == "SP901"]
    if expected is None:
        assert found == [], found
        return
    (finding,) = found
    line, words = expected
    assert finding.line == line
    assert words in finding.message
    assert "ModuleNotFoundError" in finding.message
    assert result.verdict is not None and result.verdict.outcome == "fails"


def test_a_checkout_is_not_judged() -> None:
    """Without PKG-INFO the tree may lack a module its VCS ignores: never reported."""
    result = check({"setup.py": "import requests\n" + SETUP})
    assert [f for f in result.findings if f.code == "SP901"] == []
