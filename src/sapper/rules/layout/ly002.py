"""LY002 `layout-license-file-pattern`:
License-file pattern that setuptools >= 77.0.1 rejects or warns about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from typing import NamedTuple

from ...changes import HISTORY_URL, LICENSE_DOTDOT_DUE, change
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import DueEras, due_sets, make_finding, versions

#: Due dates of the pattern warnings in ``Distribution._find_pattern`` (ST54).
_PATTERN_DUE: DueEras = change("ST54").due
#: The first release that fails on an absolute pattern (and on ``..``).
_PATTERNS_CHECKED = change("ST54").fails[0][0] or ""


#: 77.0.1 raised on ``..``; 77.0.3 (#4896) made it a warning.
_DOTDOT_DUE: DueEras = LICENSE_DOTDOT_DUE


# compiled on first use (re caches it), not at every start-up
_VALID_PATTERN = r"^[\w\-\.\/\*\?\[\]]+$"


class _Pattern(NamedTuple):
    pattern: str
    source: str
    path: str
    line: int | None


def _split_list(value: str) -> list[str]:
    """setup.cfg list values: one per line, or comma-separated on a single line."""
    parts = value.splitlines() if "\n" in value.strip() else value.split(",")
    return [p.strip() for p in parts if p.strip()]


def _patterns(ctx: Context) -> Iterator[_Pattern]:
    other = ctx.config
    cfg_lines: dict[str, int | None] = {}
    for item in ctx.setup_cfg.values_partial:
        if item.section == "metadata":
            cfg_lines.setdefault(item.key, item.line)
    for key in ("license_files", "license_file"):
        value = other.cfg.get(("metadata", key))
        if value:
            for p in _split_list(value) if key == "license_files" else [value.strip()]:
                yield _Pattern(p, f"`{key}` in setup.cfg", "setup.cfg", cfg_lines.get(key))
    for key in ("license_files", "license_file"):
        value = other.keywords.get(key)
        items = [value] if isinstance(value, str) else value
        if isinstance(items, list | tuple):
            for p in items:
                if isinstance(p, str):
                    yield _Pattern(p, f"setup({key}=...)", "setup.py", other.keyword_lines.get(key))
    project, tool = ctx.pyproject.tables
    for table, name in ((project, "project"), (tool, "tool.setuptools")):
        value = table.get("license-files") if table is not None else None
        if isinstance(value, list):
            for p in value:
                if isinstance(p, str):
                    yield _Pattern(
                        p,
                        f"`{name}.license-files`",
                        "pyproject.toml",
                        ctx.pyproject.locate(name, "license-files"),
                    )


def _segment_match(parts: Sequence[str], path: Sequence[str]) -> bool:
    """``glob(..., recursive=True)`` on one path split in segments."""
    if not parts:
        return not path
    head, rest = parts[0], parts[1:]
    if head == "**":
        return any(
            _segment_match(rest, path[i:])
            for i in range(len(path) + 1)
            if not any(seg.startswith(".") for seg in path[:i])
        )
    if not path:
        return False
    name = path[0]
    if name.startswith(".") and not head.startswith("."):
        return False
    return fnmatchcase(name, head) and _segment_match(rest, path[1:])


def _matches(pattern: str, names: Sequence[str]) -> bool:
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    if not parts:
        return pattern != ""  # glob(".") and glob("./") find the root directory itself
    candidates: set[str] = set(names)
    for n in names:
        segs = n.split("/")
        candidates.update("/".join(segs[:i]) for i in range(1, len(segs)))
    return any(_segment_match(parts, c.split("/")) for c in candidates)


def _check_license_patterns(ctx: Context) -> Iterable[Finding]:
    findings = []
    seen: set[tuple[str, str]] = set()
    for item in _patterns(ctx):
        if (item.pattern, item.path) in seen:
            continue
        seen.add((item.pattern, item.path))
        p = item.pattern
        label = f"license pattern {p!r} ({item.source})"
        if p.startswith("/") or ":\\" in p:
            findings.append(
                make_finding(
                    ctx,
                    "LY002",
                    f'{label} is absolute; setuptools >= 77.0.1 stops with "Pattern '
                    f"{p!r} should be relative and must not start with '/'\"",
                    path=item.path,
                    line=item.line,
                    fails=versions(ctx, _PATTERNS_CHECKED),
                    fix="write the path relative to the project root",
                )
            )
            continue
        if ".." in p:
            warns, enforced, due = due_sets(ctx, _DOTDOT_DUE)
            findings.append(
                make_finding(
                    ctx,
                    "LY002",
                    f"{label} contains '..'; setuptools 77.0.1 stopped with \"cannot contain "
                    "'..'\" and later releases warn",
                    path=item.path,
                    line=item.line,
                    fails=versions(ctx, _PATTERNS_CHECKED, _DOTDOT_DUE[0][0]),
                    enforced=enforced,
                    warns=warns,
                    due=due,
                    fix="copy the license file into the project and name it without '..'",
                )
            )
        problems = []
        if not re.match(_VALID_PATTERN, p):
            problems.append("contains characters that are not valid in a glob pattern")
        if not _matches(p, ctx.files.names):
            problems.append("matches no file")
        if problems:
            warns, enforced, due = due_sets(ctx, _PATTERN_DUE)
            findings.append(
                make_finding(
                    ctx,
                    "LY002",
                    f"{label} {' and '.join(problems)}; setuptools >= 77.0.1 warns and the "
                    "warning is meant to become an error",
                    path=item.path,
                    line=item.line,
                    enforced=enforced,
                    warns=warns,
                    due=due,
                    fix="fix the pattern so that it matches the license files the sdist ships",
                )
            )
    return findings


register(
    Rule(
        code="LY002",
        slug="layout-license-file-pattern",
        family="layout",
        summary="License-file pattern that setuptools >= 77.0.1 rejects or warns about",
        doc="""
