"""The project modules setup.py reaches are parsed into syntax trees; only a bounded amount
of them is kept (mypy's setup.py reaches most of mypy and mypyc: 232 MiB of trees when all
were kept), and dropping them changes no finding."""

from __future__ import annotations

import pytest
from helpers import check

from sapper.facts import setup_py as facts_setup_py
from sapper.facts.setup_py import SetupPyFacts

SETUP = (
    "from setuptools import setup\nfrom pkg import __version__\n"
    'setup(name="pkg", version=__version__, packages=["pkg"])\n'
)
#: a chain of modules, each ~30 KB of code, the last one importing what 82.0.0 removed
LINKS = 60
FILLER = "".join(f"value_{i} = {{'key': [{i}, {i + 1}, {i + 2}]}}\n" for i in range(800))


def _chain() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "setup.py": SETUP,
        "pkg/__init__.py": '__version__ = "1.0"\nfrom pkg import m0\n',
    }
    for i in range(LINKS):
        nxt = f"from pkg import m{i + 1}\n" if i + 1 < LINKS else "import pkg_resources\n"
        files[f"pkg/m{i}.py"] = FILLER + nxt
    return files


def _findings(files: dict[str, str | bytes]) -> list[tuple[str, str, tuple[str, ...]]]:
    result = check(files)
    return sorted((f.code, f.message, f.fails) for f in result.findings)


def test_the_walk_keeps_a_bounded_amount_of_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[int] = []
    module = SetupPyFacts.module

    def watched(self: SetupPyFacts, path: str) -> object:
        tree = module(self, path)
        held.append(self._module_bytes)
        return tree

    monkeypatch.setattr(SetupPyFacts, "module", watched)
    files = _chain()
    found = _findings(files)
    assert any(code == "SP001" and f"pkg/m{LINKS - 1}.py" in msg for code, msg, _ in found)
    total = sum(len(v) for k, v in files.items() if k.startswith("pkg/"))
    assert total > 1.5 * facts_setup_py.MODULE_CACHE_BYTES  # the chain does not fit
    assert held
    assert max(held) <= facts_setup_py.MODULE_CACHE_BYTES + len(FILLER) + 100


def test_dropping_trees_changes_no_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _chain()
    monkeypatch.setattr(facts_setup_py, "MODULE_CACHE_BYTES", 1 << 40)
    everything = _findings(files)
    monkeypatch.setattr(facts_setup_py, "MODULE_CACHE_BYTES", 0)
    assert _findings(files) == everything
