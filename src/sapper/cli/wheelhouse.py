"""The ``sapper wheelhouse`` sub-command: audit, build what needs building in the sandbox with
a setuptools that works, fetch the other wheels, verify offline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ._common import (
    ExitCode,
    HelpFormatter,
    add_envs_max_size_option,
    command_epilog,
    positive_int,
    progress_enabled,
)
from .audit import add_audit_target_options, run_audit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..audit import AuditReport
    from ..audit.wheelhouse import WheelhouseItem, WheelhouseResult

__all__ = ["add_parser"]

_EPILOG = """\
Then install offline:

  pip install --no-index --find-links DIR -r requirements.txt

Builds run in bubblewrap (no network, read-only system, caps on memory, CPU, files and
processes); the build requirements' wheels are fetched once into sapper's cache.

""" + command_epilog("wheelhouse")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "wheelhouse",
        help="build wheels for an input's sdists with a setuptools that works",
        description=(
            "Audit INPUT as `sapper audit` does, then build a wheel for every distribution "
            "an installer would build from source, pinning setuptools to the newest release "
            "sapper found good for it, fill DIR with the wheels of everything else, and "
            "check that the set installs offline from DIR into a fresh environment."
        ),
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    add_audit_target_options(parser, target=False)
    parser.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        type=Path,
        required=True,
        help="the wheelhouse directory to fill (created if missing)",
    )
    parser.add_argument(
        "--complete",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also download the wheels of the distributions that need no build (default on)",
    )
    parser.add_argument(
        "--verify",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="install the set offline from DIR into a fresh environment (default on)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_int,
        default=600,
        help="wall-clock limit per build hook (default 600)",
    )
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="build without bubblewrap (caps and timeout still apply): the sdists' build code "
        "runs as pip would run it, with your user's rights; a warning says so",
    )
    add_envs_max_size_option(parser)
    parser.set_defaults(handler=_run)


#: The one line ``--no-sandbox`` prints (docs/ci.md, "--no-sandbox").
NO_SANDBOX_WARNING = (
    "sapper: warning: --no-sandbox: the sdists' build code runs unconfined, as pip would run "
    "it (no bubblewrap; caps and timeout still apply)\n"
)


def _run(args: argparse.Namespace) -> int:
    from ..audit.resolve import IndexFiles
    from ..audit.wheelhouse import (
        audit_build_requirements,
        build_wheelhouse,
        local_build_requirements,
    )
    from ..build import Builder, Limits
    from ..pypi import DEFAULT_INDEX_URL, Index

    if args.no_sandbox:
        sys.stderr.write(NO_SANDBOX_WARNING)
    builder = Builder(
        cache_dir=args.cache_dir,
        index_url=args.index_url,
        limits=Limits(timeout=args.timeout),
        sandbox=not args.no_sandbox,
        envs_max_size=args.build_envs_max_size,
    )
    builder.check()  # no working sandbox: SandboxError, could not build (3)
    report = run_audit(args, target=False)
    show = progress_enabled()

    def progress(i: int, total: int, name: str) -> None:
        if show:
            sys.stderr.write(f"\r\x1b[K{i + 1}/{total} {name}")
            sys.stderr.flush()

    index = Index(args.index_url or DEFAULT_INDEX_URL, cache_dir=args.cache_dir)
    files_of = IndexFiles(
        [] if args.no_index else [args.index_url or DEFAULT_INDEX_URL],
        [str(Path(p).resolve()) for p in args.find_links],
        cache_dir=args.cache_dir,
    )

    def build(report: AuditReport, reuse: Sequence[WheelhouseItem] = ()) -> WheelhouseResult:
        requires = local_build_requirements(report)
        also = (
            audit_build_requirements(
                requires,
                index_url=args.index_url,
                no_index=args.no_index,
                find_links=[str(Path(p).resolve()) for p in args.find_links],
                cache_dir=args.cache_dir,
                sandbox=not args.no_sandbox,
            )
            if requires
            else None
        )
        return build_wheelhouse(
            report,
            args.output,
            builder=builder,
            index=index,
            complete=args.complete,
            verify=args.verify,
            requirements=_requirements_file(args, report),
            files_of=files_of,
            on_item=progress,
            reuse=reuse,
            also=also,
        )

    try:
        result = build(report)
        found = tuple(dict.fromkeys(c for i in result.items for c in i.build_constraints))
        if found and report.closure is not None and report.closure.report is None:
            # the builds found what the resolver lacked (cython<3.0.0): resolve again
            again = run_audit(args, target=False, build_constraints=found)
            if again.closure is not None and again.closure.report is not None:
                report = again
                result = build(report, reuse=result.items)
    finally:
        if show:
            sys.stderr.write("\r\x1b[K")
    out = sys.stdout
    width = max((len(f"{i.name} {i.version}") for i in result.items), default=10)
    for item in result.items:
        label = f"{item.name} {item.version}".ljust(width)
        out.write(f"{label}  {item.action:<10}  {item.wheel or '-'}  {item.reason}\n")
    built = sum(i.action == "built" for i in result.items)
    fetched = sum(i.action == "downloaded" for i in result.items)
    out.write(
        f"\n{result.directory}: {built} built, {fetched} downloaded, "
        f"{len(result.failed)} could not be built or downloaded.\n"
    )
    if result.verified is True:
        out.write(
            f"Verified: the set installs offline (pip install --no-index --find-links "
            f"{result.directory} ...).\n"
        )
    elif result.verified is False:
        out.write("The offline install from the directory FAILED:\n" + result.verify_log + "\n")
        for advice in result.advice:
            out.write(f"missing: {advice}\n")
    from ..audit.verdicts import next_release
    from ..versions import catalogue

    for note in report.notes:
        out.write(f"note: {note}\n")
    for item in result.items:
        if item.unfixable:
            nearest = (
                f"; the nearest release that installs here is {item.suggestion}"
                if item.suggestion
                else "; no newer release tried installs here"
            )
            out.write(
                f"note: no setuptools builds {item.name} {item.version} here (not a setuptools "
                f"removal: a cap would not help){nearest}.\n"
            )
        for constraint in item.build_constraints:
            out.write(
                f"note: {item.name} {item.version} needs the build constraint `{constraint}` "
                "(found by bisecting real builds): add the line to pip's --build-constraint "
                "file (global), or give it to this package alone in uv's "
                "[tool.uv.extra-build-dependencies] or Poetry's [tool.poetry.build-constraints].\n"
            )
        if item.beyond_static and item.setuptools:
            upper = next_release(catalogue(), item.setuptools)
            out.write(
                f"note: {item.name} {item.version} needed setuptools {item.setuptools}, older "
                "than sapper's static verdict; for uv or Poetry constrain it with "
                f"`setuptools<{upper}` instead of the line `sapper audit --emit` wrote.\n"
            )
    if result.failed or result.verified is False:
        return ExitCode.FINDINGS
    return ExitCode.OK


def _requirements_file(args: argparse.Namespace, report: AuditReport) -> Path | None:
    """The requirements file the offline install uses, when the input is exactly one."""
    inputs = args.inputs
    if report.format == "requirements" and len(inputs) == 1 and not args.constraints:
        return Path(inputs[0])
    return None
