"""What each setuptools release's own validator says of this pyproject.toml.

Every release from 61.0.0 on validates ``[project]`` and ``[tool.setuptools]`` with the code
it vendors (:mod:`sapper.facts.validator`). Releases that ship the same validator form one
era; each era's validator runs once, from the cache (``$SAPPER_VALIDATOR_CACHE``, else
``$SAPPER_CACHE_DIR`` or the user cache directory; ``sapper cache warm`` fills it): a check
never downloads. The releases whose
validator is not cached keep the hand-written checks of PP001 and PP007 (the bounds they
were proven at by oracle tests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ...changes import PROJECT_TABLE_SINCE
from .._emit import versions

if TYPE_CHECKING:
    from pathlib import Path

    from ...changes import PROJECT_TABLE_SINCE
    from ...facts.validator import Rejection
from .._base import Context


class Validation(NamedTuple):
    """The validators' answers, by release."""

    #: (releases, what their validator said), one entry per distinct rejection.
    rejected: tuple[tuple[frozenset[str], Rejection], ...]
    #: Releases whose validator accepts the file.
    passed: frozenset[str]
    #: Releases >= 61.0.0 whose validator is not in the cache: the hand-written checks hold.
    unavailable: frozenset[str]

    @property
    def judged(self) -> frozenset[str]:
        """Releases a real validator answered for (accepted or rejected)."""
        out = set(self.passed)
        for releases, _ in self.rejected:
            out |= releases
        return frozenset(out)

    def rejected_at(self, keys_start: str) -> list[tuple[frozenset[str], Rejection]]:
        """The rejections whose offending key starts at ``project`` or ``tool``."""
        return [(r, rej) for r, rej in self.rejected if (rej.keys or ("project",))[0] == keys_start]


def validation(ctx: Context) -> Validation:
    """Run (once per project) the validator of every release era on pyproject.toml."""
    return ctx.once(_compute)


def _cache_dir() -> Path:
    """``$SAPPER_VALIDATOR_CACHE`` (a cache directory warmed with ``sapper cache warm
    --cache-dir``), else the download cache (``$SAPPER_CACHE_DIR`` or the user cache)."""
    import os

    chosen = os.environ.get("SAPPER_VALIDATOR_CACHE")
    if chosen:
        from pathlib import Path

        return Path(chosen).expanduser()
    from ...pypi._dirs import default_cache_dir

    return default_cache_dir()


def _compute(ctx: Context) -> Validation:
    from ...facts import validator

    data = ctx.pyproject.data
    subset = validator.validation_subset(data) if isinstance(data, dict) else None
    candidates = versions(ctx, PROJECT_TABLE_SINCE)
    if subset is None or not candidates:
        return Validation((), frozenset(), frozenset())
    cache_dir = _cache_dir()
    by_digest: dict[str, set[str]] = {}
    unavailable: set[str] = set()
    for version in candidates:
        digest = validator.release_digest(version, cache_dir)
        if digest is None:
            unavailable.add(version)
        else:
            by_digest.setdefault(digest, set()).add(version)
    found: dict[tuple[str, str], set[str]] = {}
    answers: dict[tuple[str, str], Rejection] = {}
    passed: set[str] = set()
    judged = validator.judge(subset, sorted(by_digest), cache_dir)
    for digest, releases in by_digest.items():
        answer = judged[digest]
        if answer == validator.UNAVAILABLE:
            unavailable |= releases
        elif answer is None:
            passed |= releases
        elif isinstance(answer, validator.Rejection):
            key = (answer.name, answer.summary)
            found.setdefault(key, set()).update(releases)
            answers[key] = answer
    rejected = tuple((frozenset(found[k]), answers[k]) for k in sorted(found))
    return Validation(rejected, frozenset(passed), frozenset(unavailable))


def locate(ctx: Context, rejection: Rejection) -> int | None:
    """The line of the key the validator names (its table's header when the key itself is
    not written, e.g. a missing ``version``)."""
    keys = rejection.keys
    facts = ctx.pyproject
    for depth in range(len(keys), 0, -1):
        table, key = ".".join(keys[: depth - 1]), keys[depth - 1]
        line = facts.locate(table, key) if table else facts.locate(key)
        if line is not None:
            return line
    return facts.locate("project")


def message(rejection: Rejection) -> str:
    """The finding's message: the validator's own words, as setuptools raises them."""
    summary = " ".join(rejection.summary.split())
    if rejection.raised:
        return f'setuptools\' validator raises "{rejection.raised}: {summary}"'
    return (
        "setuptools' validator rejects pyproject.toml: \"invalid pyproject.toml config: "
        f'`{rejection.name}`. configuration error: {summary}"'
    )


def validator_fix(rejection: Rejection) -> str:
    """What to do about a rejection (the validator says what is wrong, not how to fix it)."""
    where = f"`{rejection.name}`" if rejection.name else "pyproject.toml"
    if rejection.rule == "required" and rejection.keys == ("project",):
        return (
            "add the missing keys to [project] (`version` may instead be listed in "
            "`dynamic`); a project configured in setup.py/setup.cfg needs no [project] "
            "table, and then no [tool.setuptools] either"
        )
    if rejection.rule == "additionalProperties":
        return (
            f"remove the key setuptools does not know from {where}, or require a "
            "setuptools that knows it"
        )
    return f"change {where} to what the message asks for (see the PEP 621 / setuptools schema)"
