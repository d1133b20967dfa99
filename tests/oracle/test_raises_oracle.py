"""SP901 against real setuptools: a setup.py that surely raises (or exits with a failure)
in a wheel build fails with old and new releases, with the exception and message sapper
names; the controls (the raise in a branch a wheel build never takes) build."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .harness import reason_mismatch, require_runnable, run_hooks
from .reasons import reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]

HEAD = "import sys\nfrom setuptools import setup\n"
SETUP = 'setup(name="probe", version="1.0", py_modules=[])\n'
BANNER = "#####\nThis is a placeholder: install it from the other index.\n#####\n"

#: (id, setup.py after HEAD, other files, the exception the real build raises or None)
CASES: list[tuple[str, str, dict[str, str], str | None]] = [
    ("module-level", 'raise RuntimeError("placeholder")\n', {}, "RuntimeError"),
    (
        "nvidia-else-of-argv-sdist",
        'if sys.argv[1] == "sdist":\n    '
        + SETUP
        + 'else:\n    raise RuntimeError(open("ERROR.txt", "r").read())\n',
        {"ERROR.txt": BANNER},
        "RuntimeError",
    ),
    (
        "dunder-main",
        'if __name__ == "__main__":\n    raise RuntimeError("main")\n',
        {},
        "RuntimeError",
    ),
    ("sys-exit-message", 'sys.exit("not here")\n', {}, "SystemExit"),
    (
        "imported-module",
        "import info\n" + SETUP,
        {"info.py": 'raise RuntimeError("info")\n'},
        "RuntimeError",
    ),
    (
        "control-sdist-branch",
        'if sys.argv[1] == "sdist":\n    raise RuntimeError("x")\n' + SETUP,
        {},
        None,
    ),
    (
        "control-dist-info",
        'if "dist_info" in sys.argv:\n    raise RuntimeError("x")\n' + SETUP,
        {},
        "RuntimeError",
    ),
]


@pytest.mark.parametrize(("name", "body", "files", "exc"), CASES, ids=[c[0] for c in CASES])
def test_always_raises_matches_setuptools(
    tmp_path: Path, name: str, body: str, files: dict[str, str], exc: str | None
) -> None:
    versions = ("58.0.4", "84.2.1")
    require_runnable(versions)
    (tmp_path / "setup.py").write_text(HEAD + body)
    for path, text in files.items():
        (tmp_path / path).write_text(text)
    mismatches = []
    for version in versions:
        real = run_hooks(version, tmp_path)
        assert real.exc_name == exc if exc else real.outcome == "builds", real.describe()
        result = check_target(str(tmp_path), Options(setuptools=version))
        assert result.verdict is not None
        because = result.verdict.because
        if name == "control-dist-info":
            # dist_info is a command a wheel build passes (prepare_metadata_for_build_wheel):
            # a condition on it is not decided, so sapper does not say builds or fails
            assert "SP901" not in because
            continue
        problem = reason_mismatch(
            real, result.verdict.outcome, reasons_for(because), because=because, label=version
        )
        if problem:
            mismatches.append(problem)
        if exc:
            finding = next(f for f in result.findings if f.code == "SP901")
            assert exc in finding.message
            first = " ".join(w for w in real.message.split() if "#" not in w)
            assert first[:30] in finding.message, (real.message, finding.message)
    assert not mismatches, "\n".join(mismatches)


PKG_INFO = "Metadata-Version: 2.1\nName: probe\nVersion: 1.0\n"
DELTA = (
    "from setuptools import setup\n\n"
    "def get_version_from_sbt():\n"
    '    with open("version.sbt") as fp:\n'
    "        version = fp.read().strip()\n"
    "    return version.split('\"')[1]\n\n"
    "VERSION = get_version_from_sbt()\n"
    'setup(name="probe", version=VERSION, py_modules=[])\n'
)

#: (id, other files besides setup.py and PKG-INFO, whether the real build fails)
MISSING: list[tuple[str, dict[str, str], bool]] = [
    ("delta-spark-version-sbt-missing", {}, True),
    ("control-version-sbt-shipped", {"version.sbt": 'ThisBuild / version := "1.0"\n'}, False),
]


def _sdist_agrees(
    root: Path, setup: str, files: dict[str, str], failure: tuple[str, str, str] | None
) -> None:
    """Build the sdist tree (setup.py, PKG-INFO, ``files``) with 58.0.4 and 84.2.1: each
    real build raises ``failure``'s exception with its word in the message (or builds),
    and sapper's verdict agrees, SP901's message naming the cause."""
    versions = ("58.0.4", "84.2.1")
    require_runnable(versions)
    (root / "setup.py").write_text(setup)
    (root / "PKG-INFO").write_text(PKG_INFO)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    mismatches = []
    for version in versions:
        real = run_hooks(version, root)
        if failure:
            assert real.exc_name == failure[0], real.describe()
            assert failure[1] in real.message, real.message
        else:
            assert real.outcome == "builds", real.describe()
        result = check_target(str(root), Options(setuptools=version))
        assert result.verdict is not None
        because = result.verdict.because
        problem = reason_mismatch(
            real, result.verdict.outcome, reasons_for(because), because=because, label=version
        )
        if problem:
            mismatches.append(problem)
        sp901 = [f for f in result.findings if f.code == "SP901"]
        assert len(sp901) == (failure is not None)
        if failure:
            assert failure[0] in sp901[0].message
            assert failure[2] in sp901[0].message
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize(("name", "files", "fails"), MISSING, ids=[c[0] for c in MISSING])
def test_missing_file_matches_setuptools(
    tmp_path: Path, name: str, files: dict[str, str], fails: bool
) -> None:
    """delta-spark 4.4.1's shape: setup.py reads `version.sbt`, which the sdist does not
    ship; the real build raises FileNotFoundError with old and new setuptools, and builds
    once the file is there."""
    failure = ("FileNotFoundError", "version.sbt", "`version.sbt` (setup.py:4)")
    _sdist_agrees(tmp_path, DELTA, files, failure if fails else None)


#: (id, setup.py after HEAD, other files besides PKG-INFO, whether the real build fails)
MODULES: list[tuple[str, str, dict[str, str], bool]] = [
    # weaviate-client 3.2.1's shape: setup.py imports its package for the version, whose
    # modules import a dependency that only build-system.requires could bring
    (
        "package-imports-a-dependency",
        "from probepkg import version\n" + SETUP,
        {
            "probepkg/__init__.py": "from .core import x\nversion = '1.0'\n",
            "probepkg/core.py": "import probe_absent_dependency\nx = 1\n",
        },
        True,
    ),
    ("setup-imports-a-dependency", "import probe_absent_dependency\n" + SETUP, {}, True),
    (
        "control-guarded",
        "try:\n    import probe_absent_dependency\nexcept ImportError:\n    pass\n" + SETUP,
        {},
        False,
    ),
]


@pytest.mark.parametrize(("name", "body", "files", "fails"), MODULES, ids=[c[0] for c in MODULES])
def test_missing_module_matches_setuptools(
    tmp_path: Path, name: str, body: str, files: dict[str, str], fails: bool
) -> None:
    """An isolated build holds setuptools alone: an import (in setup.py, or in a project
    module it imports) of anything else raises ModuleNotFoundError with old and new
    releases; a guarded one builds."""
    failure = ("ModuleNotFoundError", "probe_absent_dependency", "`probe_absent_dependency`")
    _sdist_agrees(tmp_path, HEAD + body, files, failure if fails else None)
