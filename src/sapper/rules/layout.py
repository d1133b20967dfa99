"""Layout rules: the project's file tree as setuptools' automatic discovery and license-file
globbing see it.

LY001 replays ``setuptools.discovery.ConfigDiscovery`` (61.0.0+) over the member names of
the sdist or directory; LY002 replays ``Distribution._find_pattern`` (77.0.1+) over every
explicit license-file pattern, wherever it is written: setup.cfg ``license_files`` and
``license_file`` (checked here rather than with the setup.cfg rules because the check needs
the file tree), setup.py keywords, and both pyproject.toml tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from ..model import Finding, Reference
from ._base import Context, Rule, register
from ._emit import HISTORY_URL, DueEras, due_sets, make_finding, versions

__all__: list[str] = []

# ------------------------------------------------------------------------------- LY001

#: ``FlatLayoutPackageFinder._EXCLUDE`` per era (each name also excludes ``name.*``).
_PKG_EXCLUDE_61 = (
    "ci", "bin", "doc", "docs", "documentation", "manpages", "news", "changelog", "test",
    "tests", "unit_test", "unit_tests", "example", "examples", "scripts", "tools", "util",
    "utils", "python", "build", "dist", "venv", "env", "requirements", "tasks", "fabfile",
    "site_scons", "benchmark", "benchmarks", "exercise", "exercises", "[._]*",
)  # fmt: skip
_PKG_EXCLUDE_ERAS: tuple[tuple[str, frozenset[str]], ...] = (
    ("61.0.0", frozenset(_PKG_EXCLUDE_61)),
    ("67.5.1", frozenset({*_PKG_EXCLUDE_61, "htmlcov"})),
    ("68.1.0", frozenset({*_PKG_EXCLUDE_61, "htmlcov", "debian", "newsfragments"})),
)
#: ``PackageFinder.ALWAYS_EXCLUDE``.
_ALWAYS_EXCLUDE = ("ez_setup", "*__pycache__")
#: ``FlatLayoutModuleFinder.DEFAULT_EXCLUDE`` (unchanged since 61.0.0).
_MOD_EXCLUDE = (
    "setup", "conftest", "test", "tests", "example", "examples", "build", "toxfile",
    "noxfile", "pavement", "dodo", "tasks", "fabfile", "[Ss][Cc]onstruct", "conanfile",
    "manage", "benchmark", "benchmarks", "exercise", "exercises", "[._]*",
)  # fmt: skip


def _excluded(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, p) for p in patterns)


@dataclass(frozen=True, slots=True)
class _Layout:
    packages: tuple[str, ...]
    modules: tuple[str, ...]


def _flat_layout(names: Sequence[str], exclude: frozenset[str]) -> _Layout:
    """Top-level packages (``remove_stubs`` applied) and modules setuptools would find."""
    dirs = sorted({n.split("/", 1)[0] for n in names if "/" in n})
    packages = tuple(
        d
        for d in dirs
        if "." not in d
        and d.isidentifier()  # "-stubs" directories are found, then dropped by remove_stubs
        and not _excluded(d, exclude)
        and not _excluded(d, _ALWAYS_EXCLUDE)
    )
    modules = tuple(
        stem
        for n in names
        if "/" not in n and n.endswith(".py")
        for stem in (n[:-3],)
        if stem.isidentifier() and not _excluded(stem, _MOD_EXCLUDE)
    )
    return _Layout(packages, tuple(sorted(modules)))


def _given(value: Any) -> bool:
    """A keyword that counts as set for discovery (``None`` is the default, unset)."""
    return value is not None


def _discovery_skipped(ctx: Context) -> tuple[bool, bool]:
    """(skipped in every release, skipped from 61.1.0 on: ``configuration=``)."""
    project, tool = ctx.pyproject.tables
    other = ctx.config
    if other.opaque:
        return True, True
    kw = other.keywords
    if any(_given(kw.get(k)) for k in ("packages", "py_modules", "package_dir")):
        return True, True
    setup_requires = kw.get("setup_requires")
    if _given(kw.get("pbr")) or (
        isinstance(setup_requires, list | tuple)
        and any(isinstance(r, str) and r.strip().lower().startswith("pbr") for r in setup_requires)
    ):
        return True, True  # pbr's setup hook fills `packages` from setup.cfg [files]
    # ext_modules count as an explicit listing, except for pyproject-configured projects
    # (``_EnsurePackagesDiscovered`` calls ``_ignore_ext_modules``).
    if _given(kw.get("ext_modules")) and project is None and tool is None:
        return True, True
    cfg = other.cfg
    if any(("options", k) in cfg for k in ("packages", "py_modules", "package_dir")):
        return True, True
    # pbr (`setup(pbr=True)`) fills `packages` from setup.cfg [files] (or the project name)
    # in its setup keyword hook, before discovery runs.
    if "pbr" in kw or any(section in ("files", "pbr") for section, _ in cfg):
        return True, True
    if tool is not None and any(k in tool for k in ("packages", "py-modules", "package-dir")):
        return True, True
    if "src" in {n.split("/", 1)[0] for n in ctx.files.names if "/" in n}:
        return True, True  # src-layout
    return False, _given(kw.get("configuration"))


def _config_path(ctx: Context) -> str:
    files = ctx.files.files
    return next((p for p in ("setup.py", "setup.cfg", "pyproject.toml") if p in files), ".")


def _check_flat_layout(ctx: Context) -> Iterable[Finding]:
    always, since_61_1 = _discovery_skipped(ctx)
    if always:
        return []
    failing: set[str] = set()
    seen: _Layout | None = None
    kind = ""
    for i, (first, exclude) in enumerate(_PKG_EXCLUDE_ERAS):
        nxt = _PKG_EXCLUDE_ERAS[i + 1][0] if i + 1 < len(_PKG_EXCLUDE_ERAS) else None
        span = versions(ctx, first, nxt)
        if since_61_1:
            span -= versions(ctx, "61.1.0")
        layout = _flat_layout(ctx.files.names, exclude)
        if len(layout.packages) > 1:
            failing |= span
            seen, kind = layout, "packages"
        elif not layout.packages and len(layout.modules) > 1:
            failing |= span
            seen, kind = layout, "modules"
    if not failing or seen is None:
        return []
    found = list(seen.packages if kind == "packages" else seen.modules)
    return [
        make_finding(
            ctx,
            "LY001",
            f"no `packages` or `py_modules` is configured and the project root holds several "
            f"top-level {kind} {found}: setuptools' automatic discovery stops with "
            f'"Multiple top-level {kind} discovered in a flat-layout"',
            path=_config_path(ctx),
            fails=failing,
            fix=f"list what to ship explicitly (`packages=[{found[0]!r}]` in setup.py, "
            "`[options] packages = find:` with `[options.packages.find] include`, or "
            "`[tool.setuptools] packages`), or move the code to a src/ layout",
        )
    ]


# ------------------------------------------------------------------------------- LY002

#: Due dates of the pattern warnings in ``Distribution._find_pattern``.
_PATTERN_DUE: DueEras = (
    ("77.0.1", "2026-02-20"),
    ("77.0.3", "2026-03-20"),
    ("80.10.2", "2027-02-18"),
)
#: 77.0.1 raised on ``..``; 77.0.3 (#4896) made it a warning.
_DOTDOT_DUE: DueEras = (("77.0.3", "2026-03-20"), ("80.10.2", "2027-02-18"))
_VALID_PATTERN = re.compile(r"^[\w\-\.\/\*\?\[\]]+$")


@dataclass(frozen=True, slots=True)
class _Pattern:
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
        return False
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
                    fails=versions(ctx, "77.0.1"),
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
                    fails=versions(ctx, "77.0.1", "77.0.3"),
                    enforced=enforced,
                    warns=warns,
                    due=due,
                    fix="copy the license file into the project and name it without '..'",
                )
            )
        problems = []
        if not _VALID_PATTERN.match(p):
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


# --------------------------------------------------------------------------------- rules


register(
    Rule(
        code="LY001",
        slug="layout-flat-multiple-top-level",
        family="layout",
        summary="Flat layout with several top-level packages or modules and no explicit list",
        doc="""
