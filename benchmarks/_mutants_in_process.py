"""Run mutmut's mutants without a pytest start-up per mutant (used by mutation.py).

``mutmut run`` (fork isolation) calls ``pytest.main`` once per mutant: option parsing,
plugin registration and the collection of every test module the mutant's tests live in,
before the first test runs. On a shared machine that start-up is most of each mutant's
time. Here pytest starts and collects the group's tests once; the mutants then run in
children forked from that session, each running only its tests' collected items
(``runtestprotocol``, fastest first, stopping at the first failure), with the mutant
active through mutmut's own trampolines. mutmut generates the mutants and maps functions
to tests beforehand (its ``mutants/mutmut-stats.json``); the results go to its per-file
``.meta`` files with its exit codes (1 killed, 0 survived, 33 no tests, 36 timeout), so
``mutmut results``/``show``/``browse`` read them as their own.

    python benchmarks/_mutants_in_process.py WORKDIR MAX_CHILDREN
        [--files F,F...] [--always F,F...] [NAME-GLOB ...]

WORKDIR is the scratch copy holding ``mutants/``; without globs, every mutant without a
result runs. ``--files`` keeps only the mapped tests of these test files (a rule family's
own); ``--always`` runs every test of these files for every mutant, after the mapped ones
(tests added after mutmut mapped functions to tests); a mutant only they kill is listed in
``mutants/killed-only-by-added-tests.json``, which gives the score without them. A kill
is a test failing with the mutant active in a process forked after sapper was imported:
see mutation.py for the survivors that are rerun afresh.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

KILLED, SURVIVED, NO_TESTS, TIMEOUT = 1, 0, 33, 36
#: A child's exit status: killed, but only by a test of ``--always`` (recorded as killed,
#: and listed in ``mutants/killed-only-by-added-tests.json``: the score before them).
KILLED_BY_ADDED = 2


def _mangled(mutant: str) -> str:
    return mutant.replace("__init__.", "").partition("__mutmut_")[0]


class _Loop:
    """A pytest plugin that replaces the test loop with the mutant loop."""

    def __init__(self, work: Path, max_children: int, globs: list[str], always: list[str]) -> None:
        self.always = always
        self.work = work
        self.max_children = max_children
        self.globs = globs
        stats = json.loads((work / "mutants" / "mutmut-stats.json").read_text())
        self.tests: dict[str, list[str]] = stats["tests_by_mangled_function_name"]
        self.duration: dict[str, float] = stats["duration_by_test"]
        self.done = 0
        self.by_added: set[str] = set()

    def _metas(self) -> dict[Path, dict[str, Any]]:
        return {
            p: json.loads(p.read_text())
            for p in sorted((self.work / "mutants" / "src").rglob("*.py.meta"))
        }

    def _todo(self, metas: dict[Path, dict[str, Any]]) -> list[tuple[Path, str]]:
        """The mutants to run, in the order of the globs that name them."""
        ranked = []
        for path, meta in metas.items():
            for name, code in meta["exit_code_by_key"].items():
                if not self.globs:
                    if code is None:
                        ranked.append((0, path, name))
                    continue
                rank = next((i for i, g in enumerate(self.globs) if fnmatch.fnmatch(name, g)), None)
                # a kill stands (tests are only ever added); the rest is run (again)
                if rank is not None and code not in (KILLED, TIMEOUT):
                    ranked.append((rank, path, name))
        ranked.sort(key=lambda r: r[0])
        return [(path, name) for _, path, name in ranked]

    def pytest_runtestloop(self, session: Any) -> bool:
        import gc

        from _pytest.runner import runtestprotocol
        from mutmut.mutation.trampoline import set_mutant_under_test

        items = {item.nodeid: item for item in session.items}
        # A clean run first, in this process: the tests must pass without a mutant, and
        # what they import or cache lazily (rule modules, the catalogue) is then loaded
        # once here instead of once per child.
        set_mutant_under_test("")
        for i, item in enumerate(session.items):
            nextitem = session.items[i + 1] if i + 1 < len(session.items) else None
            reports = runtestprotocol(item, log=False, nextitem=nextitem)
            if any(r.failed for r in reports):
                print(f"{item.nodeid} fails without a mutant", file=sys.__stderr__)
                return True
        # the children inherit a stable heap: no collection walks (and so copies) it
        gc.freeze()
        metas = self._metas()
        todo = self._todo(metas)
        running: dict[int, tuple[Path, str, float]] = {}
        last_save = time.monotonic()

        def reap(block: bool) -> None:
            while running:
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
                if pid == 0:
                    break
                path, name, _ = running.pop(pid)
                if os.WIFEXITED(status):
                    code = os.WEXITSTATUS(status)
                    if code == KILLED_BY_ADDED:
                        self.by_added.add(name)
                    code = SURVIVED if code == 0 else (TIMEOUT if code == TIMEOUT else KILLED)
                else:  # killed by a signal: ours at the deadline, or the mutant crashed
                    code = TIMEOUT if os.WTERMSIG(status) == 9 else KILLED
                metas[path]["exit_code_by_key"][name] = code
                self.done += 1
                block = False

        def save() -> None:
            for path, meta in metas.items():
                path.write_text(json.dumps(meta, indent=4))
            added = self.work / "mutants" / "killed-only-by-added-tests.json"
            known = set(json.loads(added.read_text())) if added.exists() else set()
            # a rerun decides afresh for the mutants it ran
            known = (known - {n for _, n in todo}) | self.by_added
            added.write_text(json.dumps(sorted(known), indent=1))

        for path, name in todo:
            added = [n for n in items if n.split("::")[0] in self.always]
            tests = sorted(
                (t for t in self.tests.get(_mangled(name), ()) if t in items and t not in added),
                key=lambda t: self.duration.get(t, 0.0),
            )
            first_added = len(tests)
            tests += added
            if not tests:
                metas[path]["exit_code_by_key"][name] = NO_TESTS
                continue
            while len(running) >= self.max_children:
                self._kill_overdue(running)
                reap(block=False)
                if len(running) >= self.max_children:
                    time.sleep(0.005)
            budget = 60.0 + 15.0 * sum(self.duration.get(t, 0.0) for t in tests)
            pid = os.fork()
            if pid == 0:  # the child: run this mutant's tests, fastest first
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                set_mutant_under_test(name)
                for i, nodeid in enumerate(tests):
                    reports = runtestprotocol(items[nodeid], log=False, nextitem=None)
                    if any(r.failed for r in reports):
                        os._exit(KILLED if i < first_added else KILLED_BY_ADDED)
                os._exit(SURVIVED)
            running[pid] = (path, name, time.monotonic() + budget)
            if time.monotonic() - last_save > 30:
                save()
                last_save = time.monotonic()
                print(f"{self.done}/{len(todo)} mutants", file=sys.__stderr__, flush=True)
        while running:
            self._kill_overdue(running)
            reap(block=False)
            time.sleep(0.01)
        save()
        print(f"{self.done}/{len(todo)} mutants", file=sys.__stderr__, flush=True)
        return True

    @staticmethod
    def _kill_overdue(running: dict[int, tuple[Path, str, float]]) -> None:
        now = time.monotonic()
        for pid, (_, _, deadline) in list(running.items()):
            if now > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)


def main(argv: list[str]) -> int:
    import pytest
    import tomllib

    work = Path(argv[0]).resolve()
    max_children = int(argv[1])
    rest = argv[2:]
    files: list[str] = []
    always: list[str] = []
    while rest and rest[0] in ("--files", "--always"):
        (files if rest[0] == "--files" else always).extend(rest[1].split(","))
        rest = rest[2:]
    globs = rest
    config = tomllib.loads((work / "pyproject.toml").read_text())["tool"]["mutmut"]
    os.chdir(work / "mutants")
    sys.path.insert(0, str(work / "mutants" / "src"))
    os.environ.pop("PYTHONPATH", None)
    args = [
        "--rootdir=.",
        "-q",
        "-p",
        "no:randomly",
        *config["pytest_add_cli_args"],
        *(files + always or config["pytest_add_cli_args_test_selection"]),
    ]
    return int(pytest.main(args, plugins=[_Loop(work, max_children, globs, always)]))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
