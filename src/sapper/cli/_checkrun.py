"""What ``sapper check`` does once argparse has parsed its arguments, and the pause of the
garbage collector during its start-up."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ._light import ExitCode, apply_cache_cap, cache_cap, progress_enabled

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from ..check import Options
    from ..config import Config
    from ..model import TargetResult

__all__ = ["FORMATS", "pause_gc", "resume_gc"]

FORMATS = ("text", "concise", "json", "sarif", "github")


def _options(args: argparse.Namespace, config: Config) -> Options:
    from ..check import Options
    from ._settings import settings_for

    settings = settings_for(args, config)
    suppress = not args.ignore_suppressions
    return Options(
        setuptools=settings.setuptools,
        enforce_deprecations=settings.enforce_deprecations,
        python=settings.python,
        platform=settings.platform,
        index_url=args.index_url,
        select=settings.select,
        ignore=settings.ignore,
        cache_dir=args.cache_dir,
        no_cache=args.no_cache,
        suppressions=suppress,
        per_file_ignores=config.per_file_ignores if suppress else (),
        unused_suppressions=settings.unused_suppressions,
    )


def _render(args: argparse.Namespace, results: list[TargetResult]) -> str:
    if args.statistics:
        if args.format not in ("text", "json"):
            from .._exceptions import UsageError

            msg = f"--statistics prints text or JSON, not --format {args.format}"
            raise UsageError(msg)
        from ..render.statistics import render_statistics

        return render_statistics(results, as_json=args.format == "json")
    if args.format == "json":
        from ..render.json import render_json
        from ..versions import catalogue

        return render_json(results, newest=catalogue().newest)
    if args.format == "sarif":
        from ..render.sarif import render_sarif

        return render_sarif(results)
    if args.format == "github":
        from ..render.github import render_github

        return render_github(results)
    if args.format == "concise":
        from ..render.concise import render_concise

        return render_concise(results, quiet=args.quiet)
    from ..render.text import Style, render_text, use_color

    style = Style(color=use_color(args.color, sys.stdout.isatty()))
    shown = [r for r in results if r.findings or r.errors] if args.quiet else results
    if args.quiet and not shown:
        return ""
    text = render_text(shown, style, show_fix=args.show_fix)
    if args.quiet:  # drop the summary line
        text = text.rstrip("\n").rsplit("\n", 1)[0] + "\n"
    return text


class _StartUp:
    #: Whether :func:`pause_gc` turned the garbage collector off for the start-up.
    gc_paused = False


def pause_gc() -> None:
    """Turn the garbage collector off for the start-up (if it is on): imports and the
    catalogue allocate many objects that live until exit, and collecting them is wasted
    work. :func:`resume_gc` turns it back on."""
    import gc

    if gc.isenabled():
        gc.disable()
        _StartUp.gc_paused = True


def resume_gc(*, freeze: bool = False) -> None:
    """Undo :func:`pause_gc` (nothing if it did nothing); with ``freeze``, first move what
    start-up built to the permanent generation, so that collections skip it."""
    import gc

    if _StartUp.gc_paused:
        if freeze:
            gc.freeze()
        gc.enable()
        _StartUp.gc_paused = False


def _run(args: argparse.Namespace) -> int:
    from .._exceptions import UsageError
    from ..check import check_target, classify_target
    from ._settings import config_for

    targets: list[str] = args.targets or ["."]
    if args.statistics and args.show_fix:
        msg = "--statistics prints counts, not findings: drop --show-fix"
        raise UsageError(msg)
    for target in targets:  # a missing path, a file that is no sdist, a malformed
        classify_target(target)  # requirement: usage errors (exit 2), before any work
    configs: dict[Path, Config] = {}
    options_by_config: dict[Path | None, Options] = {}
    per_target: list[Options] = []
    for target in targets:
        config = config_for(args, target, configs)
        if config.path not in options_by_config:
            options_by_config[config.path] = _options(args, config)
        per_target.append(options_by_config[config.path])

    cap = cache_cap(
        args, next((c.cache_max_size for c in configs.values() if c.cache_max_size), None)
    )
    total = len(targets)
    show = progress_enabled() and total > 1 and not args.quiet
    results = []
    for i, (target, options) in enumerate(zip(targets, per_target, strict=True)):
        if show:
            sys.stderr.write(f"\r\x1b[K[{i + 1}/{total}] checking {target}")
            sys.stderr.flush()
        results.append(check_target(target, options))
        if i == 0:  # start-up is over: checking many targets collects their garbage
            resume_gc(freeze=True)
    if show:
        sys.stderr.write("\r\x1b[K")
    sys.stdout.write(_render(args, results))
    apply_cache_cap(args, cap)
    if any(r.errors and r.verdict is None for r in results):
        return ExitCode.TARGET_ERROR
    if any(r.findings for r in results) and not args.exit_zero:
        return ExitCode.FINDINGS
    return ExitCode.OK
