"""What a cold ``sapper check`` imports: real assertions on ``sys.modules``, not timings.

``benchmarks/check_cold.py`` measures the start-up time; these tests keep the modules that
were made lazy from creeping back onto the path of a plain ``sapper check`` (issue 13).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SETUP_CFG = "[metadata]\nname = demo\nversion = 1.0\nauthor-email = a@b.c\n\n" + (
    "[options]\npackages = find:\ninstall_requires =\n    requests>=2\n"
)
PYPROJECT = (
    '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
)

#: Never imported by ``sapper check`` of a source tree without markers or URLs in its
#: requirements: the HTTP client and index, other sub-commands, the archive readers, fixers,
#: the scan store, and what ``packaging.requirements`` drags in.
LAZY = (
    "sapper.pypi",
    "sapper.fix",
    "sapper.scan",
    "sapper.audit",
    "sapper.build",
    "sapper.canary",
    "sapper.inputs.sources",
    "sapper.inputs._collect",
    "sapper.inputs._tar",
    "sapper.inputs._inflate",
    "sapper._reqtext",
    "sapper.cli.fix",
    "sapper.cli.scan",
    "sapper.cli.report",
    "sapper.cli.cache",
    "sapper.cli.canary",
    "sapper.cli.audit",
    "sapper.cli.wheelhouse",
    "sapper.cli.rules",
    # the setup.py rules, for a tree without setup.py (rules._index.NEEDS_FILE)
    "sapper.rules.setup_py.sp001",
    "sapper.rules.setup_py._shared",
    "duckdb",
    "libcst",
    "urllib.request",
    "http",
    "http.client",
    "email",
    "ssl",
    "socket",
    "hashlib",
    "packaging.requirements",
    "packaging.markers",
    "packaging.tags",
    "packaging.utils",
    "platform",
    "subprocess",
    "logging",
    "importlib.resources",
    "importlib.metadata",
    "zipfile",
    "tarfile",
    "pkgutil",
    "difflib",
    "shutil",
    "bz2",
    "lzma",
)

_PROBE = """
import dataclasses, json, sys
from sapper.cli import main
code = main(["check", sys.argv[1], "--exit-zero", "--format", sys.argv[2]])
built = sorted(
    f"{name}.{value.__name__}"
    for name, module in list(sys.modules.items())
    if name.startswith("sapper")
    for value in list(vars(module).values())
    if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)
)
print(json.dumps({"code": code, "modules": sorted(sys.modules), "dataclasses": built}))
"""

#: The dataclasses a cold ``sapper check`` builds: findings and results (the library's
#: frozen, picklable records) and a few of the archive and setup.py layers. Every other
#: record on the path is a NamedTuple or a slotted class, since building a frozen
#: dataclass costs several exec() calls at start-up (see CONTRIBUTING.md).
DATACLASSES = {
    "sapper.model.Finding",
    "sapper.model.Stage",
    "sapper.model.Verdict",
    "sapper.model.ErrorRecord",
    "sapper.model.Project",
    "sapper.model.TargetResult",
    "sapper.inputs._files.Limits",
    "sapper.inputs._files.ProjectFiles",
    "sapper.facts.setup_py.ImportSite",
    "sapper.facts.setup_py.Keyword",
    "sapper.suppress.Suppressed",
}


def _probe(tree: Path, fmt: str = "text") -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tree), fmt],
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] == 0
    return report


def _imported(tree: Path, fmt: str = "text") -> set[str]:
    return set(_probe(tree, fmt)["modules"])


@pytest.fixture
def cfg_tree(tmp_path: Path) -> Path:
    (tmp_path / "setup.cfg").write_text(SETUP_CFG)
    return tmp_path


def test_check_of_a_setup_cfg_tree_imports_none_of_the_lazy_modules(cfg_tree: Path) -> None:
    modules = _imported(cfg_tree)
    assert "sapper.rules.setup_cfg.sc001" in modules  # the check did run its rules
    assert sorted(m for m in LAZY if m in modules) == []
    assert "tomllib" not in modules  # no pyproject.toml, no TOML parser
    assert "sapper.rules.pyproject.pp009" not in modules  # nor the rule that reads only it


def test_check_with_a_pyproject_reads_it_with_tomllib_only(cfg_tree: Path) -> None:
    (cfg_tree / "pyproject.toml").write_text(PYPROJECT)
    modules = _imported(cfg_tree)
    assert "tomllib" in modules or "tomli" in modules
    assert sorted(m for m in LAZY if m in modules) == []
    assert "sapper.rules.pyproject.pp009" in modules  # it reads pyproject.toml


def test_a_marker_in_a_requirement_still_reaches_packaging(cfg_tree: Path) -> None:
    """The probe can fail: a requirement the fast path leaves to packaging imports it."""
    (cfg_tree / "setup.cfg").write_text(SETUP_CFG + "    tomli; python_version<'3.11'\n")
    assert "packaging.requirements" in _imported(cfg_tree)


def test_check_builds_no_dataclass_beyond_the_listed_ones(cfg_tree: Path) -> None:
    (cfg_tree / "pyproject.toml").write_text(PYPROJECT)
    built = set(_probe(cfg_tree)["dataclasses"])
    assert built <= DATACLASSES, sorted(built - DATACLASSES)
    assert "sapper.model.Finding" in built  # the probe sees dataclasses
