"""The rule registry. One module per rule family; each registers its rules here."""

from __future__ import annotations

from ._base import Context, Rule, all_rules, get_rule, register

__all__ = ["Context", "Rule", "all_rules", "get_rule", "register"]
