"""SC007 `setupcfg-unsupported-section`:
setup.cfg section that starts with `metadata` or `options` but that setuptools lacks.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...facts.setup_cfg import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import failing_finding

_DOCS = "https://setuptools.pypa.io/en/latest/userguide/declarative_config.html"


def _section_method(section: str, prefix: str, split: str) -> str | None:
    """The handler method setuptools looks up for ``section``, or None if not its prefix."""
    if not section.startswith(prefix):
        return None
    if split == "partition":
        sub = section[len(prefix) :].lstrip(".")
    else:  # "replace": every occurrence of the prefix is removed
        sub = section.replace(prefix, "").strip(".")
    return ("parse_section" + (f"_{sub}" if sub else "")).replace(".", "__")


_FIX = (
    "rename the section (setuptools knows [options], [options.packages.find], "
    "[options.entry_points], [options.package_data], "
    "[options.exclude_package_data], [options.extras_require], "
    "[options.data_files]) or move its keys to another tool's file"
)


def _check(ctx: Context) -> Iterable[Finding]:
    """Sections named `metadata...` or `options...` that no era's handler accepts."""
    cat = ctx.catalogue
    sections: tuple[str, ...] = ()
    for group in ctx.setup_cfg.era_parses(cat):
        sections = sections or group.parsed.sections
    errors: dict[str, tuple[set[str], int | None]] = {}
    for section in sections:
        for prefix in ("metadata", "options"):
            failing_here: set[str] = set()
            lookup = ""
            for era_versions, handlers in cat.section_eras:
                split = str(handlers.get("split", "replace"))
                method = _section_method(section, prefix, split)
                if method is None:
                    continue
                lookup = method
                if method not in handlers.get(prefix, ()):
                    failing_here.update(v for v in era_versions if cat.release(v) is not None)
            if failing_here:
                sub = lookup.removeprefix("parse_section").removeprefix("_")
                message = (
                    f"section [{section}] starts with `{prefix}` but is not a section setuptools "
                    f"knows (it looks for a handler for [{prefix}.{sub.replace('__', '.')}]) and "
                    "stops with 'Unsupported distribution option section'"
                )
                entry = errors.setdefault(
                    message, (set(), ctx.setup_cfg.section_lines.get(section))
                )
                entry[0].update(failing_here)
    findings = [
        failing_finding(ctx, "SC007", message, PATH, line, 1, failing, fix=_FIX)
        for message, (failing, line) in errors.items()
    ]
    return sorted(findings, key=lambda f: (f.line or 0, f.column or 0))


register(
    Rule(
        code="SC007",
        slug="setupcfg-unsupported-section",
        family="setup.cfg",
        summary=(
            "setup.cfg section that starts with `metadata` or `options` but that setuptools lacks"
        ),
        doc="""
## What it does
Finds sections whose name starts with `metadata` or `options` (a prefix match, as in
setuptools: `[options_extra]` and `[options.test]` count) for which setuptools' config
handlers have no parser. The sub-sections each version accepts come from the handlers in
that version's wheel (`[options.data_files]` exists since 40.5.0).

## Why is this bad?
`parse_configuration` raises `Unsupported distribution option section` and the build fails
in every setuptools version that lacks the handler, whatever the section contains.

## Example
```ini
[metadata]
name = example

[options.extras]
test = pytest
```

## Use instead
```ini
[metadata]
name = example

[options.extras_require]
test = pytest
```

## References
- `ConfigHandler.parse` in `setuptools/config/setupcfg.py`
- setuptools docs: configuring setuptools using setup.cfg files
""",
        references=(
            Reference(title="setuptools: configuring setuptools using setup.cfg files", url=_DOCS),
        ),
        example=((PATH, "[metadata]\nname = example\n\n[options.extras]\ntest = pytest\n"),),
        check=_check,
        reads=frozenset({PATH}),
    )
)
