"""The ``sapper doctor`` sub-command: what this machine allows (:func:`sapper.doctor.doctor`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ._common import ExitCode, HelpFormatter, command_epilog, format_size, positive_int

if TYPE_CHECKING:
    from ..doctor import DoctorReport, Installer

__all__ = ["add_parser", "render_text"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "doctor",
        help="check what this machine allows: sandbox, build cache, index, pip and uv",
        description=(
            "Say whether bubblewrap starts a sandbox here (and, when not, the cause found on "
            "this machine and the exact fix), where the build environments are cached and "
            "their size, whether the package index answers, and the versions of pip and uv "
            "with whether each has --build-constraint (pip >= 25.3, needed by the file "
            "`sapper audit --emit pip` writes). Nothing is built or installed."
        ),
        epilog=command_epilog("doctor"),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--index-url",
        metavar="URL",
        help="the index to try (default: $SAPPER_INDEX_URL or https://pypi.org/simple)",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=Path,
        help="the cache whose build environments to count (default: $SAPPER_CACHE_DIR or the "
        "user cache directory)",
    )
    parser.add_argument(
        "--python",
        metavar="PYTHON",
        help="the interpreter whose `-m pip` to check (default: sapper's own)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_int,
        default=10,
        help="how long to wait for the index (default 10)",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or JSON"
    )
    parser.set_defaults(handler=_run)


def _installer(tool: Installer) -> str:
    if not tool.found:
        return f"not found ({tool.error})"
    where = " ".join(tool.command)
    if tool.build_constraint is None:
        has = "--build-constraint unknown (install --help failed)"
    elif tool.build_constraint:
        has = "has --build-constraint"
    else:
        has = "no --build-constraint" + (" (pip >= 25.3 has it)" if tool.name != "uv" else "")
    return f"{tool.version} ({where}): {has}"


def render_text(report: DoctorReport) -> str:
    """The report as ``sapper doctor`` prints it: one line per check, then the details."""
    s = report.sandbox
    rows: list[tuple[str, str]] = []
    if s.works:
        rows.append(("sandbox", f"yes: bubblewrap ({s.bwrap}) starts a sandbox here"))
    else:
        rows.append(("sandbox", f"no: {s.reason}"))
    cache = report.cache
    if cache.exists:
        rows.append(
            (
                "build cache",
                f"{cache.location}: {cache.environments} environments, {cache.wheels} wheels, "
                f"{format_size(cache.bytes)}",
            )
        )
    else:
        rows.append(("build cache", f"{cache.location}: empty (made by the first build)"))
    index = report.index
    if index.reachable:
        answer = f"HTTP {index.status}" if index.status is not None else "a local folder"
        rows.append(("index", f"{index.url}: reachable ({answer})"))
    else:
        rows.append(("index", f"{index.url}: NOT reachable ({index.error})"))
    rows.extend((tool.name, _installer(tool)) for tool in report.installers)
    width = max(len(name) for name, _ in rows)
    lines = [f"{name.ljust(width)}  {text}" for name, text in rows]
    if not s.works:
        lines += ["", s.message()]
    for title, items in (("problems", report.problems), ("notes", report.notes)):
        if items:
            lines += ["", f"{title}:"] + [f"  - {item}" for item in items]
    if not report.problems:
        lines += ["", "sapper can build here (canary, wheelhouse) and reach the index."]
    return "\n".join(lines) + "\n"


def _run(args: argparse.Namespace) -> int:
    import json

    from ..doctor import doctor

    report = doctor(
        cache_dir=args.cache_dir,
        index_url=args.index_url,
        python=args.python,
        index_timeout=float(args.timeout),
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
    else:
        sys.stdout.write(render_text(report))
    return ExitCode.FINDINGS if report.problems else ExitCode.OK
