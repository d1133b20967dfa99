"""Mutation score per module: how many small deliberate bugs the fast tests catch.

The core modules are measured in a few groups, one ``mutmut run`` each (mutmut's start-up,
mutant generation and its coverage pass over the tests are paid once per group, not once
per module). For each group the project (src/, tests/, scripts/, docs/, README.md,
pyproject.toml) is copied to a scratch directory, ``[tool.mutmut] only_mutate`` is narrowed
to the group's modules, the tests to the group's fast tests (never the oracle), and the
process isolation set; ``mutmut run`` then runs, per mutant, only the tests that reached
the mutated function. The score per module is killed / (killed + survived), read from
mutmut's per-file results; mutants no test reaches count as survived. Timeouts are
reported on their own and rerun once (a loaded machine makes them): what still times out
counts as killed (the mutant made the tests hang), and the count is shown.

    python benchmarks/mutation.py                          # every group (versions, rules, core)
    python benchmarks/mutation.py rules                    # one group
    python benchmarks/mutation.py src/sapper/versions.py   # modules or globs, own group
    python benchmarks/mutation.py rules --survivors        # also list the surviving mutants

Each mutant first runs in a process forked from one that has already imported sapper and
collected the tests (mutmut's "fork" isolation, several times faster than importing
afresh per mutant: 288 mutants of versions.py took 25 minutes that way). A kill there is
a test failing with the mutant active. Code that ran before the fork ran unmutated: a
function called at import (a module constant built by a call, the rule registry) and
whatever sits behind a per-process cache (``versions.catalogue()``). So the survivors of
functions called at module level (found by an AST scan), and every survivor of the
``versions`` group, are rerun each in a process that imports sapper afresh
("forkserver"); only what survives that counts.

Groups (``GROUPS``): ``versions`` (versions.py and rules/_base.py), ``rules`` (every rule
family and rules/_emit.py), ``core`` (sources, the archive limits, fix editors, scan
engine), each with the fast tests that exercise it.

Runs under ``nice``; ``--max-children`` (default 2) bounds the parallel test processes.
Scratch copies live under ``$TMPDIR/sapper-mutation`` (``--keep`` keeps them for
``mutmut show`` / ``mutmut browse``).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The verdict tests of the rules. tests/test_rules_meta.py is not among them for the rule
#: families: it runs every rule over every rule's example and the registry's import checks
#: (87 of the 99 seconds the rule tests take under mutmut's coverage pass), so each
#: surviving mutant paid for it again; its checks are the registry's and the docs', which
#: the ``versions`` group (rules/_base.py) keeps.
RULE_TESTS = (
    "tests/test_catalogue_facts.py",
    "tests/test_setup_cfg.py",
    "tests/test_setup_py.py",
    "tests/test_pyproject_rules.py",
    "tests/test_layout_rules.py",
    "tests/test_requires_rules.py",
    "tests/test_rule_mutants.py",
    "tests/test_due_dates.py",
)


@dataclass(frozen=True)
class Group:
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    isolation: str  # mutmut process_isolation of the first pass: "fork" or "forkserver"
    #: Rerun every survivor of the fork pass afresh (code behind a cache), not only those
    #: of functions called at import.
    confirm_all: bool = False


GROUPS: dict[str, Group] = {
    "versions": Group(
        ("src/sapper/versions.py", "src/sapper/rules/_base.py"),
        ("tests/test_setuptools_facts.py", "tests/test_rules_meta.py", *RULE_TESTS),
        "fork",
        confirm_all=True,
    ),
    "rules": Group(
        (
            "src/sapper/rules/_emit.py",
            "src/sapper/rules/setup_cfg/*",
            "src/sapper/rules/setup_py/*",
            "src/sapper/rules/pyproject/*",
            "src/sapper/rules/layout/*",
            "src/sapper/rules/requires/*",
        ),
        RULE_TESTS,
        "fork",
    ),
    "core": Group(
        (
            "src/sapper/sources.py",
            "src/sapper/_files.py",
            "src/sapper/fix/setup_cfg.py",
            "src/sapper/fix/setup_py.py",
            "src/sapper/scan/engine.py",
        ),
        (
            "tests/test_sources.py",
            "tests/test_fix_setup_cfg.py",
            "tests/test_fix_setup_py.py",
            "tests/test_fix_golden.py",
            "tests/test_fix_sdist.py",
            "tests/test_scan_engine.py",
        ),
        "fork",
    ),
}


def _toml_list(values: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def _set(pyproject: str, key: str, value: str) -> str:
    """The pyproject text with ``[tool.mutmut] key`` set to ``value`` (TOML text)."""
    pattern = re.compile(rf"^{key} = (\[.*?\]|\"[^\"\n]*\")\n", re.MULTILINE | re.DOTALL)
    if not pattern.search(pyproject):
        msg = f"pyproject.toml has no [tool.mutmut] {key}"
        raise SystemExit(msg)
    return pattern.sub(lambda _: f"{key} = {value}\n", pyproject, count=1)


def _configure(pyproject: str, group: Group) -> str:
    text = _set(pyproject, "only_mutate", _toml_list(group.modules))
    text = _set(text, "pytest_add_cli_args_test_selection", _toml_list(group.tests))
    return _set(text, "process_isolation", json.dumps(group.isolation))


def _copy(name: str, group: Group, scratch: Path) -> Path:
    work = scratch / re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "mutants")
    for sub in ("src", "tests", "scripts", "docs"):
        shutil.copytree(ROOT / sub, work / sub, ignore=ignore)
    shutil.copy2(ROOT / "README.md", work / "README.md")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(_configure(text, group), encoding="utf-8")
    return work


def _called_at_import(work: Path) -> dict[str, set[str]]:
    """Module -> names of the functions of the mutated tree that its top level calls."""
    import ast

    src = work / "src"
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in src.rglob("*.py")}
    defined = {
        n.name for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
    }
    out: dict[str, set[str]] = {}
    for path, tree in trees.items():
        module = ".".join(path.relative_to(src).with_suffix("").parts)
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom):
                continue
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                    if name in defined:
                        out.setdefault(module.removesuffix(".__init__"), set()).add(name)
    return out


_AT_IMPORT: dict[Path, dict[str, set[str]]] = {}


def _runs_at_import(mutant: str, work: Path) -> bool:
    """Whether ``mutant`` (``pkg.mod.x_func__mutmut_3``) mutates a function called at import
    by any module (by name: a same-named function elsewhere counts too, erring towards a
    rerun)."""
    if work not in _AT_IMPORT:
        _AT_IMPORT[work] = _called_at_import(work)
    called = set().union(*_AT_IMPORT[work].values()) if _AT_IMPORT[work] else set()
    function = mutant.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    function = function.removeprefix("x_").split("\u01c1")[-1]
    return function in called


def _status(code: int | None) -> str:
    from mutmut.stats import status_by_exit_code

    return str(status_by_exit_code[code])


def _results(work: Path) -> dict[str, dict[str, str]]:
    """Source path (under src/) -> mutant name -> status, from mutmut's per-file results."""
    out: dict[str, dict[str, str]] = {}
    for meta in sorted((work / "mutants" / "src").rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        path = meta.relative_to(work / "mutants").as_posix().removesuffix(".meta")
        out[path] = {k: _status(v) for k, v in data.get("exit_code_by_key", {}).items()}
    return out


def _mutmut(work: Path, max_children: int, names: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [
            "nice",
            sys.executable,
            "-m",
            "mutmut",
            "run",
            "--max-children",
            str(max_children),
            *names,
        ],
        cwd=work,
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )


def _row(module: str, statuses: dict[str, str]) -> dict[str, object]:
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    timeouts = counts.get("timeout", 0)
    killed = counts.get("killed", 0) + counts.get("caught by type check", 0) + timeouts
    survivors = sorted(k for k, s in statuses.items() if s in ("survived", "no tests"))
    other = len(statuses) - killed - len(survivors)
    total = killed + len(survivors)
    return {
        "module": module,
        "mutants": len(statuses),
        "killed": killed,
        "timeouts": timeouts,
        "survived": len(survivors),
        "not_run": other,
        "score": round(killed / total, 4) if total else None,
        "survivors": survivors,
    }


def run(
    name: str,
    group: Group,
    scratch: Path,
    max_children: int,
    names: list[str] | None = None,
) -> list[dict[str, object]]:
    """Mutate ``group`` in one mutmut run; one row per module that has mutants."""
    work = _copy(name, group, scratch)
    start = time.perf_counter()
    proc = _mutmut(work, max_children, names or [])
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout)[-2000:]
        return [{"module": name, "error": f"mutmut run exited {proc.returncode}: {tail}"}]
    results = _results(work)
    timeouts = [m for r in results.values() for m, s in r.items() if s == "timeout"]
    if timeouts:  # rerun them once: mutmut resets timeouts of named mutants
        _mutmut(work, max_children, timeouts)
        results = _results(work)
    survivors = [
        m
        for r in results.values()
        for m, s in r.items()
        if s == "survived" and (group.confirm_all or _runs_at_import(m, work))
    ]
    if group.isolation == "fork" and survivors:
        # Code that ran before the fork ran unmutated: rerun those survivors each in a
        # process that imports sapper afresh.
        pyproject = work / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        pyproject.write_text(_set(text, "process_isolation", '"forkserver"'), encoding="utf-8")
        _mutmut(work, max_children, survivors)
        results = _results(work)
    elapsed = round(time.perf_counter() - start, 1)
    rows: list[dict[str, object]] = []
    for path, found in results.items():
        statuses = {
            k: v for k, v in found.items() if not names or any(fnmatch.fnmatch(k, n) for n in names)
        }
        if statuses:
            row = _row(path, statuses)
            row.update(group=name, seconds=elapsed, workdir=str(work))
            rows.append(row)
    return rows


