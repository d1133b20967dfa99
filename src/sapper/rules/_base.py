"""Rule objects, the per-project context the checks read, and the registry."""

from __future__ import annotations

import datetime as _dt
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model import Finding, Reference
from ..project import PyProject, load_pyproject
from ..sources import ProjectFiles
from ..versions import Catalogue

__all__ = [
    "FAMILIES",
    "Context",
    "Rule",
    "all_rules",
    "get_rule",
    "pyproject_of",
    "register",
]

#: Rule family modules, in display order.
FAMILIES = ("setup_cfg", "setup_py", "pyproject", "layout", "requires")


@dataclass(slots=True, kw_only=True)
class Context:
    """What a check can look at: the project's files and the setuptools catalogue.

    Families that parse a file once for several rules keep the result in ``cache``.
    """

    files: ProjectFiles
    catalogue: Catalogue
    today: _dt.date
    cache: dict[str, Any] = field(default_factory=dict)

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


def pyproject_of(ctx: Context) -> PyProject:
    """The project's pyproject.toml, parsed once per project."""
    pp: PyProject = ctx.memo("pyproject", lambda: load_pyproject(ctx.files))
    return pp


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """A deprecated or removed setuptools practice that sapper detects.

    ``doc`` is Markdown with the headings ``What it does``, ``Why is this bad?``,
    ``Example``, ``Use instead`` and ``References``; ``example`` maps file names to the
    contents of a minimal project that triggers the rule.
    """

    code: str
    slug: str
    family: str
    summary: str
    doc: str
    references: tuple[Reference, ...]
    example: tuple[tuple[str, str], ...]
    check: Callable[[Context], Iterable[Finding]]
    #: Whether ``sapper fix`` can repair it.
    fixable: bool = False


_REGISTRY: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.code in _REGISTRY:  # pragma: no cover - programming error
        msg = f"rule code {rule.code} registered twice"
        raise RuntimeError(msg)
    _REGISTRY[rule.code] = rule
    return rule


def _load() -> None:
    # Import every family (a no-op once imported): importing one family module directly
    # must not leave the registry without the others.
    for family in FAMILIES:
        importlib.import_module(f"sapper.rules.{family}")


def all_rules() -> tuple[Rule, ...]:
    _load()
    return tuple(sorted(_REGISTRY.values(), key=lambda r: r.code))


def get_rule(code: str) -> Rule | None:
    _load()
    return _REGISTRY.get(code.upper())
