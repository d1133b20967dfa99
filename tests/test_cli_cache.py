"""``sapper cache info|clean`` and the size cap (least recently used downloads go first)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from sapper.cache import clean, enforce_max_size, info
from sapper.cli import main

DAY = 86400.0


def put(root: Path, rel: str, size: int, age_days: float, now: float) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    t = now - age_days * DAY
    os.utime(path, (t, t))
    return path


@pytest.fixture
def cache(tmp_path: Path) -> tuple[Path, float]:
    now = time.time()
    root = tmp_path / "cache"
    put(root, "sdists/aa/aa11/a-1.0.tar.gz", 1000, 30, now)
    put(root, "sdists/bb/bb22/b-1.0.tar.gz", 2000, 10, now)
    put(root, "sdists/cc/cc33/c-1.0.tar.gz", 3000, 1, now)
    put(root, "resolve/a/0123.json", 100, 40, now)
    return root, now


def test_info_counts_per_kind(cache) -> None:
    root, _ = cache
    result = info(root)
    assert result.exists
    assert [(k.kind, k.files, k.bytes) for k in result.kinds] == [
        ("resolve", 1, 100),
        ("sdists", 3, 6000),
    ]
    assert (result.files, result.bytes) == (4, 6100)


def test_info_of_a_missing_cache(tmp_path: Path) -> None:
    result = info(tmp_path / "nope")
    assert (result.exists, result.files, result.bytes) == (False, 0, 0)


def test_clean_older_than(cache) -> None:
    root, now = cache
    dry = clean(root, older_than_days=20, dry_run=True, now=now)
    assert (dry.removed_files, dry.removed_bytes) == (2, 1100)
    assert info(root).files == 4
    done = clean(root, older_than_days=20, now=now)
    assert (done.removed_files, done.removed_bytes, done.kept_bytes) == (2, 1100, 5000)
    assert not (root / "sdists" / "aa").exists()  # empty folders pruned
    assert root.is_dir()


def test_clean_kind_and_all(cache) -> None:
    root, now = cache
    assert clean(root, kinds=("resolve",), now=now).removed_files == 1
    assert clean(root, now=now).removed_files == 3
    assert info(root).files == 0


@pytest.mark.parametrize(
    ("cap", "left"),
    [
        (10_000, {"a", "b", "c"}),
        (6100, {"a", "b", "c"}),
        (5500, {"b", "c"}),  # the least recently used download goes first
        (3200, {"c"}),
        (0, set()),
    ],
)
def test_size_cap_evicts_least_recently_used_downloads(cache, cap: int, left: set[str]) -> None:
    root, _ = cache
    enforce_max_size(root, cap)
    names = {p.name[0] for p in (root / "sdists").rglob("*.tar.gz")}
    assert names == left
    assert (root / "resolve" / "a" / "0123.json").is_file()  # not a download: kept


def test_cli_info_and_clean(capsys, cache) -> None:
    root, _ = cache
    assert main(["cache", "info", "--cache-dir", str(root), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["bytes"] == 6100
    assert {k["kind"]: k["files"] for k in doc["kinds"]} == {"resolve": 1, "sdists": 3}
    assert main(["cache", "info", "--cache-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"location: {root}" in out
    assert "size: 6.1 kB in 4 file(s)" in out
    assert main(["cache", "clean", "--cache-dir", str(root), "--max-size", "5.5kB"]) == 0
    assert "removed 1 file(s), 1.0 kB; 5.1 kB left" in capsys.readouterr().out
    base = ["cache", "clean", "--cache-dir", str(root)]
    assert main([*base, "--max-size", "1k", "--kind", "x"]) == 2
    assert main([*base, "--max-size", "lots"]) == 2
    assert main([*base, "--older-than", "-1"]) == 2
    assert main(base) == 0
    assert info(root).files == 0


def test_cap_applies_after_check(capsys, cache, tmp_path: Path) -> None:
    root, _ = cache
    project = tmp_path / "p"
    project.mkdir()
    (project / "setup.cfg").write_text("[metadata]\nname = ok\n")
    code = main(["check", str(project), "--cache-dir", str(root), "--cache-max-size", "3500"])
    assert code == 0
    assert "evicted 2 least recently used download(s)" in capsys.readouterr().err
    assert {p.name[0] for p in (root / "sdists").rglob("*.tar.gz")} == {"c"}


def test_malformed_cap_is_a_usage_error_before_any_work(capsys, monkeypatch, tmp_path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "setup.cfg").write_text("[metadata]\nname = ok\n")
    monkeypatch.setenv("SAPPER_CACHE_MAX_SIZE", "lots")
    assert main(["check", str(project)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "$SAPPER_CACHE_MAX_SIZE: 'lots' is not a size" in err


def test_cap_that_other_kinds_exceed_says_so(capsys, cache) -> None:
    root, now = cache
    put(root, "build/envs/x/lib.py", 9000, 1, now)
    assert main(["cache", "clean", "--cache-dir", str(root), "--max-size", "5000"]) == 0
    out, err = capsys.readouterr()
    assert "removed 3 file(s)" in out
    assert "still holds 9.1 kB, above the 5.0 kB cap: only downloaded sdists are evicted" in err
    assert (root / "build" / "envs" / "x" / "lib.py").is_file()
