"""All of PyPI on paper: the time and cost of ``sapper scan`` over every project's newest
sdist and over every release, from the measured per-sdist costs of
``benchmarks/scale_sample.py`` (and, optionally, the overhead ratio of
``benchmarks/scale_sim.py``). Every input is printed with the result; the assumptions
(cluster, bandwidth, price) are options.

The model (docs/scale.md): the stages overlap (downloads run ahead of the analysis), so the
scan takes as long as its slowest resource:

* CPU: ``S * cpu * overhead / W`` (``cpu``: the mean CPU seconds of one analysis,
  ``overhead``: the scan's wall time over its analyses' busy time at ``-j 1``);
* connections: ``S * (t_file + t_page) / (W * connections)`` (one request a file and one a
  project page, each taking the measured mean seconds of a download of the sample);
* bandwidth: ``S * (bytes + page_bytes) / bandwidth``;

where ``S`` is the number of sdists: per stratum, projects x share with an sdist (newest)
or projects x mean releases with an sdist (every release).

    python benchmarks/scale_project.py --sample scale-sample.json [--sim scale-sim.json]
        [--workers 32] [--connections 4] [--bandwidth-mbit 1000] [--price 0.04]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

STRATA = {"1-100": 100, "101-1000": 900, "1001-5000": 4000, "5001-15000": 10000}


def strata(sample: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per stratum: projects on the index, share with an sdist, mean newest-sdist bytes, mean
    CPU seconds and download seconds of an analysed one, mean releases with an sdist and
    their bytes."""
    records = sample["records"]
    out: dict[str, dict[str, float]] = {}
    for name, size in [*STRATA.items(), ("tail", sample["index_projects"] - 15000)]:
        listed = [
            r
            for r in records
            if r["stratum"] == name or (name == "tail" and r["stratum"] == "tail-pages")
        ]
        analysed = [r for r in records if r["stratum"] == name and "cpu" in r]
        with_sdist = [r for r in listed if r.get("filename")]
        out[name] = {
            "projects": size,
            "listed": len(listed),
            "analysed": len(analysed),
            "sdist_share": len(with_sdist) / len(listed),
            "newest_bytes": statistics.fmean(
                r.get("newest_size") or r.get("download_bytes") or 0 for r in with_sdist
            ),
            "cpu": statistics.fmean(r["cpu"] for r in analysed),
            "download_seconds": statistics.fmean(r["download_seconds"] for r in analysed),
            "releases": statistics.fmean(r["releases_with_sdist"] for r in listed),
            "release_bytes": statistics.fmean(r.get("all_sdist_bytes", 0) for r in listed),
            "peak_rss_max": max(r["peak"] for r in analysed),
        }
    return out


def overhead(sim: dict[str, Any] | None) -> float:
    """The scan's wall time over its analyses' busy time, at -j 1 without a rate cap."""
    if sim is None:
        return 1.0
    for run in sim["runs"]:
        if run["workers"] == 1 and not run["rate_mb_s"]:
            analysis = next(s for s in run["stages"] if s["name"] == "analysis")
            return float(run["scan_seconds"]) / float(analysis["busy_seconds"])
    return 1.0


def project(
    per: dict[str, dict[str, float]],
    *,
    every_release: bool,
    workers: int,
    connections: int,
    bandwidth: float,
    page_bytes: float,
    factor: float,
) -> dict[str, float]:
    sdists = bytes_ = cpu = conn = 0.0
    for s in per.values():
        count = s["projects"] * (s["releases"] if every_release else s["sdist_share"])
        size = (
            s["release_bytes"] / s["releases"]
            if every_release and s["releases"]
            else s["newest_bytes"]
        )
        sdists += count
        bytes_ += count * size
        cpu += count * s["cpu"] * factor
        conn += count * 2 * s["download_seconds"]  # the file, and (about) the page
    pages = sum(s["projects"] for s in per.values()) * page_bytes
    times = {
        "cpu_hours": cpu / workers / 3600,
        "connection_hours": conn / (workers * connections) / 3600,
        "bandwidth_hours": (bytes_ + pages) / bandwidth / 3600,
    }
    return {
        "sdists": sdists,
        "bytes": bytes_,
        "page_bytes": pages,
        **times,
        "hours": max(times.values()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path, required=True)
    parser.add_argument("--sim", type=Path)
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--connections", type=int, default=4, help="per worker")
    parser.add_argument("--bandwidth-mbit", type=float, default=1000.0, help="the cluster's")
    parser.add_argument("--page-kb", type=float, default=12.0, help="gzip-encoded page, KB")
    parser.add_argument("--price", type=float, default=0.04, help="per worker-hour, USD")
    parser.add_argument("--store-bytes", type=float, help="per sdist (default: the sample's)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sample = json.loads(args.sample.read_text())
    sim = json.loads(args.sim.read_text()) if args.sim else None
    per = strata(sample)
    factor = overhead(sim)
    store = args.store_bytes or sample["store"]["bytes_per_sdist"]
    result: dict[str, Any] = {
        "inputs": {
            "index_projects": sample["index_projects"],
            "measured_at": sample["measured_at"],
            "workers": args.workers,
            "connections_per_worker": args.connections,
            "bandwidth_mbit": args.bandwidth_mbit,
            "page_kb": args.page_kb,
            "price_per_worker_hour": args.price,
            "overhead": factor,
            "store_bytes_per_sdist": store,
            "strata": per,
        }
    }
    for label, every in (("newest", False), ("every_release", True)):
        got = project(
            per,
            every_release=every,
            workers=args.workers,
            connections=args.connections,
            bandwidth=args.bandwidth_mbit * 1e6 / 8,
            page_bytes=args.page_kb * 1000,
            factor=factor,
        )
        got["store_bytes"] = got["sdists"] * store
        got["cost_usd"] = got["hours"] * args.workers * args.price
        result[label] = got
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
