"""The ``sapper canary`` sub-command: parse, call :func:`sapper.canary.run_canary`, report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import UsageError
from ._common import (
    DEFAULT_STORE,
    ExitCode,
    HelpFormatter,
    add_corpus_options,
    add_envs_max_size_option,
    add_index_options,
    add_progress_option,
    command_epilog,
    positive_int,
    progress_enabled,
    work_directory,
)

if TYPE_CHECKING:
    from ..canary import CanaryProgress, TargetRow

__all__ = ["add_parser"]


def _size(text: str) -> int:
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    value = text.strip().lower().rstrip("ib").rstrip("b")
    factor = units.get(value[-1:], 1)
    number = value[:-1] if value[-1:] in units else value
    try:
        size = int(float(number) * factor)
    except ValueError:
        size = 0
    if size <= 0:
        msg = f"{text!r} is not a size such as 4G, 512M or 4294967296"
        raise argparse.ArgumentTypeError(msg)
    return size


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "canary",
        help="build a corpus with two setuptools versions and report what regressed",
        description=(
            "Build every sdist of the corpus for real, in a sandbox, with a baseline and a "
            "candidate setuptools, and classify each: regressed, fixed, pass, fail, spurious, "
            "prepare-fail, error, not-setuptools. Regressions are grouped by root cause, the "
            "backend's warnings are recorded, and sapper's static verdicts are compared with "
            "the real outcome. SOURCE is taken as `sapper scan` takes it. A BACKEND is "
            "setuptools==VERSION (or VERSION), a setuptools wheel, or a setuptools source "
            "tree (built into a wheel once). `sapper canary bisect TARGET --good V --bad V` "
            "finds the release that changed one target's outcome."
        ),
        epilog=(
            "Builds run in bubblewrap (no network, read-only system, caps on memory, CPU, file "
            "size and processes, a timeout); without a working bubblewrap sapper says why "
            "(`sapper doctor` too) and refuses, unless --no-sandbox --i-trust-the-corpus is "
            "given. Results go to the store (--db); running the same command again continues "
            "the run.\n\n" + command_epilog("canary")
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="sdists, folders of sdists, lists or requirements, as for scan (or: bisect TARGET)",
    )
    parser.add_argument("--good", metavar="VERSION", help="bisect: a release with the old outcome")
    parser.add_argument("--bad", metavar="VERSION", help="bisect: a release with the new outcome")
    parser.add_argument(
        "--package",
        metavar="NAME",
        default="setuptools",
        help="bisect: the build requirement whose releases are bisected (default setuptools; "
        "Cython, wheel, setuptools-scm...), pinned in every build",
    )
    parser.add_argument(
        "--pin",
        metavar="REQ",
        action="append",
        default=[],
        help="bisect: also pin this build requirement in every build, such as "
        "setuptools==81.0.0 while --package Cython is bisected (repeatable)",
    )
    parser.add_argument("--baseline", metavar="BACKEND", help="the reference backend")
    parser.add_argument("--candidate", metavar="BACKEND", help="the backend under test")
    parser.add_argument(
        "--baseline-env",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="a variable for the baseline's builds (repeatable)",
    )
    parser.add_argument(
        "--candidate-env",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="a variable for the candidate's builds, e.g. "
        "SETUPTOOLS_ENFORCE_DEPRECATION=1 (repeatable)",
    )
    parser.add_argument(
        "--mode",
        choices=("metadata", "wheel"),
        default="metadata",
        help="prepare_metadata_for_build_wheel (default, as pip does first) or build_wheel",
    )
    parser.add_argument(
        "--all-backends",
        action="store_true",
        help="classify sdists built by other backends too (default: not-setuptools)",
    )
    add_corpus_options(parser, versions_help="releases of each requirement, as for scan")
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_int,
        default=300,
        help=(
            "wall-clock limit per hook (default 300; at most 60, without retry, for an sdist "
            "built by another backend than setuptools unless --all-backends)"
        ),
    )
    parser.add_argument(
        "--memory",
        metavar="SIZE",
        type=_size,
        default=4 * 1024**3,
        help="address-space limit per build process (default 4G)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=positive_int,
        default=None,
        help="targets built at once (default: the CPUs sapper may use)",
    )
    parser.add_argument(
        "--work-dir",
        metavar="DIR",
        type=work_directory,
        default=None,
        help="where builds unpack and run (default: /dev/shm when it is a memory file "
        "system with 8 GiB free, else the temporary directory; made when missing)",
    )
    parser.add_argument(
        "--engine",
        choices=("process", "dask"),
        default="process",
        help="where builds run: local processes (default) or a Dask cluster (--scheduler)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler for --engine dask; every worker needs bubblewrap",
    )
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the builds without bubblewrap; refused unless --i-trust-the-corpus is given "
        "too (the corpus is other people's code), and then only on a throw-away machine",
    )
    parser.add_argument(
        "--i-trust-the-corpus",
        action="store_true",
        help="with --no-sandbox: acknowledge that every sdist's build code runs unconfined, "
        "with your user's rights and network",
    )
    parser.add_argument(
        "--retry",
        action="store_true",
        help="build again the spurious, prepare-fail and error targets of the same run",
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        type=Path,
        default=DEFAULT_STORE,
        help=f"the DuckDB store (default {DEFAULT_STORE})",
    )
    parser.add_argument(
        "--export",
        metavar="FILE",
        type=Path,
        help="write the run's rows to FILE.jsonl or FILE.parquet",
    )
    parser.add_argument(
        "--rejudge",
        action="store_true",
        help="recompute the static verdicts of a stored run (--run, default: the newest) "
        "with this sapper, from the sdists in the download cache, without building; then "
        "print its report",
    )
    parser.add_argument(
        "--run",
        metavar="ID",
        help="with --export or --rejudge only: which run (default: the newest); `sapper "
        "report --canary ID` reports one",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="the report printed at the end"
    )
    add_progress_option(parser, "a progress line with counts per class")
    add_index_options(parser, no_cache=False)
    add_envs_max_size_option(parser)
    parser.set_defaults(handler=_run)


#: Why ``--no-sandbox`` alone is refused (docs/ci.md, "--no-sandbox").
NO_SANDBOX_REFUSED = (
    "--no-sandbox would run the build code of every sdist in the corpus (other people's "
    "code) unconfined, with your user's rights and network; add --i-trust-the-corpus to "
    "accept that (on a throw-away machine only), or make the sandbox work: `sapper doctor` "
    "says why it does not start here"
)
NO_SANDBOX_WARNING = (
    "sapper: warning: --no-sandbox --i-trust-the-corpus: the corpus's build code runs "
    "unconfined (no bubblewrap; caps and timeout still apply)\n"
)


def _run(args: argparse.Namespace) -> int:
    if args.no_sandbox:
        if not args.i_trust_the_corpus:
            raise UsageError(NO_SANDBOX_REFUSED)
        sys.stderr.write(NO_SANDBOX_WARNING)
    elif args.i_trust_the_corpus:
        msg = "--i-trust-the-corpus goes with --no-sandbox (it acknowledges running unconfined)"
        raise UsageError(msg)
    # no working sandbox (SandboxError), a backend that cannot be built: could not build (3)
    if args.sources[:1] == ["bisect"]:
        return _run_bisect(args)
    return _run_canary(args)


def _run_canary(args: argparse.Namespace) -> int:
    from ..canary import CanaryStore, export_rows

    if args.rejudge:
        return _run_rejudge(args)
    if not args.sources and args.top is None:
        if args.export is None:
            msg = "give a corpus (SOURCE... or --top N) with --baseline and --candidate"
            raise UsageError(msg)
        with CanaryStore(args.db, read_only=True) as store:
            run_id = store.resolve_run(args.run)
            count = export_rows(list(store.rows(run_id)), args.export)
        sys.stderr.write(f"exported {count} rows of run {run_id} to {args.export}\n")
        return ExitCode.OK
    if not args.baseline or not args.candidate:
        msg = "give both --baseline BACKEND and --candidate BACKEND"
        raise UsageError(msg)
    from .._exceptions import ScanInterrupted
    from ..build import Limits
    from ..canary import CanaryOptions, parse_backend, parse_env, run_canary
    from ..canary.engine import default_jobs
    from ..scan.corpus import parse_versions

    options = CanaryOptions(
        baseline=parse_backend(
            args.baseline, env=parse_env(args.baseline_env), cache_dir=args.cache_dir
        ),
        candidate=parse_backend(
            args.candidate, env=parse_env(args.candidate_env), cache_dir=args.cache_dir
        ),
        db=args.db,
        mode=args.mode,
        all_backends=args.all_backends,
        limits=Limits(timeout=float(args.timeout), memory=args.memory),
        jobs=args.jobs or default_jobs(),
        sandbox=not args.no_sandbox,
        versions=parse_versions(args.versions),
        index_url=args.index_url,
        cache_dir=args.cache_dir,
        retry=("spurious", "prepare-fail", "error") if args.retry else (),
        engine=args.engine,
        scheduler=args.scheduler,
        work_dir=args.work_dir,
        envs_max_size=args.build_envs_max_size,
    )
    show = args.progress == "always" or (args.progress == "auto" and progress_enabled())
    bar = _Bar() if show else None
    try:
        summary = run_canary(
            args.sources, top=args.top, options=options, on_progress=bar.update if bar else None
        )
    except ScanInterrupted as exc:  # Ctrl-C: what is stored stays, a rerun resumes
        if bar is not None:
            bar.clear()
            bar = None
        sys.stderr.write(f"sapper: {exc}\n")
        return ExitCode.INTERRUPTED
    finally:
        if bar is not None:
            bar.clear()
    with CanaryStore(args.db, read_only=True) as store:
        rows = list(store.rows(summary.run_id))
        run = next(r for r in store.runs() if r["run_id"] == summary.run_id)
    _print_report(rows, run, args.format)
    sys.stderr.write(
        f"built {summary.built} sdists in {summary.seconds:.1f} s"
        + (f"; {summary.skipped} already done" if summary.skipped else "")
        + f"; run {summary.run_id} in {summary.db}\n"
    )
    if args.export is not None:
        count = export_rows(rows, args.export)
        sys.stderr.write(f"exported {count} rows to {args.export}\n")
    return ExitCode.FINDINGS if summary.counts.get("regressed") else ExitCode.OK


def _run_rejudge(args: argparse.Namespace) -> int:
    from ..canary import CanaryStore, export_rows
    from ..canary.rejudge import rejudge_run

    if args.sources or args.top is not None:
        msg = "--rejudge works on a stored run (--db, --run): give no SOURCE or --top"
        raise UsageError(msg)
    with CanaryStore(args.db) as store:
        run_id = store.resolve_run(args.run)
        summary = rejudge_run(store, run_id, cache_dir=args.cache_dir, index_url=args.index_url)
        rows = list(store.rows(run_id))
        run = next(r for r in store.runs() if r["run_id"] == run_id)
    _print_report(rows, run, args.format)
    for change in summary.changes:
        codes = ", ".join(change.codes_after) or "-"
        sys.stderr.write(
            f"  {change.target}: {change.side} {change.before} -> {change.after} ({codes})\n"
        )
    sys.stderr.write(
        f"rejudged {summary.rejudged} of {summary.rows} rows of run {run_id}: "
        f"{summary.changed} changed"
        + (f"; {summary.missing} sdists no longer in the cache" if summary.missing else "")
        + "\n"
    )
    if args.export is not None:
        count = export_rows(rows, args.export)
        sys.stderr.write(f"exported {count} rows to {args.export}\n")
    return ExitCode.OK


def _print_report(rows: list[TargetRow], run: dict[str, Any], fmt: str) -> None:
    import json

    from ..report.canary import render_text, summarize

    report = summarize(rows, run)
    if fmt == "json":
        sys.stdout.write(json.dumps(report, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(render_text(report))


def format_progress(p: CanaryProgress) -> str:
    counts = " ".join(f"{k} {v}" for k, v in p.counts.items() if v)
    rate = p.done / p.elapsed if p.elapsed > 0 else 0.0
    return f"built {p.done}/{p.total} ({rate:.2f}/s)  {counts}"


class _Bar:
    def __init__(self) -> None:
        self.shown = False

    def update(self, progress: CanaryProgress) -> None:
        sys.stderr.write("\r\x1b[K" + format_progress(progress))
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _run_bisect(args: argparse.Namespace) -> int:
    if len(args.sources) != 2 or not args.good or not args.bad:
        msg = "write: sapper canary bisect TARGET --good VERSION --bad VERSION [--package NAME]"
        raise UsageError(msg)
    package = args.package
    from ..build import Builder, Limits
    from ..canary.bisect import bisect, changelog_url, releases_between
    from ..canary.engine import default_work_dir
    from ..canary.model import parse_env
    from ..pypi import DEFAULT_INDEX_URL, Index, default_cache_dir

    builder = Builder(
        cache_dir=args.cache_dir,
        index_url=args.index_url,
        work_root=args.work_dir or default_work_dir(),
        limits=Limits(timeout=float(args.timeout), memory=args.memory),
        sandbox=not args.no_sandbox,
        envs_max_size=args.build_envs_max_size,
    )
    builder.check()  # no working sandbox: say so before any download
    index = Index(
        args.index_url or DEFAULT_INDEX_URL, cache_dir=args.cache_dir or default_cache_dir()
    )
    target = Path(args.sources[1])
    if not target.exists():
        download = index.fetch(args.sources[1])
        if download.path is None:  # pragma: no cover - the cache is always on here
            msg = "bisect needs the download cache; do not disable it"
            raise UsageError(msg)
        target = download.path
    files = [f for f in index.files(package) if f.kind in ("sdist", "wheel")]
    releases = releases_between(
        [f.version for f in files],
        args.good,
        args.bad,
        yanked=[f.version for f in files if f.yanked],
    )
    if len(releases) < 2:
        msg = f"no {package} releases between {args.good} and {args.bad}"
        raise UsageError(msg)
    result = bisect(
        target,
        releases,
        builder=builder,
        mode=args.mode,
        env=parse_env(args.candidate_env),
        on_step=lambda step: _show_step(step, package),
        package=package,
        pins=args.pin,
    )
    if not result.changes:
        sys.stdout.write(
            f"{target.name}: the outcome is the same in every release built between "
            f"{result.good} and {result.bad}\n"
        )
        return ExitCode.OK
    how = "every release built" if result.exhaustive else "binary search"
    sys.stdout.write(f"{target.name}: outcome changes ({how}):\n")
    for version, before, after in result.changes:
        url = changelog_url(version, package)
        sys.stdout.write(f"  {package} {version}: {before} -> {after}{'  ' + url if url else ''}\n")
    if result.exhaustive and len(result.changes) > 1:
        sys.stdout.write("  the outcome changed and changed back: the history is not monotone\n")
    return ExitCode.OK


def _show_step(step: Any, package: str = "setuptools") -> None:
    detail = f" ({step.signature})" if step.signature else ""
    sys.stderr.write(f"  {package} {step.version}: {step.outcome}{detail}\n")
