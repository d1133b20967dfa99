"""The ``sapper audit`` sub-command: parse, call :func:`sapper.audit.audit`, render, emit."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import UsageError
from ._common import (
    ExitCode,
    HelpFormatter,
    add_envs_max_size_option,
    add_index_options,
    command_epilog,
    progress_enabled,
)

if TYPE_CHECKING:
    from ..audit import AuditReport

__all__ = ["add_audit_target_options", "add_parser", "run_audit"]

_EPILOG = """\
INPUT is a requirements file (-r/-c nesting, hashes, --only-binary/--no-binary and index
options inside it are honoured), a PEP 751 pylock.toml, a uv.lock, a poetry.lock, or the
JSON of `pip install --dry-run --report FILE`, told apart by its content whatever its name.

--emit pip: pip >= 25.3 takes the file with --build-constraint; older pip (before 26.2,
such as the 23.2 of a fresh Python 3.11 venv) with PIP_CONSTRAINT=FILE in the environment.

""" + command_epilog("audit")


class _AddInputs(argparse.Action):
    """INPUT and -r FILE add to one list, in the order of the command line."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        added = values if isinstance(values, list) else [values]
        namespace.inputs = [*getattr(namespace, "inputs", []), *added]


def add_audit_target_options(parser: argparse.ArgumentParser, *, target: bool = True) -> None:
    """The options that decide what gets installed (shared with ``sapper wheelhouse``, which
    builds for the running interpreter and so has no ``--python``/``--platform``)."""
    parser.set_defaults(inputs=[])
    parser.add_argument(
        "input",
        metavar="INPUT",
        type=Path,
        nargs="*",
        action=_AddInputs,
        help="requirements file, pylock.toml, uv.lock, poetry.lock or pip --report JSON, "
        "told apart by their content (several: each is audited, requirements files "
        "together as pip reads several -r); or a project (a directory with a "
        "pyproject.toml or setup.py, or that file): its dependencies",
    )
    parser.add_argument(
        "-r",
        "--requirement",
        metavar="FILE",
        type=Path,
        action=_AddInputs,
        dest="inputs",
        help="as pip's: an input file (repeatable; same as giving it as INPUT)",
    )
    parser.add_argument(
        "-c",
        "--constraint",
        metavar="FILE",
        type=Path,
        action="append",
        default=[],
        dest="constraints",
        help="as pip's: a constraints file for the requirements files (repeatable)",
    )
    if target:
        _add_target(parser)
    _add_selection(parser)


def _add_target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python",
        metavar="X.Y",
        help="target CPython version (default: the running interpreter)",
    )
    parser.add_argument(
        "--platform",
        metavar="TAG",
        action="append",
        default=[],
        help="target platform tag such as manylinux_2_28_x86_64, macosx_11_0_arm64 or "
        "win_amd64 (repeatable; default: the running machine's)",
    )


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--only-binary",
        metavar="NAMES",
        action="append",
        default=[],
        help="as pip's: never build these (comma-separated, :all:, :none:)",
    )
    parser.add_argument(
        "--no-binary",
        metavar="NAMES",
        action="append",
        default=[],
        help="as pip's: always build these from source (comma-separated, :all:, :none:)",
    )
    parser.add_argument(
        "-f",
        "--find-links",
        metavar="DIR",
        action="append",
        default=[],
        help="also take distributions from this local directory (repeatable)",
    )
    parser.add_argument(
        "--no-index",
        action="store_true",
        help="as pip's: read no index, only --find-links directories and what locks list",
    )
    parser.add_argument(
        "--enforce-deprecations",
        action="store_true",
        help="judge builds as with SETUPTOOLS_ENFORCE_DEPRECATION=1 (overdue warnings fail)",
    )
    add_index_options(parser, no_cache=False)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "audit",
        help="which dependencies get built from source, which would fail, what to pin",
        description=(
            "For each distribution INPUT names (for a requirements file: its whole "
            "dependency tree, resolved by pip's own resolver in the sandbox): the release an "
            "installer takes, whether it gets built from source for the target (no "
            "compatible wheel), and for those sdists the setuptools a build gets today, "
            "sapper's verdict there, and the newest setuptools that builds them. The "
            "verdicts are static unless --verify builds every sdist for real."
        ),
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    add_audit_target_options(parser)
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="a table (default) or the versioned JSON report (docs/audit.md)",
    )
    parser.add_argument(
        "--emit",
        choices=("pip", "uv", "poetry"),
        help="write build constraints: pip's --build-constraint file (PIP_CONSTRAINT for "
        "pip < 26.2), uv's [tool.uv] build-constraint-dependencies, or Poetry's "
        "[tool.poetry.build-constraints] table; without -o the file alone goes to stdout",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", type=Path, help="where --emit writes (default: stdout)"
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="build every sdist for real in the sandbox (for the running interpreter), show "
        "the static and real verdicts side by side, and emit what the builds showed",
    )
    add_envs_max_size_option(parser)
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour; auto honours NO_COLOR and FORCE_COLOR",
    )
    parser.set_defaults(handler=_run)