def _groups(args: list[str]) -> dict[str, Group]:
    if not args:
        return dict(GROUPS)
    chosen = {a: GROUPS[a] for a in args if a in GROUPS}
    paths = tuple(a for a in args if a not in GROUPS)
    if paths:
        versions = GROUPS["versions"]
        chosen[",".join(paths)] = Group(paths, versions.tests, "fork", confirm_all=True)
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "targets",
        nargs="*",
        help=f"groups ({', '.join(GROUPS)}) or module paths/globs under src/ (default: all groups)",
    )
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    parser.add_argument(
        "--mutants",
        nargs="+",
        metavar="NAME",
        help="run only these mutants (mutmut names or globs), e.g. an earlier run's survivors",
    )
    parser.add_argument("--scratch", type=Path, help="scratch directory (default: $TMPDIR)")
    args = parser.parse_args(argv)
    scratch = args.scratch or Path(tempfile.gettempdir()) / "sapper-mutation"
    failed = False
    for name, group in _groups(args.targets).items():
        rows = run(name, group, scratch, args.max_children, names=args.mutants)
        for row in rows:
            if args.json:
                print(json.dumps(row), flush=True)
                continue
            if "error" in row:
                failed = True
                print(f"{row['module']}: {row['error']}", flush=True)
                continue
            score = row["score"]
            shown = f"{score:.1%}" if isinstance(score, float) else "n/a"
            killed, survived = int(str(row["killed"])), int(str(row["survived"]))
            print(
                f"{row['module']:45} {killed:>5}/{killed + survived:<5} killed {shown:>6}"
                f"  ({row['timeouts']} timeouts; group {name}, {row['seconds']} s)",
                flush=True,
            )
            if args.survivors:
                for mutant in row["survivors"]:  # type: ignore[attr-defined]
                    print(f"    {mutant}")
        if not args.keep and rows and "workdir" in rows[0]:
            shutil.rmtree(str(rows[0]["workdir"]), ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
