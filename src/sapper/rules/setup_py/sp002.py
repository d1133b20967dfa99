"""SP002 `setuppy-use-2to3`: setup() passes use_2to3, removed in setuptools 58."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ...changes import change
from ...facts._values import UNKNOWN
from ...facts.setup_py import PATH
from ...model import Finding, Reference
from .._base import Context, Fix, Rule, register

if TYPE_CHECKING:
    from ...fix.setup_py import PyEditor


def _falsy(value: object) -> bool:
    """Whether a statically known value (``None``, ``0``, ``""``, ``[]``, ``{}``, ``set()``,
    ``False``...) is false; an unknown value is not."""
    if value is UNKNOWN:
        return False
    try:
        return not value
    except Exception:
        return False


def _check_use_2to3(ctx: Context) -> Iterable[Finding]:
    cat = ctx.catalogue
    findings: list[Finding] = []
    # the keywords of setup(), with the dicts setup.py builds for setup(**kwargs) followed
    for kw in ctx.setup_py.keywords:
        if kw.name != "use_2to3" or kw.value is None:
            # setuptools only calls a keyword's check when the value is not None
            # (Distribution._finalize_setup_keywords), so `use_2to3=None` builds everywhere.
            continue
        # 58.0.0/58.0.1 dropped the keyword silently (no conversion); 58.0.2 (#2769)
        # fails fast for any value; 58.0.3 (#2777) lets a false value pass again.
        if _falsy(kw.value):
            fast = change("ST11").fails[0][0]  # the release that failed fast for any value
            failing = {v for v in cat.universe if v == fast}
            what = (
                f"a false value (`use_2to3={kw.value!r}`) only failed in "
                "setuptools 58.0.2; drop the keyword"
            )
        else:
            failing = change("ST11").failing(cat)
            what = (
                "2to3 support was removed in setuptools 58: the build fails with "
                "`use_2to3 is invalid`; port the code to Python 3 and drop the keyword, "
                "or pin `setuptools<58` in build-system.requires"
            )
        fails = cat.to_specifiers(failing)
        findings.append(
            ctx.report(
                code="SP002",
                message=f"setup() gets `use_2to3`: {what}",
                path=PATH,
                line=kw.line,
                column=kw.column,
                fails=fails,
                fails_enforced=fails,
                fix="remove the `use_2to3` argument",
            )
        )
    return findings


def _fix(editor: PyEditor, findings: Sequence[Finding]) -> None:
    """Drop ``use_2to3=`` from the ``setup()`` call at each finding's line: safe for a false
    literal, which setuptools ignored; unsafe otherwise (the code was converted by 2to3
    before setuptools 58.0.0 and may not run on Python 3 as it is)."""
    from ...fix import Edit
    from ...fix.setup_py import falsy_literal

    lines = {f.line for f in findings}
    for call in editor.setup_calls:
        for i, arg in enumerate(call.args):
            if arg.keyword is None or arg.keyword.value != "use_2to3":
                continue
            if editor.line(arg) not in lines:
                continue
            safe = falsy_literal(arg.value)
            st = editor.status(safe)
            edit = Edit(
                code="SP002",
                path=PATH,
                line=editor.line(arg),
                message=(
                    "`use_2to3` removed from setup()"
                    + (
                        ""
                        if safe
                        else ": the code was converted by 2to3 before setuptools 58; "
                        "check that it runs on Python 3 unconverted"
                    )
                ),
                safe=safe,
                status=st,
            )
            if editor.hold(edit, editor.span([arg])):
                continue
            editor.add(edit)
            if st == "applied":
                editor.plan.drop_args.setdefault(call, set()).add(i)


register(
    Rule(
        code="SP002",
        slug="setuppy-use-2to3",
        family="setup.py",
        summary="setup() passes use_2to3, removed in setuptools 58",
        doc="""
## What it does
Finds a `use_2to3=` keyword in the `setup()` call of setup.py.

## Why is this bad?
setuptools 58.0.0 removed 2to3 support. 58.0.0 and 58.0.1 dropped the keyword silently and
built unconverted code; since 58.0.2 the build fails with
`error in ... setup command: use_2to3 is invalid.` A false value (`False`, `0`, `""`, an
empty container) failed only in 58.0.2 (58.0.3 accepts it with a warning); `None` never
fails, since setuptools skips keywords set to None, and is not reported.

## Example
```python
from setuptools import setup

setup(name="example", version="1.0", use_2to3=True)
```

## Use instead
```python
from setuptools import setup

setup(name="example", version="1.0")
```
after porting the code to Python 3, or pin `setuptools<58` in `build-system.requires`.

## References
- setuptools 58.0.0 changelog (#2086), 58.0.2 (#2769), 58.0.3 (#2777)
""".strip(),
        references=(
            Reference(
                title="setuptools 58.0.0 changelog (#2086): 2to3 support removed",
                url="https://setuptools.pypa.io/en/latest/history.html#v58-0-0",
            ),
            Reference(
                title="setuptools 58.0.2 changelog (#2769): fail fast on use_2to3",
                url="https://setuptools.pypa.io/en/latest/history.html#v58-0-2",
            ),
        ),
        example=(
            (
                PATH,
                'from setuptools import setup\n\nsetup(name="example", version="1.0", '
                "use_2to3=True)\n",
            ),
        ),
        check=_check_use_2to3,
        needs="setup.py",
        fix=Fix(
            path="setup.py",
            help=("setup.py: use_2to3= in setup()",),
            safety=(
                "Safe for a false literal, which setuptools ignored (the keyword is removed); "
                "unsafe otherwise: the code was converted by 2to3 before setuptools 58.0.0 and "
                "may not run on Python 3 as it is."
            ),
            apply=_fix,
        ),
    )
)
