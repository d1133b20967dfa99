"""One way to build a finding and the version-set helpers every rule family shares.

A finding's code and slug come from the rule registry; the failing, enforced and warning
version sets are turned into PEP 440 specifier strings by the catalogue, and the version
summary is made from them by ``Context.report`` (rules write only their own prose).
"""

from __future__ import annotations

from ..model import Finding
from ._base import Context

__all__ = ["DueEras", "due_sets", "failing_finding", "make_finding", "versions"]

PATH = "pyproject.toml"

# -------------------------------------------------------------------------- version sets


def versions(ctx: Context, lo: str | None = None, hi: str | None = None) -> set[str]:
    """The releases ``v`` with ``lo <= v < hi`` (either bound may be open)."""
    return ctx.catalogue.between(lo, hi)


#: (first release, due date) of a deprecation whose due date moved between releases.
DueEras = tuple[tuple[str, str], ...]


def due_sets(
    ctx: Context, eras: DueEras, until: str | None = None
) -> tuple[set[str], set[str], str]:
    """(versions that warn, versions that fail under SETUPTOOLS_ENFORCE_DEPRECATION=1 today,
    due date in the newest era) for a deprecation whose due date is given per era."""
    today = ctx.today.isoformat()
    warns: set[str] = set()
    enforced: set[str] = set()
    for i, (first, due) in enumerate(eras):
        nxt = eras[i + 1][0] if i + 1 < len(eras) else until
        span = versions(ctx, first, nxt)
        warns |= span
        if due < today:
            enforced |= span
    return warns, enforced, eras[-1][1]


# ------------------------------------------------------------------------------ findings


def make_finding(
    ctx: Context,
    code: str,
    message: str,
    *,
    path: str = PATH,
    line: int | None = None,
    fails: set[str] | None = None,
    enforced: set[str] | None = None,
    warns: set[str] | None = None,
    due: str | None = None,
    fix: str | None = None,
) -> Finding:
    cat = ctx.catalogue
    failing = fails or set()
    f = cat.to_specifiers(failing)
    e = cat.to_specifiers((enforced or set()) | failing)
    w = cat.to_specifiers(warns or set())
    return ctx.report(
        code=code,
        message=message,
        path=path,
        line=line,
        column=1 if line is not None else None,
        fails=f,
        fails_enforced=e,
        warns=w,
        due_date=due,
        fix=fix,
    )


def failing_finding(  # noqa: PLR0917
    ctx: Context,
    code: str,
    message: str,
    path: str,
    line: int | None,
    column: int | None,
    failing: set[str],
    *,
    fix: str | None = None,
) -> Finding:
    """A finding that fails in ``failing`` (enforced or not); the version summary is
    ``fails in setuptools RANGES``."""
    fails = ctx.catalogue.to_specifiers(failing)
    return ctx.report(
        code=code,
        message=message,
        path=path,
        line=line,
        column=column,
        fails=fails,
        fails_enforced=fails,
        fix=fix,
    )
