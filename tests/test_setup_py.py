"""setup.py import rules: tables of sources and the versions they fail in."""

from __future__ import annotations

import pytest
from helpers import check


def _sp(source: str, **options: object) -> list[tuple[str, int | None, tuple[str, ...]]]:
    result = check({"setup.py": source}, **options)
    return [(f.code, f.line, f.fails) for f in result.findings]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("import pkg_resources\n", [("SP001", 1, (">=82.0.0",))], id="pkg-resources"),
        pytest.param(
            "from pkg_resources import parse_version\n",
            [("SP001", 1, (">=82.0.0",))],
            id="from-pkg-resources",
        ),
        pytest.param(
            "from setuptools.command.test import test\n",
            [("SP001", 1, ("==72.0.0",)), ("SP003", 1, ())],
            id="test-command-72.0.0-only",
        ),
        pytest.param(
            "from setuptools.extern import packaging\n",
            [("SP001", 1, (">=71.0.0",))],
            id="extern",
        ),
        pytest.param(
            "import distutils.msvccompiler\n",
            [("SP001", 1, (">=65.0.0,<65.0.2", ">=74.0.0"))],
            id="msvccompiler-removed-restored-removed",
        ),
        pytest.param(
            "try:\n    import pkg_resources\nexcept ImportError:\n    pkg_resources = None\n",
            [],
            id="guarded-import",
        ),
        pytest.param(
            "def version():\n    import pkg_resources\n    return 1\n",
            [],
            id="import-inside-function",
        ),
        pytest.param(
            "if True:\n    import pkg_resources\n",
            [("SP001", 2, (">=82.0.0",))],
            id="inside-if",
        ),
        pytest.param("from setuptools import setup, find_packages\n", [], id="fine"),
        # the other rules cannot read it and guess nothing; SP900 says why it fails
        pytest.param("print 'python 2'\n", [("SP900", 1, (">=0",))], id="unparsable"),
    ],
)
def test_removed_imports(source: str, expected: list[tuple[str, int, tuple[str, ...]]]) -> None:
    assert _sp(source) == expected


def test_verdict_for_pkg_resources() -> None:
    source = "import pkg_resources\nfrom setuptools import setup\nsetup()\n"
    assert check({"setup.py": source}, setuptools="81.0.0").verdict.outcome == "builds"
    assert check({"setup.py": source}, setuptools="82.0.0").verdict.outcome == "fails"
    assert check({"setup.py": source}).verdict.because == ("SP001",)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from setuptools import setup\nsetup(use_2to3=True)\n", [("SP002", 2, (">=58.0.2",))]),
        ("from setuptools import setup\nsetup(use_2to3=False)\n", [("SP002", 2, ("==58.0.2",))]),
        # Every falsy literal passes setuptools' `if not value` check (58.0.3+); None is not
        # even checked (keywords set to None are skipped), so it fails nowhere.
        *[
            (
                f"from setuptools import setup\nsetup(use_2to3={lit})\n",
                [("SP002", 2, ("==58.0.2",))],
            )
            for lit in ("False", "0", '""', "''", "b''", "[]", "()", "{}", "set()", "-0", "0.0")
        ],
        ("from setuptools import setup\nsetup(use_2to3=None)\n", []),
        # Truthy literals and anything that is not a literal fail from 58.0.2 on.
        ("from setuptools import setup\nsetup(use_2to3=[0])\n", [("SP002", 2, (">=58.0.2",))]),
        ("from setuptools import setup\nsetup(use_2to3=-1)\n", [("SP002", 2, (">=58.0.2",))]),
        ("import setuptools\nsetuptools.setup(use_2to3=flag)\n", [("SP002", 2, (">=58.0.2",))]),
        (
            "from setuptools import setup\nif __name__ == '__main__':\n    setup(use_2to3=1)\n",
            [("SP002", 3, (">=58.0.2",))],
        ),
        ("from setuptools import setup\nsetup(name='x')\n", []),
        ("def f():\n    setup(use_2to3=True)\n", []),
    ],
)
def test_use_2to3(source: str, expected: list[tuple[str, int, tuple[str, ...]]]) -> None:
    assert _sp(source) == expected


