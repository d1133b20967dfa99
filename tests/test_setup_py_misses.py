"""setup.py shapes static analysis used to miss: keywords reaching setup() through a dict
built step by step, and ``except ImportError`` fallbacks that fail themselves.
(tests/oracle/test_misses_oracle.py checks the verdicts against real setuptools.)"""

from __future__ import annotations

import ast

import pytest
from helpers import check

from sapper.facts._values import Target
from sapper.facts.setup_py import condition

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
        ("sys.version_info >= (3, 8)", True),
        ("sys.version_info[:2] < (3, 10)", False),
        ("sys.version_info >= (3, 12, 1)", None),  # the micro version is not known
        ("sys.version_info.minor >= 12", True),
        ("PY3", None),
        ('sys.platform == "win32"', False),
        ('sys.platform.startswith("linux")', True),
        ('sys.platform in ("darwin", "win32")', False),
        ('os.name == "nt"', False),
        ('platform.system() == "Windows"', False),
        ('platform.system().lower() == "linux"', True),
        ('not sys.platform == "win32" and os.name == "posix"', True),
        ('sys.platform == "win32" or x', None),
        ('sys.platform == "win32" and x', False),
        ("os.environ.get('X')", None),
        ("(3, 0) <= sys.version_info < (3, 20)", True),
        ("(3, 0) <= sys.version_info < (3, 5)", False),
        ("(3, 0) <= sys.version_info < x", None),
    ],
)
def test_condition_on_linux_312(test: str, truth: bool | None) -> None:
    node = ast.parse(test, mode="eval").body
    assert condition(node, Target((3, 12), "linux")) is truth


@pytest.mark.parametrize(
    ("test", "truth"),
    [
        ('sys.platform == "win32"', True),
        ('os.name == "nt"', True),
        ('platform.system() == "Windows"', True),
        ("sys.version_info >= (3, 8)", False),
        ("sys.version_info[0] == 2", False),
    ],
)
def test_condition_on_windows_37(test: str, truth: bool | None) -> None:
    node = ast.parse(test, mode="eval").body
    assert condition(node, Target((3, 7), "win32")) is truth


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


# -- issue 21: values that reach setup() through code, and conditions on the target ------

MAIN = (
    "import sys\nfrom setuptools import setup\n"
    "def extra():\n    d = dict(py_modules=[])\n    d['use_2to3'] = True\n    return d\n"
    "def main():\n    kw = extra()\n    setup(name='probe', version='1.0', **kw)\n"
    "if __name__ == '__main__':\n    main()\n"
)
EXTRAS = (
    "from setuptools import setup\nextras = {}\nextras['cv'] = ['opencv-python>=3.']\n"
    "extras['all'] = extras['cv'] + ['numpy']\n"
    "setup(name='probe', version='1.0', py_modules=[], extras_require=extras)\n"
)


@pytest.mark.parametrize(
    ("source", "code", "line"),
    [
        (MAIN, "SP002", 5),
        (EXTRAS, "SP006", 5),
        # main() run as the argument of sys.exit / SystemExit
        (
            "import sys\nfrom setuptools import setup\ndef main():\n"
            "    setup(name='p', use_2to3=True)\n    return 0\n"
            "if __name__ == '__main__':\n    sys.exit(main())\n",
            "SP002",
            4,
        ),
        (
            "from setuptools import setup\ndef main():\n    setup(name='p', use_2to3=True)\n"
            "raise SystemExit(main())\n",
            "SP002",
            3,
        ),
        # setup() called at module level through a function, names bound in it
        (
            "from setuptools import setup\ndef go():\n    flag = True\n"
            "    setup(name='p', use_2to3=flag)\ngo()\n",
            "SP002",
            4,
        ),
    ],
)
def test_values_followed_through_code(source: str, code: str, line: int) -> None:
    found = [f for f in check({"setup.py": source}).findings if f.code == code]
    assert {f.line for f in found} == {line}


