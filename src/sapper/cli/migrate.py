"""``sapper migrate``: move a setuptools project's configuration to pyproject.toml."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import ExitCode, HelpFormatter, command_epilog

if TYPE_CHECKING:
    from ..migrate import Migration
    from ..migrate.verify import Verification

__all__ = ["JSON_SCHEMA_VERSION", "add_parser"]

#: The version of the ``--format json`` document (raised when a key changes meaning).
JSON_SCHEMA_VERSION = 1

_EPILOG = """\
What moves: setup.cfg [metadata]/[options] (and its subsections) and the keywords setup.py
passes to setup() whose values sapper can read without running code go to [project] and
[tool.setuptools]; [build-system] is written or completed (setuptools>= the first release
that reads every table written). What stays: what only code can say (ext_modules, cmdclass,
data_files, computed values), other tools' sections of setup.cfg, and every metadata field
whose pyproject form would change the wheel (a license string, author with author_email,
url, a long_description without a content type); a metadata field that stays is listed in
project.dynamic. Comments move with what they annotate, or stay. Nothing is ever executed.

Proof: by default, where the build sandbox (bubblewrap) works, the wheel is built before and
after in temporary copies and compared (METADATA, entry points, files): a difference
writes nothing (exit 3). --no-verify skips the builds; without a sandbox the output says
"static only, not verified".