H = "from setuptools import setup\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # SP003: names that a module stopped defining
        pytest.param(
            "from setuptools import Feature\n", [("SP003", 1, (">=46.0.0",))], id="feature"
        ),
        pytest.param(
            "import setuptools\nsetuptools.convert_path('a')\n",
            [("SP003", 2, ("==61.0.0", ">=70.0.0"))],
            id="convert-path-attribute",
        ),
        pytest.param(
            "from setuptools.command import easy_install as ei\nei.get_script_args = None\n",
            [("SP003", 2, (">=68.0.0",))],
            id="get-script-args-monkeypatch",
        ),
        pytest.param(
            "from pkg_resources import packaging\n",
            [("SP001", 1, (">=82.0.0",)), ("SP003", 1, (">=70.0.0,<71.0.0",))],
            id="pkg-resources-packaging",
        ),
        pytest.param(
            "from setuptools.command.test import test\n",
            [("SP001", 1, ("==72.0.0",)), ("SP003", 1, ())],
            id="test-command-served-with-warning",
        ),
        pytest.param(
            "try:\n    from setuptools import Feature\nexcept ImportError:\n    Feature = None\n",
            [],
            id="guarded-name",
        ),
        # setuptools' own distutils (the default since 60.0.0) has no 2to3 helpers; the
        # standard library's had them before. Guarded, but the fallback exits (docutils 0.10)
        pytest.param(
            "from distutils.command.build_py import build_py_2to3\n",
            [("SP003", 1, (">=60.0.0",))],
            id="distutils-2to3",
        ),
        pytest.param(
            "import sys\ntry:\n    from distutils.util import copydir_run_2to3\n"
            "except ImportError:\n    print('no distutils')\n    sys.exit(1)\n",
            [("SP003", 3, (">=60.0.0",))],
            id="distutils-2to3-guarded-by-an-exit",
        ),
        pytest.param(
            "try:\n    from distutils.util import run_2to3\nexcept ImportError:\n"
            "    run_2to3 = None\n",
            [],
            id="distutils-2to3-guarded",
        ),
        pytest.param("from distutils.util import convert_path\n", [], id="distutils-kept-name"),
        # a class statement runs its bases, keywords, decorators and body when setup.py runs
        pytest.param(
            "import setuptools.command.test\n\n"
            "class Test(setuptools.command.test.test):\n    pass\n",
            [("SP001", 1, ("==72.0.0",)), ("SP003", 3, ())],
            id="class-base-through-dotted-import",
        ),
        pytest.param(
            "import setuptools\nif True:\n    class C:\n        f = setuptools.convert_path\n",
            [("SP003", 4, ("==61.0.0", ">=70.0.0"))],
            id="class-body-runs",
        ),
        pytest.param(
            "import setuptools\n@setuptools.convert_path\ndef f(x=setuptools.Feature):\n"
            "    return setuptools.command.test\n",
            [("SP003", 2, ("==61.0.0", ">=70.0.0")), ("SP003", 3, (">=46.0.0",))],
            id="decorator-and-default-run-not-the-body",
        ),
        pytest.param(
            "import setuptools\nclass C:\n    def run(self):\n"
            "        setuptools.convert_path('a')\n",
            [],
            id="method-body-does-not-run",
        ),
        # SP003: a name the module does not define yet (setuptools.errors: 42.0.0 on, its
        # distutils error aliases 59.0.1 on): the project needs a newer setuptools
        pytest.param(
            "from setuptools.errors import SetupError\n",
            [("SP001", 1, ("<42.0.0",)), ("SP003", 1, (">=42.0.0,<59.0.1",))],
            id="errors-not-defined-yet",
        ),
        pytest.param(
            "from setuptools.errors import RemovedCommandError\n",
            [("SP001", 1, ("<42.0.0",))],
            id="errors-defined-since-the-module",
        ),
        pytest.param(H + "setup()\n", [], id="setup-is-fine"),
        # SP004: unordered requirements
        pytest.param(H + "setup(install_requires={'six'})\n", [("SP004", 2, (">=0",))], id="set"),
        pytest.param(
            H + "REQS = frozenset(['six'])\nsetup(setup_requires=REQS)\n",
            [("SP004", 3, (">=0",))],
            id="frozenset-through-name",
        ),
        pytest.param(
            H + "setup(install_requires={'six': None})\n", [("SP004", 2, ("<75.3.0",))], id="dict"
        ),
        pytest.param(H + "setup(install_requires=['six'])\n", [], id="list"),
        # SP005: versions
        pytest.param(
            H + "setup(version='1.0.0-SNAPSHOT')\n", [("SP005", 2, (">=66.0.0",))], id="bad-version"
        ),
        pytest.param(
            H + "V = '2.x'\nsetup(version=V)\n", [("SP005", 3, (">=66.0.0",))], id="version-const"
        ),
        pytest.param(H + "setup(version=1.0)\n", [], id="numeric-version"),
        # (setuptools.sic exists since 46.1.0: older releases lack it)
        pytest.param(
            H + "import setuptools\nsetup(version=setuptools.sic('1-x'))\n",
            [("SP003", 3, ("<46.1.0",))],
            id="sic",
        ),
        pytest.param(
            H + "V = '1'\nV += 'x'\nsetup(version=V)\n",
            [("SP005", 4, (">=66.0.0",))],
            id="augmented-followed",
        ),
        pytest.param(
            H + "import os\nV = '1'\nif os.environ.get('X'):\n    V = '1x'\nsetup(version=V)\n",
            [],
            id="bound-differently-on-two-paths-unknown",
        ),
        pytest.param(
            H + "kw = dict(version='not a version')\nsetup(**kw)\n",
            [("SP005", 2, (">=66.0.0",))],
            id="kwargs-dict",
        ),
        # SP006: requirement strings
        pytest.param(
            H + "setup(install_requires=['pytz>=2012f'])\n", [("SP006", 2, (">=0",))], id="req"
        ),
        pytest.param(
            H + "setup(python_requires='>=3.6.*')\n",
            [("SP006", 2, (">=67.0.0",))],
            id="python-requires",
        ),
        pytest.param(
            H + "setup(extras_require={'t': ['x>=1.0.*']})\n", [("SP006", 2, (">=0",))], id="extra"
        ),
        pytest.param(
            H + "setup(install_requires=['six  # comment', '# only a comment',\n"
            "                        'a; python_version<\"3\"'])\n",
            [],
            id="comments-and-markers-are-fine",
        ),
        pytest.param(
            H + "setup(install_requires=[r for r in open('requirements.txt') if r])\n",
            [],
            id="comprehension-unknown",
        ),
        # SP007: newline in description
        pytest.param(
            H + "setup(description='a\\nb')\n",
            [("SP007", 2, (">=51.3.0,<51.3.3", ">=59.0.1,<59.4.0"))],
            id="description-newline",
        ),
        pytest.param(H + "setup(description='a b\\n')\n", [], id="trailing-newline-stripped"),
        # SP008: dry_run
        pytest.param(
            H + "from distutils.dir_util import mkpath\nmkpath('b', dry_run=0)\nsetup()\n",
            [("SP008", 3, (">=81.0.0",))],
            id="dry-run-module-level",
        ),
        pytest.param(
            H
            + "from setuptools.command.build_py import build_py\n"
            + "class B(build_py):\n    def run(self):\n"
            + "        self.copy_file('a', 'b', dry_run=self.dry_run)\n"
            + "setup(cmdclass={'build_py': B})\n",
            [("SP008", 5, (">=81.0.0",))],
            id="dry-run-in-build-command",
        ),
        pytest.param(
            H
            + "from distutils.dir_util import remove_tree\nfrom setuptools import Command\n"
            + "class Clean(Command):\n    def run(self):\n"
            + "        remove_tree('build', dry_run=self.dry_run)\n"
            + "setup(cmdclass={'clean': Clean})\n",
            [],
            id="dry-run-in-clean-command-never-runs",
        ),
        pytest.param(
            H + "def go(dry_run=False):\n    pass\ngo(dry_run=True)\nsetup()\n",
            [],
            id="own-function-with-dry-run",
        ),
        # SP009: wheel import
        pytest.param(
            H + "from wheel.bdist_wheel import bdist_wheel\n",
            [("SP009", 2, (">=70.1.0,<71.0.0",))],
            id="wheel-import",
        ),
        pytest.param(
            H + "try:\n    from wheel.bdist_wheel import bdist_wheel\nexcept ImportError:\n"
            "    bdist_wheel = None\n",
            [],
            id="wheel-import-guarded",
        ),
    ],
)
def test_setup_py_values(source: str, expected: list[tuple[str, int, tuple[str, ...]]]) -> None:
    assert _sp(source) == expected


def test_wheel_in_build_requires_is_fine() -> None:
    result = check(
        {
            "setup.py": H + "from wheel.bdist_wheel import bdist_wheel\n",
            "pyproject.toml": '[build-system]\nrequires = ["setuptools", "wheel"]\n'
            'build-backend = "setuptools.build_meta"\n',
        }
    )
    assert [f.code for f in result.findings] == []


def test_overdue_name_fails_under_enforcement_only() -> None:
    result = check({"setup.py": "from setuptools.command.test import test\n"})
    sp3 = next(f for f in result.findings if f.code == "SP003")
    assert sp3.fails == ()
    assert sp3.fails_enforced == (">=72.1.0",)
    assert sp3.warns == (">=72.1.0",)
    assert sp3.due_date == "2024-11-15"


