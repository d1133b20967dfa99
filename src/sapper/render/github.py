"""``--format github``: GitHub Actions workflow commands that annotate the files changed.

``removed`` findings are ``::error``, ``overdue`` ones ``::warning`` and the others
``::notice``; a target that could not be analysed is an ``::error`` without a file.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import Finding, TargetResult
from ._where import finding_path

__all__ = ["escape_data", "escape_property", "render_github"]

_LEVEL = {
    "removed": "error",
    "overdue": "warning",
    "deprecated": "notice",
    "requires-newer": "notice",
    "suppression": "notice",
}


def escape_data(text: str) -> str:
    """Escape a workflow command's message (``%``, CR and LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (also ``:`` and ``,``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(result: TargetResult, f: Finding) -> str:
    props = [f"file={escape_property(finding_path(result, f))}"]
    if f.line is not None:
        props.append(f"line={f.line}")
        props.append(f"col={f.column or 1}")
    props.append(f"title={escape_property(f'sapper {f.code} {f.slug} [{f.status}]')}")
    return f"::{_LEVEL[f.status]} {','.join(props)}::{escape_data(f.text)}"


def render_github(results: Sequence[TargetResult]) -> str:
    lines: list[str] = []
    for result in results:
        lines.extend(_annotation(result, f) for f in result.findings)
        lines.extend(
            f"::error title={escape_property(f'sapper: {result.target}')}::"
            f"{escape_data(f'{e.type}: {e.message}')}"
            for e in result.errors
        )
    return "".join(f"{line}\n" for line in lines)
