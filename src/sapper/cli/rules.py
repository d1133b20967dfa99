"""``sapper rules`` (list every rule) and ``sapper rule CODE`` (explain one)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import ExitCode, HelpFormatter, command_epilog

__all__ = ["add_parser"]


def add_parser(subparsers: Any) -> None:
    rules: argparse.ArgumentParser = subparsers.add_parser(
        "rules",
        help="list every rule",
        description="List every rule: code, slug, summary.",
        epilog=command_epilog("rules"),
        formatter_class=HelpFormatter,
    )
    rules.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="a table (default), or JSON with each rule's family, fixability and references",
    )
    rules.set_defaults(handler=_run_rules)
    rule: argparse.ArgumentParser = subparsers.add_parser(
        "rule",
        help="explain one rule: what, why, example, fix, references",
        description="Explain one rule: what it finds, why, an example, the setuptools "
        "versions the example fails in, the fix and references.",
        epilog=command_epilog("rule"),
        formatter_class=HelpFormatter,
    )
    rule.add_argument("code", metavar="CODE", help="a rule code such as SC001")
    rule.set_defaults(handler=_run_rule)


def _run_rules(args: argparse.Namespace) -> int:
    from ..rules import all_rules

    rules = all_rules()
    if args.format == "json":
        import json

        doc = [
            {
                "code": r.code,
                "slug": r.slug,
                "family": r.family,
                "summary": r.summary,
                "fixable": r.fixable,
                "references": [{"title": x.title, "url": x.url} for x in r.references],
            }
            for r in rules
        ]
        sys.stdout.write(json.dumps({"version": 1, "rules": doc}, indent=2) + "\n")
        return ExitCode.OK
    width = max(len(r.slug) for r in rules)
    for r in rules:
        sys.stdout.write(f"{r.code}  {r.slug:<{width}}  {r.summary}\n")
    return ExitCode.OK


def _run_rule(args: argparse.Namespace) -> int:
    from .._exceptions import UsageError
    from ..render.explain import explain
    from ..rules import get_rule

    rule = get_rule(args.code)
    if rule is None and args.code.upper() == "SAP100":  # not a setuptools rule: no registry entry
        from ..suppress import UNUSED_DOC

        sys.stdout.write(UNUSED_DOC)
        return ExitCode.OK
    if rule is None:
        msg = f"no rule {args.code!r}; `sapper rules` lists them"
        raise UsageError(msg)
    sys.stdout.write(explain(rule))
    return ExitCode.OK
