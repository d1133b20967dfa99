"""SP011 against real setuptools under SETUPTOOLS_ENFORCE_DEPRECATION=1: a command the
metadata stage finalizes (``build_py``, ``build_ext`` with extensions) that asks for the
``install`` command fails there from 80.1.0 ("setup.py install is deprecated", overdue
since 2025-10-31) and builds with 80.0.1 (no due date) or without enforcement; the same
request in ``run()``, in a command only the wheel stage runs, or in ``build_ext`` of a
project without extensions does not fail the metadata stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.check import Options, check_target

from .harness import reason_mismatch, require_runnable, run_hooks
from .reasons import reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]

HEAD = (
    "from setuptools import setup, Extension\n"
    "from setuptools.command.build_py import build_py\n"
    "from setuptools.command.build_ext import build_ext\n"
    "from setuptools.command.install_lib import install_lib\n"
    "from setuptools.command.bdist_wheel import bdist_wheel\n"
    "from setuptools.command.build import build\n"
)
GET = '        self.distribution.get_command_obj("install")\n'
PY = "py_modules=['m']"
EXT = "ext_modules=[Extension('m', ['m.c'])]"


def _setup(method: str, body: str, command: str, keywords: str) -> str:
    return (
        HEAD
        + f"class Cmd({command}):\n    def {method}(self):\n        super().{method}()\n"
        + body
        + f"setup(name='x', version='1', {keywords + ', ' if keywords else ''}"
        + f"cmdclass={{'{command}': Cmd}})\n"
    )


MYSQL_SHAPE = {
    "setup.py": "from setuptools import setup, Extension\nfrom cpydist import BuildExt\n"
    "setup(name='x', version='1', ext_modules=[Extension('m', ['m.c'])],\n"
    "      cmdclass={'build_ext': BuildExt})\n",
    "cpydist/__init__.py": "from setuptools.command.build_ext import build_ext\n"
    "from setuptools import Command\n\n"
    "class Base(Command):\n    user_options = []\n"
    "    def initialize_options(self):\n        pass\n"
    "    def finalize_options(self):\n"
    '        install = self.distribution.get_command_obj("install")\n\n'
    "class BuildExt(build_ext, Base):\n"
    "    def initialize_options(self):\n        build_ext.initialize_options(self)\n"
    "    def finalize_options(self):\n"
    "        build_ext.finalize_options(self)\n        Base.finalize_options(self)\n",
}

#: (id, files, whether the enforced metadata stage of 84.2.1 fails)
CASES: list[tuple[str, dict[str, str], bool]] = [
    ("build-py-finalize", {"setup.py": _setup("finalize_options", GET, "build_py", PY)}, True),
    ("build-py-initialize", {"setup.py": _setup("initialize_options", GET, "build_py", PY)}, True),
    (
        "set-undefined-options",
        {
            "setup.py": _setup(
                "finalize_options",
                '        self.set_undefined_options("install", ("force", "force"))\n',
                "build_py",
                PY,
            )
        },
        True,
    ),
    ("build-ext", {"setup.py": _setup("finalize_options", GET, "build_ext", EXT)}, True),
    ("mysql-shape", MYSQL_SHAPE, True),
    ("bdist-wheel", {"setup.py": _setup("finalize_options", GET, "bdist_wheel", PY)}, True),
    ("build-without-modules", {"setup.py": _setup("finalize_options", GET, "build", "")}, True),
    ("control-run-only", {"setup.py": _setup("run", GET, "build_py", PY)}, False),
    (
        "control-no-extensions",
        {"setup.py": _setup("finalize_options", GET, "build_ext", "ext_modules=[]")},
        False,
    ),
    (
        "control-wheel-stage-command",
        {"setup.py": _setup("finalize_options", GET, "install_lib", PY)},
        False,
    ),
]


@pytest.mark.parametrize(("name", "files", "fails"), CASES, ids=[c[0] for c in CASES])
def test_install_command_matches_setuptools(
    tmp_path: Path, name: str, files: dict[str, str], fails: bool
) -> None:
    require_runnable(("80.0.1", "84.2.1"))
    for path, text in {"m.py": "", "m.c": "", **files}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    mismatches = []
    for version, enforce in (("84.2.1", True), ("84.2.1", False), ("80.0.1", True)):
        real = run_hooks(version, tmp_path, enforce=enforce)
        expected = fails and enforce and version == "84.2.1"
        assert (real.outcome == "fails") == expected, real.describe()
        if expected:
            assert real.exc_name == "SetuptoolsDeprecationWarning", real.describe()
            assert "setup.py install is deprecated" in real.message
        result = check_target(
            str(tmp_path), Options(setuptools=version, enforce_deprecations=enforce)
        )
        assert result.verdict is not None
        because = result.verdict.because
        problem = reason_mismatch(
            real,
            result.verdict.outcome,
            reasons_for(because),
            because=because,
            label=f"{name} {version}{' enforced' if enforce else ''}",
        )
        if problem:
            mismatches.append(problem)
    assert not mismatches, "\n".join(mismatches)
