"""Suppressions: ``# sapper: ignore[CODES]`` comments and ``per-file-ignores``.

The comment syntax is the same in every file sapper reads: ``sapper: ignore[SC001]`` (or
``ignore[SC001, SC002]``; codes or prefixes; a bare ``sapper: ignore`` suppresses nothing),
after ``#`` (or ``;`` in setup.cfg). Which lines a comment covers:

- **setup.py, pyproject.toml**: a comment after code covers its own line, as ruff's
  ``noqa`` does; a comment alone on its line covers the next line that is not a comment.
- **setup.cfg**: only full-line comments count, because setuptools reads setup.cfg with
  configparser, which keeps a trailing ``# ...`` as part of the value (a trailing comment
  would change what setuptools reads). A comment line directly above an option covers the
  option and its continuation lines; directly above a section header it covers the whole
  section. A blank line ends the comment's reach.

Findings without a line (about a file as a whole) can only be suppressed by
``per-file-ignores`` or ``ignore``. Nothing here executes code: setup.py is tokenised.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .model import Finding
from .selection import selected

__all__ = ["Suppressed", "apply_suppressions", "comment_codes", "suppressed_lines"]

_DIRECTIVE = re.compile(r"[#;]\s*sapper:\s*ignore\[([^\]]*)\]", re.IGNORECASE)

#: line number (1-based) -> selectors suppressed on it
LineMap = dict[int, tuple[str, ...]]


def comment_codes(comment: str) -> tuple[str, ...]:
    """The selectors of a ``sapper: ignore[...]`` directive in ``comment`` (none: ``()``)."""
    codes: list[str] = []
    for match in _DIRECTIVE.finditer(comment):
        codes.extend(c.strip().upper() for c in match.group(1).split(",") if c.strip())
    return tuple(codes)


def _add(lines: LineMap, line: int, codes: Sequence[str]) -> None:
    lines[line] = (*lines.get(line, ()), *codes)


def _setup_cfg_lines(text: str) -> LineMap:
    result: LineMap = {}
    lines = text.splitlines()
    pending: tuple[str, ...] = ()
    section: tuple[str, ...] = ()
    option: tuple[str, ...] = ()
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if not stripped:
            pending = ()
            continue
        if stripped[0] in "#;":
            pending = (*pending, *comment_codes(stripped))
            continue
        indented = raw[0].isspace()
        if not indented and stripped.startswith("["):
            section, option = pending, ()
        elif not indented:
            option = pending
        elif pending:  # a comment inside a multi-line value covers the next value line
            _add(result, number, pending)
        codes = (*section, *option)
        if codes:
            _add(result, number, codes)
        pending = ()
    return result


def _comment_lines(comments: Iterable[tuple[int, bool, str]], code_lines: Sequence[int]) -> LineMap:
    """``comments``: (line, alone on its line, text); ``code_lines``: lines holding code."""
    result: LineMap = {}
    following = sorted(set(code_lines))
    for line, alone, text in comments:
        codes = comment_codes(text)
        if not codes:
            continue
        if not alone:
            _add(result, line, codes)
            continue
        nxt = next((n for n in following if n > line), None)
        if nxt is not None:
            _add(result, nxt, codes)
    return result


def _python_lines(text: str) -> LineMap:
    import io
    import tokenize

    comments: list[tuple[int, bool, str]] = []
    code_lines: list[int] = []
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return _plain_lines(text)
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            alone = not tok.line[: tok.start[1]].strip()
            comments.append((tok.start[0], alone, tok.string))
        elif tok.type not in skip and tok.type != tokenize.ENDMARKER:
            code_lines.extend(range(tok.start[0], tok.end[0] + 1))
    return _comment_lines(comments, code_lines)


def _plain_lines(text: str) -> LineMap:
    """``#`` comments in a line-based file (pyproject.toml): trailing or alone on a line."""
    comments: list[tuple[int, bool, str]] = []
    code_lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            comments.append((number, True, stripped))
            continue
        code_lines.append(number)
        hash_at = raw.find("#")
        if hash_at >= 0 and _DIRECTIVE.search(raw, hash_at):
            comments.append((number, False, raw[hash_at:]))
    return _comment_lines(comments, code_lines)


def suppressed_lines(path: str, text: str) -> LineMap:
    """Line number -> selectors that ``sapper: ignore`` comments suppress in file ``path``."""
    if "sapper" not in text.lower():
        return {}
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".cfg"):
        return _setup_cfg_lines(text)
    if name.endswith(".py"):
        return _python_lines(text)
    return _plain_lines(text)


def _file_matches(pattern: str, path: str) -> bool:
    if fnmatch.fnmatchcase(path, pattern):
        return True
    return "/" not in pattern and fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)


@dataclass(frozen=True, slots=True)
class Suppressed:
    """The findings kept, and those a comment or ``per-file-ignores`` suppressed."""

    kept: tuple[Finding, ...]
    suppressed: tuple[Finding, ...]


def apply_suppressions(
    findings: Sequence[Finding],
    files: Mapping[str, bytes],
    *,
    comments: bool = True,
    per_file_ignores: Sequence[tuple[str, tuple[str, ...]]] = (),
) -> Suppressed:
    """Split ``findings`` into kept and suppressed (by comments in ``files``, by path globs)."""
    maps: dict[str, LineMap] = {}
    kept: list[Finding] = []
    dropped: list[Finding] = []
    for f in findings:
        codes: tuple[str, ...] = ()
        for pattern, selectors in per_file_ignores:
            if _file_matches(pattern, f.path):
                codes = (*codes, *selectors)
        if comments and f.line is not None and f.path in files:
            if f.path not in maps:
                text = files[f.path].decode("utf-8", "surrogateescape")
                maps[f.path] = suppressed_lines(f.path, text)
            codes = (*codes, *maps[f.path].get(f.line, ()))
        if codes and selected(f.code, codes, ()):
            dropped.append(f)
        else:
            kept.append(f)
    return Suppressed(kept=tuple(kept), suppressed=tuple(dropped))
