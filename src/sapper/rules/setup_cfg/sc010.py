"""SC010 `setupcfg-invalid-requirement`:
Requirement or python_requires in setup.cfg that modern packaging rejects.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_cfg import (
    PATH,
    CfgValue,
    split_requirements,
)
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import (
    _value_finding,
)


def _requirement_key(item: CfgValue) -> bool:
    return (
        item.section == "options" and item.key in {"install_requires", "setup_requires"}
    ) or item.section == "options.extras_require"


def _setup_requires(item: CfgValue) -> bool:
    """setuptools 62.6.0 reads `file:` in install_requires and extras_require only;
    setup_requires goes through ``_parse_list_semicolon``, which never does."""
    return item.section == "options" and item.key == "setup_requires"


def _check_requirements(ctx: Context) -> Iterable[Finding]:
    from ...facts._values import requirement_problem, specifier_problem

    findings = []
    everywhere = ctx.catalogue.between()
    for item in ctx.setup_cfg.values:
        value = item.value.strip()
        if value.startswith("file:") and not _setup_requires(item):
            if _requirement_key(item):
                findings.append(
                    _value_finding(
                        ctx,
                        "SC010",
                        item,
                        "`file:` for requirements needs setuptools 62.6.0; older releases "
                        f"read {value!r} as a requirement and reject it",
                        change("ST71").failing(ctx.catalogue),
                        fix='require "setuptools>=62.6" in build-system.requires, or list '
                        "the requirements inline",
                    )
                )
            continue
        if item.section == "options" and item.key == "python_requires":
            problem = specifier_problem(value)
            if problem:
                findings.append(
                    _value_finding(
                        ctx,
                        "SC010",
                        item,
                        f"{value!r} is not a valid specifier for `packaging` ({problem}); "
                        "setuptools 67 and later reject it",
                        change("ST30").failing(ctx.catalogue),
                        fix="write a PEP 440 specifier such as `>=3.6`",
                    )
                )
            continue
        if not _requirement_key(item):
            continue
        for req in split_requirements(item.value):
            problem = requirement_problem(req)
            if problem is None:
                continue
            hint = (
                " (a one-line value is split at `;`, so an environment marker must go on "
                "its own line with its requirement)"
                if "\n" not in item.value and ";" in value
                else ""
            )
            findings.append(
                _value_finding(
                    ctx,
                    "SC010",
                    item,
                    f"{req!r} is not a PEP 508 requirement ({problem}){hint}; setuptools 67 "
                    "and later reject it, and so does the `wheel` package that writes the "
                    "metadata with older setuptools",
                    everywhere,
                    fix="one PEP 508 requirement per line",
                )
            )
            break
    return findings


register(
    Rule(
        code="SC010",
        slug="setupcfg-invalid-requirement",
        family="setup.cfg",
        summary="Requirement or python_requires in setup.cfg that modern packaging rejects",
        doc="""
## What it does
Parses `[options] install_requires`, `setup_requires`, `python_requires` and every entry of
`[options.extras_require]` as setuptools splits them (one requirement per line; a one-line
value is split at `;`) and checks each with `packaging`. A `file:` directive in
`install_requires` or `[options.extras_require]` needs setuptools 62.6.0: older releases
take `file: requirements.txt` for a requirement and fail, which matters for builds capped
at an older setuptools. `setup_requires` reads no `file:` in any release, so there it is an
invalid requirement.

## Why is this bad?
setuptools 67.0.0 vendored packaging 23, which only accepts PEP 508 requirements and PEP
440 specifiers; `pytz>=2012f`, `foo>=1.0.*` or a pip option fail the build. With older
setuptools, the `wheel` package pip installs next to it rejects the same requirements when
it writes the metadata. A one-line `install_requires = foo; python_version<"3.8"` is split
at the `;`, so the marker becomes a requirement of its own and fails.

## Example
```ini
[options]
install_requires = pytz>=2012f
```

## Use instead
```ini
[options]
install_requires =
    pytz>=2012.6
```

## References
- setuptools 67.0.0 changelog (#3790): strict requirement parsing
""",
        references=(
            Reference(
                title="setuptools 67.0.0 changelog (#3790): strict requirement parsing",
                url="https://setuptools.pypa.io/en/latest/history.html#v67-0-0",
            ),
        ),
        example=(
            (
                PATH,
                (
                    "[metadata]\nname = example\nversion = 1.0\n\n[options]\n"
                    "install_requires =\n    pytz>=2012f\n"
                ),
            ),
        ),
        check=_check_requirements,
        reads=frozenset({PATH}),
    )
)
