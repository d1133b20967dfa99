"""One comparison of sapper's verdict with a real build, shared by the oracle tests.

Each oracle test writes a small project, runs the PEP 517 hooks of real setuptools releases
in it (:func:`harness.run_hooks`) and sets ``sapper check``'s verdict for the same release
beside each result. :func:`compare` is that step for one release; :func:`disagreements` for
several (two at a time), returning the mismatches to assert on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sapper.check import Options, TargetResult, check_target

from .harness import HookResult, Reason, reason_mismatch, run_hooks
from .reasons import reasons_for


@dataclass(frozen=True)
class Comparison:
    """A real build at one release and sapper's check for that release."""

    version: str
    real: HookResult
    result: TargetResult
    #: None when they agree, reasons included; else both sides, for the assertion message
    problem: str | None


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; return ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def compare(
    tree: Path,
    version: str,
    *,
    enforce: bool = False,
    reasons: Reason | Sequence[Reason] | None = None,
    target: Path | None = None,
    **hooks: Any,
) -> Comparison:
    """Real setuptools ``version``'s hooks in ``tree`` against ``sapper check`` of ``target``
    (default: the tree) with ``--setuptools version``. A failure must be one that a rule of
    the verdict's ``because`` declares (tests/oracle/reasons.py), or one of ``reasons`` when
    given. ``hooks`` go to :func:`harness.run_hooks` (``requires``, ``backend``...)."""
    real = run_hooks(version, tree, enforce=enforce, **hooks)
    result = check_target(
        str(target or tree), Options(setuptools=version, enforce_deprecations=enforce)
    )
    assert result.verdict is not None
    because = result.verdict.because
    label = f"{version}{' (enforced)' if enforce else ''}"
    problem = reason_mismatch(
        real,
        result.verdict.outcome,
        reasons_for(because) if reasons is None else reasons,
        because=because,
        label=label,
    )
    return Comparison(version, real, result, problem)


def comparisons(tree: Path, versions: Iterable[str], **options: Any) -> list[Comparison]:
    """:func:`compare` at each of ``versions``, two builds at a time, in order."""
    one: Callable[[str], Comparison] = lambda version: compare(tree, version, **options)  # noqa: E731
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, versions))


def disagreements(tree: Path, versions: Iterable[str], **options: Any) -> list[str]:
    """The mismatches of :func:`comparisons`, for ``assert not ..., "\\n".join(...)``."""
    return [c.problem for c in comparisons(tree, versions, **options) if c.problem]
