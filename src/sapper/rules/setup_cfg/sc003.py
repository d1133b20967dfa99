"""SC003 `setupcfg-not-utf8`: setup.cfg is not valid UTF-8."""

from __future__ import annotations

from collections.abc import Iterable

from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import error_findings

_REF_1735 = Reference(
    title="setuptools 41.0.0 changelog (#1735): setup.cfg must be UTF-8",
    url="https://setuptools.pypa.io/en/latest/history.html#v41-0-0",
)


def _describe(exc: Exception, data: bytes) -> tuple[str, str] | None:
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"setup.cfg is not valid UTF-8 ({exc.reason}: byte 0x{exc.object[exc.start]:02x}); "
            "setuptools reads it as UTF-8 and stops with UnicodeDecodeError",
            "re-save setup.cfg as UTF-8",
        )
    if isinstance(exc, LookupError):
        return (
            f"the `coding:` comment on the first line of setup.cfg names no text encoding "
            f"Python knows ({exc}); setuptools that decode setup.cfg with that comment stop "
            "with LookupError",
            "remove the `coding:` comment (setuptools reads setup.cfg as UTF-8 since 41.0.0) "
            "or name a text encoding such as utf-8",
        )
    return None


def _check(ctx: Context) -> Iterable[Finding]:
    return error_findings(ctx, "SC003", _describe)


register(
    Rule(
        code="SC003",
        slug="setupcfg-not-utf8",
        family="setup.cfg",
        summary="setup.cfg is not valid UTF-8",
        doc="""
## What it does
Decodes setup.cfg as UTF-8, as setuptools does (40.7.0-40.9.0: with the encoding a
`coding:` comment on its first line names, if any).

## Why is this bad?
Since 41.0.0 setuptools opens setup.cfg as UTF-8 and the build stops with
`UnicodeDecodeError` on any other encoding (a Latin-1 author name is the usual cause).
setuptools 40.7.0-40.9.0 decode it with the codec of a first-line comment such as
`# -*- coding: latin-1 -*-`; a name that is no text encoding of Python's (a typo, or a
codec such as `hex`) stops those releases with `LookupError` ("unknown encoding: ...").

## Example
A setup.cfg saved as Latin-1:
```ini
[metadata]
author = Jos\xe9
```

## Use instead
The same file saved as UTF-8.

## References
- setuptools 41.0.0 changelog, #1735
""",
        references=(_REF_1735,),
        example=((PATH, "[metadata]\nauthor = Jos\udce9\n"),),
        check=_check,
        reads=frozenset({PATH}),
    )
)