@pytest.mark.parametrize(
    "source",
    [
        # a function setup.py never calls
        "from setuptools import setup\ndef main():\n    setup(use_2to3=True)\n",
        # a name bound differently on two paths sapper cannot decide: not guessed
        "import os\nfrom setuptools import setup\nv = None\nif os.environ.get('X'):\n"
        "    v = '1.0-x'\nsetup(version=v)\n",
    ],
)
def test_values_not_guessed(source: str) -> None:
    assert not [f for f in check({"setup.py": source}).findings if f.code in {"SP002", "SP005"}]


WIN = (
    "import sys\nfrom setuptools import setup\n"
    "if sys.platform == 'win32':\n    import distutils.msvc9compiler\n"
    "setup(name='probe', version='1.0', py_modules=[])\n"
)


@pytest.mark.parametrize(("platform", "reported"), [("linux", False), ("win32", True)])
def test_platform_branch_reported_only_where_it_runs(platform: str, reported: bool) -> None:
    result = check({"setup.py": WIN}, platform=platform)
    assert bool([f for f in result.findings if f.code == "SP001"]) is reported


def test_else_branch_of_a_project_module_not_run() -> None:
    files = {
        "setup.py": "from setuptools import setup\nfrom pkg import __version__\n"
        "setup(name='pkg', version=__version__, packages=['pkg'])\n",
        "pkg/__init__.py": "import sys\n__version__ = '1.0'\n"
        "if sys.version_info >= (3, 8):\n    import importlib.metadata as md\n"
        "else:\n    import pkg_resources as md\n",
    }
    assert not [f for f in check(files, python="3.12").findings if f.code == "SP001"]
    assert [f for f in check(files, python="3.7").findings if f.code == "SP001"]


def test_guarded_import_three_modules_away() -> None:
    files = {
        "setup.py": "from setuptools import setup\nimport pkg.main\nsetup(name='pkg')\n",
        "pkg/__init__.py": "",
        "pkg/main.py": "from pkg import bitfile\n",
        "pkg/bitfile.py": "import sys\ntry:\n    import pkg_resources\n"
        "except ImportError:\n    sys.exit(1)\n",
    }
    found = [f for f in check(files).findings if f.code == "SP001"]
    assert [(f.line, f.fails) for f in found] == [(2, (">=82.0.0",))]
    assert "pkg/bitfile.py:3" in found[0].message


EZ_SETUP = (
    "import sys\nDEFAULT_VERSION = '0.6c11'\n"
    "def _do_download(version):\n    raise IOError('no network')\n"
    "def use_setuptools(version=DEFAULT_VERSION):\n"
    "    try:\n        import pkg_resources\n    except ImportError:\n"
    "        return _do_download(version)\n"
)


@pytest.mark.parametrize(
    ("setup", "helper", "reported"),
    [
        ("from ez_setup import use_setuptools\nuse_setuptools()\n", EZ_SETUP, True),
        ("import ez_setup\nez_setup.use_setuptools()\n", EZ_SETUP, True),
        # a stub use_setuptools() that neither imports pkg_resources nor downloads
        ("from ez_setup import use_setuptools\nuse_setuptools()\n", "def use_setuptools(): pass\n",
         False),
        # imported, not called
        ("from ez_setup import use_setuptools\n", EZ_SETUP, False),
    ],
)  # fmt: skip
def test_ez_setup_bootstrap(setup: str, helper: str, reported: bool) -> None:
    source = setup + "from setuptools import setup\nsetup(name='p', py_modules=[])\n"
    found = [
        f for f in check({"setup.py": source, "ez_setup.py": helper}).findings if f.code == "SP001"
    ]
    assert bool(found) is reported
    if reported:
        assert found[0].fails == (">=82.0.0",)
        assert found[0].line == 2


@pytest.mark.parametrize("terms", [1500, 3000])
def test_expression_too_deep_to_follow_is_unknown(terms: int) -> None:
    """Too deep for the abstract run (1500 terms) or for Python's parser (3000): the
    keywords are unknown (the facts say opaque), and nothing crashes."""
    from helpers import TODAY, project

    from sapper.facts import ProjectFacts
    from sapper.versions import catalogue

    source = "from setuptools import setup\nV = " + " + ".join(["'1'"] * terms) + "\n"
    source += "setup(version=V, use_2to3=True)\n"
    assert check({"setup.py": source}).verdict is not None
    view = ProjectFacts(files=project({"setup.py": source}), catalogue=catalogue(), today=TODAY)
    assert view.setup_py.opaque
    assert not view.setup_py.keywords


