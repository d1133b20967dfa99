"""Which rules ``sapper fix`` repairs, read from the rule registry: a rule that declares a
``fix`` (``sapper.rules.Fix``) is fixable. ``sapper fix --help``, the rule docs' "Fix safety"
section and the README list derive from it; nothing here is written by hand.

Importing this module is cheap (no libcst); asking it imports every rule module.
"""

from __future__ import annotations

from ..rules._base import Fix, all_rules

__all__ = ["Fix", "epilog", "fixable_codes", "fixers"]


def fixers() -> dict[str, Fix]:
    """Rule code -> its fix, by code."""
    return {rule.code: rule.fix for rule in all_rules() if rule.fix is not None}


def fixable_codes(path: str | None = None) -> tuple[str, ...]:
    """The codes ``sapper fix`` repairs (only those editing ``path``, if given), sorted."""
    return tuple(c for c, f in fixers().items() if path is None or f.path == path)


def epilog() -> str:
    """The "what is fixed" block of ``sapper fix --help``: the rules that share one fix are
    listed together."""
    groups: dict[int, tuple[list[str], Fix]] = {}
    for code, fix in fixers().items():
        groups.setdefault(id(fix), ([], fix))[0].append(code)
    lines = ["what is fixed:"]
    for codes, fix in groups.values():
        label = ", ".join(codes)
        for i, text in enumerate(fix.help):
            lines.append(f"  {(label if i == 0 else ''):<14}{text}")
    return "\n".join(lines) + "\n"