def test_requirements_read_from_a_file() -> None:
    source = (
        H + "import os\nhere = os.path.abspath(os.path.dirname(__file__))\n"
        "with open(os.path.join(here, 'requirements.txt')) as f:\n    pass\n"
        "setup(install_requires=open(os.path.join(here, 'requirements.txt')).read().splitlines())\n"
    )
    result = check({"setup.py": source, "requirements.txt": "six\n-e git+https://x/y.git\n"})
    assert [(f.code, f.line) for f in result.findings] == [("SP006", 6)]
    assert "'-e git+https://x/y.git'" in result.findings[0].message


_DBP = "from distutils.command.build_py import build_py as dbp\n" + H


@pytest.mark.parametrize(
    ("source", "cfg", "expected"),
    [
        pytest.param(
            _DBP + "setup(include_package_data=True, cmdclass={'build_py': dbp})\n",
            None,
            [("SP010", 3, (">=58.5.0,<58.5.3",))],
            id="direct",
        ),
        pytest.param(
            _DBP + "class B(dbp):\n    pass\nsetup(cmdclass={'build_py': B})\n",
            "[options]\ninclude_package_data = true\n",
            [("SP010", 5, (">=58.5.0,<58.5.3",))],
            id="subclass-and-cfg",
        ),
        pytest.param(
            _DBP + "setup(cmdclass={'build_py': dbp})\n", None, [], id="no-include-package-data"
        ),
        pytest.param(
            H + "from setuptools.command.build_py import build_py\n"
            "setup(include_package_data=True, cmdclass={'build_py': build_py})\n",
            None,
            [],
            id="setuptools-build-py",
        ),
    ],
)
def test_distutils_build_py(source: str, cfg: str | None, expected) -> None:
    files = {"setup.py": source} | ({"setup.cfg": cfg} if cfg else {})
    result = check(files)
    got = [(f.code, f.line, f.fails) for f in result.findings]
    assert got == expected


def test_exec_makes_constants_unknown() -> None:
    source = (
        H + "__version__ = 'unknown'\nfor line in open('pkg.py'):\n    exec(line)\n"
        "setup(version=__version__)\n"
    )
    assert check({"setup.py": source}).findings == ()


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "setup.py": H + "from mypkg import __version__\nsetup(version=__version__)\n",
                "mypkg/__init__.py": "import pkg_resources\n__version__ = '1.0'\n",
            },
            [("SP001", 2, (">=82.0.0",), "mypkg/__init__.py:1")],
            id="own-package-imports-pkg-resources",
        ),
        pytest.param(
            {
                "setup.py": H + "from mypkg.version import v\nsetup(version=v)\n",
                "mypkg/__init__.py": "from .core import x\n",
                "mypkg/core.py": "from pkg_resources import get_distribution\nx = 1\n",
                "mypkg/version.py": "v = '1'\n",
            },
            [("SP001", 2, (">=82.0.0",), "mypkg/core.py:1")],
            id="through-a-relative-import",
        ),
        pytest.param(
            {
                "setup.py": H + "from mypkg import __version__\nsetup(version=__version__)\n",
                "mypkg/__init__.py": "try:\n    import pkg_resources\nexcept ImportError:\n"
                "    pass\n__version__ = '1.0'\n",
            },
            [],
            id="guarded-in-the-package",
        ),
        pytest.param(
            {
                "setup.py": H + "from mypkg import __version__\nsetup(version=__version__)\n",
                "mypkg/__init__.py": "import pkg_resources\n__version__ = '1.0'\n",
                "pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n'
                'build-backend = "setuptools.build_meta"\n',
            },
            [],
            id="not-on-sys-path-with-build-meta",
        ),
    ],
)
def test_removed_imports_through_the_project_package(files, expected) -> None:
    result = check(files)
    got = [
        (f.code, f.line, f.fails, next(p for p in f.message.split() if ".py:" in p))
        for f in result.findings
        if f.code == "SP001"
    ]
    assert got == expected


def test_plain_distutils_import_is_the_stdlib_one_before_60() -> None:
    assert (
        check({"setup.py": "import distutils\nfrom distutils.core import Extension\n"}).findings
        == ()
    )


# Mutants of setup_py/_shared.py, SP002, SP007 and SP009 that the tables above let survive
# (docs/testing.md).

_BUILD_PY_DRY_RUN = (
    H + "from setuptools.command.build_py import build_py\n"
    "class B(build_py):\n    def run(self):\n"
    "        self.copy_file('a', 'b', dry_run=self.dry_run)\n"
)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param("CMDCLASS = {'build_py': B}\nsetup(cmdclass=CMDCLASS)\n", id="constant"),
        pytest.param("setup(name='x', cmdclass={'build_py': B})\n", id="after-other-keyword"),
    ],
)
def test_cmdclass_named_by_a_constant_or_after_other_keywords(call: str) -> None:
    assert _sp(_BUILD_PY_DRY_RUN + call) == [("SP008", 5, (">=81.0.0",))]


def test_sp002_false_value_message() -> None:
    (finding,) = check({"setup.py": H + "setup(use_2to3=False)\n"}).findings
    assert finding.message == (
        "setup() gets `use_2to3`: a false value (`use_2to3=False`) only failed in "
        "setuptools 58.0.2; drop the keyword"
    )


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        pytest.param(
            "setup(name='x', description='a\\nb')\n",
            [("SP007", 2, (">=51.3.0,<51.3.3", ">=59.0.1,<59.4.0"))],
            id="after-other-keyword",
        ),
        # setuptools' single_line() only looks for "\n" (51.3.0 raised on it, later
        # releases warn): a carriage return alone passes every release.
        pytest.param("setup(description='a\\rb')\n", [], id="carriage-return-only"),
    ],
)
def test_sp007_description_newline(call: str, expected: list[tuple]) -> None:
    assert _sp(H + call) == expected


def test_sp009_plain_import_wheel() -> None:
    assert _sp("import wheel\n" + H + "setup()\n") == [("SP009", 1, (">=70.1.0,<71.0.0",))]


def _sp004(call: str) -> list[tuple[int | None, tuple[str, ...], str, str | None]]:
    result = check({"setup.py": H + call})
    return [(f.line, f.fails, f.message, f.fix) for f in result.findings if f.code == "SP004"]


def _unordered(name: str, kind: str) -> str:
    return (
        f"`{name}` is {kind}: setuptools rejects unordered types ('{name}' must be a string "
        "or list of strings ...; Unordered types are not allowed); pass a list"
    )


@pytest.mark.parametrize(
    ("value", "kind", "fails"),
    [
        pytest.param("set(['a'])", "a set", (">=0",), id="set-call"),
        pytest.param("frozenset(['a'])", "a set", (">=0",), id="frozenset-call"),
        pytest.param("{x for x in 'ab'}", "a set", (">=0",), id="set-comprehension"),
        pytest.param("dict(a='b')", "a dict", ("<75.3.0",), id="dict-call"),
        pytest.param("{k: 'b' for k in 'ab'}", "a dict", ("<75.3.0",), id="dict-comprehension"),
        pytest.param("sorted({'a'})", None, (), id="sorted-set-is-a-list"),
    ],
)
def test_sp004_unordered_containers(value: str, kind: str | None, fails: tuple[str, ...]) -> None:
    found = _sp004(f"setup(name='x', setup_requires={value})\n")
    fix = "pass `setup_requires` as a list (sorted(...) of the set)"
    assert found == ([(2, fails, _unordered("setup_requires", kind), fix)] if kind else [])


