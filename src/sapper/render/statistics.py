"""``--statistics``: how many findings per rule, instead of the findings themselves."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..model import TargetResult

__all__ = ["render_statistics", "statistics"]


def statistics(results: Sequence[TargetResult]) -> list[dict[str, Any]]:
    """Per rule code, most frequent first: count, slug, fixable, count per status."""
    from ..rules import get_rule

    counts: Counter[str] = Counter()
    slugs: dict[str, str] = {}
    statuses: dict[str, Counter[str]] = {}
    for result in results:
        for f in result.findings:
            counts[f.code] += 1
            slugs[f.code] = f.slug
            statuses.setdefault(f.code, Counter())[f.status] += 1
    rows = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = get_rule(code)
        rows.append(
            {
                "code": code,
                "slug": slugs[code],
                "count": count,
                "fixable": bool(rule and rule.fixable),
                "statuses": dict(sorted(statuses[code].items())),
            }
        )
    return rows


def render_statistics(results: Sequence[TargetResult], *, as_json: bool = False) -> str:
    """A table (``count  code  [*]  slug``; ``[*]``: ``sapper fix`` repairs it) or JSON."""
    rows = statistics(results)
    if as_json:
        return json.dumps({"version": 1, "statistics": rows}, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    lines = [
        f"{r['count']:>{width}}  {r['code']}  {'[*]' if r['fixable'] else '   '}  {r['slug']}"
        for r in rows
    ]
    return "".join(f"{line}\n" for line in lines)
