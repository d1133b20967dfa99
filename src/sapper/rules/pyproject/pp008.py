"""PP008 `pyproject-missing-dynamic`:
setup.py/setup.cfg metadata that [project] does not list in `dynamic`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import MISSING_DYNAMIC_DEFAULT, MISSING_DYNAMIC_EFFECTS, change
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import due_sets, make_finding, versions
from ._shared import (
    _REF_69,
    PATH,
    _ref,
    _supplied_fields,
)

#: What 69.0.0+ do with a field supplied outside pyproject.toml and not listed in
_CRASH = {
    "readme": "AttributeError: 'NoneType' object has no attribute 'get'",
    "requires-python": "TypeError: 'NoneType' object is not iterable",
    "license": "KeyError: 'text'",
    "optional-dependencies": "TypeError: 'list' object is not a mapping",
}


def _check_missing_dynamic(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if not project:
        return []
    dynamic = project.get("dynamic")
    declared = {d for d in dynamic if isinstance(d, str)} if isinstance(dynamic, list) else set()
    supplied = _supplied_fields(ctx)
    # 61.2.0 (#3218) keeps the value with a warning; 67.7.0 gives the warning a due date
    # (2023-10-30); 69.0.0 (#4066) enforces PEP 621 (MISSING_DYNAMIC_EFFECTS).
    entry = change("ST34")
    warns = entry.warning(ctx.catalogue)
    _, enforced, _ = due_sets(ctx, entry.due, until=entry.until)
    newest = ctx.catalogue.newest
    findings = []
    for field in sorted(supplied):
        if field in project or field in declared:
            continue
        where, line, path = supplied[field]
        effects = MISSING_DYNAMIC_EFFECTS.get(field, MISSING_DYNAMIC_DEFAULT)
        failing: set[str] = set()
        now = "dropped"
        for lo, hi, effect in effects:
            span = versions(ctx, lo, hi)
            if effect == "fails":
                failing |= span
            if newest in span:
                now = effect
        if failing:
            first = min(failing, key=ctx.catalogue.parsed)
            what = f"setuptools >= {first} crashes on it ({_CRASH[field]})" + (
                "" if now == "fails" else f" and the newest release drops it ({now})"
            )
        elif now == "kept":
            what = "setuptools >= 69.0.0 warns that it is ignored (the value is still used)"
        else:
            what = "setuptools >= 69.0.0 silently drops it from the built metadata"
        findings.append(
            make_finding(
                ctx,
                "PP008",
                f"{where} supplies `{field}`, which pyproject.toml neither sets in [project] "
                f"nor lists in `project.dynamic`: {what}",
                path=path,
                line=line,
                fails=failing,
                warns=warns,
                enforced=enforced,
                fix=f'add "{field}" to `dynamic` in [project], or move the value to [project]',
            )
        )
    return findings


register(
    Rule(
        code="PP008",
        slug="pyproject-missing-dynamic",
        family="pyproject.toml",
        summary="setup.py/setup.cfg metadata that [project] does not list in `dynamic`",
        doc="""
## What it does
With a `[project]` table, finds fields that setup.py (`install_requires=`,
`entry_points=`, `long_description=` ...) or setup.cfg supply although `[project]` neither
sets them nor lists them in `dynamic`.

## Why is this bad?
PEP 621 says such values must be ignored. setuptools 61.2.0-68.2.2 kept them with a
warning (due 2023-10-30 from 67.7.0, so those releases fail under
`SETUPTOOLS_ENFORCE_DEPRECATION=1`). Since 69.0.0 most are silently dropped: the wheel
builds without its dependencies, scripts, classifiers or description. Some crash the
build instead: `long_description` (readme) and `python_requires` in every release since
69.0.0, `license` in 69.0.0-76.1.0, `extras_require` in 69.0.x. Authors, maintainers and
plain entry points are still used, with a warning.

## Example
```toml
[project]
name = "example"
version = "1.0"
```
with a setup.py calling `setup(install_requires=["six"])`.

## Use instead
```toml
[project]
name = "example"
version = "1.0"
dynamic = ["dependencies"]
```
or move the dependencies to `[project]`.

## References
- setuptools 69.0.0 changelog (#4066); 61.2.0 (#3218)
""",
        references=(_REF_69, _ref("61.2.0", "transitional tolerance for missing dynamic (#3218)")),
        example=(
            (PATH, '[project]\nname = "example"\nversion = "1.0"\n'),
            ("setup.py", 'from setuptools import setup\n\nsetup(install_requires=["six"])\n'),
        ),
        check=_check_missing_dynamic,
    )
)
