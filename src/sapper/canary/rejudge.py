"""Re-judge a stored canary run: sapper's static verdicts recomputed with the engine installed
now, beside the real builds stored then, without building anything again.

A canary row keeps, per side, the static verdict the engine of its day gave (``static``,
``static_codes``). When the rules change, the real outcomes do not: :func:`rejudge_run`
reads every target's sdist again (from the download cache, where the run put it, keyed by
its sha256, or from the path the run was given), runs the rules once for both sides as the
run did (:func:`sapper.canary.engine._statics`), and writes the new verdicts into the same
rows. The class of a row (regressed, pass...) is the real builds' and is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .model import Backend, TargetRow, parse_backend

if TYPE_CHECKING:
    from .store import CanaryStore

__all__ = ["RejudgeChange", "RejudgeSummary", "rejudge_run", "sdist_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RejudgeChange:
    """One side whose static verdict changed."""

    target: str
    side: str
    before: str
    after: str
    codes_before: tuple[str, ...]
    codes_after: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RejudgeSummary:
    run_id: str
    #: Rows in the run.
    rows: int
    #: Rows whose verdicts were recomputed (those with both sides built).
    rejudged: int
    #: Rows whose sdist is neither in the download cache nor at its path any more.
    missing: int
    #: Sides whose verdict or rule codes changed, one entry each.
    changes: tuple[RejudgeChange, ...]

    @property
    def changed(self) -> int:
        """Rows with at least one changed side."""
        return len({c.target for c in self.changes})


def sdist_of(row: TargetRow, cache_dir: Path) -> Path | None:
    """Where the sdist of ``row`` is now: the path the run was given, else the download
    cache's copy (``sdists/<sha[:2]>/<sha>/<filename>``, the row's key being the sha256)."""
    key = row.key.lower()
    hashed = len(key) == 64 and all(c in "0123456789abcdef" for c in key)
    given = Path(row.target)
    if given.is_dir() or (given.is_file() and (not hashed or _digest(given) == key)):
        return given
    if not hashed:
        return None
    folder = cache_dir / "sdists" / key[:2] / key
    found = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    return found[0] if found else None


def _digest(path: Path) -> str:
    from .engine import _digest as digest

    return digest(path)


def _backends(run: dict[str, object], cache_dir: Path) -> tuple[Backend, Backend]:
    def env(text: object) -> tuple[tuple[str, str], ...]:
        pairs = json.loads(str(text)) if text else []
        return tuple((str(k), str(v)) for k, v in pairs)

    return (
        parse_backend(str(run["baseline"]), env=env(run["baseline_env"]), cache_dir=cache_dir),
        parse_backend(str(run["candidate"]), env=env(run["candidate_env"]), cache_dir=cache_dir),
    )


def rejudge_run(
    store: CanaryStore,
    run_id: str,
    *,
    cache_dir: Path | None = None,
    index_url: str | None = None,
    on_row: Callable[[int, int], None] | None = None,
) -> RejudgeSummary:
    """Recompute the static verdicts of every built row of ``run_id`` and store them.

    ``cache_dir``: the download cache the run used (default: the user's). ``on_row(done,
    total)`` is called after each row.

    :raises UsageError: when the run is not in the store.
    """
    from ..build import Builder
    from ..pypi import default_cache_dir
    from .engine import _Settings, _statics

    cache = cache_dir or default_cache_dir()
    run_id = store.resolve_run(run_id)
    run = next(r for r in store.runs() if r["run_id"] == run_id)
    baseline, candidate = _backends(run, cache)
    settings = _Settings(
        baseline=baseline,
        candidate=candidate,
        mode=str(run["mode"]),  # type: ignore[arg-type]
        all_backends=bool(run["all_backends"]),
        builder=Builder(cache_dir=cache_dir, index_url=index_url),
        index_url=index_url,
        cache_dir=cache_dir,
    )
    rows = list(store.rows(run_id))
    changes: list[RejudgeChange] = []
    rejudged = missing = 0
    for done, row in enumerate(rows, 1):
        if row.baseline is not None and row.candidate is not None:
            path = sdist_of(row, cache)
            if path is None:
                missing += 1
            else:
                data = None if path.is_dir() else path.read_bytes()
                statics, _uses, _ident = _statics(path, data, settings)
                sides = []
                for label, side, (verdict, codes) in (
                    ("baseline", row.baseline, statics[0]),
                    ("candidate", row.candidate, statics[1]),
                ):
                    if (side.static, side.static_codes) != (verdict, codes):
                        changes.append(
                            RejudgeChange(
                                target=row.target,
                                side=label,
                                before=side.static,
                                after=verdict,
                                codes_before=side.static_codes,
                                codes_after=codes,
                            )
                        )
                    sides.append(replace(side, static=verdict, static_codes=codes))
                store.write(run_id, [replace(row, baseline=sides[0], candidate=sides[1])])
                rejudged += 1
        if on_row is not None:
            on_row(done, len(rows))
    store.mark_rejudged(run_id)
    return RejudgeSummary(
        run_id=run_id,
        rows=len(rows),
        rejudged=rejudged,
        missing=missing,
        changes=tuple(changes),
    )