## What it does
When neither setup.py, setup.cfg nor pyproject.toml lists `packages` or `py_modules` (and
there is no `package_dir` and no `src/` directory), replays setuptools' automatic
discovery over the project root: every directory with an identifier name counts as a
package (no `__init__.py` needed), and every `*.py` file as a module, minus the reserved
names (`tests`, `docs`, `examples`, `setup`, ...) of each release.

## Why is this bad?
Before 61.0.0 such a project built an empty wheel (or one with only what the frontend
guessed). Since 61.0.0 setuptools discovers the layout and refuses to guess between
several candidates: `error: Multiple top-level packages discovered in a flat-layout:
['pkga', 'pkgb']`. 61.1.0 skips discovery for `setup(configuration=...)`
(numpy.distutils), and `ext_modules` skips it unless pyproject.toml configures the project.

## Example
A project root with `pkga/__init__.py`, `pkgb/__init__.py` and
```python
from setuptools import setup

setup(name="example", version="1.0")
```

## Use instead
```python
from setuptools import find_packages, setup

setup(name="example", version="1.0", packages=find_packages(include=["pkga*"]))
```
or move the packages into `src/`.

## References
- setuptools 61.0.0 changelog (#2887, #2894); 61.1.0 (#3211)
- `ConfigDiscovery` in `setuptools/discovery.py`
""".strip(),
        references=(
            Reference(
                title="setuptools 61.0.0 changelog: automatic discovery (#2887, #2894)",
                url=f"{HISTORY_URL}#v61-0-0",
            ),
            Reference(
                title="setuptools docs: package discovery and namespace packages",
                url="https://setuptools.pypa.io/en/latest/userguide/package_discovery.html",
            ),
        ),
        example=(
            ("setup.py", 'from setuptools import setup\n\nsetup(name="example", version="1.0")\n'),
            ("pkga/__init__.py", ""),
            ("pkgb/__init__.py", ""),
        ),
        check=_check_flat_layout,
    )
)

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
