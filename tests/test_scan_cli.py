"""The `sapper scan` command line: arguments, final line, export, progress rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from archive_factory import file, make_tar

from sapper.cli import main
from sapper.cli.scan import format_progress
from sapper.scan import Progress
from sapper.scan.corpus import top_list


def write_corpus(folder: Path) -> None:
    folder.mkdir()
    for name, cfg in (("dashed", "description-file = README\n"), ("clean", "")):
        root = f"{name}-1.0"
        data = make_tar(
            [
                file(f"{root}/PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"),
                file(f"{root}/setup.cfg", f"[metadata]\nname = {name}\n{cfg}"),
            ]
        )
        (folder / f"{root}.tar.gz").write_bytes(data)
    (folder / "broken-1.0.tar.gz").write_bytes(b"not an archive")


def test_scan_then_export_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "corpus")
    db = tmp_path / "scan.duckdb"
    out = tmp_path / "out.jsonl"
    argv = ["scan", str(tmp_path / "corpus"), "--db", str(db), "-j", "1", "--export", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "scanned 3 sdists" in err
    assert "0 fail, 2 build, 0 unknown (0 built by another backend, " in err
    assert "0 not decidable statically), 1 errors" in err
    assert f"exported 3 sdists from {db} to {out}" in err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    names = {r["scan"]["filename"]: r for r in records}
    assert names["broken-1.0.tar.gz"]["errors"][0]["type"] == "archive"
    assert names["dashed-1.0.tar.gz"]["findings"][0]["code"] == "SC001"
    assert {"target", "kind", "project", "verdict", "findings", "errors"} <= set(records[0])

    # run again: nothing to do; export alone
    assert main(["scan", str(tmp_path / "corpus"), "--db", str(db), "-j", "1"]) == 0
    assert "3 already done, skipped" in capsys.readouterr().err
    parquet = tmp_path / "out.parquet"
    assert main(["scan", "--db", str(db), "--export", str(parquet)]) == 0
    assert parquet.read_bytes()[:4] == b"PAR1"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["scan"], "give something to scan"),
        (["scan", "x", "--versions", "oldest"], "--versions 'oldest'"),
        (["scan", "./no/such/dir"], "not a directory of sdists"),
        (["scan", "x", "--engine", "dask"], "--engine dask needs --scheduler"),
        (["scan", "--export", "out.csv"], "must end in .parquet or .jsonl"),
        (["scan", "--export", "out.jsonl"], "no scan results"),
    ],
)
def test_usage_errors(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", str(tmp_path / "scan.duckdb")]
    assert main([*argv, *db]) == 2
    assert message in capsys.readouterr().err


def test_help_names_the_date_of_the_top_list(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["scan", "--help"])
    assert f"dated {top_list().date}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("progress", "expected"),
    [
        (
            Progress(phase="scan", done=30, total=130, failed=2, skipped=10, elapsed=10.0),
            "[######..................] 30/120  25% 3.0 sdist/s ETA 0:00:30  failed 2  skipped 10",
        ),
        (
            Progress(phase="scan", done=0, total=5, failed=0, skipped=0, elapsed=0.0),
            "[........................] 0/5   0% 0.0 sdist/s ETA ?:??:??  failed 0",
        ),
        (
            Progress(phase="resolve", done=3, total=40, failed=1, skipped=0, elapsed=1.0),
            "resolving 3/40 projects  failed 1",
        ),
        pytest.param(
            Progress(
                phase="scan", done=30, total=130, failed=12, skipped=0, elapsed=5.0, rate_base=10
            ),
            "[#####...................] 30/130  23% 4.0 sdist/s ETA 0:00:25  failed 12",
            id="rate and ETA exclude the rows written while resolving",
        ),
    ],
)
def test_progress_line(progress: Progress, expected: str) -> None:
    assert format_progress(progress) == expected


#: (name, files of the sdist beside PKG-INFO, outcome stored)
UNKNOWNS = [
    ("flitted", {"pyproject.toml": '[build-system]\nrequires = ["flit_core"]\n'
                 'build-backend = "flit_core.buildapi"\n'}, "unknown"),
    # what setup() gets comes from a module sapper cannot read: not "builds" on a guess
    ("opaque", {"setup.py": "from setuptools import setup\nfrom somewhere import kwargs\n"
                "setup(**kwargs)\n",
                "somewhere.py": "import json\nkwargs = json.loads('{}')\n"}, "unknown"),
    ("plain", {"setup.py": "from setuptools import setup\nsetup(name='plain', version='1.0')\n"},
     "builds"),
]  # fmt: skip


def test_scan_says_what_unknown_means(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, files, _ in UNKNOWNS:
        root = f"{name}-1.0"
        pkg_info = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
        entries = [file(f"{root}/PKG-INFO", pkg_info)]
        entries += [file(f"{root}/{rel}", text) for rel, text in files.items()]
        (folder / f"{root}.tar.gz").write_bytes(make_tar(entries))
    db = tmp_path / "scan.duckdb"
    out = tmp_path / "out.jsonl"
    assert main(["scan", str(folder), "--db", str(db), "-j", "1", "--export", str(out)]) == 0
    err = capsys.readouterr().err
    assert "0 fail, 1 build, 2 unknown (1 built by another backend, 1 not decidable" in err
    stored = {
        r["scan"]["filename"]: r["scan"]["outcome"]
        for r in map(json.loads, out.read_text().splitlines())
    }
    assert stored == {f"{name}-1.0.tar.gz": outcome for name, _, outcome in UNKNOWNS}