""" + command_epilog("migrate")


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "migrate",
        help="move setup.py/setup.cfg configuration to pyproject.toml, same wheel",
        description=(
            "Migrate PATH, a setuptools project (a directory, changed in place, or an sdist, "
            "whose migrated tree is written with -o DIR), to pyproject.toml: [project], "
            "[tool.setuptools] and [build-system]. A migration that could build another "
            "wheel is refused with the reasons (exit 3), and every file is left untouched."
        ),
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "path",
        nargs="?",
        default=".",
        metavar="PATH",
        help="project directory (default: .) or sdist archive",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff (git apply / patch -p1) and write nothing",
    )
    parser.add_argument(
        "-o",
        "--output-dir",
        metavar="DIR",
        type=Path,
        help="for an sdist: write the migrated tree into DIR/<the sdist's top directory>",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="do not build the wheel before and after to compare them",
    )
    parser.add_argument(
        "--python",
        metavar="X.Y",
        help="read setup.py for this Python (default: the running one)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="output format (default: text)",
    )
    parser.set_defaults(handler=_run)


def _action(change: Any) -> str:
    if change.before is None:
        return "created"
    if change.after is None:
        return "removed"
    return "changed"


def _prefix(target: str, migration: Migration) -> str:
    """Diff paths as ``sapper fix`` writes them: relative to the current directory for a
    directory inside it (``git apply`` where the diff was made), under the sdist's top
    directory for an sdist."""
    from .fix import _directory_prefix

    if Path(target).is_dir():
        return _directory_prefix(target)
    return f"{migration.root.name}/"


def _verify(root: Path, migration: Migration) -> tuple[Verification | None, str]:
    """Build before and after (the after in a temporary copy); ``(None, why)`` when there
    is no sandbox."""
    from .._exceptions import SandboxError
    from ..build import check_sandbox
    from ..migrate import write_migration
    from ..migrate.verify import verify_migration

    try:
        check_sandbox()
    except SandboxError as exc:
        return None, str(exc).splitlines()[0] if str(exc) else "no sandbox"
    with tempfile.TemporaryDirectory(prefix="sapper-migrate-") as tmp:
        after = Path(tmp) / root.name
        write_migration(migration, after)
        return verify_migration(root, after), ""


def _run(args: argparse.Namespace) -> int:
    from .._exceptions import BuildError, UsageError
    from ..check import classify_target
    from ..migrate import migration_diff, plan_migration, write_migration

    target = args.path
    kind = classify_target(target)
    if kind == "pypi":
        msg = f"{target}: not a directory or an sdist archive"
        raise UsageError(msg)
    if kind == "sdist" and args.output_dir is None and not args.diff:
        msg = (
            f"{target}: an sdist is never changed in place; pass -o DIR to write the "
            "migrated tree, or --diff to see the changes"
        )
        raise UsageError(msg)
    if kind == "directory" and args.output_dir is not None:
        msg = "-o is for sdists; a directory is migrated in place"
        raise UsageError(msg)
    with tempfile.TemporaryDirectory(prefix="sapper-migrate-src-") as tmp:
        if kind == "sdist":
            from ..build import unpack_sdist

            try:
                root = unpack_sdist(Path(target), Path(tmp) / "src")
            except BuildError as exc:
                sys.stderr.write(f"sapper: error: {target}: {exc}\n")
                return ExitCode.TARGET_ERROR
        else:
            root = Path(target).resolve()
        return _migrate(args, target, kind, root, plan_migration, write_migration, migration_diff)


def _migrate(  # noqa: PLR0917 - the handler's steps, split for length
    args: argparse.Namespace,
    target: str,
    kind: str,
    root: Path,
    plan: Any,
    write: Any,
    diff: Any,
) -> int:
    migration = plan(root, python=args.python)
    verification: Verification | None = None
    static_only = ""
    if migration.changes and not migration.refusals and not args.no_verify:
        verification, static_only = _verify(root, migration)
    status = "migrated" if migration.changes else "unchanged"
    if migration.refusals:
        status = "refused"
    elif verification is not None and verification.status != "equivalent":
        status = "different" if verification.status == "different" else "unverified"
    wrote: list[str] = []
    if status == "migrated" and not args.diff:
        if kind == "sdist":
            dest = args.output_dir / root.name
            if dest.exists():
                sys.stderr.write(f"sapper: error: {dest} exists; choose another -o DIR\n")
                return ExitCode.TARGET_ERROR
            write(migration, dest)
            wrote.append(str(dest))
        else:
            write(migration)
    if args.format == "json":
        _json(args, target, migration, status, verification, static_only, wrote, diff)
    else:
        _text(args, target, migration, status, verification, static_only, wrote, diff)
    return ExitCode.OK if status in {"migrated", "unchanged"} else ExitCode.TARGET_ERROR


def _json(  # noqa: PLR0917
    args: argparse.Namespace,
    target: str,
    migration: Migration,
    status: str,
    verification: Verification | None,
    static_only: str,
    wrote: list[str],
    diff: Any,
) -> None:
    doc: dict[str, Any] = {
        "schema_version": JSON_SCHEMA_VERSION,
        "target": target,
        "status": status,
        "written": status == "migrated" and not args.diff,
        "output": wrote,
        "changes": [{"path": c.path, "action": _action(c)} for c in migration.changes],
        "refusals": [
            {"code": r.code, "reason": r.reason, "path": r.path, "line": r.line}
            for r in migration.refusals
        ],
        "notes": list(migration.notes),
        "verification": None
        if verification is None
        else {
            "status": verification.status,
            "reason": verification.reason,
            "differences": [
                {"what": d.what, "before": d.before, "after": d.after}
                for d in verification.differences
            ],
        },
        "static_only": static_only or None,
    }
    if args.diff:
        doc["diff"] = (
            diff(migration, prefix=_prefix(target, migration)) if status == "migrated" else ""
        )
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _text(  # noqa: PLR0917
    args: argparse.Namespace,
    target: str,
    migration: Migration,
    status: str,
    verification: Verification | None,
    static_only: str,
    wrote: list[str],
    diff: Any,
) -> None:
    out = sys.stdout
    notes = sys.stderr if args.diff else sys.stdout
    for refusal in migration.refusals:
        where = f"{refusal.path}:{refusal.line}" if refusal.line else refusal.path
        sys.stderr.write(f"{target}: {where}: refused ({refusal.code}): {refusal.reason}\n")
    for note in migration.notes:
        notes.write(f"{target}: note: {note}\n")
    if verification is not None and verification.status != "equivalent":
        sys.stderr.write(f"{target}: {verification.status}: {verification.reason}\n")
        for found in verification.differences:
            sys.stderr.write(
                f"{target}:   {found.what}: before {found.before!r}, after {found.after!r}\n"
            )
    if status == "migrated" and args.diff:
        from .fix import _write_diff

        _write_diff(out, diff(migration, prefix=_prefix(target, migration)))
    if status == "migrated":
        proof = (
            "verified: the same wheel before and after"
            if verification is not None
            else (
                "static only, not verified (--no-verify)"
                if args.no_verify
                else f"static only, not verified ({static_only})"
            )
        )
        verb = "would change" if args.diff else "changed"
        files = ", ".join(f"{c.path} ({_action(c)})" for c in migration.changes)
        notes.write(f"{target}: migrated: {verb} {files}; {proof}\n")
        for path in wrote:
            notes.write(f"{target}: wrote {path}\n")
    elif status == "unchanged":
        notes.write(f"{target}: nothing to migrate\n")
    else:
        sys.stderr.write(f"{target}: not migrated ({status}): every file is left untouched\n")
