"""SC004 `setupcfg-syntax-error`: setup.cfg has INI syntax configparser rejects."""

from __future__ import annotations

import configparser
from collections.abc import Iterable

from ...facts.setup_cfg import PATH
from ...model import Finding
from .._base import Context, Rule, register
from ._shared import (
    _REF_CONFIGPARSER,
    error_findings,
)


def _source_line(data: bytes, lineno: int) -> str:
    """Line ``lineno`` (1-based) of ``data``, split as text mode splits it (universal newlines)."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")[lineno - 1]


def _describe(exc: Exception, data: bytes) -> tuple[str, str] | None:
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return (
            f"line {exc.lineno} comes before any [section] header: {exc.line.strip()!r}; "
            "configparser rejects the file (MissingSectionHeaderError)",
            "put the line under a section header such as [metadata], or delete it"
            + (
                " (the file starts with a byte-order mark: save it as UTF-8 without BOM)"
                if exc.line.startswith("\ufeff")
                else ""
            ),
        )
    if isinstance(exc, configparser.ParsingError):
        # The line from the file: configparser's errors hold repr(line) in Python 3.11 and the
        # line itself in newer releases (ParsingError.append), so neither is printed as is.
        lineno = exc.errors[0][0]
        return (
            f"line {lineno} is neither a `key = value` pair, a [section] header nor a comment: "
            f"{_source_line(data, lineno).strip()!r}; configparser rejects the file (ParsingError)",
            "add `=` and a value, indent it as a continuation line, or comment it out with #",
        )
    if isinstance(
        exc,
        (
            UnicodeDecodeError,  # SC003
            LookupError,  # SC003
            configparser.DuplicateSectionError,  # SC005
            configparser.DuplicateOptionError,  # SC005
            configparser.InterpolationError,  # SC006
        ),
    ):
        return None
    return (f"configparser rejects setup.cfg: {exc}", "")  # pragma: no cover


def _check(ctx: Context) -> Iterable[Finding]:
    return error_findings(ctx, "SC004", _describe)


register(
    Rule(
        code="SC004",
        slug="setupcfg-syntax-error",
        family="setup.cfg",
        summary="setup.cfg has INI syntax configparser rejects",
        doc="""
## What it does
Parses setup.cfg with Python's configparser, as setuptools does, and reports lines before
any section header, lines that are not `key = value`, and a UTF-8 byte-order mark.

## Why is this bad?
configparser raises `MissingSectionHeaderError` or `ParsingError` and the build fails in
every setuptools version.

## Example
```ini
name = example
[metadata]
version
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- Python documentation: configparser, supported INI file structure
""",
        references=(_REF_CONFIGPARSER,),
        example=((PATH, "[metadata]\nname = example\nversion\n"),),
        check=_check,
        reads=frozenset({PATH}),
    )
)
