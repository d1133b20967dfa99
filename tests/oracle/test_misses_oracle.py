"""Two shapes static analysis used to miss, against real setuptools through the PEP 517
metadata hooks: a removed keyword passed through a dict that setup.py builds for
``setup(**kwargs)``, and a guarded import whose ``except ImportError`` fallback itself
fails. sapper's verdict must equal what setuptools did, on both sides of the removal."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .harness import metadata_outcome

pytestmark = [pytest.mark.oracle, pytest.mark.network]

HEAD = "import sys\nfrom setuptools import setup\n"

KWARGS = {
    "subscript-under-version-test": HEAD
    + "kw = {}\nif sys.version_info >= (3,):\n    kw['use_2to3'] = True\n"
    + "setup(name='probe', version='1.0', py_modules=[], **kw)\n",
    "update-in-function": HEAD
    + "def get_kwargs():\n    extra = dict(name='probe', version='1.0', py_modules=[])\n"
    + "    if sys.version_info[0] == 2:\n        pass\n    else:\n"
    + "        extra.update(use_2to3=True)\n    return extra\n"
    + "setup(**get_kwargs())\n",
    "dict-call-then-setdefault": HEAD
    + "opts = dict(name='probe', version='1.0')\nopts.setdefault('use_2to3', True)\n"
    + "opts['py_modules'] = []\nsetup(**opts)\n",
    # the Python 2 branch never runs: the build passes everywhere
    "python2-branch-only": HEAD
    + "kw = {}\nif sys.version_info < (3,):\n    kw['use_2to3'] = True\n"
    + "setup(name='probe', version='1.0', py_modules=[], **kw)\n",
}

GUARD = (
    "from setuptools import setup\ntry:\n    import pkg_resources\nexcept ImportError:\n"
    "{handler}\nsetup(name='probe', version='1.0', py_modules=[])\n"
)
GUARDS = {
    "fallback-imports-ez-setup": (
        GUARD.format(handler="    from ez_setup import use_setuptools\n    use_setuptools()"),
        {},
    ),
    "fallback-exits": (GUARD.format(handler="    sys.exit('setuptools is required')"), {}),
    # the fallback works: ez_setup.py ships in the sdist, or the name is just set to None
    "fallback-ships-ez-setup": (
        GUARD.format(handler="    from ez_setup import use_setuptools\n    use_setuptools()"),
        {"ez_setup.py": "def use_setuptools():\n    pass\n"},
    ),
    "fallback-works": (GUARD.format(handler="    pkg_resources = None"), {}),
}


def _agree(project: Path, versions: tuple[str, ...], code: str) -> list[str]:
    def one(version: str) -> str | None:
        real = metadata_outcome(version, project)
        result = check_target(str(project), Options(setuptools=version))
        assert result.verdict is not None
        actual = "fails" if real else "builds"
        if result.verdict.outcome != actual:
            return f"{version}: sapper {result.verdict.outcome}, setuptools {real or 'ok'}"
        if actual == "fails" and code not in result.verdict.because:
            return f"{version}: fails, but not because of {code}: {result.verdict.because}"
        return None

    with ThreadPoolExecutor(2) as pool:
        return [m for m in pool.map(one, versions) if m]


@pytest.mark.parametrize("name", list(KWARGS))
def test_kwargs_dict_matches_setuptools(tmp_path: Path, name: str) -> None:
    (tmp_path / "setup.py").write_text(KWARGS[name])
    mismatches = _agree(tmp_path, ("57.5.0", "58.0.2", "84.2.1"), "SP002")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("name", list(GUARDS))
def test_guarded_import_fallback_matches_setuptools(tmp_path: Path, name: str) -> None:
    source, extra = GUARDS[name]
    if "sys.exit" in source:
        source = "import sys\n" + source
    (tmp_path / "setup.py").write_text(source)
    for rel, text in extra.items():
        (tmp_path / rel).write_text(text)
    mismatches = _agree(tmp_path, ("81.0.0", "82.0.0"), "SP001")
    assert not mismatches, "\n".join(mismatches)


#: Issue 21: values that reach setup() through code, conditions on the target, guarded
#: imports deep in the project. (files, versions, the rule that explains a failure)
ISSUE21: dict[str, tuple[dict[str, str], tuple[str, ...], str]] = {
    "setup-in-main-kwargs-returned": (
        {
            "setup.py": HEAD
            + "def extra():\n    d = dict(py_modules=[])\n    d['use_2to3'] = True\n"
            + "    return d\ndef main():\n    kw = extra()\n"
            + "    setup(name='probe', version='1.0', **kw)\n"
            + "if __name__ == '__main__':\n    main()\n"
        },
        ("57.5.0", "58.0.2", "84.2.1"),
        "SP002",
    ),
    "extras-dict-built-up": (
        {
            "setup.py": HEAD
            + "extras = {}\nextras['cv'] = ['opencv-python>=3.']\n"
            + "setup(name='probe', version='1.0', py_modules=[], extras_require=extras)\n"
        },
        ("66.1.1", "67.0.0", "84.2.1"),
        "SP006",
    ),
    # the branch runs on Windows only: on Linux every release builds
    "windows-only-import": (
        {
            "setup.py": HEAD
            + "if sys.platform == 'win32':\n    import distutils.msvccompiler\n"
            + "setup(name='probe', version='1.0', py_modules=[])\n"
        },
        ("73.0.1", "74.0.0"),
        "SP001",
    ),
    "guard-three-modules-away": (
        {
            "setup.py": HEAD
            + "import pkg.main\nsetup(name='pkg', version='1.0', packages=['pkg'])\n",
            "pkg/__init__.py": "",
            "pkg/main.py": "from pkg import bitfile\n",
            "pkg/bitfile.py": "import sys\ntry:\n    import pkg_resources\n"
            + "except ImportError:\n    sys.exit(1)\n",
        },
        ("81.0.0", "82.0.0"),
        "SP001",
    ),
    "else-branch-not-run": (
        {
            "setup.py": HEAD
            + "from pkg import V\nsetup(name='pkg', version=V, packages=['pkg'])\n",
            "pkg/__init__.py": "import sys\nV = '1.0'\nif sys.version_info >= (3, 8):\n"
            + "    import importlib.metadata\nelse:\n    import pkg_resources\n",
        },
        ("81.0.0", "82.0.0"),
        "SP001",
    ),
    # SP008/SP010 read the branch that runs on the target only: on Linux, a Windows branch
    # builds and a Linux one fails
    **{
        f"{where}-only-{what}": (
            {
                "setup.py": HEAD
                + f"if sys.platform{test}:\n{body}"
                + "setup(name='probe', version='1.0', packages=['probe'],\n"
                + "      include_package_data=True, cmdclass=cmdclass)\n",
                "probe/__init__.py": "",
            },
            versions,
            code,
        )
        for where, test in (("windows", " == 'win32'"), ("linux", ".startswith('linux')"))
        for what, body, versions, code in (
            (
                "dry-run",
                "    from distutils.dir_util import mkpath\n    mkpath('build/x', dry_run=0)\n"
                "cmdclass = {}\n",
                ("80.9.0", "81.0.0"),
                "SP008",
            ),
            (
                "distutils-build-py",
                "    from distutils.command.build_py import build_py\n"
                "else:\n    from setuptools.command.build_py import build_py\n"
                "cmdclass = {'build_py': build_py}\n",
                ("58.4.0", "58.5.0"),
                "SP010",
            ),
        )
    },
}


@pytest.mark.parametrize("name", list(ISSUE21))
def test_issue21_shapes_match_setuptools(tmp_path: Path, name: str) -> None:
    files, versions, code = ISSUE21[name]
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    mismatches = _agree(tmp_path, versions, code)
    assert not mismatches, "\n".join(mismatches)


#: Real sdists whose findings the issue-21 engine changed (over 3,052 cached sdists), where
#: the verdict is not "unknown": (pin, root directory, versions, the rule that explains the
#: failure).
REAL = [
    # ships ez_setup.py and calls use_setuptools() first thing: 82.0.0 tries to download
    ("palettable==3.3.1", "palettable-3.3.1", ("81.0.0", "82.0.0"), "SP001"),
    # setup() inside install(), run under `if __name__ == "__main__"`, with
    # python_requires=">=3.5.*"
    ("astroid==2.3.3", "astroid-2.3.3", ("66.1.1", "67.0.0"), "SP006"),
    # the same python_requires, setup() in a function (66.1.1: "unknown", keywords unread)
    ("pylint==2.4.4", "pylint-2.4.4", ("67.0.0", "84.2.1"), "SP006"),
    # use_2to3 added to a dict under `if sys.version_info >= (3, 0):`, setup() in a function
    ("billiard==2.7.3.19", "billiard-2.7.3.19", ("57.5.0", "58.0.2", "84.2.1"), "SP002"),
    # use_2to3 in a try whose ImportError clause never runs (`from setuptools import
    # setup`), under `sys.version[0] == '3'`; and under `major >= 3` after
    # `major, minor = sys.version_info[:2]`
    ("isodate==0.4.9", "isodate-0.4.9", ("57.5.0", "58.0.2"), "SP002"),
    ("tornado==2.4.1", "tornado-2.4.1", ("57.5.0", "58.0.2"), "SP002"),
    # description=long_desc, bound at module level, read although a helper exec()s into a
    # namespace of its own
    (
        "sphinxcontrib-serializinghtml==1.1.3",
        "sphinxcontrib-serializinghtml-1.1.3",
        ("59.0.1", "59.3.0", "59.4.0"),
        "SP007",
    ),
]


@pytest.mark.parametrize(("pin", "root", "versions", "code"), REAL, ids=[r[0] for r in REAL])
def test_real_sdists_match_setuptools(
    tmp_path: Path, pin: str, root: str, versions: tuple[str, ...], code: str
) -> None:
    """sapper's verdict on the unpacked sdist equals the real build's, on both sides."""
    import io
    import tarfile

    from sapper.pypi import Index

    download = Index(cache_dir=None).fetch(pin)
    with tarfile.open(fileobj=io.BytesIO(download.data)) as archive:
        archive.extractall(tmp_path, filter="data")
    mismatches = _agree(tmp_path / root, versions, code)
    assert not mismatches, "\n".join(mismatches)
