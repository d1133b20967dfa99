"""Fix SAP100 (``unused-suppression``): drop the stale codes of a ``sapper: ignore[...]``
comment, or the comment when none is left (its line too, when the comment stands alone).

Only comments change, so what setuptools reads does not: in setup.cfg only full-line
comments are directives (configparser skips them), in setup.py and pyproject.toml a
comment is not code. Text after the directive in the same comment is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import Finding
from ..suppress import UNUSED_SUPPRESSION, comment_span
from . import Edit

__all__ = ["remove_unused"]


def _split_ending(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body) :]


def remove_unused(
    files: dict[str, bytes], findings: Sequence[Finding]
) -> tuple[dict[str, bytes], list[Edit]]:
    """New contents of the files whose SAP100 ``findings`` were fixed, and the edits."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.code == UNUSED_SUPPRESSION and f.line is not None and f.column is not None:
            by_path.setdefault(f.path, []).append(f)
    changed: dict[str, bytes] = {}
    edits: list[Edit] = []
    for path, found in by_path.items():
        data = files.get(path)
        if data is None:
            continue
        lines = data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        for f in sorted(found, key=lambda x: -(x.line or 0)):
            assert f.line is not None and f.column is not None
            if f.line > len(lines):
                continue
            body, ending = _split_ending(lines[f.line - 1])
            start = f.column - 1
            span = comment_span(body[start:])
            if span is None:
                continue
            comment = body[start:]
            if f.fix is not None:
                new_comment = f.fix
                what = f"stale codes dropped: `{new_comment.strip()}`"
            else:
                sign = comment[0]
                rest = (comment[: span[0]] + comment[span[1] :]).strip()
                if rest and not rest.startswith(sign):
                    rest = f"{sign} {rest}"
                new_comment = rest
                what = "comment removed" if not rest else f"directive removed: `{rest}`"
            if new_comment == comment.rstrip():
                continue  # only codes whose rules did not run: nothing to judge, nothing made
            head = body[:start]
            if not new_comment and not head.strip():
                lines[f.line - 1] = ""  # the comment stood alone: its line goes
            elif not new_comment:
                lines[f.line - 1] = head.rstrip() + ending
            else:
                lines[f.line - 1] = head + new_comment + ending
            edits.append(
                Edit(
                    code=UNUSED_SUPPRESSION,
                    path=path,
                    line=f.line,
                    message=f"unused suppression: {what}",
                )
            )
        new = "".join(lines).encode("utf-8", "surrogateescape")
        if new != data:
            changed[path] = new
    edits.sort(key=lambda e: (e.path, e.line or 0))
    return changed, edits
