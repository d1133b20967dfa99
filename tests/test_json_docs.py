"""docs/json.md documents exactly the keys the JSON outputs emit.

The emitted keys come from real runs of the command line (``sapper check --statistics
--format json``; ``sapper report --canary --format json`` over a canary store written
through :class:`~sapper.canary.store.CanaryStore`); the documented ones are read from the
key tables of docs/json.md. Neither list is typed in this file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sapper.canary import SideResult, TargetRow
from sapper.canary.model import Backend
from sapper.canary.store import CanaryStore
from sapper.cli import main

DOC = Path(__file__).parent.parent / "docs" / "json.md"

#: A row per canary class that has a section of its own, so every key is emitted.
WARN = {
    "category": "setuptools.warnings.SetuptoolsDeprecationWarning",
    "summary": "Invalid dash-separated key 'home-page' in 'metadata' (setup.cfg)",
    "due_date": "2026-03-03",
    "url": "https://github.com/pypa/setuptools/discussions/5011",
}
SIG = "InvalidConfigError: Invalid dash-separated key '<name>' in '<name>'"


def _side(outcome: str, *, signature: str | None = None, **kw: Any) -> SideResult:
    return SideResult(
        backend="setuptools==X",
        outcome=outcome,
        signature=signature,
        error_type="setuptools.errors.InvalidConfigError" if signature else None,
        message="Invalid dash-separated key 'home-page'" if signature else None,
        log_tail="raise InvalidConfigError(" if signature else "",
        **kw,
    )


def _row(name: str, cls: str, baseline: SideResult, candidate: SideResult) -> TargetRow:
    return TargetRow(
        key=name,
        target=f"{name}==1.0",
        project=name,
        version="1.0",
        cls=cls,  # type: ignore[arg-type]
        baseline=baseline,
        candidate=candidate,
        downloads=100,
    )


ROWS = [
    _row(
        "a",
        "regressed",
        _side("ok", warnings=(WARN,)),
        _side("fail", signature=SIG, static="fails", static_codes=("SC001",)),
    ),
    _row("b", "regressed", _side("ok"), _side("fail", signature="ModuleNotFoundError: x")),
    _row("c", "fixed", _side("fail", signature=SIG), _side("ok")),
    _row("d", "pass", _side("ok"), _side("ok", static="fails", static_codes=("SC002",))),
    _row("e", "spurious", _side("ok"), _side("spurious", spurious_reason="timeout")),
    _row("f", "prepare-fail", _side("prepare-fail"), _side("ok")),
]


def key_paths(value: Any, prefix: str, maps: set[str]) -> set[str]:
    """Every key path in ``value``: ``a.b``, ``list[].key``; the keys of the objects whose
    path is in ``maps`` (keyed by data, such as class names) become ``<*>``."""
    out: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            name = "<*>" if prefix in maps else key
            path = f"{prefix}.{name}" if prefix else name
            out.add(path)
            out |= key_paths(item, path, maps)
    elif isinstance(value, list):
        for item in value:
            out |= key_paths(item, f"{prefix}[]", maps)
    return out


def documented(section: str) -> set[str]:
    """The key paths in the tables of one ``##`` section of docs/json.md (first column,
    in backticks; ``<class>`` and other ``<...>`` placeholders stand for data keys)."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/json.md has no section '## {section}'"
    paths = set()
    for line in match.group(1).splitlines():
        cell = re.match(r"\| `([^`]+)` \|", line)
        if cell and cell.group(1) != "key":
            paths.add(re.sub(r"<[^>]+>", "<*>", cell.group(1)))
    return paths


def _maps(paths: set[str]) -> set[str]:
    return {p.split(".<*>")[0] for p in paths if ".<*>" in p}


def _compare(doc: set[str], emitted: set[str]) -> None:
    assert sorted(emitted - doc) == [], "emitted but not documented in docs/json.md"
    assert sorted(doc - emitted) == [], "documented in docs/json.md but not emitted"


def test_statistics_json_keys(capsys, tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = x\nhome-page = a\n[bdist_wheel]\nuniversal = 1\n"
    )
    code = main(["check", str(tmp_path), "--statistics", "--format", "json"])
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    doc = documented("`sapper check --statistics --format json`")
    _compare(doc, key_paths(report, "", _maps(doc)))
    assert report["version"] == 1


@pytest.fixture
def canary_store(tmp_path: Path) -> Path:
    db = tmp_path / "store.duckdb"
    base = Backend(spec="setuptools==77.0.3", requirement="setuptools==77.0.3", version="77.0.3")
    cand = Backend(spec="setuptools==78.0.1", requirement="setuptools==78.0.1", version="78.0.1")
    with CanaryStore(db) as store:
        store.start_run("run1", base, cand, "metadata", False)
        wheel_only = TargetRow(
            key="req:torch",
            target="torch",
            project=None,
            version=None,
            cls="prepare-fail",
            error="torch: no matching release has an sdist",
            permanent=True,
        )
        store.write("run1", [*ROWS, wheel_only])
        store.finish_run("run1")
    return db


def test_canary_report_json_keys(capsys, canary_store: Path) -> None:
    code = main(["report", str(canary_store), "--canary", "--format", "json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    doc = documented("`sapper report --canary --format json`: the canary report")
    _compare(doc, key_paths(report, "", _maps(doc)))
    assert report["schema"] == "sapper.canary-report/1"


def test_key_paths() -> None:
    value = {"a": [{"b": 1}, {"c": {"x": 1}}], "m": {"k1": {"n": 1}}}
    assert key_paths(value, "", {"m"}) == {
        "a",
        "a[].b",
        "a[].c",
        "a[].c.x",
        "m",
        "m.<*>",
        "m.<*>.n",
    }
