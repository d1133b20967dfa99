"""Downloads as a stage of their own: the prefetch bound, the per-stage report and the rule
that names what bound a run, and ``--download-only`` evicting what is analysed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_index import FakeIndex, make_sdist, serve, sha256
from helpers import TODAY

from sapper.cache import info
from sapper.check import Options
from sapper.cli import main
from sapper.scan import ScanOptions, scan
from sapper.scan.stages import BOUND_THRESHOLD, Stage, StageReport, bound_of

NAMES = [f"proj{number}" for number in range(8)]


def _stage(name: str, busy: float, slots: int) -> Stage:
    resource = {"download": "network", "analysis": "cpu", "store": "disk"}[name]
    return Stage(
        name=name,  # type: ignore[arg-type]
        resource=resource,  # type: ignore[arg-type]
        items=1,
        bytes=0,
        wall=busy,
        busy=busy,
        slots=slots,
    )


@pytest.mark.parametrize(
    ("download", "analysis", "store", "wall", "bound"),
    [
        # 4 connections busy 36 of 40 connection-seconds: the network
        ((36.0, 4), (5.0, 2), (1.0, 1), 10.0, "network"),
        # 2 workers busy 19 of 20 worker-seconds: the CPU, though downloads took longer
        ((30.0, 8), (19.0, 2), (1.0, 1), 10.0, "cpu"),
        # the one writer busy 9 of 10 seconds: the disk
        ((4.0, 4), (4.0, 2), (9.0, 1), 10.0, "disk"),
        # nothing busy half the time: no stage bound it (start-up, latency)
        ((4.0, 4), (4.0, 2), (1.0, 1), 10.0, None),
        # at the threshold exactly: bound
        ((BOUND_THRESHOLD * 40, 4), (0.0, 2), (0.0, 1), 10.0, "network"),
        # no time at all
        ((0.0, 4), (0.0, 2), (0.0, 1), 0.0, None),
    ],
)
def test_the_bound_is_the_stage_whose_slots_were_busiest(
    download: tuple[float, int],
    analysis: tuple[float, int],
    store: tuple[float, int],
    wall: float,
    bound: str | None,
) -> None:
    stages = (
        _stage("download", *download),
        _stage("analysis", *analysis),
        _stage("store", *store),
    )
    assert bound_of(stages, wall) == bound
    report = StageReport(wall=wall, stages=stages)
    assert report.as_dict()["bound"] == (bound or "none")


@pytest.fixture
def index() -> Iterator[tuple[FakeIndex, str]]:
    fake = FakeIndex()
    for name in NAMES:
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
    with serve(fake) as url:
        yield fake, url


def _options(tmp_path: Path, url: str, **extra: object) -> ScanOptions:
    return ScanOptions(
        db=tmp_path / "scan.duckdb",
        jobs=1,
        index_url=url,
        cache_dir=tmp_path / "cache",
        check=Options(today=TODAY),
        **extra,  # type: ignore[arg-type]
    )


def _sizes(names: list[str]) -> int:
    return sum(len(make_sdist(name, "1.0")) for name in names)


@pytest.mark.parametrize(
    ("extra", "most"),
    [
        ({"prefetch": 1}, 1),
        ({"prefetch": 3}, 3),
        # a byte cap below one sdist: one at a time (one may always run ahead)
        ({"prefetch_bytes": 10}, 1),
        # the default: twice the workers plus twice the connections
        ({}, 2 * 1 + 2 * 4),
    ],
)
def test_downloads_run_ahead_of_the_analysis_within_the_prefetch_bound(
    index: tuple[FakeIndex, str], tmp_path: Path, extra: dict[str, object], most: int
) -> None:
    _, url = index
    summary = scan(NAMES, options=_options(tmp_path, url, **extra))
    assert summary.scanned == len(NAMES)
    assert summary.stages is not None
    download, analysis, store = summary.stages.stages
    assert (download.name, analysis.name, store.name) == ("download", "analysis", "store")
    assert 1 <= download.peak_ahead <= most
    assert (download.items, download.bytes) == (len(NAMES), _sizes(NAMES))
    assert (analysis.items, analysis.bytes) == (len(NAMES), _sizes(NAMES))
    assert analysis.busy > 0 and download.busy > 0
    assert store.items >= 1 and store.bytes > 0
    # a rerun downloads nothing: the cache holds every sdist, the store every row
    again = scan(NAMES, options=_options(tmp_path, url, **extra))
    assert again.stages is not None
    assert [stage.items for stage in again.stages.stages] == [0, 0, 0]


def test_download_only_evicts_what_is_analysed_to_stay_under_the_cap(
    index: tuple[FakeIndex, str], tmp_path: Path
) -> None:
    _, url = index
    analysed, later = NAMES[:4], NAMES[4:]
    scan(analysed, options=_options(tmp_path, url))  # in the store and in the cache
    cache = tmp_path / "cache"
    # no room: nothing downloaded (and nothing evicted: it would not make room enough)...
    none = scan(later, options=_options(tmp_path, url, download_only=True, download_cap=1))
    assert (none.downloaded, none.deferred, none.evicted) == (0, 4, 0)
    # ... but the pages of `later` are in the cache now: room for two sdists more, and the
    # other two need evictions
    cap = info(cache).bytes + _sizes(later[:2]) + 10
    summary = scan(later, options=_options(tmp_path, url, download_only=True, download_cap=cap))
    assert (summary.downloaded, summary.deferred) == (4, 0)
    assert summary.evicted >= 1
    assert info(cache).bytes <= cap
    left = {p.parent.name for p in (cache / "sdists").rglob("*.tar.gz")}
    # every sdist not yet analysed is kept; only analysed ones went
    assert {sha256(make_sdist(name, "1.0")) for name in later} <= left
    assert len(left & {sha256(make_sdist(name, "1.0")) for name in analysed}) == 4 - (
        summary.evicted
    )
    assert summary.stages is not None
    assert [stage.name for stage in summary.stages.stages] == ["download", "store"]


def test_download_only_never_evicts_what_is_not_analysed(
    index: tuple[FakeIndex, str], tmp_path: Path
) -> None:
    _, url = index
    options = _options(tmp_path, url, download_only=True)
    scan(NAMES[:4], options=options)  # downloaded, not analysed
    cache = tmp_path / "cache"
    scan(NAMES[4:], options=_options(tmp_path, url, download_only=True, download_cap=1))
    cap = info(cache).bytes + 10  # the pages, and room for no sdist
    summary = scan(NAMES[4:], options=_options(tmp_path, url, download_only=True, download_cap=cap))
    assert (summary.evicted, summary.downloaded, summary.deferred) == (0, 0, 4)
    assert len(list((cache / "sdists").rglob("*.tar.gz"))) == 4


def test_the_command_line_shows_the_stages_and_writes_them_as_json(
    index: tuple[FakeIndex, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = index
    report = tmp_path / "stages.json"
    args = ["scan", *NAMES, "--index-url", url, "--progress", "never", "-j", "1"]
    args += ["--cache-dir", str(tmp_path / "cache"), "--db", str(tmp_path / "scan.duckdb")]
    assert main([*args, "--prefetch", "2", "--stage-report", str(report)]) == 0
    err = capsys.readouterr().err
    assert "\nstages over " in err
    for name in ("download", "analysis", "store"):
        assert f"\n  {name} " in err
    written = json.loads(report.read_text())
    assert [stage["name"] for stage in written["stages"]] == ["download", "analysis", "store"]
    assert written["stages"][0]["items"] == len(NAMES)
    assert written["stages"][0]["peak_ahead"] <= 2
    assert written["bound"] in ("network", "cpu", "disk", "none")
    assert main([*args, "--prefetch-size", "lots"]) == 2
    assert "--prefetch-size: 'lots' is not a size" in capsys.readouterr().err
