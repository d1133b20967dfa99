"""Rules that read setup.py report code in an ``if`` branch only for a target where the
branch runs (``--platform``, ``--python``), and do report it there (issue 21)."""

from __future__ import annotations

import pytest
from helpers import check

MKPATH = (
    "import sys\nfrom setuptools import setup\n"
    "if sys.platform == 'win32':\n"
    "    from distutils.dir_util import mkpath\n"
    "    mkpath('build/x', dry_run=0)\n"
    "setup(name='probe', version='1.0', py_modules=[])\n"
)
BUILD_PY = (
    "import sys\nfrom setuptools import setup\n"
    "from setuptools.command.build_py import build_py\n"
    "if sys.platform == 'win32':\n"
    "    from distutils.command.build_py import build_py\n"
    "setup(name='probe', version='1.0', packages=['probe'], include_package_data=True,\n"
    "      cmdclass={'build_py': build_py})\n"
)
CLASS_BASE = (
    "import sys\nimport setuptools\n"
    "if sys.platform == 'win32':\n"
    "    class Path(setuptools.convert_path):\n"
    "        pass\n"
    "setuptools.setup(name='probe', version='1.0', py_modules=[])\n"
)
PLATFORM_IMPORT = (
    "import sys\nfrom setuptools import setup\n"
    "if sys.platform == 'win32':\n    import py2exe\n"
    "setup(name='probe', version='1.0', py_modules=[])\n"
)
VERSION_IMPORT = (
    "import sys\nfrom setuptools import setup\n"
    "if sys.version_info >= (3, 8):\n    import numpy\n"
    "setup(name='probe', version='1.0', py_modules=[])\n"
)
NO_BUILD_SYSTEM = "[tool.black]\nline-length = 100\n"

CASES = [
    # (rule, files, target where the branch runs, target where it does not, line)
    ("SP008", {"setup.py": MKPATH}, {"platform": "win32"}, {"platform": "linux"}, 5),
    (
        "SP010",
        {"setup.py": BUILD_PY, "probe/__init__.py": ""},
        {"platform": "win32"},
        {"platform": "linux"},
        7,
    ),
    ("SP003", {"setup.py": CLASS_BASE}, {"platform": "win32"}, {"platform": "linux"}, 4),
    (
        "PP009",
        {"setup.py": PLATFORM_IMPORT, "pyproject.toml": NO_BUILD_SYSTEM},
        {"platform": "win32"},
        {"platform": "linux"},
        4,
    ),
    (
        "PP009",
        {"setup.py": VERSION_IMPORT, "pyproject.toml": NO_BUILD_SYSTEM},
        {"python": "3.12"},
        {"python": "3.7"},
        4,
    ),
]


@pytest.mark.parametrize(("code", "files", "runs", "skipped", "line"), CASES)
def test_branch_reported_only_where_it_runs(
    code: str,
    files: dict[str, str],
    runs: dict[str, str],
    skipped: dict[str, str],
    line: int,
) -> None:
    there = [f for f in check(files, **runs).findings if f.code == code]
    assert [f.line for f in there] == [line]
    assert not [f for f in check(files, **skipped).findings if f.code == code]


def test_undecided_branch_import_not_reported_by_pp009() -> None:
    source = (
        "import sys\nfrom setuptools import setup\n"
        "if 'py2exe' in sys.argv:\n    import py2exe\n"
        "setup(name='probe', version='1.0', py_modules=[])\n"
    )
    files = {"setup.py": source, "pyproject.toml": NO_BUILD_SYSTEM}
    assert not [f for f in check(files, platform="win32").findings if f.code == "PP009"]