@pytest.mark.parametrize(("aliases", "found"), [(7, True), (20, True), (-1, False)])
def test_sp004_follows_a_chain_of_names(aliases: int, found: bool) -> None:
    """Names bound in the order setup.py runs them, to any length; a name read before it
    is bound (a NameError when setup.py runs) is not guessed."""
    if aliases < 0:
        source = "A0 = A1\nA1 = {'a'}\nsetup(install_requires=A0)\n"
        line = 0
    else:
        chain = "".join(f"A{i} = A{i + 1}\n" for i in reversed(range(aliases)))
        source = f"A{aliases} = {{'a'}}\n" + chain + "setup(install_requires=A0)\n"
        line = aliases + 3
    rows = _sp004(source)
    assert [line for line, *_ in rows] == ([line] if found else [])


@pytest.mark.parametrize(
    ("call", "rows"),
    [
        pytest.param(
            "setup(python_requires='>=3.6', install_requires=['pytz>=2012f'])\n",
            [(2, ">=0")],
            id="after-a-valid-python_requires",
        ),
        pytest.param("setup(package_data={'pkg': ['data/*.txt']})\n", [], id="other-dict"),
        pytest.param(
            "setup(install_requires=['pytz>=2012f', REQ])\n", [], id="not-all-strings-known"
        ),
        pytest.param(
            "setup(extras_require={'a': 1, 'b': ['pytz>=2012f']})\n",
            [(2, ">=0")],
            id="extra-after-a-non-list",
        ),
    ],
)
def test_sp006_which_values_are_checked(call: str, rows: list[tuple[int, str]]) -> None:
    result = check({"setup.py": H + call})
    assert [(f.line, f.fails[0]) for f in result.findings if f.code == "SP006"] == rows


def test_sp006_python_requires_message_and_fix() -> None:
    (finding,) = check({"setup.py": H + "setup(python_requires='>=3.6.*')\n"}).findings
    assert (finding.line, finding.column) == (2, 23)
    assert finding.message.startswith(
        "`python_requires='>=3.6.*'` is not a valid specifier for `packaging` ("
    )
    assert finding.message.endswith(
        "); setuptools 67 and later fail with \"'python_requires' must be a string "
        'containing valid version specifiers"'
    )
    assert finding.fix == "write a PEP 440 specifier such as `>=3.6`"


@pytest.mark.parametrize(
    ("tail", "line"),
    [
        pytest.param("setup(cmdclass=dict(build_py=B))\n", 5, id="dict-call"),
        pytest.param("setup(cmdclass=dict(clean=B))\n", None, id="dict-call-not-a-build"),
        pytest.param("setup(cmdclass=make(build_py=B))\n", None, id="other-call"),
        pytest.param("setup(cmdclass={CMD: B, 'build_py': B})\n", 5, id="name-key-skipped"),
    ],
)
def test_sp008_build_commands_from_cmdclass(tail: str, line: int | None) -> None:
    assert _sp(_BUILD_PY_DRY_RUN + tail) == ([("SP008", line, (">=81.0.0",))] if line else [])


@pytest.mark.parametrize(
    "handler",
    [
        "except:",
        "except TypeError:",
        "except Exception as e:",
        "except (OSError, builtins.TypeError):",
        "except BaseException:",
    ],
)
@pytest.mark.parametrize("where", ["module", "method"])
def test_sp008_caught_type_error(handler: str, where: str) -> None:
    # setuptools 81 raises TypeError at the call; an except clause that catches it lets the
    # build go on.
    call = f"try:\n    mkpath('b', dry_run=1)\n{handler}\n    pass\n"
    if where == "module":
        source = H + call + "setup()\n"
    else:
        body = "".join(f"        {line}\n" for line in call.splitlines())
        source = (
            H + "from setuptools.command.build_py import build_py\n"
            "class B(build_py):\n    def run(self):\n" + body + "setup(cmdclass={'build_py': B})\n"
        )
    assert _sp(source) == []


@pytest.mark.parametrize(
    ("source", "line"),
    [
        pytest.param(
            "from distutils.ccompiler import new_compiler\nc = new_compiler(dry_run=1)\n",
            3,
            id="new_compiler",
        ),
        pytest.param(
            "from distutils.unixccompiler import UnixCCompiler\nc = UnixCCompiler(dry_run=1)\n",
            3,
            id="a-CCompiler-class",
        ),
        pytest.param("x = print('a')\nc = mkpath('b', dry_run=1)\n", 3, id="after-other-call"),
        pytest.param("mkpath('a')\nmkpath('b', dry_run=1)\n", 3, id="after-a-call-without"),
        # The TypeError is no ImportError: a guard against a missing import does not catch
        # it, and a fallback that runs when an import fails fails the same.
        pytest.param(
            "try:\n    mkpath('b', dry_run=1)\nexcept ImportError:\n    pass\n",
            3,
            id="in-a-try-guarding-imports",
        ),
        pytest.param(
            "try:\n    import foo\nexcept ImportError:\n    mkpath('b', dry_run=1)\n",
            5,
            id="in-an-import-fallback",
        ),
        pytest.param(
            "try:\n    mkpath('b', dry_run=1)\nexcept OSError:\n    pass\n",
            3,
            id="in-a-try-catching-something-else",
        ),
        pytest.param(
            "try:\n    mkpath('a')\nexcept TypeError:\n    pass\n"
            "else:\n    mkpath('b', dry_run=1)\n",
            7,
            id="in-the-else-of-a-try",
        ),
    ],
)
def test_sp008_dry_run_callees(source: str, line: int) -> None:
    assert _sp(H + source + "setup()\n") == [("SP008", line, (">=81.0.0",))]


