"""``--format concise``: one line per finding, ``path:line:col: CODE message``, and errors."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import TargetResult
from ._where import finding_path

__all__ = ["render_concise"]


def render_concise(results: Sequence[TargetResult], *, quiet: bool = False) -> str:
    """Findings as ``path:line:col: CODE [status] message``; ``quiet`` drops the count line."""
    lines: list[str] = []
    count = 0
    for result in results:
        for f in result.findings:
            where = finding_path(result, f)
            if f.line is not None:
                where += f":{f.line}:{f.column or 1}"
            lines.append(f"{where}: {f.code} [{f.status}] {f.text}")
            count += 1
        lines.extend(f"{result.target}: error ({e.type}): {e.message}" for e in result.errors)
    if not quiet:
        word = "finding" if count == 1 else "findings"
        lines.append(f"Found {count} {word}." if count else "No findings.")
    return "".join(f"{line}\n" for line in lines)
