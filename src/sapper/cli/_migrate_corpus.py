"""``sapper scan --migrate``: the options it adds to ``sapper scan`` and its handler, which
calls :func:`sapper.migrate.corpus.migrate_corpus` and renders the report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import UsageError
from ._light import ExitCode

if TYPE_CHECKING:
    from ..migrate.corpus import CorpusEntry, CorpusReport

__all__ = ["add_migrate_options", "render_text", "run_migrate"]


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        msg = f"{text!r} is not a whole number (0 or more)"
        raise argparse.ArgumentTypeError(msg)
    return value


def add_migrate_options(parser: argparse.ArgumentParser) -> None:
    """``--migrate``, ``--verify-sample`` and ``--migrate-json``."""
    parser.add_argument(
        "--migrate",
        action="store_true",
        help="instead of the rules, plan `sapper migrate` on the newest sdist of each "
        "setuptools project without a [project] table, prove the migrated ones build the "
        "same wheel, and report how many migrate and why the rest do not (text on stdout); "
        "nothing is written to the sdists or the database",
    )
    parser.add_argument(
        "--verify-sample",
        metavar="K",
        type=_count,
        help="with --migrate: build and compare wheels for the first K migrated sdists only "
        "(default: all; 0: static planning only)",
    )
    parser.add_argument(
        "--migrate-json",
        metavar="FILE",
        type=Path,
        help="with --migrate: write the report as JSON to FILE, rewritten after each sdist "
        '("complete": false until the end)',
    )


def run_migrate(args: argparse.Namespace) -> int:
    """The handler of ``sapper scan --migrate``: 0 when done, as a scan (the report says
    what differs)."""
    if not args.sources and args.top is None:
        msg = "give something to migrate (SOURCE... or --top N)"
        raise UsageError(msg)
    if args.versions != "newest":
        msg = "--migrate takes the newest sdist of each project; drop --versions"
        raise UsageError(msg)
    from ..build import Builder, Limits
    from ..migrate.corpus import migrate_corpus
    from ..pypi import DEFAULT_INDEX_URL, Index

    url = args.index_url or DEFAULT_INDEX_URL
    # sapper's download cache unless --cache-dir names another
    index = Index(url) if args.cache_dir is None else Index(url, cache_dir=args.cache_dir)
    sample = args.verify_sample
    builder = None
    if sample != 0:
        builder = Builder(cache_dir=args.cache_dir, limits=Limits(timeout=600.0))
    progress = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    json_path: Path | None = args.migrate_json

    def on_entry(entry: CorpusEntry, report: CorpusReport) -> None:
        if progress:
            sys.stderr.write(f"[{len(report.entries)}] {_line(entry)}\n")
            sys.stderr.flush()
        if json_path is not None:
            _write_json(json_path, report)

    report = migrate_corpus(
        args.sources,
        top=args.top,
        index=index,
        verify_sample=sample,
        builder=builder,
        on_entry=on_entry,
    )
    if json_path is not None:
        _write_json(json_path, report)
    sys.stdout.write(render_text(report))
    return ExitCode.OK


def _write_json(path: Path, report: CorpusReport) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(report.as_json(), indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def _line(entry: CorpusEntry) -> str:
    what: str = entry.outcome
    if entry.refusals:
        what += " (" + ", ".join(sorted({r.code for r in entry.refusals})) + ")"
    if entry.verification is not None:
        what += f", {entry.verification.status}"
        if entry.verification.status != "equivalent":
            what += f": {entry.verification.reason}"
    elif entry.detail:
        what += f": {entry.detail}"
    return f"{entry.label}: {what}"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_text(report: CorpusReport) -> str:
    """The text report: the counts, the refusal and unverified reasons, and every migration
    shown to differ, named with its differences."""
    outcomes = report.outcomes()
    measured = report.measured()
    checks = report.verifications()
    lines = [
        f"{len(report.entries)} sdists" + ("" if report.complete else " (incomplete)"),
        f"  not measured: {outcomes['has-project']} with [project] already, "
        f"{outcomes['not-setuptools']} other backends, {outcomes['unreadable']} unreadable, "
        f"{outcomes['fetch-error']} not downloaded",
        f"setuptools projects without [project]: {measured}",
        f"  migrated:      {outcomes['migrated']} ({_pct(outcomes['migrated'], measured)})",
        f"    equivalent wheel: {checks['equivalent']}",
        f"    different wheel:  {checks['different']}",
        f"    unverified:       {checks['unverified']}",
        f"    not verified:     {checks['not-verified']} (outside --verify-sample)",
        f"  refused:       {outcomes['refused']} ({_pct(outcomes['refused'], measured)})",
        f"  nothing to do: {outcomes['nothing-to-do']}",
        f"  planner error: {outcomes['error']}",
    ]
    for title, counts in (
        ("refusal reasons (sdists)", report.refusal_codes()),
        ("unverified reasons", report.unverified_reasons()),
        ("planner errors", report.errors()),
    ):
        if counts:
            lines.append(f"{title}:")
            lines.extend(f"  {n:5}  {reason}" for reason, n in counts.most_common())
    different = [
        e
        for e in report.entries
        if e.verification is not None and e.verification.status == "different"
    ]
    if different:
        lines.append("different wheels (each one a bug of sapper migrate):")
        for entry in different:
            assert entry.verification is not None
            lines.append(f"  {entry.label}:")
            for d in entry.verification.differences:
                before = d.before.replace("\n", " | ")
                after = d.after.replace("\n", " | ")
                lines.append(f"    {d.what}: before {before!r}, after {after!r}")
    return "\n".join(lines) + "\n"