@pytest.mark.parametrize(
    ("source", "outcome", "why"),
    [
        # a dict from code sapper does not follow: never "builds" on a guess
        (
            "from setuptools import setup\nfrom helper import make\nsetup(name='p', **make())\n",
            "unknown",
            "setup() at setup.py:3 gets keywords sapper cannot read",
        ),
        (
            "from setuptools import setup\ndef main():\n    setup(name='p')\n",
            "unknown",
            "no setup() call that sapper can follow runs in setup.py",
        ),
        # what it cannot read does not hide what it can: a failure stays a failure
        (
            "from setuptools import setup\nfrom helper import make\n"
            "setup(name='p', use_2to3=True, **make())\n",
            "fails",
            None,
        ),
        # everything read: builds
        (
            "from setuptools import setup\nkw = dict(name='p')\nkw.update(version='1.0')\n"
            "setup(**kw)\n",
            "builds",
            None,
        ),
    ],
)
def test_verdict_unknown_when_setup_keywords_cannot_be_read(
    source: str, outcome: str, why: str | None
) -> None:
    verdict = check({"setup.py": source}).verdict
    assert verdict is not None
    assert verdict.outcome == outcome
    if why:
        assert why in verdict.reason


@pytest.mark.parametrize(
    ("files", "version"),
    [
        # the shipped file exec() runs binds its names here
        (
            {
                "setup.py": "from setuptools import setup\n"
                "exec(open('pkg/version.py').read())\nsetup(name='p', version=__version__)\n",
                "pkg/version.py": "__version__ = '1.0-beta_x'\n",
            },
            "1.0-beta_x",
        ),
        (
            {
                "setup.py": "from pathlib import Path\nfrom setuptools import setup\n"
                "exec(compile(Path('v.py').read_text(), 'v.py', 'exec'))\n"
                "setup(name='p', version=V)\n",
                "v.py": "V = '2.x'\n",
            },
            "2.x",
        ),
        # into a namespace of its own: the names bound before stay known
        (
            {
                "setup.py": "from setuptools import setup\nV = '3.x'\nns = {}\n"
                "exec(open('v.py').read(), ns)\nsetup(name='p', version=V)\n",
                "v.py": "V = '1.0'\n",
            },
            "3.x",
        ),
        # a text sapper cannot read can rebind anything: unknown, not guessed
        (
            {
                "setup.py": "import os\nfrom setuptools import setup\nV = '4.x'\n"
                "exec(os.environ['CODE'])\nsetup(name='p', version=V)\n",
            },
            None,
        ),
    ],
)
def test_exec_of_a_shipped_file(files: dict[str, str], version: str | None) -> None:
    found = [f for f in check(files).findings if f.code == "SP005"]
    assert [f.message.split("'")[1] for f in found] == ([version] if version else [])


@pytest.mark.parametrize(
    "source",
    [
        # a conditional expression sapper cannot decide
        "import os\nfrom setuptools import setup\n"
        "kw = {} if os.environ.get('PURE') else {'use_2to3': True}\n"
        "setup(name='p', **kw)\n",
        # SQLAlchemy 0.7.9: whether `from setuptools import Feature` works depends on the
        # setuptools release (removed in 46.0.0), and use_2to3 is passed only if it does
        "import sys\ntry:\n    from setuptools import setup, Feature\n"
        "    has_setuptools = True\nexcept ImportError:\n    has_setuptools = False\n"
        "    from distutils.core import setup\nextra = {}\n"
        "if sys.version_info >= (3, 0):\n    if has_setuptools:\n"
        "        extra.update(use_2to3=True)\n"
        "def run_setup():\n    setup(name='p', **extra)\nrun_setup()\n",
    ],
)
def test_a_key_set_on_undecided_paths_only_is_unknown(source: str) -> None:
    """Whether the key reaches setup() is not known: no finding claims it does, and the
    verdict is "unknown" (never "builds" either)."""
    result = check({"setup.py": source})
    assert not [f for f in result.findings if f.code == "SP002"]
    assert result.verdict is not None
    assert result.verdict.outcome == "unknown"
    assert "`use_2to3` only on paths" in result.verdict.reason


