"""The ``sapper scan`` sub-command: parse, call :func:`sapper.scan.scan`, show progress."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import UsageError
from ._common import (
    DEFAULT_STORE,
    ExitCode,
    HelpFormatter,
    add_corpus_options,
    add_index_options,
    add_progress_option,
    add_rule_selection,
    apply_cache_cap,
    cache_cap,
    command_epilog,
    positive_int,
    progress_enabled,
    top_list_date,
    validate_rule_selection,
)

if TYPE_CHECKING:
    from ..scan.engine import Progress, ScanSummary
    from ..scan.stages import StageReport

__all__ = ["add_parser"]

_DEFAULT_DASK_DB = Path(".sapper/scan-parquet")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    date = top_list_date()
    parser = sub.add_parser(
        "scan",
        help="scan a corpus of sdists into a database",
        description=(
            "Run the rules of `sapper check` over many sdists and record, per sdist, its "
            "findings and verdicts in a DuckDB file (or a directory of Parquet partitions). "
            "A SOURCE is a directory of sdists, an sdist, a text file listing paths, "
            "requirements or names (one a line), or a requirement. A scan that is "
            "interrupted, even killed, continues where it stopped when run again."
        ),
        epilog=(
            f"--top N reads the top-PyPI-packages list shipped with sapper, dated {date} "
            "(30-day downloads, https://hugovk.github.io/top-pypi-packages/).\n\n"
            "Failed downloads and bad archives are recorded in the database with their error, "
            "and never stop the scan.\n\n" + command_epilog("scan")
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="directory of sdists, sdist, file listing sources, or requirement",
    )
    add_corpus_options(parser, versions_help="releases to take of each requirement")
    parser.add_argument(
        "--db",
        metavar="PATH",
        type=Path,
        help=f"result store: a .duckdb file (default {DEFAULT_STORE}) or a directory of Parquet "
        f"partitions (default with --engine dask: {_DEFAULT_DASK_DB})",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=positive_int,
        help="worker processes (default: one per CPU)",
    )
    parser.add_argument(
        "--engine",
        choices=("process", "dask"),
        default="process",
        help="process: a pool of local worker processes (default); dask: a Dask cluster "
        "(needs sapper[dask]; see --scheduler)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address for --engine dask (tcp://host:8786)",
    )
    parser.add_argument(
        "--dask-batch",
        metavar="N",
        type=positive_int,
        default=16,
        help="sdists per Dask task (default 16): a lost worker costs at most its tasks in "
        "flight, and each task's rows are one Parquet partition",
    )
    parser.add_argument(
        "--connections",
        metavar="N",
        type=positive_int,
        default=4,
        help="concurrent downloads from the index (default 4)",
    )
    add_index_options(parser, no_cache=False)
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="scan again the sdists an earlier run recorded with an error",
    )
    parser.add_argument(
        "--download-only",
        action="store_true",
        help="resolve and download the sdists into the cache, analyse nothing (a later scan, "
        "or Dask workers sharing the cache directory, analyse them from there); a rerun "
        "downloads only what is missing; with --cache-max-size, what would take the cache "
        "past it first evicts sdists the database holds as analysed, and is left for a later "
        "run if that is not enough",
    )
    parser.add_argument(
        "--prefetch",
        metavar="N",
        type=positive_int,
        help="downloads run ahead of the analysis by at most N sdists (default: twice the "
        "workers plus twice the connections)",
    )
    parser.add_argument(
        "--prefetch-size",
        metavar="SIZE",
        help="... and at most SIZE bytes waiting in the cache to be analysed (500M, 2G)",
    )
    parser.add_argument(
        "--stage-report",
        metavar="FILE",
        type=Path,
        help="write what each stage (download, analysis, store) did and what bound the run "
        "to FILE as JSON (the same is shown on stderr at the end)",
    )
    parser.add_argument(
        "--no-early-stop",
        action="store_true",
        help="read every archive to its end, even when the selected rules need only a few "
        "files (see --select)",
    )
    add_rule_selection(
        parser,
        select_help="only these rule codes or prefixes (comma-separated); with only SC rules, "
        "reading a tar archive stops once setup.cfg, pyproject.toml and PKG-INFO are read",
        ignore_help="skip these rule codes or prefixes (comma-separated)",
    )
    parser.add_argument(
        "--export",
        metavar="FILE",
        type=Path,
        help="write the results to FILE.parquet or FILE.jsonl (one `check --format json` "
        "target per line) after the scan, or alone when no SOURCE is given",
    )
    add_progress_option(parser, "progress bar on stderr")
    from ._migrate_corpus import add_migrate_options

    add_migrate_options(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.migrate:
        from ._migrate_corpus import run_migrate

        return run_migrate(args)
    validate_rule_selection(args)
    cap = cache_cap(args)
    prefetch_bytes = None
    if args.prefetch_size:
        from ..config import parse_size

        try:
            prefetch_bytes = parse_size(args.prefetch_size)
        except UsageError as exc:
            msg = f"--prefetch-size: {exc}"
            raise UsageError(msg) from exc
    db = args.db or (_DEFAULT_DASK_DB if args.engine == "dask" else DEFAULT_STORE)
    if not args.sources and args.top is None:
        if args.export is None:
            msg = "give something to scan (SOURCE... or --top N), or --export FILE"
            raise UsageError(msg)
        return _export(db, args.export)
    from .._exceptions import ScanInterrupted
    from ..check import Options
    from ..scan import ScanOptions, scan
    from ..scan.corpus import parse_versions

    options = ScanOptions(
        db=db,
        engine=args.engine,
        jobs=args.jobs or 0,
        scheduler=args.scheduler,
        dask_batch=args.dask_batch,
        download_only=args.download_only,
        download_cap=cap if args.download_only else None,
        prefetch=args.prefetch or 0,
        prefetch_bytes=prefetch_bytes,
        versions=parse_versions(args.versions),
        index_url=args.index_url,
        cache_dir=args.cache_dir,
        connections=args.connections,
        retry_failed=args.retry_failed,
        early_stop=not args.no_early_stop,
        check=Options(
            index_url=args.index_url,
            cache_dir=args.cache_dir,
            select=args.select,
            ignore=args.ignore,
        ),
    )
    show = args.progress == "always" or (args.progress == "auto" and progress_enabled())
    bar = _Bar() if show else None
    try:
        summary = scan(
            args.sources,
            top=args.top,
            options=options,
            on_progress=bar.update if bar else None,
        )
    except ScanInterrupted as exc:
        if bar is not None:
            bar.clear()
            bar = None
        sys.stderr.write(f"sapper: {exc}\n")
        return ExitCode.INTERRUPTED
    finally:
        if bar is not None:
            bar.clear()
    final = _download_line(summary) if args.download_only else _final_line(summary)
    sys.stderr.write(final + "\n")
    if summary.stages is not None:
        sys.stderr.write("".join(line + "\n" for line in format_stages(summary.stages)))
        if args.stage_report is not None:
            import json

            text = json.dumps(summary.stages.as_dict(), indent=1) + "\n"
            args.stage_report.write_text(text, encoding="utf-8")
    if not args.download_only:  # there the cap bounds the downloads, and evicts nothing
        apply_cache_cap(args, cap)
    if args.export is not None:
        return _export(db, args.export)
    return ExitCode.OK


def _export(db: Path, dest: Path) -> int:
    from ..scan.store import export

    count = export(db, dest)
    sys.stderr.write(f"exported {count} sdists from {db} to {dest}\n")
    return ExitCode.OK


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def format_progress(p: Progress, width: int = 24) -> str:
    """One line: bar, counts, rate, ETA, failures, skipped."""
    if p.phase == "resolve":
        return f"resolving {p.done}/{p.total} projects  failed {p.failed}"
    total = max(p.total - p.skipped, 0)
    fraction = p.done / total if total else 1.0
    filled = int(width * min(fraction, 1.0))
    # the rate (and so the ETA) counts only what the scan phase did, not resolving
    rate = (p.done - p.rate_base) / p.elapsed if p.elapsed > 0 else 0.0
    eta = _clock((total - p.done) / rate) if rate > 0 else "?:??:??"
    line = (
        f"[{'#' * filled}{'.' * (width - filled)}] {p.done}/{total} {fraction:4.0%} "
        f"{rate:.1f} sdist/s ETA {eta}  failed {p.failed}"
    )
    if p.skipped:
        line += f"  skipped {p.skipped}"
    return line


class _Bar:
    def __init__(self) -> None:
        self.stream = sys.stderr
        self.shown = False

    def update(self, progress: Progress) -> None:
        self.stream.write("\r\x1b[K" + format_progress(progress))
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _final_line(s: ScanSummary) -> str:
    rate = s.scanned / s.seconds if s.seconds > 0 else 0.0
    line = (
        f"scanned {s.scanned} sdists in {s.seconds:.1f} s ({rate:.1f}/s): {s.fails} fail, "
        f"{s.builds} build, {s.unknown} unknown ({s.other_backend} built by another backend, "
        f"{s.unknown - s.other_backend} not decidable statically), {s.failed} errors"
    )
    if s.skipped:
        line += f"; {s.skipped} already done, skipped"
    if s.top_list_date:
        line += f"; top list of {s.top_list_date}"
    return f"{line}; results in {s.db}"


def format_stages(report: StageReport) -> list[str]:
    """One line a stage, then what bound the run (docs/scan.md, "Stages")."""
    from ._light import format_size

    lines = []
    for stage in report.stages:
        lines.append(
            f"  {stage.name:<9} {stage.items:>6} items {format_size(stage.bytes):>9}  "
            f"wall {stage.wall:7.1f} s  busy {stage.busy:7.1f} s over {stage.slots} "
            f"({stage.resource}, {stage.occupancy(report.wall):4.0%} occupied)"
        )
    bound = report.bound
    said = f"bound by the {bound}" if bound else "bound by no stage (start-up, latency)"
    return [f"stages over {report.wall:.1f} s, {said}:", *lines]


def _download_line(s: ScanSummary) -> str:
    """The final line of ``--download-only``."""
    from ._light import format_size

    rate = s.downloaded_bytes / s.seconds if s.seconds > 0 else 0.0
    line = (
        f"downloaded {s.downloaded} sdists, {format_size(s.downloaded_bytes)} in "
        f"{s.seconds:.1f} s ({format_size(int(rate))}/s); {s.cached} already in the cache"
    )
    if s.evicted:
        line += f"; {s.evicted} analysed sdists evicted ({format_size(s.evicted_bytes)})"
    if s.deferred:
        line += f"; {s.deferred} left for a later run by the cache size cap"
    if s.failed:
        line += f"; {s.failed} failed (recorded in {s.db})"
    return line
