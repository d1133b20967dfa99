"""``sapper canary bisect``: the release of setuptools (or of another build requirement, with
``package``) where one target's build outcome changes.

With different outcomes at ``good`` and ``bad``, a binary search over the releases between
them (yanked ones skipped) finds a release whose outcome differs from its predecessor's, as
``git bisect`` does: the first such release when the history between them is monotone.
With the *same* outcome at both ends a binary search has nothing to go on, yet the outcome
may have changed and changed back (78.0.1 made dash-separated setup.cfg keys an error, 78.0.2
restored them): then every release between them is built, and every change is reported.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..build import Builder, Mode

__all__ = ["BisectResult", "BisectStep", "bisect", "changelog_url", "releases_between"]


def changelog_url(version: str, package: str = "setuptools") -> str | None:
    """The entry of ``version`` in setuptools' changelog (None for another package)."""
    if package.lower() != "setuptools":
        return None
    return f"https://setuptools.pypa.io/en/stable/history.html#v{version.replace('.', '-')}"


@dataclass(frozen=True, slots=True, kw_only=True)
class BisectStep:
    version: str
    outcome: str
    signature: str | None = None
    #: The failing build's own message (the signature with the names left in).
    message: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BisectResult:
    """``changes`` lists each (release, outcome before, outcome from it on) found; ``first``
    is the first of them, ``exhaustive`` tells whether every release was built."""

    good: str
    bad: str
    steps: tuple[BisectStep, ...]
    changes: tuple[tuple[str, str, str], ...]
    exhaustive: bool

    @property
    def first(self) -> str | None:
        return self.changes[0][0] if self.changes else None


def releases_between(
    versions: Sequence[str], good: str, bad: str, *, yanked: Sequence[str] = ()
) -> list[str]:
    """The releases from ``good`` to ``bad`` inclusive, ascending, without yanked ones and
    pre-releases (the ends are kept even when yanked)."""
    from packaging.version import InvalidVersion, Version

    lo, hi = Version(good), Version(bad)
    skip = {Version(v) for v in yanked}
    out: dict[Version, str] = {}
    for text in versions:
        try:
            v = Version(text)
        except InvalidVersion:
            continue
        if lo <= v <= hi and not v.is_prerelease and (v not in skip or v in (lo, hi)):
            out.setdefault(v, text)
    return [out[v] for v in sorted(out)]


def bisect(
    target: Path,
    releases: Sequence[str],
    *,
    builder: Builder,
    mode: Mode = "metadata",
    env: tuple[tuple[str, str], ...] = (),
    on_step: Callable[[BisectStep], None] | None = None,
    package: str = "setuptools",
    pins: Sequence[str] = (),
) -> BisectResult:
    """Find where ``target``'s outcome changes over ``releases`` (ascending, ends included)
    of ``package`` (setuptools by default; any build requirement, such as Cython), which
    each build pins, as a build constraint would, with the other ``pins``
    (``setuptools==81.0.0``) kept the same throughout. A spurious build is retried once."""
    cache: dict[str, BisectStep] = {}

    def outcome(version: str) -> BisectStep:
        if version not in cache:
            override = [f"{package}=={version}", *pins]
            result = builder.build(target, mode=mode, override=override, env=dict(env))
            if result.outcome == "spurious":
                result = builder.build(target, mode=mode, override=override, env=dict(env))
            cache[version] = BisectStep(
                version=version,
                outcome=result.outcome,
                signature=result.signature,
                message=result.message,
            )
            if on_step is not None:
                on_step(cache[version])
        return cache[version]

    good, bad = releases[0], releases[-1]
    lo, hi = 0, len(releases) - 1
    exhaustive = outcome(good).outcome == outcome(bad).outcome
    if exhaustive:
        for version in releases[1:-1]:
            outcome(version)
    else:
        reference = outcome(good).outcome
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if outcome(releases[mid]).outcome == reference:
                lo = mid
            else:
                hi = mid
    steps = [cache[v] for v in releases if v in cache]
    changes = tuple(
        (b.version, a.outcome, b.outcome)
        for a, b in itertools.pairwise(steps)
        if a.outcome != b.outcome
        and (exhaustive or releases.index(b.version) == releases.index(a.version) + 1)
    )
    return BisectResult(
        good=good, bad=bad, steps=tuple(steps), changes=changes, exhaustive=exhaustive
    )
