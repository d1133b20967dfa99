"""Build the fixed benchmark corpus: 300 real sdists from the top-15,000 PyPI list.

Projects are taken at a fixed stride through the top list shipped with sapper (rank 1, 1 +
stride, ...); for each, the newest release with an sdist and the newest one uploaded before
2020-01-01 (both through ``sapper.scan.corpus.resolve``, i.e. the sdist pip would take).
Sdists over ``--max-size`` are skipped so that the corpus downloads in minutes. The chosen
pins go to ``benchmarks/corpus-300.txt`` (one ``name==version`` a line, newest first, then
pre-2020) and every archive is downloaded into sapper's cache (``$SAPPER_CACHE_DIR``).

    python benchmarks/corpus.py            # resolve, write corpus-300.txt, fill the cache
    python benchmarks/corpus.py --paths    # print the cached archive path of each pin

Needs network access to PyPI (the benchmark itself does not).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import sys
from pathlib import Path

HERE = Path(__file__).parent
CORPUS = HERE / "corpus-300.txt"


def _pick(name: str, index: object, max_size: int) -> list[str]:
    from sapper._exceptions import FetchError
    from sapper.scan.corpus import parse_versions, resolve

    pins = []
    for policy in ("newest", "before:2020-01-01"):
        try:
            (job,) = resolve(index, name, parse_versions(policy))  # type: ignore[arg-type]
        except (FetchError, ValueError):
            continue
        if job.size is None or job.size > max_size:
            continue
        pin = f"{job.project}=={job.version}"
        if pin not in pins:
            pins.append(pin)
    return pins


def build(count: int, stride: int, max_size: int, connections: int) -> list[str]:
    from sapper.pypi import Index
    from sapper.scan.corpus import top_list

    index = Index()
    names = [name for name, _ in top_list().rows[::stride]]
    chosen: dict[str, list[str]] = {}
    with cf.ThreadPoolExecutor(connections) as pool:
        futures = {pool.submit(_pick, name, index, max_size): name for name in names}
        for done, future in enumerate(cf.as_completed(futures), 1):
            chosen[futures[future]] = future.result()
            print(f"\rresolved {done}/{len(names)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    newest = [pins[0] for name in names if (pins := chosen[name])]
    old = [pins[1] for name in names if len(pins := chosen[name]) > 1]
    # as many pre-2020 releases as newest ones, as far as the list allows
    half = count // 2
    take_old = old[: max(half, count - len(newest))]
    take_new = newest[: count - len(take_old)]
    return take_new + take_old


def fill_cache(pins: list[str], connections: int) -> list[Path]:
    from sapper.pypi import Index

    index = Index()
    paths: list[Path] = []
    with cf.ThreadPoolExecutor(connections) as pool:
        for done, download in enumerate(pool.map(index.fetch, pins), 1):
            assert download.path is not None
            paths.append(download.path)
            print(f"\rdownloaded {done}/{len(pins)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return paths


def cached_paths(corpus: Path = CORPUS) -> list[Path]:
    """The cached archives of the pins in ``corpus`` (downloading any that are missing)."""
    pins = [line.strip() for line in corpus.read_text().splitlines() if line.strip()]
    return fill_cache([p for p in pins if not p.startswith("#")], 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--stride", type=int, default=75, help="take every Nth project")
    parser.add_argument("--max-size", type=int, default=8 * 1024 * 1024, help="bytes")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--paths", action="store_true", help="print the cached paths only")
    args = parser.parse_args()
    if args.paths:
        for path in cached_paths():
            print(path)
        return 0
    pins = build(args.count, args.stride, args.max_size, args.connections)
    CORPUS.write_text(
        "# Benchmark corpus: benchmarks/corpus.py "
        f"--count {args.count} --stride {args.stride} --max-size {args.max_size}\n"
        + "\n".join(pins)
        + "\n"
    )
    print(f"{len(pins)} pins written to {CORPUS}", file=sys.stderr)
    fill_cache(pins, args.connections)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