def test_a_fallback_setup_defined_on_one_path_is_not_followed() -> None:
    """``try: from setuptools import setup`` / ``except ImportError: def setup(**kw)``:
    the build imports setuptools' setup(), whose keywords are read."""
    source = (
        "try:\n    from setuptools import setup\nexcept ImportError:\n"
        "    def setup(**kwargs):\n        pass\n"
        "setup(name='p', version='1.0', use_2to3=True)\n"
    )
    result = check({"setup.py": source})
    assert [f.line for f in result.findings if f.code == "SP002"] == [6]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # isodate 0.4.9: the ImportError clause of `from setuptools import setup` never runs
        # in a build, and sys.version[0] is the target's major version
        (
            "import sys\nkw = {}\ntry:\n    from setuptools import setup\n"
            "    if sys.version[0] == '3':\n        kw['use_2to3'] = True\n"
            "except ImportError:\n    from distutils.core import setup\n"
            "setup(name='p', **kw)\n",
            6,
        ),
        # tornado 2.4.1: major, minor = sys.version_info[:2]
        (
            "import sys\nimport distutils.core\nkwargs = {}\n"
            "major, minor = sys.version_info[:2]\nif major >= 3:\n"
            "    kwargs['use_2to3'] = True\ndistutils.core.setup(name='p', **kwargs)\n",
            6,
        ),
    ],
)
def test_version_tests_of_real_old_sdists(source: str, line: int) -> None:
    result = check({"setup.py": source})
    assert [f.line for f in result.findings if f.code == "SP002"] == [line]


def test_a_key_no_rule_reads_set_on_undecided_paths_leaves_the_verdict() -> None:
    source = (
        "import os\nfrom setuptools import setup\nkw = {}\n"
        "if os.environ.get('X'):\n    kw['zip_safe'] = False\n"
        "setup(name='p', version='1.0', py_modules=[], **kw)\n"
    )
    verdict = check({"setup.py": source}).verdict
    assert verdict is not None
    assert verdict.outcome == "builds"


PACKAGE_JSON = '{"name": "ext", "version": "1.0.0-SNAPSHOT", "author": {"name": "A"}}\n'


@pytest.mark.parametrize(
    ("setup", "line"),
    [
        # jupyter extensions and daff read their version from package.json
        ("import json\nV = json.load(open('package.json'))['version']\n", 4),
        (
            "import json, os\ndef read(name):\n"
            "    with open(os.path.join(os.path.dirname(__file__), name)) as f:\n"
            "        return f.read()\n"
            "V = json.loads(read('package.json'))['version']\n",
            7,
        ),
        (
            "import json\nwith open('package.json') as f:\n    meta = json.load(f)\n"
            "V = meta['version']\n",
            6,
        ),
    ],
)
def test_a_version_read_from_package_json_is_judged(setup: str, line: int) -> None:
    """`1.0.0-SNAPSHOT` is no PEP 440 version (SP005): sapper reads it out of package.json,
    through `json.load`, `json.loads` and `with open(...) as f` in setup.py's functions."""
    source = setup + "from setuptools import setup\nsetup(name='ext', version=V)\n"
    found = [
        f
        for f in check({"setup.py": source, "package.json": PACKAGE_JSON}).findings
        if f.code == "SP005"
    ]
    assert [f.line for f in found] == [line]


def test_requirements_read_with_open_as_f_are_judged() -> None:
    source = (
        "from setuptools import setup\nwith open('requirements.txt') as f:\n"
        "    reqs = f.read().splitlines()\nsetup(name='p', install_requires=reqs)\n"
    )
    found = check({"setup.py": source, "requirements.txt": "six\nopencv-python>=3.\n"})
    assert [f.code for f in found.findings if f.code == "SP006"] == ["SP006"]