@pytest.mark.parametrize(
    ("source", "cfg", "found"),
    [
        pytest.param(
            _DBP + "setup(zip_safe=True, cmdclass={'build_py': dbp})\n",
            None,
            False,
            id="other-true-keyword",
        ),
        *(
            pytest.param(
                _DBP + "setup(cmdclass={'build_py': dbp})\n",
                f"[options]\ninclude_package_data = {v}\n",
                True,
                id=f"cfg-{v}",
            )
            for v in ("1", "yes", "On")
        ),
        pytest.param(
            _DBP + "setup(cmdclass={'build_py': dbp})\n",
            "[metadata]\ninclude_package_data = true\n",
            False,
            id="cfg-other-section",
        ),
        pytest.param(
            _DBP + "setup(cmdclass={'build_py': dbp})\n",
            "[options]\nzip_safe = true\n",
            False,
            id="cfg-other-key",
        ),
        pytest.param(
            "from setuptools.command.build_py import build_py as sbp\n"
            + _DBP
            + "class B(sbp, dbp):\n    pass\n"
            "setup(include_package_data=True, cmdclass={'build_py': B})\n",
            None,
            False,
            id="also-derives-from-setuptools",
        ),
    ],
)
def test_sp010_include_package_data_and_bases(source: str, cfg: str | None, found: bool) -> None:
    files = {"setup.py": source} | ({"setup.cfg": cfg} if cfg else {})
    codes = [f.code for f in check(files).findings if f.code == "SP010"]
    assert codes == (["SP010"] if found else [])


def _sp001(files: dict[str, str]) -> list[tuple]:
    return [
        (f.path, f.line, f.column, f.fails, f.fails_enforced, f.message, f.fix)
        for f in check(files).findings
        if f.code == "SP001"
    ]


def test_sp001_default_advice() -> None:
    assert _sp001({"setup.py": "import setuptools.lib2to3_ex\n"}) == [
        (
            "setup.py",
            1,
            1,
            (">=58.0.0",),
            (">=58.0.0",),
            "setup.py imports `setuptools.lib2to3_ex`, which not every setuptools release "
            "ships (ModuleNotFoundError); remove the import or pin a setuptools that ships it "
            "in build-system.requires",
            None,
        )
    ]


def test_sp001_one_finding_per_module_and_per_line() -> None:
    source = (
        "import os\nimport setuptools\nimport pkg_resources, setuptools.lib2to3_ex\n"
        "import pkg_resources\nimport setuptools.py27compat\n"
    )
    assert [row[1] for row in _sp001({"setup.py": source})] == [3, 5]


PKG_MESSAGE = (
    "setup.py imports `{site}`, and {path}:1 imports `{name}`, which not every setuptools "
    "release ships (ModuleNotFoundError while setup.py runs); read the version without "
    "importing the package, or guard the import"
)


@pytest.mark.parametrize(
    ("package", "site", "name", "path", "fails"),
    [
        pytest.param(
            {"src/mypkg/__init__.py": "import pkg_resources\n"},
            "mypkg",
            "pkg_resources",
            "src/mypkg/__init__.py",
            (">=82.0.0",),
            id="src-root",
        ),
        pytest.param(
            {"lib/mypkg/__init__.py": "import setuptools.lib2to3_ex\n"},
            "mypkg",
            "setuptools.lib2to3_ex",
            "lib/mypkg/__init__.py",
            (">=58.0.0",),
            id="lib-root-setuptools-module",
        ),
        pytest.param(
            {"mypkg/__init__.py": "import distutils.command.bdist_msi\n"},
            "mypkg",
            "distutils.command.bdist_msi",
            "mypkg/__init__.py",
            (">=65.0.0",),
            id="distutils-module",
        ),
        pytest.param(
            {"mypkg/__init__.py": "def (\n", "mypkg/a.py": "import pkg_resources\n"},
            "mypkg.a",
            "pkg_resources",
            "mypkg/a.py",
            (">=82.0.0",),
            id="after-an-unparsable-file",
        ),
        pytest.param(
            {
                "mypkg/__init__.py": "",
                "mypkg/sub/__init__.py": "from .core import x\n",
                "mypkg/sub/core.py": "import pkg_resources\nx = 1\n",
            },
            "mypkg.sub",
            "pkg_resources",
            "mypkg/sub/core.py",
            (">=82.0.0",),
            id="relative-import-in-a-subpackage",
        ),
    ],
)
def test_sp001_through_the_project_package(
    package: dict[str, str], site: str, name: str, path: str, fails: tuple[str, ...]
) -> None:
    files = {"setup.py": f"import os\nimport {site}\n" + H} | package
    message = PKG_MESSAGE.format(site=site, path=path, name=name)
    assert _sp001(files) == [("setup.py", 2, 1, fails, fails, message, None)]


@pytest.mark.parametrize("root", ["", "src/"])
def test_sp001_no_relative_import_in_a_top_level_module(root: str) -> None:
    # Python runs `from . import x` only in a package: in a top-level module it raises
    # "attempted relative import with no known parent package", whatever setuptools is.
    files = {
        "setup.py": "import os\nimport mymod\n" + H,
        f"{root}mymod.py": "from . import helper\n",
        f"{root}helper.py": "import pkg_resources\n",
    }
    assert _sp001(files) == []
    # The same helper imported absolutely is followed.
    files[f"{root}mymod.py"] = "import helper\n"
    assert [next(p for p in row[5].split() if ".py:" in p) for row in _sp001(files)] == [
        f"{root}helper.py:1"
    ]


def _chain(length: int, relative: bool) -> dict[str, str]:
    """setup.py imports m0, m0 imports m1, ..., the last one imports pkg_resources."""
    files = {"setup.py": "import os\nfrom mypkg import m0\n" + H, "mypkg/__init__.py": ""}
    for i in range(length):
        nxt = f"from . import m{i + 1}\n" if relative else f"import mypkg.m{i + 1}\n"
        files[f"mypkg/m{i}.py"] = nxt if i + 1 < length else "import pkg_resources\n"
    return files


@pytest.mark.parametrize("relative", [False, True])
@pytest.mark.parametrize(("length", "found"), [(3, True), (4, True), (12, True)])
def test_sp001_follows_local_imports_to_any_depth(relative: bool, length: int, found: bool) -> None:
    paths = [
        next(p for p in row[5].split() if ".py:" in p) for row in _sp001(_chain(length, relative))
    ]
    assert paths == ([f"mypkg/m{length - 1}.py:1"] if found else [])


@pytest.mark.parametrize(
    ("imports", "value", "found"),
    [
        pytest.param(
            "import distutils.command.build_py as m\n", "m.build_py", True, id="module-alias"
        ),
        pytest.param(
            "from distutils.command import build_py\n",
            "build_py.build_py",
            True,
            id="from-package",
        ),
        pytest.param(
            "import distutils.command.build_py\n",
            "distutils.command.build_py.build_py",
            True,
            id="dotted",
        ),
        pytest.param("import distutils.command\n", "distutils.command", False, id="a-module"),
        pytest.param("x = 1\n", "build_py", False, id="not-imported"),
        pytest.param("x = 1\n", "make_command()", False, id="a-call"),
    ],
)
def test_sp010_how_distutils_build_py_is_named(imports: str, value: str, found: bool) -> None:
    source = imports + H + f"setup(include_package_data=True, cmdclass={{'build_py': {value}}})\n"
    assert [f.code for f in check({"setup.py": source}).findings if f.code == "SP010"] == (
        ["SP010"] if found else []
    )


_SBP_MOD = "import setuptools.command.build_py as sbp\n"


