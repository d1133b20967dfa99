"""SC009 `setupcfg-bdist-wheel-universal`: `[bdist_wheel] universal = 1`, deprecated and overdue."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...changes import change
from ...facts.setup_cfg import (
    PATH,
)
from ...model import Finding, Reference
from .._base import Context, Fix, Rule, register

_TRUE = frozenset({"1", "true", "yes"})

if TYPE_CHECKING:
    from ...fix.setup_cfg import CfgFixer, CfgOption


_STRTOBOOL_TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})


def _check_universal(ctx: Context) -> Iterable[Finding]:
    findings = []
    for item in ctx.setup_cfg.values:
        if item.section not in {"bdist_wheel", "wheel"} or item.key.lower() != "universal":
            continue
        # [bdist_wheel] options go through strtobool; bdist_wheel reads the old [wheel]
        # section itself and accepts only 1/true/yes there.
        truthy = _STRTOBOOL_TRUE if item.section == "bdist_wheel" else _TRUE
        if item.value.strip().lower() not in truthy:
            continue
        findings.append(
            _finding(
                ctx,
                f"[{item.section}] universal = {item.value.strip()}",
                path=PATH,
                line=item.line,
                column=item.column,
                fix="remove `universal = 1` (and the [bdist_wheel] section if it is empty)",
            )
        )
    findings.extend(_in_pyproject(ctx))
    findings.extend(_in_setup_py(ctx))
    return findings


def _in_setup_py(ctx: Context) -> list[Finding]:
    """``setup(options={"bdist_wheel": {"universal": True}})``: setuptools puts the
    ``options`` keyword into the same command options (a string through strtobool, any
    other value as it is), so bdist_wheel warns the same way (nodeenv 1.11.0, found by the
    enforce-mode ecosystem check). Only values the facts layer resolves count."""
    import ast

    from ...facts._values import UNKNOWN

    out = []
    for kw in ctx.setup_py.keywords:
        if kw.name != "options" or not isinstance(kw.value, dict):
            continue
        section = kw.value.get("bdist_wheel")
        if not isinstance(section, dict) or "universal" not in section:
            continue
        value = section["universal"]
        if value is UNKNOWN:
            continue
        truthy = value.strip().lower() in _STRTOBOOL_TRUE if isinstance(value, str) else bool(value)
        if not truthy:
            continue
        line, column = kw.line, kw.column
        for item in kw.items or ():
            if item.key == "bdist_wheel" and isinstance(item.node, ast.Dict):
                for key in item.node.keys:
                    if isinstance(key, ast.Constant) and key.value == "universal":
                        line, column = key.lineno, key.col_offset + 1
        out.append(
            _finding(
                ctx,
                f"setup(options={{'bdist_wheel': {{'universal': {value!r}}}}})",
                path="setup.py",
                line=line,
                column=column,
                fix="remove `universal` from setup()'s options['bdist_wheel']",
            )
        )
    return out


def _in_pyproject(ctx: Context) -> list[Finding]:
    """``[tool.distutils.bdist_wheel] universal = true`` in pyproject.toml: when it has a
    ``[project]`` or ``[tool.setuptools]`` table, setuptools copies ``tool.distutils`` into
    the command options (after setup.cfg's), where a string goes through strtobool and any
    other value is taken as it is (measured: without either table, it is not read)."""
    data = ctx.pyproject.data
    if not isinstance(data, dict):
        return []
    tool = data.get("tool")
    if not isinstance(tool, dict) or not (data.get("project") or tool.get("setuptools")):
        return []  # setuptools reads pyproject.toml only with [project] or [tool.setuptools]
    distutils = tool.get("distutils")
    section = distutils.get("bdist_wheel") if isinstance(distutils, dict) else None
    if not isinstance(section, dict) or "universal" not in section:
        return []
    value = section["universal"]
    truthy = value.strip().lower() in _STRTOBOOL_TRUE if isinstance(value, str) else bool(value)
    if not truthy:
        return []
    shown = str(value).lower() if isinstance(value, bool) else repr(value)
    return [
        _finding(
            ctx,
            f"[tool.distutils.bdist_wheel] universal = {shown} in pyproject.toml",
            path="pyproject.toml",
            line=ctx.pyproject.locate("tool.distutils.bdist_wheel", "universal"),
            column=None,
            fix="remove `universal` from [tool.distutils.bdist_wheel] (and the table if it is "
            "empty)",
        )
    ]


def _finding(
    ctx: Context, what: str, *, path: str, line: int | None, column: int | None, fix: str
) -> Finding:
    """The SC009 finding for ``what``: a warning from 75.1.0, failing when enforced once
    the deprecation's due date has passed."""
    st46 = change("ST46")
    due = st46.due[-1][1]
    warning = st46.warning(ctx.catalogue)
    overdue = ctx.today > _date(due)
    return ctx.report(
        code="SC009",
        message=f"{what} is deprecated since setuptools 75.1.0 "
        "(`bdist_wheel.universal is deprecated`)",
        path=path,
        line=line,
        column=column,
        fails=(),
        fails_enforced=ctx.catalogue.to_specifiers(warning if overdue else set()),
        warns=ctx.catalogue.to_specifiers(warning),
        due_date=due,
        fix=f"{fix}; a pure-Python wheel is py3-none-any",
    )


def _date(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


def _fix(fixer: CfgFixer, finding: Finding, opt: CfgOption) -> None:
    """`universal = 1` removed, and its section when it becomes empty (the fix of SC009)."""
    code = finding.code
    if not fixer.report(
        code,
        opt,
        f"`{opt.key} = {opt.value}` removed from [{opt.section}] (deprecated since "
        "setuptools 75.1.0; a pure-Python wheel is py3-none-any)",
    ):
        return
    fixer.doc.delete(opt)
    fixer.doc.drop_section_if_empty(opt.section)


register(
    Rule(
        code="SC009",
        slug="setupcfg-bdist-wheel-universal",
        family="setup.cfg",
        summary="`[bdist_wheel] universal = 1`, deprecated and overdue",
        doc="""
## What it does
Finds `universal = 1` (or `true`, `yes`, ...) in the `[bdist_wheel]` section of setup.cfg,
or in the old `[wheel]` section, which setuptools' `bdist_wheel` still reads, and
`universal = true` in pyproject.toml's `[tool.distutils.bdist_wheel]` table, which setuptools
copies into the same command options when pyproject.toml has a `[project]` or
`[tool.setuptools]` table (without either, setuptools does not read it), and
`setup(options={"bdist_wheel": {"universal": True}})` in setup.py, which setuptools puts
into the same command options.

## Why is this bad?
Universal (`py2.py3`) wheels are meaningless since Python 2's end of life. setuptools
75.1.0 deprecated the option with a due date of 2025-08-30, which has passed: the build
already fails under `SETUPTOOLS_ENFORCE_DEPRECATION=1` (while reading the configuration,
before anything is built), and a future release can make it an error for everyone.

## Example
```ini
[bdist_wheel]
universal = 1
```

## Use instead
Remove the option (and the section if it is empty); a pure-Python wheel is
`py3-none-any`.

## References
- setuptools 75.1.0 changelog (#4617)
""",
        references=(
            Reference(
                title="setuptools 75.1.0 changelog (#4617): bdist_wheel.universal deprecated",
                url="https://setuptools.pypa.io/en/latest/history.html#v75-1-0",
            ),
        ),
        example=(
            (PATH, "[metadata]\nname = example\nversion = 1.0\n\n[bdist_wheel]\nuniversal = 1\n"),
        ),
        check=_check_universal,
        reads=frozenset({PATH, "setup.py"}),
        fix=Fix(
            path="setup.cfg",
            help=(
                "universal = 1 removed from [bdist_wheel] (or the old [wheel]",
                "section)",
            ),
            safety=(
                "Safe: the option is removed (and its section when it becomes empty); a pure-"
                "Python wheel of a Python 3 project is `py3-none-any` either way."
            ),
            apply=_fix,
        ),
    )
)
