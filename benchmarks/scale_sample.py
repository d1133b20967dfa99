"""Per-sdist costs of ``sapper scan`` on a stratified sample of PyPI, for docs/scale.md.

The sample (seeded, so a rerun takes the same projects):

* ``--per-stratum`` projects from each rank stratum of the 15,000 most-downloaded list
  (``../shared/data/top-pypi-packages-30-days.json`` when it is there, else the copy sapper
  ships): ranks 1-100, 101-1,000, 1,001-5,000, 5,001-15,000;
* ``--tail`` projects drawn at random from the rest of the index: every project name the
  simple index lists (``https://pypi.org/simple/``, PEP 691 JSON; its count is the number of
  projects the projection uses), minus the 15,000; and ``--tail-pages`` more of them whose
  project pages only are read (releases with an sdist, their sizes), stratum ``tail-pages``.

For each project: its page (how many releases have an sdist, and their sizes: the input of
the every-release projection), its newest sdist (downloaded into ``--cache-dir``: bytes and
seconds), and the analysis of that sdist in a fresh interpreter that imports sapper first and
analyses a tiny sdist (the rules and the catalogue load then), then times
:func:`sapper.scan.analyse.analyse` of the sdist alone (CPU seconds, ``time.process_time``)
and reports its peak RSS (``VmHWM`` of ``/proc/self/status``, Linux: the interpreter,
sapper's modules and the archive's analysis). The store bytes per sdist are those of a
DuckDB store that ``sapper scan -j 1`` writes from the downloaded files (its size over its
row count), and the row's own JSON size.
Writes one JSON file (``--out``) with every record and the summary per stratum.

    python benchmarks/scale_sample.py [--per-stratum 15] [--tail 40] [--out scale-sample.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent
STRATA = ((1, 100), (101, 1000), (1001, 5000), (5001, 15000))
SHARED = ROOT.parent / "shared" / "data" / "top-pypi-packages-30-days.json"
SIMPLE = "https://pypi.org/simple/"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"

_CHILD = """
import json, sys, time
from pathlib import Path
from sapper.scan.analyse import AnalyseOptions, analyse
from sapper.scan.corpus import Job
warm = Path(sys.argv[2])
analyse(Job(target=str(warm), path=str(warm)), warm, AnalyseOptions())  # imports, catalogue
path = Path(sys.argv[1])
job = Job(target=str(path), path=str(path))
start = time.process_time()
row = analyse(job, path, AnalyseOptions())
cpu = time.process_time() - start
status = Path("/proc/self/status").read_text()
peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
print(json.dumps({"cpu": cpu, "peak": peak, "row_bytes": len(json.dumps(row.sdist, default=str))
 + len(json.dumps(row.findings, default=str)), "outcome": row.sdist["outcome"],
 "error": row.sdist["error_type"]}))