def run_audit(
    args: argparse.Namespace, *, target: bool, build_constraints: Sequence[str] = ()
) -> AuditReport:
    """Call :func:`sapper.audit.audit` with the options :func:`add_audit_target_options` added
    (``target``: with ``--python``/``--platform``), showing progress on a terminal;
    ``build_constraints`` go to pip's resolver."""
    from ..audit import audit

    show = progress_enabled()

    def progress(i: int, total: int, name: str) -> None:
        if show:
            sys.stderr.write(f"\r\x1b[Kauditing {i + 1}/{total} {name}")
            sys.stderr.flush()

    inputs = args.inputs
    if not inputs:
        msg = "give the file(s) to audit: INPUT or -r FILE"
        raise UsageError(msg)
    try:
        return audit(
            inputs,
            constraints=args.constraints,
            python=args.python if target else None,
            platforms=args.platform if target else [],
            index_url=args.index_url,
            no_index=args.no_index,
            find_links=[str(Path(p).resolve()) for p in args.find_links],
            only_binary=args.only_binary,
            no_binary=args.no_binary,
            enforce_deprecations=args.enforce_deprecations,
            cache_dir=args.cache_dir,
            on_package=progress,
            sandbox=not getattr(args, "no_sandbox", False),
            build_constraints=build_constraints,
        )
    finally:
        if show:
            sys.stderr.write("\r\x1b[K")


def _run(args: argparse.Namespace) -> int:
    import json

    from ..audit import report_json
    from ..audit.emit import emit, plan_constraints
    from ..audit.render import render_table
    from ..render.text import Style, use_color

    if args.output is not None and args.emit is None:
        msg = "-o/--output goes with --emit pip|uv|poetry"
        raise UsageError(msg)
    if args.emit is not None and args.output is None and args.format == "json":
        msg = "--emit without -o prints the emitted file alone; add -o FILE for --format json"
        raise UsageError(msg)
    if args.verify and (args.python or args.platform):
        msg = "--verify builds for the running interpreter: run it without --python/--platform"
        raise UsageError(msg)
    report = run_audit(args, target=True)
    real = _verify(args, report) if args.verify else None
    if real is not None:
        report, static = real, report
    plan = plan_constraints(report)
    code = (
        ExitCode.TARGET_ERROR
        if any(p.error for p in report.packages)
        else ExitCode.FINDINGS
        if report.failing
        else ExitCode.OK
    )
    out = sys.stdout
    if args.emit is not None:
        text = emit(report, args.emit)
        if args.output is None:
            out.write(text)  # one document on stdout, nothing else
            return code
        _write(args.output, text)
        sys.stderr.write(f"wrote {args.output}\n")
    if args.format == "json":
        out.write(json.dumps(report_json(report), indent=2) + "\n")
    else:
        style = Style(color=use_color(args.color, out.isatty()))
        out.write(render_table(report, plan, style))
        if real is not None:
            from ..audit.verify import render_side_by_side

            out.write(render_side_by_side(report, static))
    return code


def _verify(args: argparse.Namespace, report: AuditReport) -> AuditReport:
    """``--verify``: every sdist of ``report`` built for real (sandboxed)."""
    from ..audit.resolve import IndexFiles
    from ..audit.verify import verify_report
    from ..build import Builder
    from ..pypi import DEFAULT_INDEX_URL, Index

    builder = Builder(
        cache_dir=args.cache_dir,
        index_url=args.index_url,
        envs_max_size=args.build_envs_max_size,
    )
    builder.check()
    index_url = args.index_url or DEFAULT_INDEX_URL
    files_of = IndexFiles(
        [] if args.no_index else [index_url],
        [str(Path(p).resolve()) for p in args.find_links],
        cache_dir=args.cache_dir,
    )
    return verify_report(
        report,
        builder=builder,
        index=Index(index_url, cache_dir=args.cache_dir),
        files_of=files_of,
        reaudit=lambda found: run_audit(args, target=True, build_constraints=found),
    )


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        msg = f"cannot write {path}: {exc.strerror or exc}"
        raise UsageError(msg) from None
