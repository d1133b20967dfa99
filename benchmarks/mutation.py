"""Mutation score per module: how many small deliberate bugs the fast tests catch.

    python benchmarks/mutation.py                          # every group (versions, rules, core)
    python benchmarks/mutation.py rules                    # one group
    python benchmarks/mutation.py src/sapper/versions.py   # modules or globs, own group
    python benchmarks/mutation.py rules --survivors        # also list the surviving mutants

Per group (``GROUPS``: ``versions`` = versions.py and rules/_base.py, ``rules`` = every rule
family and rules/_emit.py, ``core`` = sources, the archive limits, fix editors, scan engine)
the project is copied to a scratch directory with ``[tool.mutmut] only_mutate`` narrowed to
the group's modules and its test selection to the group's fast tests (never the oracle).

1. ``mutmut run`` generates the mutants and maps each function to the tests that reach it
   (asked for a mutant name that matches nothing, it stops there).
2. ``_mutants_in_process.py`` runs the mutants: pytest starts and collects once, a clean run
   warms it, and each mutant runs in a child forked from that session, only its mapped
   tests of the part's test files (a rule family's own), fastest first, to the first
   failure. ``mutmut run`` itself starts pytest for every mutant (options, plugins,
   collection): on the shared 2-core machine that made 288 mutants of versions.py take 25
   minutes. The tests in ``ADDED_TESTS`` run for every mutant, after the mapped ones; the
   mutants only they kill give the score without them ("before").
3. A kill is a test failing with the mutant active. Code that ran before the fork ran
   unmutated: functions called at import (found by an AST scan) and whatever sits behind a
   per-process cache (``versions.catalogue()``, the rule registry). Their survivors (every
   survivor of the ``versions`` group) are rerun by ``mutmut run`` with forkserver
   isolation, each in a process that imports sapper afresh; only what survives that counts.

The score per module is killed / (killed + survived), from mutmut's per-file results;
mutants no test reaches count as survived, timeouts as killed (the count is shown). Runs
under ``nice``; ``--max-children`` (default 2) bounds the parallel children. Scratch copies
live under ``$TMPDIR/sapper-mutation`` (``--keep`` keeps them for ``mutmut show`` /
``mutmut browse``).
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


#: Each rule family's mutants run against the family's own tests (the other families'
#: tests reach its code too, since every check runs every rule, but they compare their own
#: codes): a surviving mutant then pays for some 60 tests instead of some 270.
_FAMILY_TESTS = {
    "setup_cfg": ("tests/test_setup_cfg.py", "tests/test_due_dates.py"),
    "setup_py": ("tests/test_setup_py.py", "tests/test_due_dates.py"),
    "pyproject": ("tests/test_pyproject_rules.py", "tests/test_due_dates.py"),
    "layout": ("tests/test_layout_rules.py", "tests/test_due_dates.py"),
    "requires": ("tests/test_requires_rules.py",),
}
#: Tests written to kill surviving mutants: they run for every mutant of the group, after
#: the mapped ones, and the mutants only they kill give the score before them.
ADDED_TESTS = ("tests/test_rule_mutants.py",)


def _tests_except(path: str, *skip: str) -> tuple[str, ...]:
    """The node IDs of the test functions of ``path`` but ``skip``: tests that need what the
    scratch copy does not hold."""
    text = (ROOT / path).read_text(encoding="utf-8")
    names = re.findall(r"^def (test_\w+)", text, re.MULTILINE)
    return tuple(f"{path}::{name}" for name in names if name not in skip)


#: The sources' tests: every reader, limit and hostile-archive case. Not
#: test_benchmark_corpus_reads_alike, which reads (and downloads) the benchmark corpus
#: through benchmarks/, which the scratch copy does not hold.
_SOURCE_TESTS = (
    "tests/test_sources.py",
    *_tests_except("tests/test_sources_readers.py", "test_benchmark_corpus_reads_alike"),
)
#: The fix editors' tests (test_fix_property's oracle half is deselected by its marker; not
#: test_pre_commit_hooks_file_runs_fix, which reads .pre-commit-hooks.yaml).
_FIX_TESTS = (
    "tests/test_fix_setup_cfg.py",
    "tests/test_fix_setup_py.py",
    "tests/test_fix_golden.py",
    "tests/test_fix_sdist.py",
    "tests/test_fix_suppressions.py",
    "tests/test_fix_diff_apply.py",
    "tests/test_fix_property.py",
    "tests/test_fix_advice.py",
    *_tests_except("tests/test_fix_cli.py", "test_pre_commit_hooks_file_runs_fix"),
)
#: The scan engine's and store's tests. Not test_scan_lifecycle.py: its scans run in
#: subprocesses, which import sapper unmutated.
_SCAN_TESTS = (
    "tests/test_scan_engine.py",
    "tests/test_scan_store.py",
)
#: Tests written to kill the core group's surviving mutants (run for every mutant of it).
_CORE_ADDED = ("tests/test_mutants_core.py",)
CORE_TESTS = tuple(dict.fromkeys((*_SOURCE_TESTS, *_FIX_TESTS, *_SCAN_TESTS, *_CORE_ADDED)))


@dataclass(frozen=True)
class Group:
    modules: tuple[str, ...]
    #: mutmut's test selection: what its coverage pass maps functions to.
    tests: tuple[str, ...]
    #: (mutant name globs, the test files whose mapped tests run for them), in order.
    parts: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    #: Rerun every survivor afresh (code behind a per-process cache), not only those of
    #: functions called at import.
    confirm_all: bool = False
    added: tuple[str, ...] = ()


GROUPS: dict[str, Group] = {
    "versions": Group(
        ("src/sapper/versions.py", "src/sapper/rules/_base.py"),
        ("tests/test_setuptools_facts.py", "tests/test_rules_meta.py", *RULE_TESTS),
        (
            (
                ("sapper.versions.*", "sapper.rules._base.*"),
                ("tests/test_setuptools_facts.py", "tests/test_rules_meta.py", *RULE_TESTS),
            ),
        ),
        confirm_all=True,
        added=ADDED_TESTS,
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
        (
            *(((f"sapper.rules.{f}.*",), tests) for f, tests in _FAMILY_TESTS.items()),
            (("sapper.rules._emit.*",), RULE_TESTS),
        ),
        added=ADDED_TESTS,
    ),
    "core": Group(
        (
            # sources' limits: the readers, the archive checks, the inflaters
            "src/sapper/inputs/sources.py",
            "src/sapper/inputs/_collect.py",
            "src/sapper/inputs/_files.py",
            "src/sapper/inputs/_directory.py",
            "src/sapper/inputs/_tar.py",
            "src/sapper/inputs/_tarfile_reader.py",
            "src/sapper/inputs/_inflate.py",
            # the fix editors and what applies them
            "src/sapper/fix/__init__.py",
            "src/sapper/fix/setup_cfg.py",
            "src/sapper/fix/setup_py.py",
            "src/sapper/fix/sdist.py",
            "src/sapper/fix/suppressions.py",
            # the scan engine and its store (resume)
            "src/sapper/scan/engine.py",
            "src/sapper/scan/store.py",
        ),
        CORE_TESTS,
        (
            (
                (
                    "sapper.inputs.sources.*",
                    "sapper.inputs._collect.*",
                    "sapper.inputs._files.*",
                    "sapper.inputs._directory.*",
                    "sapper.inputs._tar.*",
                    "sapper.inputs._tarfile_reader.*",
                    "sapper.inputs._inflate.*",
                ),
                _SOURCE_TESTS,
            ),
            (("sapper.fix.*",), _FIX_TESTS),
            (("sapper.scan.*",), _SCAN_TESTS),
        ),
        added=_CORE_ADDED,
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
    return _set(text, "pytest_add_cli_args_test_selection", _toml_list(group.tests))


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


def _row(module: str, statuses: dict[str, str], by_added: set[str]) -> dict[str, object]:
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    timeouts = counts.get("timeout", 0)
    killed = counts.get("killed", 0) + counts.get("caught by type check", 0) + timeouts
    survivors = sorted(k for k, s in statuses.items() if s in ("survived", "no tests"))
    not_run = len(statuses) - killed - len(survivors)
    total = killed + len(survivors)
    before = killed - sum(1 for k, s in statuses.items() if s == "killed" and k in by_added)
    return {
        "module": module,
        "mutants": len(statuses),
        "killed": killed,
        "timeouts": timeouts,
        "survived": len(survivors),
        "not_run": not_run,
        "score": round(killed / total, 4) if total and not not_run else None,
        "killed_without_added_tests": before,
        "score_without_added_tests": round(before / total, 4) if total and not not_run else None,
        "survivors": survivors,
    }


def _in_process(
    work: Path, max_children: int, files: tuple[str, ...], added: tuple[str, ...], globs: list[str]
) -> subprocess.CompletedProcess[str]:
    runner = Path(__file__).with_name("_mutants_in_process.py")
    command = [
        sys.executable,
        str(runner),
        str(work),
        str(max_children),
        "--files",
        ",".join(files),
    ]
    if added:
        command += ["--always", ",".join(added)]
    return subprocess.run(["nice", *command, *globs], check=False, capture_output=True, text=True)


def run(
    name: str,
    group: Group,
    scratch: Path,
    max_children: int,
    names: list[str] | None = None,
) -> list[dict[str, object]]:
    """Mutate ``group``: mutmut generates the mutants and maps functions to tests (its run
    over a glob no mutant matches), the in-process runner runs each part's mutants, and
    mutmut reruns the survivors that can differ afresh. One row per module."""
    work = _copy(name, group, scratch)
    start = time.perf_counter()
    # mutmut generates the mutants and its map before it finds that nothing matches
    proc = _mutmut(work, max_children, ["sapper.no_mutant_matches_this.*"])
    if not (work / "mutants" / "mutmut-stats.json").exists():
        tail = (proc.stderr or proc.stdout)[-2000:]
        return [{"module": name, "error": f"mutmut run exited {proc.returncode}: {tail}"}]
    for globs, files in group.parts:
        chosen = [n for n in names if any(fnmatch.fnmatch(n, g) for g in globs)] if names else []
        if names and not chosen:
            continue
        proc = _in_process(work, max_children, files, group.added, chosen or list(globs))
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout)[-2000:]
            return [
                {"module": name, "error": f"the mutant runner exited {proc.returncode}: {tail}"}
            ]
    results = _results(work)
    survivors = [
        m
        for r in results.values()
        for m, s in r.items()
        if s == "survived" and (group.confirm_all or _runs_at_import(m, work))
    ]
    if survivors:
        # Code that ran before the fork ran unmutated: mutmut reruns those survivors each in
        # a process that imports sapper afresh, with every test mapped to them.
        pyproject = work / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        pyproject.write_text(_set(text, "process_isolation", '"forkserver"'), encoding="utf-8")
        _mutmut(work, max_children, survivors)
        results = _results(work)
    added_file = work / "mutants" / "killed-only-by-added-tests.json"
    by_added = set(json.loads(added_file.read_text())) if added_file.exists() else set()
    elapsed = round(time.perf_counter() - start, 1)
    rows: list[dict[str, object]] = []
    for path, found in results.items():
        statuses = {
            k: v for k, v in found.items() if not names or any(fnmatch.fnmatch(k, n) for n in names)
        }
        if statuses:
            row = _row(path, statuses, by_added)
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
        globs = tuple(
            p.removeprefix("src/").removesuffix(".py").replace("/", ".") + ".*" for p in paths
        )
        chosen[",".join(paths)] = Group(
            paths, versions.tests, ((globs, versions.tests),), confirm_all=True
        )
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
            before = row["score_without_added_tests"]
            shown_before = f"{before:.1%}" if isinstance(before, float) else "n/a"
            print(
                f"{row['module']:45} {killed:>5}/{killed + survived:<5} killed {shown:>6}"
                f" (without the added tests {shown_before:>6}; {row['timeouts']} timeouts;"
                f" {row['not_run']} not run; group {name}, {row['seconds']} s)",
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