@pytest.mark.parametrize(
    ("imports", "bases", "body", "found"),
    [
        # setuptools' build_py defines get_data_files_without_manifest, which 58.5.0-58.5.2
        # call and later releases look up with hasattr(): a class that has it among its
        # bases, however the base is named, is fine.
        pytest.param(_SBP_MOD, "sbp.build_py", "pass", False, id="module-alias-only"),
        pytest.param(_SBP_MOD, "sbp.build_py, dbp", "pass", False, id="module-alias-and-dbp"),
        pytest.param(
            "import setuptools.command.build_py\n",
            "setuptools.command.build_py.build_py, dbp",
            "pass",
            False,
            id="dotted-and-dbp",
        ),
        pytest.param(
            "from setuptools.command import build_py as m\n",
            "m.build_py, dbp",
            "pass",
            False,
            id="from-package-and-dbp",
        ),
        pytest.param(
            "from setuptools.command.build_py import build_py as sbp\nclass A(sbp):\n    pass\n",
            "A, dbp",
            "pass",
            False,
            id="through-a-local-class",
        ),
        pytest.param(
            "x = 1\n",
            "dbp",
            "def get_data_files_without_manifest(self):\n        return []",
            False,
            id="defines-the-method",
        ),
        # A base from a module whose name says "setuptools" is no build_py of setuptools.
        pytest.param(
            "from setuptools_helpers import Mixin\n",
            "Mixin, dbp",
            "pass",
            True,
            id="other-module-named-setuptools",
        ),
        pytest.param(
            "x = 1\n",
            "dbp",
            "def get_data_files(self):\n        return []",
            True,
            id="defines-another-method",
        ),
    ],
)
def test_sp010_setuptools_build_py_among_the_bases(
    imports: str, bases: str, body: str, found: bool
) -> None:
    source = (
        imports
        + _DBP
        + f"class B({bases}):\n    {body}\n"
        + "setup(include_package_data=True, cmdclass={'build_py': B})\n"
    )
    assert [f.code for f in check({"setup.py": source}).findings if f.code == "SP010"] == (
        ["SP010"] if found else []
    )


_DBP_IMPORT = "from distutils.command.build_py import build_py\n"
_SBP_IMPORT = "from setuptools.command.build_py import build_py\n"


@pytest.mark.parametrize(
    ("imports", "found"),
    [
        # Every setuptools release ships setuptools.command.build_py: the try body never
        # fails, so the distutils fallback never runs.
        pytest.param(
            "try:\n    " + _SBP_IMPORT + "except ImportError:\n    " + _DBP_IMPORT,
            False,
            id="setuptools-first-distutils-fallback",
        ),
        pytest.param(
            "try:\n    import setuptools.command.build_py\n    "
            + _SBP_IMPORT
            + "except Exception:\n    "
            + _DBP_IMPORT,
            False,
            id="two-setuptools-imports-first",
        ),
        # A body that can fail (another package; setuptools.command.test, which 72.0.0
        # lacks, is no help here: 58.5.x have it) lets the fallback run.
        pytest.param(
            "try:\n    from somepkg import build_py\nexcept ImportError:\n    " + _DBP_IMPORT,
            True,
            id="other-package-first",
        ),
        pytest.param(
            "try:\n    " + _SBP_IMPORT + "    x = 1\nexcept ImportError:\n    " + _DBP_IMPORT,
            True,
            id="more-than-imports-in-the-body",
        ),
        pytest.param(
            "try:\n    from setuptools.command.bdist_wininst import x\n"
            "except ImportError:\n    " + _DBP_IMPORT,
            True,
            id="setuptools-module-missing-in-58.5",
        ),
        # distutils' build_py imported inside a try that catches ImportError still binds it
        # (distutils is there for 58.5.x).
        pytest.param(
            "try:\n    " + _DBP_IMPORT + "except ImportError:\n    pass\n",
            True,
            id="guarded-distutils-import",
        ),
    ],
)
def test_sp010_imports_in_try_statements(imports: str, found: bool) -> None:
    source = imports + H + "setup(include_package_data=True, cmdclass={'build_py': build_py})\n"
    assert [f.code for f in check({"setup.py": source}).findings if f.code == "SP010"] == (
        ["SP010"] if found else []
    )


def test_sp010_setuptools_base_seven_deep() -> None:
    classes = "class C0(sbp, dbp):\n    pass\n" + "".join(
        f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, 8)
    )
    source = (
        "from setuptools.command.build_py import build_py as sbp\n"
        + _DBP
        + classes
        + "setup(include_package_data=True, cmdclass={'build_py': C7})\n"
    )
    assert [f.code for f in check({"setup.py": source}).findings] == []


@pytest.mark.parametrize(
    ("module", "found"),
    [("distutils.command.build_py", True), ("setuptools.command.build_py", False)],
)
def test_sp010_class_named_like_its_base(module: str, found: bool) -> None:
    source = (
        f"from {module} import build_py\n" + H + "class build_py(build_py):\n    pass\n"
        "setup(include_package_data=True, cmdclass={'build_py': build_py})\n"
    )
    assert [f.code for f in check({"setup.py": source}).findings] == (["SP010"] if found else [])


