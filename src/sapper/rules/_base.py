"""Rule objects, the per-project context the checks read, and the registry."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..facts import ProjectFacts
from ..model import Finding, Reference

__all__ = [
    "FAMILIES",
    "Context",
    "Rule",
    "all_rules",
    "get_rule",
    "register",
]

#: Rule family packages (each holds one module per rule code), in display order.
FAMILIES = ("setup_cfg", "setup_py", "pyproject", "layout", "requires")


class Context(ProjectFacts):
    """What a check can look at: the project's facts (``ctx.setup_py.keywords``,
    ``ctx.setup_cfg.values``, ``ctx.pyproject.build_system``, ``ctx.names``), the setuptools
    catalogue and today's date."""


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
    #: The only project files the check reads (``None``: it may read any file, or the
    #: listing of the archive). ``sapper scan`` stops reading an archive early when every
    #: selected rule names its files here.
    reads: frozenset[str] | None = None

    @property
    def fixable(self) -> bool:
        """Whether ``sapper fix`` can repair it (it has a fixer in ``sapper.fix.registry``)."""
        from ..fix.registry import FIXERS

        return self.code in FIXERS


_REGISTRY: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.code in _REGISTRY:  # pragma: no cover - programming error
        msg = f"rule code {rule.code} registered twice"
        raise RuntimeError(msg)
    _REGISTRY[rule.code] = rule
    return rule


_RULE_MODULE = re.compile(r"[a-z]{2}[0-9]{3}")
_loaded = False


def rule_modules() -> list[str]:
    """Every rule module (``sapper.rules.FAMILY.xx000``), found by walking the packages."""
    import pkgutil

    found: list[str] = []
    for family in FAMILIES:
        package = importlib.import_module(f"sapper.rules.{family}")
        found.extend(
            f"sapper.rules.{family}.{info.name}"
            for info in pkgutil.iter_modules(package.__path__)
            if _RULE_MODULE.fullmatch(info.name)
        )
    return found


def _load() -> None:
    # Import every rule module (a no-op once imported): importing one rule module directly
    # must not leave the registry without the others.
    global _loaded  # noqa: PLW0603
    if _loaded:
        return
    for name in rule_modules():
        importlib.import_module(name)
    _loaded = True


def all_rules() -> tuple[Rule, ...]:
    _load()
    return tuple(sorted(_REGISTRY.values(), key=lambda r: r.code))


def slug_of(code: str) -> str:
    """The slug of rule ``code`` (the rule registers before any check runs)."""
    return _REGISTRY[code].slug


def get_rule(code: str) -> Rule | None:
    _load()
    return _REGISTRY.get(code.upper())