## What it does
Checks every explicit license-file pattern (setup.cfg `license_files`/`license_file`,
setup.py `license_files=`/`license_file=`, pyproject.toml `project.license-files` and
`tool.setuptools.license-files`) against the project's files, as
`Distribution._find_pattern` does: absolute patterns, `..`, characters outside
`[\\w\\-./*?[\\]]`, and patterns that match nothing.

## Why is this bad?
setuptools 77.0.1 (PEP 639) validates the patterns. An absolute pattern stops the build
with `InvalidConfigError: Pattern '/LICENSE' should be relative and must not start with
'/'`; `..` did so in 77.0.1 only and warns since 77.0.3. Invalid characters and patterns
that match no file warn: the due dates were 2026-02-20 (77.0.1) and 2026-03-20
(77.0.3-80.10.1), which have passed, so those releases fail under
`SETUPTOOLS_ENFORCE_DEPRECATION=1`; since 80.10.2 they are due 2027-02-18.

## Example
```ini
[metadata]
name = example
version = 1.0
license_files = /LICENSE
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
license_files = LICENSE
```

## References
- setuptools 77.0.0 changelog (#4829, #4838); 77.0.3 (#4896)
- PyPA specification: glob patterns
""".strip(),
        references=(
            Reference(
                title="setuptools 77.0.0 changelog: license-file glob validation (#4838)",
                url=f"{HISTORY_URL}#v77-0-0",
            ),
            Reference(
                title="setuptools 77.0.3 changelog: '..' in license globs warns (#4896)",
                url=f"{HISTORY_URL}#v77-0-3",
            ),
            Reference(
                title="PyPA specifications: glob patterns",
                url="https://packaging.python.org/en/latest/specifications/glob-patterns/",
            ),
        ),
        example=(
            ("setup.cfg", "[metadata]\nname = example\nversion = 1.0\nlicense_files = /LICENSE\n"),
            ("LICENSE", "MIT\n"),
        ),
        check=_check_license_patterns,
    )
)