@pytest.mark.parametrize(("depth", "found"), [(7, True), (8, False)])
def test_sp010_follows_base_classes_seven_deep(depth: int, found: bool) -> None:
    classes = "class C0(dbp):\n    pass\n" + "".join(
        f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, depth + 1)
    )
    source = (
        _DBP + classes + f"setup(include_package_data=True, cmdclass={{'build_py': C{depth}}})\n"
    )
    assert [f.code for f in check({"setup.py": source}).findings if f.code == "SP010"] == (
        ["SP010"] if found else []
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "setup.py": "import pkg_resources\nimport mypkg\n" + H,
                "mypkg/__init__.py": "import setuptools\nimport pkg_resources\n"
                "import setuptools.lib2to3_ex\n",
            },
            [(1, None), (2, "mypkg/__init__.py:3")],
            id="after-a-shipped-and-an-already-reported-module",
        ),
        # setuptools' own sdist (and vendoring projects) ship setuptools/, pkg_resources/
        # or distutils/ directories: setup.py's imports of those are not the project's.
        pytest.param(
            {
                "setup.py": "import os\nimport setuptools\n",
                "setuptools/__init__.py": "import setuptools.lib2to3_ex\n",
            },
            [],
            id="local-setuptools",
        ),
        pytest.param(
            {
                "setup.py": "import os\nfrom pkg_resources import extern\n",
                "pkg_resources/__init__.py": "import setuptools.lib2to3_ex\n",
            },
            [(2, None)],
            id="local-pkg_resources",
        ),
        pytest.param(
            {
                "setup.py": "import os\nimport distutils.core\n" + H,
                "distutils/__init__.py": "import setuptools.lib2to3_ex\n",
                "distutils/core.py": "import setuptools.lib2to3_ex\n",
            },
            [],
            id="local-distutils",
        ),
    ],
)
def test_sp001_which_local_imports_are_followed(
    files: dict[str, str], expected: list[tuple[int, str | None]]
) -> None:
    got = [
        (row[1], next((p for p in row[5].split() if ".py:" in p), None)) for row in _sp001(files)
    ]
    assert got == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "from setuptools.dist import check_test_suite\n",
            [
                (
                    1,
                    1,
                    "setup.py uses `setuptools.dist.check_test_suite`: setuptools removed it "
                    "(ImportError); stop using it",
                )
            ],
            id="default-advice",
        ),
        pytest.param(
            "import setuptools.command.easy_install as ei\nx = ei.get_script_header\n",
            [
                (
                    2,
                    5,
                    "setup.py uses `setuptools.command.easy_install.get_script_header`: "
                    "setuptools removed it (ImportError); drop the script-generation patch",
                )
            ],
            id="attribute-column",
        ),
        pytest.param(
            "from setuptools.dist import check_test_suite\nimport setuptools.dist\n"
            "x = setuptools.dist.check_test_suite\n",
            [(1, 1, None)],
            id="one-finding-per-name",
        ),
    ],
)
def test_sp003_removed_names(source: str, expected: list[tuple]) -> None:
    """``None`` for a message: only the position is compared."""
    got = [(f.line, f.column, f.message) for f in check({"setup.py": source}).findings]
    assert len(got) == len(expected)
    for (line, column, message), want in zip(got, expected, strict=True):
        assert (line, column, message if want[2] else None) == want


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(H + "setup(long_description='a\\nb')\n", [], id="sp007-other-keyword"),
        pytest.param(
            H + "setup(install_requires=['a'], setup_requires={'b'})\n",
            [("SP004", 2, (">=0",))],
            id="sp004-after-a-list",
        ),
        pytest.param(
            H + "setup(cmdclass=base.copy())\n", [], id="sp008-cmdclass-from-a-method-call"
        ),
        pytest.param(
            H + "from distutils.dir_util import mkpath\n"
            "x = [print('a'), mkpath('b', dry_run=1)]\nsetup()\n",
            [("SP008", 3, (">=81.0.0",))],
            id="sp008-after-another-call-in-one-statement",
        ),
        pytest.param(
            H + "from distutils.dir_util import mkpath\n"
            "x = [mkpath('a'), mkpath('b', dry_run=1)]\nsetup()\n",
            [("SP008", 3, (">=81.0.0",))],
            id="sp008-after-a-call-without-dry-run-in-one-statement",
        ),
        pytest.param(
            H + "from setuptools.command.build_py import build_py\n"
            "class Mixin:\n    def run(self):\n"
            "        self.copy_file('a', 'b', dry_run=self.dry_run)\n"
            "class B(Mixin, build_py):\n    pass\n"
            "setup(cmdclass={'build_py': B})\n",
            [("SP008", 5, (">=81.0.0",))],
            id="sp008-mixin-before-an-imported-base",
        ),
    ],
)
def test_setup_py_rules_keep_going(source: str, expected: list[tuple]) -> None:
    assert _sp(source) == expected


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        pytest.param(
            "setup(include_package_data=True, cmdclass={**base, 'sdist': dbp, 'build_py': dbp})\n",
            [("SP010", 3, 78)],
            id="only-the-build_py-entry",
        ),
        pytest.param(
            "setup(include_package_data=True, cmdclass={'build': dbp})\n", [], id="other-command"
        ),
        pytest.param(
            "import sys\nif sys.argv:\n    setup(include_package_data=True, cmdclass=make())\n"
            "else:\n    setup(include_package_data=True, cmdclass={'build_py': dbp})\n",
            [("SP010", 7, 60)],
            id="second-setup-call",
        ),
    ],
)
def test_sp010_which_cmdclass_entry(call: str, expected: list[tuple]) -> None:
    result = check({"setup.py": _DBP + call})
    assert [(f.code, f.line, f.column) for f in result.findings] == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "from setuptools.command.easy_install import ScriptWriter\n",
            [
                (
                    1,
                    1,
                    "setup.py uses `setuptools.command.easy_install.ScriptWriter`: setuptools "
                    "removed it (ImportError); setuptools >=80.3.1 serves it with a deprecation "
                    "warning; stop using it",
                )
            ],
            id="removed-then-served",
        ),
        pytest.param(
            "if True:\n    from setuptools import Feature\n",
            [
                (
                    2,
                    5,
                    "setup.py uses `setuptools.Feature`: setuptools removed it (ImportError); "
                    "`Feature` was removed in setuptools 46; declare extras with "
                    "`extras_require`",
                )
            ],
            id="indented-from-import",
        ),
        pytest.param(
            "import setuptools\nx = [setuptools.convert_path('a'), setuptools.convert_path('b')]\n",
            [
                (
                    2,
                    6,
                    "setup.py uses `setuptools.convert_path`: setuptools removed it "
                    "(ImportError); import `convert_path` from `distutils.util` (or build paths "
                    "with pathlib)",
                )
            ],
            id="one-finding-per-name-at-its-first-use",
        ),
    ],
)
def test_sp003_position_and_message(source: str, expected: list[tuple]) -> None:
    result = check({"setup.py": source})
    assert [(f.line, f.column, f.message) for f in result.findings if f.code == "SP003"] == (
        expected
    )


@pytest.mark.parametrize(
    ("imports", "use"),
    [
        pytest.param(
            "import setuptools.command.easy_install\n",
            "setuptools.command.easy_install",
            id="dotted",
        ),
        pytest.param("import setuptools.command.easy_install as ei\n", "ei", id="module-alias"),
        pytest.param(
            "from setuptools.command import easy_install\n", "easy_install", id="from-package"
        ),
        pytest.param(
            "from setuptools.command import easy_install as e\n", "e", id="from-package-alias"
        ),
        pytest.param(
            "import os, setuptools.command.easy_install\n",
            "setuptools.command.easy_install",
            id="second-of-two",
        ),
    ],
)
def test_sp003_attribute_through_import_names(imports: str, use: str) -> None:
    source = imports + f"{use}.get_script_args = None\n"
    assert [(f.code, f.line) for f in check({"setup.py": source}).findings] == [("SP003", 2)]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        # setuptools.convert_path is gone in 70.0.0: the AttributeError is no ImportError.
        pytest.param(
            "try:\n    X = setuptools.convert_path\nexcept ImportError:\n    pass\n",
            True,
            id="guarded-against-import-errors",
        ),
        pytest.param(
            "try:\n    X = setuptools.convert_path\nexcept AttributeError:\n    pass\n",
            False,
            id="attribute-error-caught",
        ),
        pytest.param(
            "try:\n    X = setuptools.convert_path\nexcept (ValueError, Exception):\n    pass\n",
            False,
            id="exception-caught",
        ),
        pytest.param(
            "try:\n    X = setuptools.convert_path\nexcept:\n    pass\n", False, id="bare-except"
        ),
        # Attributes that name nothing sapper knows come first in the statement.
        pytest.param("X = [f().y, setuptools.convert_path]\n", True, id="after-a-call-attribute"),
        pytest.param("X = [y.z, setuptools.convert_path]\n", True, id="after-an-unknown-name"),
    ],
)
def test_sp003_attribute_uses(source: str, found: bool) -> None:
    codes = [f.code for f in check({"setup.py": "import setuptools\n" + source}).findings]
    assert codes == (["SP003"] if found else [])