"""


def tiny_sdist() -> bytes:
    """A small sdist the child analyses first, so that the one measured pays no imports."""
    import io
    import tarfile

    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w") as tar,
    ):
        for member, text in (
            ("PKG-INFO", "Metadata-Version: 2.1\nName: warm\nVersion: 1.0\n"),
            ("setup.py", "from setuptools import setup\nsetup(name='warm')\n"),
            ("setup.cfg", "[metadata]\nname = warm\n"),
            ("pyproject.toml", "[build-system]\nrequires = ['setuptools']\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(f"warm-1.0/{member}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def top_names() -> list[str]:
    """The 15,000 most-downloaded projects, most downloaded first."""
    if SHARED.is_file():
        raw = json.loads(SHARED.read_text())
        return [str(r["project"]) for r in raw["rows"]]
    from sapper.scan.corpus import top_list

    return [name for name, _ in top_list().rows]


def all_names(cache: Path) -> list[str]:
    """Every project name the simple index lists (kept in ``cache`` once fetched)."""
    if not cache.is_file():
        request = urllib.request.Request(
            SIMPLE, headers={"Accept": JSON_TYPE, "Accept-Encoding": "gzip"}
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            body = response.read()
            if response.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            kind = response.headers.get("Content-Type", "")
        if JSON_TYPE in kind:
            names = [p["name"] for p in json.loads(body)["projects"]]
        else:  # some mirrors answer the PEP 503 HTML page whatever is asked
            names = re.findall(r'<a href="[^"]*">([^<]+)</a>', body.decode())
        cache.write_text(json.dumps(names))
    return list(json.loads(cache.read_text()))


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sample(
    per_stratum: int, tail: int, names: list[str], seed: int, tail_pages: int = 0
) -> list[tuple[str, str]]:
    """(stratum, project) pairs; ``tail_pages`` more of the tail as ``tail-pages``."""
    rng = random.Random(seed)
    top = top_names()
    chosen: list[tuple[str, str]] = []
    for low, high in STRATA:
        band = top[low - 1 : high]
        chosen += [(f"{low}-{high}", n) for n in rng.sample(band, min(per_stratum, len(band)))]
    known = {canonical(n) for n in top}
    rest = sorted(n for n in names if canonical(n) not in known)
    drawn = rng.sample(rest, tail + tail_pages)
    chosen += [("tail", n) for n in drawn[:tail]]
    chosen += [("tail-pages", n) for n in drawn[tail:]]
    return chosen


def measure(stratum: str, name: str, index: Any, warm: Path) -> dict[str, Any]:
    """The costs of ``name``'s newest sdist (only its page's figures for ``tail-pages``)."""
    from sapper._exceptions import TargetError
    from sapper.scan.analyse import sdist_file
    from sapper.scan.corpus import VersionPolicy, resolve

    record: dict[str, Any] = {"stratum": stratum, "project": name}
    try:
        listing = index.listing(name)
        sizes = []
        for positions in listing.sdists_by_version().values():
            sizes.append(listing.sdist_at(positions[0]).size or 0)
        record["releases_with_sdist"] = len(sizes)
        record["all_sdist_bytes"] = sum(sizes)
        (job,) = resolve(index, name, VersionPolicy(kind="newest"))
    except TargetError as exc:
        record["error"] = str(exc).splitlines()[0][:200]
        record.setdefault("releases_with_sdist", 0)
        return record
    record.update(filename=job.filename, upload_time=job.upload_time, newest_size=job.size)
    if stratum == "tail-pages":
        return record
    start = time.perf_counter()
    try:
        download = index.download(sdist_file(job))
    except TargetError as exc:
        record["error"] = str(exc).splitlines()[0][:200]
        return record
    record["download_seconds"] = time.perf_counter() - start
    record["download_bytes"] = download.path.stat().st_size
    record["path"] = str(download.path)
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(download.path), str(warm)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    if child.returncode == 0:
        record.update(json.loads(child.stdout))
    else:
        record["analysis_error"] = child.stderr.strip().splitlines()[-1:]
    return record


def store_bytes(paths: list[str], work: Path) -> dict[str, float]:
    """Bytes per sdist of the DuckDB store ``sapper scan -j 1`` writes for ``paths``."""
    listing = work / "sample.txt"
    listing.write_text("\n".join(paths) + "\n")
    db = work / "sample.duckdb"
    subprocess.run(
        [sys.executable, "-m", "sapper", "scan", str(listing), "-j", "1", "--db", str(db)],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    size = db.stat().st_size
    return {"db_bytes": size, "rows": len(paths), **store_growth(db)}


def store_growth(db: Path) -> dict[str, float]:
    """Bytes per sdist of the rows, as Parquet (what the Dask engine's store holds, one
    compressed file) and as JSON lines (uncompressed): a small DuckDB file is mostly its
    fixed blocks, so its size over its rows says little."""
    from sapper.scan.store import export

    out: dict[str, float] = {}
    for suffix in ("parquet", "jsonl"):
        dest = db.with_name(f"export.{suffix}")
        rows = export(db, dest)
        out[f"{suffix}_bytes_per_sdist"] = dest.stat().st_size / max(1, rows)
    out["bytes_per_sdist"] = out["parquet_bytes_per_sdist"]
    return out


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    def stats(values: list[float]) -> dict[str, float]:
        if not values:
            return {}
        ordered = sorted(values)
        return {
            "n": len(ordered),
            "mean": statistics.fmean(ordered),
            "median": statistics.median(ordered),
            "p90": ordered[int(0.9 * (len(ordered) - 1))],
            "max": ordered[-1],
        }

    out: dict[str, Any] = {}
    for group in [*sorted({r["stratum"] for r in records}), "all"]:
        rows = [
            r
            for r in records
            if r["stratum"] == group or (group == "all" and r["stratum"] != "tail-pages")
        ]
        measured = [r for r in rows if "cpu" in r]
        out[group] = {
            "projects": len(rows),
            "with_sdist": sum(1 for r in rows if "filename" in r),
            "newest_size": stats([r["newest_size"] or 0 for r in rows if "filename" in r]),
            "releases_with_sdist": stats([r["releases_with_sdist"] for r in rows]),
            "all_sdist_bytes": stats([r.get("all_sdist_bytes", 0) for r in rows]),
            "download_bytes": stats([r["download_bytes"] for r in rows if "download_bytes" in r]),
            "cpu_seconds": stats([r["cpu"] for r in measured]),
            "peak_rss": stats([r["peak"] for r in measured]),
            "row_bytes": stats([r["row_bytes"] for r in measured]),
            "fails": sum(1 for r in measured if r.get("outcome") == "fails"),
            "errors": sum(1 for r in measured if r.get("error")),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-stratum", type=int, default=15)
    parser.add_argument("--tail", type=int, default=40)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument(
        "--tail-pages",
        type=int,
        default=0,
        help="more tail projects whose pages only are read (releases, sizes; no download)",
    )
    parser.add_argument("--out", type=Path, default=Path("scale-sample.json"))
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "scale")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from sapper.pypi import Index

    args.cache_dir.mkdir(parents=True, exist_ok=True)
    names = all_names(args.cache_dir / "simple-names.json")
    chosen = sample(args.per_stratum, args.tail, names, args.seed, args.tail_pages)
    index = Index(cache_dir=args.cache_dir)
    warm = args.cache_dir / "warm-1.0.tar.gz"
    warm.write_bytes(tiny_sdist())
    records = []
    for number, (stratum, name) in enumerate(chosen, 1):
        record = measure(stratum, name, index, warm)
        records.append(record)
        shown = {k: record.get(k) for k in ("download_bytes", "cpu", "peak", "error")}
        print(f"{number}/{len(chosen)} {stratum} {name}: {shown}", file=sys.stderr, flush=True)
    paths = [r["path"] for r in records if "cpu" in r]
    with tempfile.TemporaryDirectory() as work:
        store = store_bytes(paths, Path(work))
    result: dict[str, Any] = {
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "index_projects": len(names),
        "sample": {"per_stratum": args.per_stratum, "tail": args.tail, "seed": args.seed},
        "store": store,
        "summary": summary(records),
        "records": records,
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["summary"]["all"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
