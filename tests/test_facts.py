"""The facts layer: each view of a project's files, computed once, as the rules read it."""

from __future__ import annotations

import pytest
from helpers import TODAY, project

from sapper.facts import ProjectFacts
from sapper.facts._values import UNKNOWN
from sapper.versions import catalogue


def facts(files: dict[str, str | bytes]) -> ProjectFacts:
    return ProjectFacts(files=project(files), catalogue=catalogue(), today=TODAY)


@pytest.mark.parametrize(
    ("source", "keywords", "opaque"),
    [
        ("from setuptools import setup\nsetup(name='x', version='1.0')\n",
         {"name": "x", "version": "1.0"}, False),
        ("from setuptools import setup\nV = '2.0'\nsetup(version=V)\n", {"version": "2.0"}, False),
        # a name bound to a dict: followed as setup.py runs, up to the call
        ("from setuptools import setup\nkw = dict(name='x')\nsetup(**kw)\n", {"name": "x"}, False),
        ("from setuptools import setup\nkw = dict(name='x')\nkw.update(f())\nsetup(**kw)\n",
         {"name": "x"}, True),
        ("from setuptools import setup\nkw = dict(name='x')\nadd(kw)\nsetup(**kw)\n",
         {"name": "x"}, True),
        ("from setuptools import setup\ndef main():\n    setup(name='x')\n"
         "if __name__ == '__main__':\n    main()\n", {"name": "x"}, False),
        ("from setuptools import setup\ndef main():\n    setup(name='x')\n", {}, True),
        ("from setuptools import setup\nsetup(**{'name': 'x'})\n", {"name": "x"}, False),
        ("from setuptools import setup\nsetup(**make())\n", {}, True),
        ("from setuptools import setup\nsetup(version=read())\n", {"version": UNKNOWN}, False),
        ("import setuptools\n", {}, True),  # no setup() call: anything may be configured
        ("print 'python 2'\n", {}, True),  # does not parse
        ("def f():\n    setup(name='x')\n", {}, True),  # only module-level calls run
    ],
)  # fmt: skip
def test_setup_py_keywords(source: str, keywords: dict[str, object], opaque: bool) -> None:
    view = facts({"setup.py": source})
    assert {k.name: k.value for k in view.setup_py.keywords} == keywords
    assert view.setup_py.opaque is opaque
    assert view.config.opaque is opaque
    assert view.setup_py.keywords is view.setup_py.keywords  # computed once


def test_setup_py_import_sites_skip_guarded_imports() -> None:
    source = (
        "import os\n"
        "try:\n    import pkg_resources\nexcept ImportError:\n    pass\n"
        "from setuptools.command.test import test\n"
    )
    sites = facts({"setup.py": source}).setup_py.import_sites
    assert [(s.module, s.line) for s in sites] == [
        ("os", 1),
        ("setuptools.command.test", 6),
        ("setuptools.command.test.test", 6),
    ]


def test_setup_cfg_values_and_partial_values() -> None:
    good = facts({"setup.cfg": "[metadata]\nName = x\nhome-page = u\n[options]\nzip_safe = 0\n"})
    assert [(v.section, v.key, v.value, v.line) for v in good.setup_cfg.values] == [
        ("metadata", "name", "x", 2),
        ("metadata", "home_page", "u", 3),
        ("options", "zip_safe", "0", 5),
    ]
    broken = facts({"setup.cfg": "[metadata]\nname = x\n[tool:pytest]\nlog = %(asctime)s\n"})
    assert broken.setup_cfg.values == ()  # configparser fails: setuptools reads nothing
    assert [v.key for v in broken.setup_cfg.values_partial] == ["name"]
    assert facts({}).setup_cfg.values == ()


@pytest.mark.parametrize(
    ("toml", "table", "key", "line"),
    [
        ('[project]\nname = "x"\nlicense = "MIT"\n', "project", "license", 3),
        ('[project]\nname = "x"\nlicense.text = "MIT"\n', "project", "license", 3),
        ('[project]\nname = "x"\n\n[project.license]\ntext = "MIT"\n', "project", "license", 4),
        ('[project]\nname = "x"\n', "project", "license", 1),  # falls back to the header
        ("[tool.setuptools]\nlicense-files = []\n", "tool.setuptools", "license-files", 2),
        ("[build-system]\nrequires = []\n", "project", None, None),
    ],
)
def test_pyproject_locate(toml: str, table: str, key: str | None, line: int | None) -> None:
    assert facts({"pyproject.toml": toml}).pyproject.locate(table, key) == line


def test_pyproject_tables_and_build_system() -> None:
    view = facts(
        {
            "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\n'
            'build-backend = "setuptools.build_meta"\n[project]\nname = "x"\n'
            "[tool.setuptools]\nzip-safe = false\n"
        }
    )
    assert view.pyproject.project == {"name": "x"}
    assert view.pyproject.tool_setuptools == {"zip-safe": False}
    assert view.pyproject.build_system.uses_setuptools == "yes"
    assert str(view.pyproject.build_system.setuptools) == ">=61"
    bad = facts({"pyproject.toml": "[project\n"})
    assert bad.pyproject.data is None
    assert bad.pyproject.parsed.error is not None
    assert bad.pyproject.tables == (None, None)


def test_missing_in_reads_the_module_inventory() -> None:
    view = facts({})
    cat = view.catalogue
    missing = view.missing_in("pkg_resources")
    assert missing == {v for v in cat.universe if cat.parsed(v) >= cat.parsed("82.0.0")}
    assert view.missing_in("setuptools") == set()
