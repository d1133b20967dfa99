"""SC008 `setupcfg-license-file-directive`: `license = file:` in setup.cfg [metadata]."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...changes import change
from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Fix, Rule, register
from ._shared import (
    _value_finding,
)

if TYPE_CHECKING:
    from ...fix.setup_cfg import CfgFixer, CfgOption


def _check_license_file(ctx: Context) -> Iterable[Finding]:
    return [
        _value_finding(
            ctx,
            "SC008",
            item,
            "`license = file:` is rejected since setuptools 40.7.0 (`ValueError: Only "
            "strings are accepted for the license field, files are not accepted`)",
            change("ST04").failing(ctx.catalogue),
            fix=f"license_files = {item.value.strip()[5:].strip()}",
        )
        for item in ctx.setup_cfg.values
        if item.section == "metadata"
        and item.key == "license"
        and item.value.strip().startswith("file:")
    ]


def _fix(fixer: CfgFixer, finding: Finding, opt: CfgOption) -> None:
    """`license = file: X` -> `license_files = X` (the fix of SC008)."""
    code = finding.code
    value = opt.value.strip()
    if not value.startswith("file:"):
        return
    paths = [p.strip() for p in value[len("file:") :].split(",") if p.strip()]
    missing = [p for p in paths if p not in fixer.files.names]
    if not paths or missing:
        fixer.report(
            code,
            opt,
            f"`{opt.key} = {value}` names {', '.join(missing) or 'no file'}, which is not "
            "in the project; set license_files by hand",
            skipped=True,
        )
        return
    existing = fixer.doc.find("metadata", "license_files") or fixer.doc.find(
        "metadata", "license_file"
    )
    if existing is not None:
        have = {p.strip() for p in re.split(r"[,\n]", existing.value) if p.strip()}
        if set(paths) <= have:
            if fixer.report(
                code,
                opt,
                f"`{opt.key} = {value}` removed (rejected since setuptools 40.7.0); "
                f"`{existing.key}` already lists the file",
            ):
                fixer.doc.delete(opt)
        else:
            fixer.report(
                code,
                opt,
                f"`{opt.key} = {value}` and `{existing.key}` name different files; "
                "keep the right ones in license_files by hand",
                skipped=True,
            )
        return
    new = ", ".join(paths)
    if fixer.report(
        code,
        opt,
        f"`{opt.key} = {value}` -> `license_files = {new}` (a file: directive in license "
        "is rejected since setuptools 40.7.0)",
    ):
        fixer.doc.replace_option(opt, [("license_files", new)])


register(
    Rule(
        code="SC008",
        slug="setupcfg-license-file-directive",
        family="setup.cfg",
        summary="`license = file:` in setup.cfg [metadata]",
        doc="""
## What it does
Finds `license = file: ...` in the `[metadata]` section of setup.cfg.

## Why is this bad?
The `license` field is a short license name. setuptools 40.7.0 made a `file:` directive
there an error: `ValueError: Only strings are accepted for the license field, files are
not accepted`. The build fails in every later release.

## Example
```ini
[metadata]
name = example
license = file: LICENSE
```

## Use instead
```ini
[metadata]
name = example
license_files = LICENSE
```

## References
- setuptools 40.7.0 changelog (#1551)
""",
        references=(
            Reference(
                title="setuptools 40.7.0 changelog (#1551): file: rejected for license",
                url="https://setuptools.pypa.io/en/latest/history.html#v40-7-0",
            ),
        ),
        example=((PATH, "[metadata]\nname = example\nversion = 1.0\nlicense = file: LICENSE\n"),),
        check=_check_license_file,
        reads=frozenset({PATH}),
        fix=Fix(
            path="setup.cfg",
            help=("license = file: X in setup.cfg -> license_files = X",),
            safety=(
                "Safe: `license = file: X` never built since setuptools 40.7.0; `license_files = "
                "X` ships the same file."
            ),
            apply=_fix,
        ),
    )
)
