"""`sapper scan` end to end: downloads, bad input, early stop, resume after kill -9, Dask."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from archive_factory import file, gzip_zero_bomb, make_tar, make_zip
from fake_index import FakeIndex, Reply, serve, sha256
from helpers import TODAY

from sapper._exceptions import StoreError
from sapper.check import Options, check_files
from sapper.inputs.sources import read_sdist
from sapper.render.json import result_dict
from sapper.scan import Progress, ScanOptions, scan
from sapper.scan.analyse import AnalyseOptions, analyse, read_plan
from sapper.scan.corpus import Job, parse_versions
from sapper.scan.store import open_results

MiB = 1024 * 1024
CHECK = Options(today=TODAY)
#: SC013 follows the imports of a package's modules: it needs the whole archive.
SC_ONLY = Options(today=TODAY, select=("SC",), ignore=("SC013",))
DASHED = "[metadata]\nname = {name}\ndescription-file = README\n"


def pkg_info(name: str, version: str) -> str:
    return f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"


def good_tar(name: str, version: str = "1.0", *, extra: list | None = None) -> bytes:
    root = f"{name}-{version}"
    return make_tar(
        [
            file(f"{root}/PKG-INFO", pkg_info(name, version)),
            *(extra or []),
            file(f"{root}/setup.cfg", DASHED.format(name=name)),
            file(f"{root}/setup.py", "from setuptools import setup\nsetup()\n"),
        ]
    )


def rows(db: Path, sql: str = "SELECT filename, outcome, error_type, error_message FROM sdists"):
    con = open_results(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# --------------------------------------------------------------------------- bad input


def bad_corpus(folder: Path) -> dict[str, str]:
    """Write good and bad sdists to ``folder``; return filename -> ``=outcome`` of a good
    one, or the pattern of a bad one's error message."""
    folder.mkdir()
    noise = os.urandom(256 * 1024)
    good = good_tar("good", extra=[file("good-1.0/data.bin", noise)])
    head = gzip.decompress(good)
    expected: dict[str, str] = {}

    def put(name: str, data: bytes, error: str) -> None:
        (folder / name).write_bytes(data)
        expected[name] = error

    put("good-1.0.tar.gz", good, "=builds")
    put(
        "zipped-2.0.zip",
        make_zip(
            [
                file("zipped-2.0/PKG-INFO", pkg_info("zipped", "2.0")),
                file("zipped-2.0/setup.cfg", "[metadata]\nname = zipped\n"),
            ]
        ),
        "=builds",
    )
    put(
        "latin-1.0.tar.gz",
        make_tar(
            [
                file("latin-1.0/PKG-INFO", pkg_info("latin", "1.0")),
                file(
                    "latin-1.0/setup.cfg",
                    "[metadata]\nname = latin\nauthor = Jos\xe9\n".encode("latin-1"),
                ),
            ]
        ),
        "=fails",  # not UTF-8: setuptools refuses it; a finding, not an error
    )
    put("truncated-1.0.tar.gz", good[: len(good) // 2], r"is truncated")
    corrupt = bytearray(good)
    for at in range(len(corrupt) // 3, len(corrupt) // 3 + 64):
        corrupt[at] ^= 0x5A
    put("corrupt-1.0.tar.gz", bytes(corrupt), r"corrupt compressed data|damaged|truncated")
    put(
        "traversal-1.0.tar.gz",
        make_tar([file("traversal-1.0/../../evil.py", "x"), file("traversal-1.0/setup.cfg", "")]),
        r"has a '\.\.' component; refusing to read a hostile archive",
    )
    put(
        "absolute-1.0.tar.gz",
        make_tar([file("/etc/evil", "x")]),
        r"has an absolute path",
    )
    put(
        "bomb-1.0.tar.gz",
        gzip_zero_bomb("bomb-1.0/data.bin", 32 * MiB),
        r"a ratio over 250:1.*decompression bomb",
    )
    put(
        "claims-1.0.tar.gz",
        make_tar([file("claims-1.0/setup.py", b"x" * 100, size=5 * 1024 * MiB)], "gz"),
        r"claim more than 1 GiB in all|claims 5 GiB",
    )
    put("nested-1.0.tar.gz", gzip.compress(gzip.compress(head)), r"holds gzip data, not a tar")
    put("text-1.0.tar.gz", b"this is not an archive at all\n" * 40, r"not an sdist archive")
    put("empty-1.0.tar.gz", b"", r"the file is empty")
    return expected


@pytest.mark.parametrize("early_stop", [True, False], ids=["early-stop", "full-read"])
def test_a_bad_corpus_finishes_and_records_every_error(tmp_path: Path, early_stop: bool) -> None:
    expected = bad_corpus(tmp_path / "corpus")
    db = tmp_path / "scan.duckdb"
    summary = scan(
        [str(tmp_path / "corpus")],
        options=ScanOptions(
            db=db, jobs=2, early_stop=early_stop, check=SC_ONLY, cache_dir=tmp_path
        ),
    )
    got = {r[0]: r for r in rows(db)}
    assert set(got) == set(expected)
    assert summary.scanned == len(expected)
    assert summary.failed == sum(1 for e in expected.values() if not e.startswith("="))
    for name, error in expected.items():
        _, outcome, error_type, message = got[name]
        if error.startswith("="):
            assert (outcome, error_type) == (error[1:], None), name
        else:
            assert (outcome, error_type) == (None, "archive"), name
            assert name in message
            assert re.search(error, message), (name, message)


def test_good_results_match_check_whatever_the_corpus_holds(tmp_path: Path) -> None:
    bad_corpus(tmp_path / "corpus")
    db = tmp_path / "scan.duckdb"
    scan([str(tmp_path / "corpus")], options=ScanOptions(db=db, jobs=1, check=CHECK))
    for name in ("good-1.0.tar.gz", "zipped-2.0.zip", "latin-1.0.tar.gz"):
        path = tmp_path / "corpus" / name
        files = read_sdist(path)
        want = result_dict(
            check_files(
                files,
                target=str(path),
                kind="sdist",
                options=CHECK,
                sha256=sha256(path.read_bytes()),
            )
        )
        (got,) = rows(db, f"SELECT result FROM sdists WHERE filename = '{name}'")
        assert json.loads(got[0]) == want


# --------------------------------------------------------------------------- early stop

ORDERS = {
    "setup-files-first": ["PKG-INFO", "setup.cfg", "setup.py", "pyproject.toml", "big.bin"],
    "setup-files-last": ["big.bin", "pyproject.toml", "setup.py", "setup.cfg", "PKG-INFO"],
    "no-setup-py": ["PKG-INFO", "setup.cfg", "big.bin", "pyproject.toml"],
    "interleaved": ["setup.cfg", "big.bin", "PKG-INFO", "src/x.py", "setup.py", "pyproject.toml"],
}
CONTENT = {
    "PKG-INFO": pkg_info("order", "1.0"),
    "setup.cfg": "[metadata]\nname = order\nHome-Page = x\n[options]\npackage-dir = src\n",
    "setup.py": "import pkg_resources\nfrom setuptools import setup\nsetup(use_2to3=True)\n",
    "pyproject.toml": (
        "[build-system]\nrequires = ['setuptools<70']\nbuild-backend = 'setuptools.build_meta'\n"
    ),
    "big.bin": os.urandom(64 * 1024),
    "src/x.py": "import os\n",
}


@pytest.mark.parametrize(
    ("select", "plan"),
    [
        ((), None),  # the layout and setup.py rules need the whole archive
        (("SC",), None),  # SC013 reads the modules of the package `attr:` names
        (("SC0",), None),
        (("SC00", "SC01"), None),
        (
            ("SC00", "SC010", "SC011", "SC012"),
            {"setup.cfg", "setup.py", "pyproject.toml", "PKG-INFO"},
        ),  # SC009 reads setup()
        (("SC001", "SC002"), {"setup.cfg", "pyproject.toml", "PKG-INFO"}),
        (("SC", "LY"), None),
    ],
)
def test_only_rules_needing_few_files_allow_an_early_stop(select: tuple, plan: set | None) -> None:
    got = read_plan(select, ())
    assert got == (None if plan is None else frozenset(plan))


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
@pytest.mark.parametrize("compression", ["gz", "bz2", "zip"])
@pytest.mark.parametrize("check", [CHECK, SC_ONLY], ids=["all-rules", "SC-only"])
def test_early_stop_gives_the_result_of_a_full_check(
    order: list[str], compression: str, check: Options
) -> None:
    entries = [file(f"order-1.0/{name}", CONTENT[name]) for name in order]
    data = make_zip(entries) if compression == "zip" else make_tar(entries, compression)
    job = Job(target="order.tar.gz", filename="order-1.0.tar.gz")
    fast = analyse(job, data, AnalyseOptions(check=check, early_stop=True))
    full = analyse(job, data, AnalyseOptions(check=check, early_stop=False))
    reference = check_files(
        read_sdist(data, label="order-1.0.tar.gz"),
        target="order.tar.gz",
        kind="pypi",
        options=check,
        sha256=sha256(data),
    )
    assert json.loads(fast.sdist["result"]) == json.loads(full.sdist["result"])
    assert json.loads(fast.sdist["result"]) == result_dict(reference)
    codes = {"SC001", "SP002"} if "setup.py" in order and check is CHECK else {"SC001"}
    assert codes <= {f["code"] for f in fast.findings}
    assert fast.findings == full.findings


@pytest.mark.parametrize(("check", "stops"), [(SC_ONLY, True), (CHECK, False)])
def test_early_stop_does_not_read_past_the_files_the_rules_need(
    check: Options, stops: bool
) -> None:
    data = make_tar(
        [file(f"p-1.0/{name}", CONTENT[name]) for name in ORDERS["setup-files-first"]]
        + [file("p-1.0/../../evil", "x")]  # reached only by a full read
    )
    job = Job(target="p.tar.gz", filename="p-1.0.tar.gz")
    fast = analyse(job, data, AnalyseOptions(check=check))
    assert fast.sdist["error_type"] == (None if stops else "archive")
    full = analyse(job, data, AnalyseOptions(check=check, early_stop=False))
    assert full.sdist["error_type"] == "archive"


# --------------------------------------------------------------------------- the index


def _entry(index: FakeIndex, filename: str, when: str, data: bytes | None = None) -> dict:
    path, data = index.add_file(filename, data)
    entry = {
        "filename": filename,
        "url": path,
        "hashes": {"sha256": sha256(data)},
        "size": len(data),
        "upload-time": when,
    }
    name = filename.split("-", maxsplit=1)[0]
    index.json_projects.setdefault(name, []).append(entry)
    return entry


@pytest.fixture
def fake() -> Iterator[tuple[FakeIndex, str]]:
    index = FakeIndex()
    _entry(index, "alpha-1.0.tar.gz", "2019-01-01T00:00:00Z", good_tar("alpha"))
    _entry(index, "alpha-2.0.tar.gz", "2021-01-01T00:00:00Z", good_tar("alpha", "2.0"))
    _entry(index, "alpha-2.0-py3-none-any.whl", "2021-01-01T00:00:00Z", b"wheel")
    _entry(index, "gone-1.0.tar.gz", "2021-01-01T00:00:00Z")
    index.fixed["/files/gone-1.0.tar.gz"] = Reply(404, b"no")
    _entry(index, "flaky-1.0.tar.gz", "2021-01-01T00:00:00Z")
    index.scripted["/files/flaky-1.0.tar.gz"] = [Reply(503, b"busy", {"Retry-After": "0"})]
    with serve(index) as url:
        yield index, url


def test_requirements_are_resolved_downloaded_and_failures_recorded(
    fake: tuple[FakeIndex, str], tmp_path: Path
) -> None:
    index, url = fake
    db = tmp_path / "scan.duckdb"
    options = ScanOptions(
        db=db,
        jobs=1,
        index_url=url,
        cache_dir=tmp_path / "cache",
        versions=parse_versions("all"),
        check=CHECK,
    )
    seen: list[Progress] = []
    summary = scan(["alpha", "gone", "flaky", "nosuch"], options=options, on_progress=seen.append)
    got = {
        (r[0], r[1]): r[2:]
        for r in rows(
            db,
            "SELECT coalesce(project, key), version, outcome, has_wheel, has_pure_wheel, "
            "error_type, upload_time IS NOT NULL FROM sdists",
        )
    }
    assert got == {
        ("alpha", "1.0"): ("builds", False, False, None, True),
        ("alpha", "2.0"): ("builds", True, True, None, True),
        ("flaky", "1.0"): ("builds", False, False, None, True),
        ("gone", "1.0"): (None, False, False, "fetch", True),
        ("req:nosuch", None): (None, None, None, "fetch", False),
    }
    assert (summary.scanned, summary.failed, summary.builds) == (5, 2, 3)
    assert index.paths_requested().count("/files/flaky-1.0.tar.gz") == 2  # retried
    assert (seen[-1].phase, seen[-1].done, seen[-1].total, seen[-1].failed) == ("scan", 5, 5, 2)

    # a second run skips everything; --retry-failed tries the failures again
    again = scan(["alpha", "gone", "flaky", "nosuch"], options=options)
    assert (again.scanned, again.skipped) == (0, 5)
    retry = scan(
        ["alpha", "gone", "flaky", "nosuch"],
        options=ScanOptions(**{**_fields(options), "retry_failed": True}),
    )
    assert (retry.scanned, retry.skipped, retry.failed) == (2, 3, 2)
    assert rows(db, "SELECT count(*) FROM sdists") == [(5,)]


def _fields(options: ScanOptions) -> dict:
    return {name: getattr(options, name) for name in ScanOptions.__dataclass_fields__}


# --------------------------------------------------------------------------- kill -9


def test_a_scan_killed_with_sigkill_resumes_and_loses_nothing(tmp_path: Path) -> None:
    index = FakeIndex()
    total = 120
    for n in range(total):
        _entry(index, f"omega-1.{n}.tar.gz", "2020-01-01T00:00:00Z", good_tar("omega", f"1.{n}"))
    answer = index.answer

    def slow(path: str, headers: dict[str, str]) -> Reply:
        if path.startswith("/files/"):
            time.sleep(0.03)
        return answer(path, headers)

    index.answer = slow  # type: ignore[method-assign]
    db = tmp_path / "scan.duckdb"
    env = {**os.environ, "SAPPER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    with serve(index) as url:
        args = [
            sys.executable,
            "-m",
            "sapper",
            "scan",
            "omega",
            "--versions",
            "all",
            "--db",
            str(db),
        ]
        args += ["--index-url", url, "-j", "1", "--connections", "1", "--progress", "always"]
        child = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert child.stderr is not None
        buffer = b""
        done = 0
        while done < 60:
            chunk = child.stderr.read1(4096)  # type: ignore[attr-defined]
            assert chunk, buffer.decode(errors="replace")[-500:]
            buffer += chunk
            counts = re.findall(rb"\] (\d+)/\d+", buffer)
            done = int(counts[-1]) if counts else 0
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stderr.close()
        (before,) = rows(db, "SELECT count(*) FROM sdists")
        assert 0 < before[0] < total  # killed mid-scan, after a batch was written
        resumed = scan(
            ["omega"],
            options=ScanOptions(
                db=db,
                jobs=1,
                index_url=url,
                cache_dir=tmp_path / "cache",
                versions=parse_versions("all"),
            ),
        )
    assert resumed.skipped == before[0]
    assert resumed.scanned == total - before[0]
    assert rows(
        db, "SELECT count(*), count(DISTINCT key), count(DISTINCT version) FROM sdists"
    ) == [(total, total, total)]
    # every sdist has its one finding, once
    assert rows(db, "SELECT count(*), count(DISTINCT key) FROM findings") == [(total, total)]


# --------------------------------------------------------------------------- Dask


def test_the_dask_engine_gives_the_rows_of_the_process_engine(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    corpus = tmp_path / "corpus"
    expected = bad_corpus(corpus)
    local_db = tmp_path / "local.duckdb"
    scan([str(corpus)], options=ScanOptions(db=local_db, jobs=1, check=CHECK))
    dask_db = tmp_path / "dask-results"
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        summary = scan(
            [str(corpus)],
            options=ScanOptions(db=dask_db, engine="dask", check=CHECK, dask_batch=4),
            client=client,
        )
    assert summary.scanned == len(expected)
    assert len(list((dask_db / "sdists").glob("part-*.parquet"))) == -(-len(expected) // 4)
    sql = "SELECT key, outcome, error_type, fails_enforced, result FROM sdists ORDER BY key"
    assert rows(dask_db, sql) == rows(local_db, sql)
    findings = "SELECT key, code, line FROM findings ORDER BY key, code"
    assert rows(dask_db, findings) == rows(local_db, findings)


# --------------------------------------------------------------------------- the row


def test_the_fails_columns_are_the_union_of_the_findings_ranges() -> None:
    from sapper.versions import catalogue, contains

    entries = [file(f"u-1.0/{name}", CONTENT[name]) for name in ORDERS["setup-files-first"]]
    row = analyse(Job(target="u.tar.gz"), make_tar(entries), AnalyseOptions(check=CHECK))
    findings = json.loads(row.sdist["result"])["findings"]
    assert len(findings) > 1
    for column in ("fails", "fails_enforced"):
        union = row.sdist[column]
        assert len(union) == len(set(union))
        for version in catalogue().universe:
            expected = any(contains(f[column], version) for f in findings)
            assert contains(union, version) == expected, (column, version)


# --------------------------------------------------------------------------- a worker dies


def analyse_or_die(job: Job, data: bytes, options: AnalyseOptions):
    """Runs in a worker process: dies on the sdists named crash-*, like a segfault would."""
    if Path(job.target).name.startswith("crash-"):
        os._exit(1)
    return analyse(job, data, options)


def test_a_worker_that_dies_costs_only_its_own_sdist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sapper.scan.engine

    monkeypatch.setattr(sapper.scan.engine, "analyse", analyse_or_die)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    names = [f"good{n}" for n in range(6)] + ["crash"]
    for name in names:
        (corpus / f"{name}-1.0.tar.gz").write_bytes(good_tar(name))
    db = tmp_path / "scan.duckdb"
    summary = scan([str(corpus)], options=ScanOptions(db=db, jobs=2, check=CHECK))
    assert (summary.scanned, summary.failed) == (len(names), 1)
    got = dict(rows(db, "SELECT filename, coalesce(error_type, outcome) FROM sdists"))
    assert got == {f"{name}-1.0.tar.gz": "builds" for name in names} | {"crash-1.0.tar.gz": "crash"}


def test_the_worker_pool_is_started_ahead_and_handed_over_once() -> None:
    from sapper.scan._pool import WarmPool

    warm = WarmPool(2)
    pool = warm.take()
    assert pool is not None
    try:
        # both workers were started by the warm-up, so two tasks run in two processes
        assert len(pool._processes) == 2
        assert len({pool.submit(os.getpid).result() for _ in range(8)} - {os.getpid()}) >= 1
    finally:
        pool.shutdown()
    assert warm.take() is None  # handed over once
    warm.discard()  # nothing left to shut down


_WHO_STARTS_THE_WORKERS = """
import os, sys, threading
from sapper.scan._pool import WarmPool
if sys.argv[1] == "threaded":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
pool = WarmPool(2).take()
parents = {pool.submit(os.getppid).result() for _ in range(4)}
pool.shutdown()
print("scan" if parents == {os.getpid()} else "fork server")
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
@pytest.mark.parametrize(("threads", "parent"), [("single", "scan"), ("threaded", "fork server")])
def test_workers_fork_from_the_scan_only_while_it_has_one_thread(threads: str, parent: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WHO_STARTS_THE_WORKERS, threads],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == parent


@pytest.mark.parametrize("how", ["forked", "fork server"])
def test_a_scan_that_stops_early_shuts_the_pool_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    import sapper.scan._pool

    started: list[Any] = []

    def recorded(real: Callable[[int], Any]) -> Callable[[int], Any]:
        def start(workers: int) -> Any:
            pool = real(workers)
            if pool is not None:
                started.append(pool)
            return pool

        return start

    pools = sapper.scan._pool
    forked = recorded(pools.forked_pool) if how == "forked" else lambda workers: None
    monkeypatch.setattr(pools, "forked_pool", forked)
    monkeypatch.setattr(pools, "process_pool", recorded(pools.process_pool))
    (tmp_path / "x-1.0.tar.gz").write_bytes(good_tar("x"))
    not_a_db = tmp_path / "scan.duckdb"
    not_a_db.write_text("not a database")
    with pytest.raises(StoreError, match="cannot open the scan database"):
        scan([str(tmp_path / "x-1.0.tar.gz")], options=ScanOptions(db=not_a_db, jobs=2))
    (pool,) = started
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(os.getpid)


def test_a_pool_that_cannot_start_ahead_is_started_when_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sapper.scan._pool

    real = sapper.scan._pool.process_pool
    calls: list[int] = []

    def fails_first(workers: int) -> object:
        calls.append(workers)
        if len(calls) == 1:
            raise OSError("no fork server now")
        return real(workers)

    monkeypatch.setattr(sapper.scan._pool, "forked_pool", lambda workers: None)
    monkeypatch.setattr(sapper.scan._pool, "process_pool", fails_first)
    (tmp_path / "x-1.0.tar.gz").write_bytes(good_tar("x"))
    db = tmp_path / "scan.duckdb"
    summary = scan([str(tmp_path / "x-1.0.tar.gz")], options=ScanOptions(db=db, jobs=2))
    assert (summary.scanned, summary.failed, calls) == (1, 0, [2, 2])


# --------------------------------------------------------------------------- --top


def test_top_scans_the_most_downloaded_projects(tmp_path: Path) -> None:
    from sapper.scan.corpus import top_list

    (first, first_count), (second, second_count) = top_list().rows[:2]
    index = FakeIndex()
    for name in (first, second):
        path, data = index.add_file(f"{name}-1.0.tar.gz", good_tar(name))
        index.json_projects[name] = [
            {
                "filename": f"{name}-1.0.tar.gz",
                "url": path,
                "hashes": {"sha256": sha256(data)},
                "upload-time": "2025-01-01T00:00:00Z",
            }
        ]
    db = tmp_path / "scan.duckdb"
    with serve(index) as url:
        summary = scan(
            [],
            top=2,
            options=ScanOptions(db=db, jobs=1, index_url=url, cache_dir=tmp_path, check=CHECK),
        )
    assert summary.top_list_date == top_list().date
    assert sorted(rows(db, "SELECT project, downloads FROM sdists")) == sorted(
        [(first, first_count), (second, second_count)]
    )
    assert rows(db, "SELECT value FROM meta WHERE key = 'top_list_date'") == [(top_list().date,)]
