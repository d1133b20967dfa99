"""``benchmarks/ecosystem.py``: the commands of the ecosystem check and its matrix."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sapper.canary import CanaryStore, SideResult, TargetRow, parse_backend
from sapper.canary.store import run_id_for
from sapper.versions import catalogue

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "ecosystem.py"


@pytest.fixture(scope="module")
def eco() -> Any:
    spec = importlib.util.spec_from_file_location("ecosystem_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_six_boundaries_and_their_commands(eco, tmp_path):
    names = [b.name for b in eco.BOUNDARIES]
    assert names == ["58.0.0", "72.0.0", "78.0.1", "80.3.0", "82.0.0", "84.2.1-enforce"]
    for boundary in eco.BOUNDARIES:
        cmd = eco.command(tmp_path, "before", boundary, top=200, jobs=2, timeout=120)
        # the day the candidate was released, from the catalogue
        assert f"before:{catalogue().release(boundary.candidate).date}" in cmd
        assert cmd[cmd.index("--baseline") + 1] == f"setuptools=={boundary.baseline}"
        assert cmd[cmd.index("--mode") + 1] == "metadata"
        assert cmd[cmd.index("-j") + 1] == "2"
        newest = eco.command(tmp_path, "newest", boundary, top=200, jobs=2, timeout=120)
        assert "--versions" not in newest
        # one store per boundary and corpus: a run's identity does not include its corpus
        assert newest[newest.index("--db") + 1] != cmd[cmd.index("--db") + 1]
    enforce = eco.command(tmp_path, "newest", eco.BOUNDARIES[-1], top=10, jobs=2, timeout=60)
    assert enforce[enforce.index("--candidate-env") + 1] == "SETUPTOOLS_ENFORCE_DEPRECATION=1"
    assert enforce[enforce.index("--candidate") + 1] == "setuptools==84.2.1"
    assert "--candidate-env" not in eco.command(
        tmp_path, "newest", eco.BOUNDARIES[2], top=10, jobs=2, timeout=60
    )


def _row(name: str, outcomes: tuple[str, str], statics: tuple[str, str], cls: str) -> TargetRow:
    sides = [
        SideResult(
            backend=backend,
            outcome=outcome,
            signature="ModuleNotFoundError: No module named 'pkg_resources'"
            if outcome == "fail"
            else None,
            static=static,
            static_codes=("SP001",) if static == "fails" else (),
        )
        for backend, outcome, static in zip(
            ("setuptools==81.0.0", "setuptools==82.0.0"), outcomes, statics, strict=True
        )
    ]
    return TargetRow(
        key=name,
        target=f"{name}==1.0",
        project=name,
        version="1.0",
        cls=cls,  # type: ignore[arg-type]
        baseline=sides[0],
        candidate=sides[1],
        uses_setuptools=True,
    )


ROWS = [
    _row("confirmed", ("ok", "fail"), ("builds", "fails"), "regressed"),
    _row("unexplained", ("ok", "fail"), ("builds", "builds"), "regressed"),
    _row("alarm", ("ok", "ok"), ("builds", "fails"), "pass"),
    _row("quiet", ("ok", "ok"), ("builds", "builds"), "pass"),
    # fails on both sides and predicted so: neither a regression nor a false alarm
    _row("both", ("fail", "fail"), ("fails", "fails"), "fail"),
]


def test_matrix_of_counts_each_cell(eco):
    matrix = eco.matrix_of(ROWS)
    assert (
        matrix["targets"],
        matrix["regressed"],
        matrix["confirmed"],
        matrix["unexplained"],
        matrix["false_alarms"],
    ) == (5, 2, 1, 1, 1)
    [unexplained] = matrix["unexplained_targets"]
    assert unexplained["target"] == "unexplained==1.0"
    assert unexplained["signature"] == "ModuleNotFoundError: No module named 'pkg_resources'"
    assert [e["target"] for e in matrix["false_alarm_targets"]] == ["alarm==1.0"]
    assert matrix["false_alarm_targets"][0]["codes"] == ["SP001"]
    # each side on its own: the false alarm's candidate, the unexplained one's candidate
    assert [(e["target"], e["side"]) for e in matrix["side_false_alarms"]] == [
        ("alarm==1.0", "candidate")
    ]
    assert [(e["target"], e["side"]) for e in matrix["side_misses"]] == [
        ("unexplained==1.0", "candidate")
    ]


def test_matrix_command_reads_the_stores_and_the_run_log(eco, tmp_path):
    boundary = eco.BOUNDARIES[4]  # 81.0.0 -> 82.0.0
    baseline, candidate = parse_backend("81.0.0"), parse_backend("82.0.0")
    run_id = run_id_for(baseline, candidate, "metadata", False)
    db = eco.db_path(tmp_path, "before", boundary)
    with CanaryStore(db) as store:
        store.start_run(run_id, baseline, candidate, "metadata", False)
        store.write(run_id, ROWS)
    call = {
        "corpus": "before",
        "boundary": boundary.name,
        "top": 200,
        "command": "sapper canary --top 200 ...",
        "wall_seconds": 600.0,
    }
    (tmp_path / "runs.jsonl").write_text(json.dumps(call) + "\n", encoding="utf-8")
    out_json, out_md = tmp_path / "m.json", tmp_path / "m.md"
    assert (
        eco.main(
            ["--out", str(tmp_path), "matrix", "--json", str(out_json), "--markdown", str(out_md)]
        )
        == 0
    )
    doc = json.loads(out_json.read_text())
    [entry] = doc["boundaries"]
    assert entry["date"] == catalogue().release("82.0.0").date
    assert (entry["top"], entry["wall_seconds"], entry["regressed"]) == (200, 600.0, 2)
    text = out_md.read_text()
    assert (
        f"| 81.0.0 → 82.0.0 | before {entry['date']} | 200 | 5 | 5 | 2 | 1 | 1 | 1 | 1 | 1 "
        "| 10 min |" in text
    )
    assert "unexplained: `unexplained==1.0` (no finding)" in text
    assert "false alarm: `alarm==1.0` (SP001)" in text
