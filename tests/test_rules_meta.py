"""Every rule is documented, and its documented example really triggers it."""

from __future__ import annotations

import importlib.util
import pickle
import re
from pathlib import Path

import pytest

from sapper.check import check_files
from sapper.render.explain import example_files
from sapper.rules import all_rules
from sapper.sources import ProjectFiles

RULES = all_rules()
HEADINGS = (
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "## Use instead",
    "## References",
)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_has_doc_and_metadata(rule) -> None:
    assert re.fullmatch(r"[A-Z]{1,3}[0-9]{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.slug)
    positions = [rule.doc.find(h) for h in HEADINGS]
    assert -1 not in positions, f"{rule.code} lacks a heading"
    assert positions == sorted(positions)
    assert rule.references and all(r.url.startswith("https://") for r in rule.references)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_example_triggers_rule(rule) -> None:
    files = example_files(rule)
    project = ProjectFiles(label="example", root="", files=files, names=tuple(sorted(files)))
    result = check_files(project, target="example", kind="directory")
    hits = [f for f in result.findings if f.code == rule.code]
    assert hits, f"the example of {rule.code} does not trigger it"
    assert hits[0].fails or hits[0].fails_enforced
    # Findings are picklable (they cross process boundaries in scans).
    assert pickle.loads(pickle.dumps(hits[0])) == hits[0]


def test_rules_doc_is_current() -> None:
    path = Path(__file__).parent.parent / "scripts" / "gen_rules_doc.py"
    spec = importlib.util.spec_from_file_location("gen_rules_doc", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.OUT.read_text(encoding="utf-8") == module.render()
