"""A simulated index scan, for docs/scale.md: does throughput grow with workers until the
network is the bound?

The index is synthetic and served on loopback: every ``.tar.gz`` sdist of the stratified
sample (``benchmarks/scale_sample.py``'s JSON: real sdists, so the sample's size
distribution and its analysis costs), served ``--copies`` times under distinct project
names (each copy differs in its gzip header's timestamp: another sha256, the same content),
one project page each (PEP 691 JSON). The server can cap its total bandwidth (``--rate``
MB/s, shared by every connection, a token bucket) and add a latency to each answer
(``--latency`` ms), to stand for the link to PyPI.

For each ``--workers`` count and each rate, ``sapper scan LIST -j N`` runs in a fresh
process with a fresh store and cache, and ``--stage-report`` says what each stage did; the
run's wall time, the scan phase's, sdists per second and what bound it are printed and
written to ``--out``. On a machine of C cores, only up to C workers can show the shape.

    python benchmarks/scale_sim.py --sample scale-sample.json [--copies 3]
        [--workers 1,2] [--rates 0,1] [--latency 0] [--repeat 1] [--out scale-sim.json]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent.parent
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Served:
    name: str
    filename: str
    source: Path
    #: the gzip header's timestamp of this copy
    stamp: int
    sha256: str
    size: int


def copy_bytes(source: Path, stamp: int) -> bytes:
    data = bytearray(source.read_bytes())
    data[4:8] = struct.pack("<I", stamp)
    return bytes(data)


def corpus(sample: Path, copies: int) -> list[Served]:
    records = json.loads(sample.read_text())["records"]
    paths = [Path(r["path"]) for r in records if r.get("path", "").endswith(".tar.gz")]
    served = []
    for copy in range(copies):
        for number, path in enumerate(paths):
            data = copy_bytes(path, 1_000_000 + copy)
            name = f"sim{number:03d}c{copy}"
            served.append(
                Served(
                    name=name,
                    filename=f"{name}-1.0.tar.gz",
                    source=path,
                    stamp=1_000_000 + copy,
                    sha256=hashlib.sha256(data).hexdigest(),
                    size=len(data),
                )
            )
    return served


class Bucket:
    """A shared token bucket: ``rate`` bytes a second for every connection together."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.lock = threading.Lock()
        self.next = time.monotonic()

    def take(self, size: int) -> None:
        if self.rate <= 0:
            return
        with self.lock:
            now = time.monotonic()
            self.next = max(self.next, now) + size / self.rate
            wait = self.next - now
        if wait > 0:
            time.sleep(wait)


@contextlib.contextmanager
def serve(served: list[Served], rate: float, latency: float) -> Iterator[str]:
    pages = {s.name: s for s in served}
    files = {s.filename: s for s in served}
    bucket = Bucket(rate)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if latency:
                time.sleep(latency)
            parts = self.path.strip("/").split("/")
            if len(parts) == 2 and parts[0] == "simple" and parts[1] in pages:
                s = pages[parts[1]]
                entry = {
                    "filename": s.filename,
                    "url": f"/files/{s.filename}",
                    "hashes": {"sha256": s.sha256},
                    "size": s.size,
                }
                page = {"meta": {"api-version": "1.1"}, "name": s.name, "files": [entry]}
                self._send(json.dumps(page).encode(), JSON_TYPE)
            elif len(parts) == 2 and parts[0] == "files" and parts[1] in files:
                s = files[parts[1]]
                self._send(copy_bytes(s.source, s.stamp), "application/octet-stream")
            else:
                self._send(b"not found", "text/plain", status=404)

        def _send(self, body: bytes, kind: str, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for start in range(0, len(body), CHUNK):
                chunk = body[start : start + CHUNK]
                bucket.take(len(chunk))
                self.wfile.write(chunk)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    finally:
        server.shutdown()
        server.server_close()


def run(url: str, names: list[str], workers: int, connections: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work:
        base = Path(work)
        listing = base / "corpus.txt"
        listing.write_text("\n".join(names) + "\n")
        report = base / "stages.json"
        command = [sys.executable, "-m", "sapper", "scan", str(listing), "--index-url", url]
        command += ["-j", str(workers), "--connections", str(connections)]
        command += ["--db", str(base / "scan.duckdb"), "--cache-dir", str(base / "cache")]
        command += ["--progress", "never", "--stage-report", str(report)]
        start = time.perf_counter()
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        stages = json.loads(report.read_text())
    scan_wall = float(stages["wall_seconds"])
    return {
        "workers": workers,
        "connections": connections,
        "sdists": len(names),
        "seconds": round(seconds, 2),
        "scan_seconds": round(scan_wall, 2),
        "sdists_per_second": round(len(names) / scan_wall, 2) if scan_wall else None,
        "bound": stages["bound"],
        "stages": stages["stages"],
        "final_line": done.stderr.splitlines()[0] if done.stderr else "",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path, required=True)
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--rates", default="0", help="MB/s, comma-separated (0: no cap)")
    parser.add_argument("--latency", type=float, default=0.0, help="ms added to each answer")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, the best kept")
    parser.add_argument("--out", type=Path, default=Path("scale-sim.json"))
    args = parser.parse_args()
    served = corpus(args.sample, args.copies)
    names = [s.name for s in served]
    total = sum(s.size for s in served)
    print(f"{len(served)} sdists, {total / 1e6:.1f} MB", file=sys.stderr)
    results = []
    for rate in [float(r) for r in args.rates.split(",")]:
        with serve(served, rate * 1e6, args.latency / 1000) as url:
            for workers in [int(w) for w in args.workers.split(",")]:
                # the best of --repeat: the machine may be shared
                tries = [run(url, names, workers, args.connections) for _ in range(args.repeat)]
                result = min(tries, key=lambda r: float(r["scan_seconds"]))
                result["tries_scan_seconds"] = [r["scan_seconds"] for r in tries]
                result["rate_mb_s"] = rate or None
                result["latency_ms"] = args.latency
                results.append(result)
                occupied = {s["name"]: s["occupancy"] for s in result["stages"]}
                print(
                    f"rate {rate or 'none'} MB/s, -j {workers}: {result['scan_seconds']} s, "
                    f"{result['sdists_per_second']} sdist/s, bound {result['bound']} {occupied}",
                    file=sys.stderr,
                    flush=True,
                )
    out = {
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpus": os.cpu_count(),
        "sdists": len(served),
        "bytes": total,
        "copies": args.copies,
        "runs": results,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
