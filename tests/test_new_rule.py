"""scripts/new_rule.py, run in a copy of the repository: the rule it adds is complete (the
meta tests pass on the result), it touches only the files CONTRIBUTING.md names, and a rule
module whose derived files were not regenerated fails the staleness test instead of
silently not existing."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("src", "tests", "scripts", "docs", "pyproject.toml", "README.md", "CONTRIBUTING.md")


def _copy(dest: Path) -> Path:
    repo = dest / "repo"
    repo.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=ignore)
        else:
            shutil.copy2(source, repo / name)
    return repo


def _digests(repo: Path) -> dict[str, str]:
    return {
        str(p.relative_to(repo)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in repo.rglob("*")
        if p.is_file() and not {"__pycache__", ".ruff_cache"} & set(p.parts)
    }


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    return subprocess.run(
        [sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


#: What the scaffold writes (the first three) and regenerates (the others).
TOUCHED = {
    "src/sapper/rules/setup_py/sp012.py",
    "tests/test_setup_py.py",
    "src/sapper/changes.py",
    "src/sapper/rules/_index.py",
    "docs/rules.md",
    "docs/catalogue.md",
    "tests/data/golden/rule-examples.json",
}


def test_new_rule_in_a_copy_passes_the_meta_tests(tmp_path: Path) -> None:
    repo = _copy(tmp_path)
    before = _digests(repo)
    done = _run(
        repo,
        "scripts/new_rule.py",
        "SP012",
        "setuppy-metaclass-conflict",
        "--family",
        "setup_py",
        "--change",
        "ST43",
        "--fails",
        "73.0.0:73.0.1",
    )
    assert done.returncode == 0, done.stderr
    after = _digests(repo)
    changed = {p for p in after if before.get(p) != after[p]} | (set(before) - set(after))
    assert changed == TOUCHED
    # the rule exists everywhere a rule must: index, NEEDS_FILE (from Rule.reads), the docs,
    # the golden examples and the catalogue
    index = (repo / "src/sapper/rules/_index.py").read_text(encoding="utf-8")
    assert '"SP012": "sapper.rules.setup_py.sp012"' in index
    assert '"SP012": "setup.py"' in index
    assert "## SP012" in (repo / "docs/rules.md").read_text(encoding="utf-8")
    assert '"SP012"' in (repo / "tests/data/golden/rule-examples.json").read_text(encoding="utf-8")
    assert "SP012" in (repo / "docs/catalogue.md").read_text(encoding="utf-8")
    tests = _run(
        repo,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_rules_meta.py",
        "tests/test_meta_tests.py",
        "tests/test_rule_mutants.py::test_rule_example_findings_golden",
        "tests/test_setup_py.py::test_sp012",
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert "SP012" in _run(repo, "-m", "sapper", "rules").stdout
    # a second run refuses the code it added
    again = _run(
        repo, "scripts/new_rule.py", "SP012", "x-y", "--family", "setup_py", "--change", "ST43"
    )
    assert again.returncode == 2
    assert "exists already" in again.stderr


def test_a_rule_module_without_its_index_line_fails_loudly(tmp_path: Path) -> None:
    """Adding a module by hand and forgetting to regenerate: the staleness test names the
    index (the rule does not silently go missing)."""
    repo = _copy(tmp_path)
    index = (repo / "src/sapper/rules/_index.py").read_text(encoding="utf-8")
    shutil.copy2(
        repo / "src/sapper/rules/setup_py/sp010.py", repo / "src/sapper/rules/setup_py/sp012.py"
    )
    module = repo / "src/sapper/rules/setup_py/sp012.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace('code="SP010"', 'code="SP012"'),
        encoding="utf-8",
    )
    assert (repo / "src/sapper/rules/_index.py").read_text(encoding="utf-8") == index
    stale = _run(repo, "scripts/gen_rules_doc.py", "--check")
    assert stale.returncode == 1
    assert "src/sapper/rules/_index.py is stale" in stale.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("XX011", "a-b", "--family", "setup_py", "--change", "ST43"), "is SP and three digits"),
        (("SP012", "Bad_Slug", "--family", "setup_py", "--change", "ST43"), "the slug"),
        (("SP012", "a-b", "--family", "setup_py", "--change", "ST43"), "no failing range"),
    ],
)
def test_new_rule_refuses(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    repo = _copy(tmp_path)
    before = _digests(repo)
    done = _run(repo, "scripts/new_rule.py", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert _digests(repo) == before  # nothing written
