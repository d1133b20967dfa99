"""All of PyPI on paper: the time and cost of ``sapper scan`` over every project's newest
sdist and over every release, from the measured per-sdist costs of
``benchmarks/scale_sample.py`` (and the overhead ratio of ``benchmarks/scale_sim.py``).
Every input is printed with the result; the assumptions (cluster, bandwidth, price) are
options.

The model (docs/scale.md). First the client resolves every project (one page request
each, ``--client-connections`` at a time, and its parse on the client's one core), then the
scan's stages overlap (downloads run ahead of the analysis), so the scan phase takes as
long as its slowest resource:

* resolve: ``max(P * t_page / client_connections, P * resolve_cpu)``, P projects;
* CPU: ``S * cpu * overhead / W`` (``cpu``: the mean CPU seconds of one analysis,
  ``overhead``: the scan's wall time over its analyses' busy time at ``-j 1``);
* connections: ``S * t_file / (W * connections)`` (``t_file``: the mean seconds of one
  download of the sample's, from a cold cache: ``--cold``; one under 20 ms was a cache hit,
  and the mean of the cold ones stands for it);
* bandwidth: ``S * bytes / bandwidth``; the store: ``S * store_seconds`` on the client;

where ``S`` is the number of sdists: per stratum, projects x share with an sdist (newest)
or projects x mean releases with an sdist (every release). The tail's sizes are
heavy-tailed: a bootstrap over its projects gives the 5th-95th percentile of the hours.

    python benchmarks/scale_project.py --sample scale-sample.json [--cold FILE]
        [--sim scale-sim.json] [--workers 32] [--connections 4] [--bandwidth-mbit 1000]
        [--client-connections 4] [--page-seconds 0.4] [--resolve-cpu 0.002] [--price 0.04]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path
from typing import Any

STRATA = {"1-100": 100, "101-1000": 900, "1001-5000": 4000, "5001-15000": 10000}


def strata(
    sample: dict[str, Any], cold: dict[str, Any], pick: list[int] | None = None
) -> dict[str, dict[str, float]]:
    """Per stratum: projects on the index, share with an sdist, mean newest-sdist bytes, mean
    CPU seconds and cold download seconds of an analysed one, mean releases with an sdist
    and their bytes. ``pick``: a bootstrap resample of the tail's listed projects."""
    records = sample["records"]
    # downloads under 20 ms came from a cache (an earlier, interrupted run): not timed cold
    timed = {
        r["project"]: r["download_seconds"]
        for r in cold["records"]
        if r.get("download_seconds", 0.0) > 0.02
    }
    fallback = statistics.fmean(timed.values())
    out: dict[str, dict[str, float]] = {}
    for name, size in [*STRATA.items(), ("tail", sample["index_projects"] - 15000)]:
        listed = [
            r
            for r in records
            if r["stratum"] == name or (name == "tail" and r["stratum"] == "tail-pages")
        ]
        if name == "tail" and pick is not None:
            listed = [listed[i] for i in pick]
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
            "download_seconds": statistics.fmean(
                timed.get(r["project"], fallback) for r in analysed
            ),
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
    per: dict[str, dict[str, float]], args: argparse.Namespace, *, every: bool, factor: float
) -> dict[str, float]:
    sdists = bytes_ = cpu = conn = 0.0
    for s in per.values():
        count = s["projects"] * (s["releases"] if every else s["sdist_share"])
        size = s["release_bytes"] / s["releases"] if every and s["releases"] else s["newest_bytes"]
        sdists += count
        bytes_ += count * size
        cpu += count * s["cpu"] * factor
        conn += count * s["download_seconds"]
    projects = sum(s["projects"] for s in per.values())
    pages = projects * args.page_kb * 1000
    resolve = max(
        projects * args.page_seconds / args.client_connections, projects * args.resolve_cpu
    )
    times = {
        "cpu_hours": cpu / args.workers / 3600,
        "connection_hours": conn / (args.workers * args.connections) / 3600,
        "bandwidth_hours": (bytes_ + pages) / (args.bandwidth_mbit * 1e6 / 8) / 3600,
        "store_hours": sdists * args.store_seconds / 3600,
    }
    scan = max(times.values())
    return {
        "sdists": sdists,
        "bytes": bytes_,
        "page_bytes": pages,
        "resolve_hours": resolve / 3600,
        **times,
        "scan_hours": scan,
        "hours": resolve / 3600 + scan,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path, required=True)
    parser.add_argument("--cold", type=Path, help="a sample run whose downloads were timed cold")
    parser.add_argument("--sim", type=Path)
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--connections", type=int, default=4, help="per worker")
    parser.add_argument("--bandwidth-mbit", type=float, default=1000.0, help="the cluster's")
    parser.add_argument("--page-kb", type=float, default=5.0, help="mean page, KB")
    parser.add_argument("--page-seconds", type=float, default=0.4, help="one page request")
    parser.add_argument("--resolve-cpu", type=float, default=0.002, help="client CPU a project")
    parser.add_argument("--client-connections", type=int, default=4)
    parser.add_argument("--store-seconds", type=float, default=0.0, help="client, per sdist")
    parser.add_argument("--price", type=float, default=0.04, help="per worker-hour, USD")
    parser.add_argument("--store-bytes", type=float, help="per sdist (default: the sample's)")
    parser.add_argument("--boot", type=int, default=200, help="bootstrap resamples")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sample = json.loads(args.sample.read_text())
    cold = json.loads(args.cold.read_text()) if args.cold else sample
    sim = json.loads(args.sim.read_text()) if args.sim else None
    per = strata(sample, cold)
    factor = overhead(sim)
    store = args.store_bytes or sample["store"]["bytes_per_sdist"]
    inputs = {k: v for k, v in vars(args).items() if not isinstance(v, Path) and v is not None}
    result: dict[str, Any] = {
        "inputs": {
            **inputs,
            "index_projects": sample["index_projects"],
            "measured_at": sample["measured_at"],
            "overhead": factor,
            "store_bytes_per_sdist": store,
            "strata": per,
        }
    }
    tail = sum(1 for r in sample["records"] if r["stratum"] in ("tail", "tail-pages"))
    rng = random.Random(25)
    for label, every in (("newest", False), ("every_release", True)):
        got = project(per, args, every=every, factor=factor)
        boots = sorted(
            project(
                strata(sample, cold, [rng.randrange(tail) for _ in range(tail)]),
                args,
                every=every,
                factor=factor,
            )["hours"]
            for _ in range(args.boot)
        )
        got["hours_p5"] = boots[len(boots) // 20]
        got["hours_p95"] = boots[len(boots) * 19 // 20]
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
