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

:func:`unused_suppressions` reports the directives that suppress nothing, as ruff's RUF100
does for ``noqa``: rule ``SAP100`` (``unused-suppression``), sapper's own code, which runs
only when a selection names it (``--select ALL`` or a prefix of ``SAP100``), never by
default.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .model import Finding
from .selection import selected

__all__ = [
    "UNUSED_DOC",
    "UNUSED_SUPPRESSION",
    "Directive",
    "Suppressed",
    "apply_suppressions",
    "comment_codes",
    "comment_span",
    "directives",
    "suppressed_lines",
    "unused_suppressions",
]

#: The code of sapper's own rule that reports unused suppression comments (ruff's RUF100).
UNUSED_SUPPRESSION = "SAP100"
UNUSED_SLUG = "unused-suppression"
#: What ``sapper rule SAP100`` prints.
UNUSED_DOC = """\
# SAP100 unused-suppression

sapper's own rule, not a setuptools practice (as ruff's RUF100 is for `noqa`).

## What it does

Reports `sapper: ignore[CODES]` comments that suppress nothing, naming each stale code:
*unused* (no finding of that code on the lines the comment covers), *non-enabled* (the
rule did not run, so the comment cannot be judged) or *unknown* (no rule has that code).
`per-file-ignores` apply first: a comment under a glob that already suppresses the finding
is unused.

## When it runs

Only when a selection names it: `--select ALL`, `--select SC,SP,SAP100`, or
`select = ["ALL"]` in `[tool.sapper]`; never by default, and never with
`--ignore-suppressions` (no comment is honoured then). A comment that names SAP100 itself
is never reported, nor is one in a file whose `per-file-ignores` name SAP100. Its
findings have the status `suppression`, count towards the exit code (1), and take no part
in the verdict.

## Fix

Delete the comment, or keep only the codes still in use (the finding's `fix`). `sapper fix`
does it when SAP100 is selected (`sapper fix --select ALL`): the stale codes leave the
comment, a comment left with no code goes (with its line, when it stands alone), and text
after the directive stays; non-enabled codes stay, since they cannot be judged. Only
comments change, so what setuptools reads does not.
"""

_DIRECTIVE = re.compile(r"[#;]\s*sapper:\s*ignore\[([^\]]*)\]", re.IGNORECASE)

#: line number (1-based) -> selectors suppressed on it
LineMap = dict[int, tuple[str, ...]]


def comment_codes(comment: str) -> tuple[str, ...]:
    """The selectors of a ``sapper: ignore[...]`` directive in ``comment`` (none: ``()``)."""
    codes: list[str] = []
    for match in _DIRECTIVE.finditer(comment):
        codes.extend(c.strip().upper() for c in match.group(1).split(",") if c.strip())
    return tuple(codes)


def comment_span(comment: str) -> tuple[int, int] | None:
    """Where the ``sapper: ignore[...]`` directive is in ``comment`` (start, end), if any."""
    match = _DIRECTIVE.search(comment)
    return None if match is None else match.span()


class Directive(NamedTuple):
    """One ``sapper: ignore[...]`` comment: where it is, its selectors, the lines it covers."""

    line: int
    #: 1-based column of the comment sign.
    column: int
    codes: tuple[str, ...]
    covers: tuple[int, ...]
    #: The comment's text, from its comment sign.
    text: str


def _setup_cfg_directives(text: str) -> list[Directive]:
    found: list[Directive] = []
    covers: list[list[int]] = []  # per directive in `found`, the lines it covers
    pending: list[int] = []  # directives (indices) on the comment lines just above
    section: list[int] = []
    option: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            pending = []
            continue
        if stripped[0] in "#;":
            codes = comment_codes(stripped)
            if codes:
                pending.append(len(found))
                found.append(Directive(number, raw.index(stripped[0]) + 1, codes, (), stripped))
                covers.append([])
            continue
        here: list[int] = []
        if raw[0].isspace():
            here = pending  # a comment inside a multi-line value covers the next value line
        elif stripped.startswith("["):
            section, option = pending, []
        else:
            option = pending
        for index in dict.fromkeys((*here, *section, *option)):
            covers[index].append(number)
        pending = []
    return [d._replace(covers=tuple(c)) for d, c in zip(found, covers, strict=True)]


def _comment_directives(
    comments: Iterable[tuple[int, int, bool, str]], code_lines: Sequence[int]
) -> list[Directive]:
    """``comments``: (line, column, alone on its line, text); ``code_lines``: lines of code."""
    out: list[Directive] = []
    following = sorted(set(code_lines))
    for line, column, alone, text in comments:
        codes = comment_codes(text)
        if not codes:
            continue
        if not alone:
            out.append(Directive(line, column, codes, (line,), text))
            continue
        nxt = next((n for n in following if n > line), None)
        out.append(Directive(line, column, codes, () if nxt is None else (nxt,), text))
    return out


def _python_directives(text: str) -> list[Directive]:
    import io
    import tokenize

    comments: list[tuple[int, int, bool, str]] = []
    code_lines: list[int] = []
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return _plain_directives(text)
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            alone = not tok.line[: tok.start[1]].strip()
            comments.append((tok.start[0], tok.start[1] + 1, alone, tok.string))
        elif tok.type not in skip and tok.type != tokenize.ENDMARKER:
            code_lines.extend(range(tok.start[0], tok.end[0] + 1))
    return _comment_directives(comments, code_lines)


