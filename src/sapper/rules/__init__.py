"""The rule registry: one module per rule code in the family packages, imported on demand."""

from __future__ import annotations

from ._base import Context, Rule, all_rules, get_rule, register, rule_index, rules_for

__all__ = ["Context", "Rule", "all_rules", "get_rule", "register", "rule_index", "rules_for"]
