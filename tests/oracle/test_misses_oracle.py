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