def _plain_directives(text: str) -> list[Directive]:
    """``#`` comments in a line-based file (pyproject.toml): trailing or alone on a line."""
    comments: list[tuple[int, int, bool, str]] = []
    code_lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            comments.append((number, raw.index("#") + 1, True, stripped))
            continue
        code_lines.append(number)
        # TOML is not tokenised: the directive itself marks where the comment is, so a `#`
        # inside a string before it (a URL fragment) is not taken for the comment's start.
        match = next((m for m in _DIRECTIVE.finditer(raw) if m.group(0)[0] == "#"), None)
        if match is not None:
            comments.append((number, match.start() + 1, False, raw[match.start() :]))
    return _comment_directives(comments, code_lines)


def directives(path: str, text: str) -> list[Directive]:
    """The ``sapper: ignore`` comments of file ``path``, with the lines each covers."""
    if "sapper" not in text.lower():
        return []
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".cfg"):
        return _setup_cfg_directives(text)
    if name.endswith(".py"):
        return _python_directives(text)
    return _plain_directives(text)


def suppressed_lines(path: str, text: str) -> LineMap:
    """Line number -> selectors that ``sapper: ignore`` comments suppress in file ``path``."""
    result: LineMap = {}
    for d in directives(path, text):
        for line in d.covers:
            result[line] = (*result.get(line, ()), *d.codes)
    return dict(sorted(result.items()))


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


def _codes_text(codes: Sequence[str]) -> str:
    return ", ".join(codes)


def unused_suppressions(
    findings: Sequence[Finding],
    files: Mapping[str, bytes],
    *,
    enabled: Callable[[str], bool],
    known: Sequence[str],
    paths: Iterable[str] = ("setup.py", "setup.cfg", "pyproject.toml"),
) -> list[Finding]:
    """One ``SAP100`` finding per ``sapper: ignore[...]`` comment that suppresses nothing.

    ``findings``: every finding of the selected rules before comments are applied (after
    ``per-file-ignores``, which win, as in ruff); ``enabled``: whether a rule ran;
    ``known``: every rule code. As ruff's RUF100 does for ``noqa``, a directive's codes are
    *unused* (no finding of theirs on the lines it covers), *non-enabled* (no rule they name
    ran: nothing to judge them by) or *unknown* (no rule has that code). A directive that
    names ``SAP100`` itself is never reported. The files read are ``paths`` and those with a
    finding.
    """
    covered: dict[str, dict[int, list[str]]] = {}
    for f in findings:
        if f.line is not None:
            covered.setdefault(f.path, {}).setdefault(f.line, []).append(f.code)
    out: list[Finding] = []
    for path in dict.fromkeys((*paths, *covered)):
        data = files.get(path)
        if data is None:
            continue
        for d in directives(path, data.decode("utf-8", "surrogateescape")):
            codes = tuple(dict.fromkeys(d.codes))
            if any(selected(UNUSED_SUPPRESSION, (c,), ()) for c in codes):
                continue
            here = [code for line in d.covers for code in covered.get(path, {}).get(line, ())]
            unknown = [c for c in codes if c != "ALL" and not any(k.startswith(c) for k in known)]
            off = [
                c
                for c in codes
                if c not in unknown and not any(enabled(k) and selected(k, (c,), ()) for k in known)
            ]
            unused = [
                c
                for c in codes
                if c not in unknown
                and c not in off
                and not any(selected(k, (c,), ()) for k in here)
            ]
            if not (unknown or off or unused):
                continue
            why: list[str] = []
            if unused:
                if not d.covers:
                    where = (
                        "the comment covers no line: a blank line or the end of the file follows it"
                    )
                elif len(d.covers) == 1:
                    where = f"no such finding on line {d.covers[0]}"
                else:
                    where = f"no such finding on lines {d.covers[0]}-{d.covers[-1]}"
                why.append(f"unused: {_codes_text(unused)} ({where})")
            if off:
                why.append(f"non-enabled: {_codes_text(off)} (not selected in this run)")
            if unknown:
                why.append(f"unknown: {_codes_text(unknown)} (no rule has this code)")
            # Non-enabled codes cannot be judged, so they stay in the fix (unlike ruff's).
            stale = {*unknown, *unused}
            rest = [c for c in codes if c not in stale]
            match = _DIRECTIVE.search(d.text)
            fix: str | None
            if not stale:
                fix = d.text.rstrip()
                advice = "select their rules to judge them"
            elif rest and match is not None:
                fix = (d.text[: match.start(1)] + ", ".join(rest) + d.text[match.end(1) :]).rstrip()
                advice = f"keep only {_codes_text(rest)}"
            else:
                fix = None
                advice = "remove the comment"
            out.append(
                Finding(
                    code=UNUSED_SUPPRESSION,
                    slug=UNUSED_SLUG,
                    message=f"unused suppression `{d.text.strip()}`: {'; '.join(why)}; {advice}",
                    path=path,
                    line=d.line,
                    column=d.column,
                    fix=fix,
                    status="suppression",
                )
            )
    return out
