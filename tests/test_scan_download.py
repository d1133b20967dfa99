"""``sapper scan --download-only``: downloads as their own stage, resumable, within a cap."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_index import FakeIndex, Reply, make_sdist, serve, sha256
from helpers import TODAY

from sapper.cache import info
from sapper.check import Options
from sapper.cli import main
from sapper.scan import ScanOptions, scan
from sapper.scan.store import open_results

NAMES = ["alpha", "beta", "gamma", "delta"]


@pytest.fixture
def index() -> Iterator[tuple[FakeIndex, str]]:
    fake = FakeIndex()
    for name in [*NAMES, "gone"]:
        filename = f"{name}-1.0.tar.gz"
        data = make_sdist(name, "1.0")
        path, _ = fake.add_file(filename, data)
        fake.json_projects[name] = [
            {
                "filename": filename,
                "url": path,
                "hashes": {"sha256": sha256(data)},
                "size": len(data),
            }
        ]
    fake.fixed["/files/gone-1.0.tar.gz"] = Reply(404, b"no")
    with serve(fake) as url:
        yield fake, url


def _files(fake: FakeIndex) -> list[str]:
    return [path for path in fake.paths_requested() if path.startswith("/files/")]


def _count(db: Path, sql: str = "SELECT count(*) FROM sdists") -> int:
    con = open_results(db)
    try:
        return int(con.execute(sql).fetchone()[0])
    finally:
        con.close()


def test_download_only_fills_the_cache_and_a_scan_reads_it(
    index: tuple[FakeIndex, str], tmp_path: Path
) -> None:
    fake, url = index
    db = tmp_path / "scan.duckdb"
    options = ScanOptions(
        db=db, jobs=1, index_url=url, cache_dir=tmp_path / "cache", check=Options(today=TODAY)
    )
    prefetch = ScanOptions(**{**_fields(options), "download_only": True})
    summary = scan([*NAMES, "gone"], options=prefetch)
    sizes = sum(len(make_sdist(name, "1.0")) for name in NAMES)
    assert (summary.downloaded, summary.downloaded_bytes, summary.cached) == (4, sizes, 0)
    assert summary.failed == 1  # gone: a row with its error, as in a scan
    assert _count(db) == 1
    assert sorted(_files(fake)) == sorted(f"/files/{n}-1.0.tar.gz" for n in [*NAMES, "gone"])
    # resumable: a second run downloads nothing it has
    again = scan(NAMES, options=prefetch)
    assert (again.downloaded, again.cached) == (0, 4)
    assert len(_files(fake)) == 5
    # the scan analyses from the cache: no download
    done = scan(NAMES, options=options)
    assert done.scanned == 4
    assert len(_files(fake)) == 5
    assert _count(db) == 5


def test_the_cache_cap_leaves_the_rest_for_a_later_run(
    index: tuple[FakeIndex, str], tmp_path: Path
) -> None:
    fake, url = index
    cache = tmp_path / "cache"
    base = ScanOptions(db=tmp_path / "scan.duckdb", index_url=url, cache_dir=cache)
    # no room at all: nothing downloaded, everything left for later
    none = scan(
        NAMES, options=ScanOptions(**{**_fields(base), "download_only": True, "download_cap": 1})
    )
    assert (none.downloaded, none.deferred) == (0, 4)
    assert _files(fake) == []
    # room for two sdists (the cache holds the index pages already)
    one = len(make_sdist("alpha", "1.0"))
    cap = info(cache).bytes + 2 * one + one // 2
    two = scan(
        NAMES, options=ScanOptions(**{**_fields(base), "download_only": True, "download_cap": cap})
    )
    assert (two.downloaded, two.deferred) == (2, 2)
    assert info(cache).bytes <= cap
    # a larger cap: the rest, and only the rest
    rest = scan(
        NAMES,
        options=ScanOptions(**{**_fields(base), "download_only": True, "download_cap": 10**9}),
    )
    assert (rest.downloaded, rest.cached, rest.deferred) == (2, 2, 0)
    assert len(_files(fake)) == len(set(_files(fake))) == 4


def test_the_command_line_says_what_was_downloaded(
    index: tuple[FakeIndex, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = index
    args = ["scan", *NAMES, "--download-only", "--index-url", url, "--progress", "never"]
    args += ["--cache-dir", str(tmp_path / "cache"), "--db", str(tmp_path / "scan.duckdb")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.startswith("downloaded 4 sdists, ")
    assert "; 0 already in the cache" in err
    assert main([*args, "--cache-max-size", "1"]) == 0
    err = capsys.readouterr().err
    assert "downloaded 0 sdists" in err and "4 already in the cache" in err
    # the cap bounds the downloads; it evicts nothing (not analysed yet)
    (sdists,) = [kind for kind in info(tmp_path / "cache").kinds if kind.kind == "sdists"]
    assert sdists.files == 4


def _fields(options: ScanOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in ScanOptions.__dataclass_fields__}