def test_sp003_each_name_once_and_the_next_one_too() -> None:
    source = "from setuptools import Feature\nfrom setuptools import Feature, convert_path\n"
    result = check({"setup.py": source})
    assert [(f.line, f.message.split("`")[1]) for f in result.findings] == [
        (1, "setuptools.Feature"),
        (2, "setuptools.convert_path"),
    ]


def test_sp008_caught_call_then_an_uncaught_one_in_a_command() -> None:
    source = (
        H + "from setuptools.command.build_py import build_py\n"
        "class B(build_py):\n    def run(self):\n"
        "        try:\n            self.mkpath('a', dry_run=1)\n"
        "        except Exception:\n            pass\n"
        "        if self.force:\n            if self.verbose:\n"
        "                self.copy_file('a', 'b', dry_run=1)\n"
        "setup(cmdclass={'build_py': B})\n"
    )
    assert _sp(source) == [("SP008", 11, (">=81.0.0",))]


def test_sp008_except_clause_naming_a_call() -> None:
    # `except errors():` is valid Python; what it catches is unknown, so the call counts.
    source = H + "try:\n    mkpath('b', dry_run=1)\nexcept errors():\n    pass\nsetup()\n"
    assert _sp(source) == [("SP008", 3, (">=81.0.0",))]


def test_sp010_imports_after_an_unreached_except_clause() -> None:
    source = (
        "try:\n    from setuptools.command.build_py import build_py\n"
        "except ImportError:\n    from distutils.command.build_py import build_py\n"
        + _DBP
        + "setup(include_package_data=True, cmdclass={'build_py': dbp})\n"
    )
    assert [f.code for f in check({"setup.py": source}).findings] == ["SP010"]


# ------------------------------------------------------------------ SP011 (scripts/new_rule.py)

_SP011_HEAD = (
    "from setuptools import setup\n"
    "from setuptools.command.build_py import build_py\n"
    "from setuptools.command.build_ext import build_ext\n"
    "from setuptools import Extension\n"
)
_SP011_GET = '        self.distribution.get_command_obj("install")\n'


def _sp011(
    method: str, body: str, command: str = "build_py", keywords: str = "py_modules=['m']"
) -> str:
    return (
        _SP011_HEAD
        + f"class Cmd({command}):\n    def {method}(self):\n        super().{method}()\n"
        + body
        + f"setup(name='x', version='1', {keywords},\n      cmdclass={{'{command}': Cmd}})\n"
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"setup.py": _sp011("finalize_options", _SP011_GET)},
            [("SP011", 10)],
            id="build-py-finalize",
        ),
        pytest.param(
            {"setup.py": _sp011("initialize_options", _SP011_GET)},
            [("SP011", 10)],
            id="build-py-initialize",
        ),
        pytest.param(
            {
                "setup.py": _sp011(
                    "finalize_options",
                    '        self.set_undefined_options("install", ("force", "force"))\n',
                )
            },
            [("SP011", 10)],
            id="set-undefined-options",
        ),
        pytest.param(
            {
                "setup.py": _sp011(
                    "finalize_options",
                    '        self.get_finalized_command("install")\n',
                    "build_ext",
                    "ext_modules=[Extension('m', ['m.c'])]",
                )
            },
            [("SP011", 10)],
            id="build-ext-with-ext-modules",
        ),
        pytest.param(
            {
                "setup.py": _SP011_HEAD
                + 'import setuptools\nd = setuptools.Distribution()\nd.get_command_obj("install")\n'
            },
            [("SP011", 7)],
            id="module-level",
        ),
        pytest.param(
            {
                "setup.py": _SP011_HEAD + "import sys, setuptools\n"
                'if "install" in sys.argv:\n'
                '    setuptools.Distribution().get_command_obj("install")\n'
            },
            [],
            id="module-level-under-argv-install",
        ),
        pytest.param(
            {
                "setup.py": "from setuptools import setup\nfrom cpydist import BuildExt\n"
                "setup(name='x', version='1', ext_modules=EXTENSIONS,\n"
                "      cmdclass={'build_ext': BuildExt})\n",
                "cpydist/__init__.py": "from setuptools.command.build_ext import build_ext\n"
                "from setuptools import Command\n\n"
                "class Base(Command):\n    def finalize_options(self):\n"
                '        install = self.distribution.get_command_obj("install")\n\n'
                "class BuildExt(build_ext, Base):\n    def finalize_options(self):\n"
                "        build_ext.finalize_options(self)\n        Base.finalize_options(self)\n",
            },
            [("SP011", 4)],
            id="mysql-shape-base-in-project-module",
        ),
        pytest.param(
            {"setup.py": _sp011("finalize_options", _SP011_GET, "bdist_wheel")},
            [("SP011", 10)],
            id="bdist-wheel-finalized-by-dist-info",
        ),
        pytest.param(
            {"setup.py": _sp011("finalize_options", _SP011_GET, "build", "zip_safe=False")},
            [("SP011", 10)],
            id="build-without-modules",
        ),
        pytest.param(
            {"setup.py": _sp011("run", _SP011_GET)},
            [],
            id="in-run-only",
        ),
        pytest.param(
            {"setup.py": _sp011("finalize_options", _SP011_GET, "build_ext", "py_modules=['m']")},
            [],
            id="build-ext-without-ext-modules",
        ),
        pytest.param(
            {"setup.py": _sp011("finalize_options", _SP011_GET, "build_ext", "ext_modules=[]")},
            [],
            id="build-ext-with-empty-ext-modules",
        ),
        pytest.param(
            {"setup.py": _sp011("finalize_options", _SP011_GET, "install_lib", "py_modules=['m']")},
            [],
            id="wheel-stage-command",
        ),
        pytest.param(
            {"setup.py": _sp011("finalize_options", '        self.get_command_obj("build")\n')},
            [],
            id="another-command",
        ),
    ],
)
def test_sp011(files: dict[str, str], expected: list[tuple[str, int]]) -> None:
    from helpers import check as check_files_of

    found = check_files_of(files, enforce_deprecations=True).findings
    assert [(f.code, f.line) for f in found if f.code == "SP011"] == expected
    for f in found:
        if f.code == "SP011":
            assert f.fails == ()  # an error only when enforced
            assert "80.1.0" in " ".join(f.fails_enforced)
