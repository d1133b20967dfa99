"""LY001 `layout-flat-multiple-top-level`:
Flat layout with several top-level packages or modules and no explicit list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Any, NamedTuple

from ...changes import FLAT_LAYOUT_CONFIGURED, FLAT_LAYOUT_ERAS, HISTORY_URL
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import make_finding, versions

#: ``FlatLayoutPackageFinder._EXCLUDE`` per era (each name also excludes ``name.*``).
_PKG_EXCLUDE_61 = (
    "ci", "bin", "doc", "docs", "documentation", "manpages", "news", "changelog", "test",
    "tests", "unit_test", "unit_tests", "example", "examples", "scripts", "tools", "util",
    "utils", "python", "build", "dist", "venv", "env", "requirements", "tasks", "fabfile",
    "site_scons", "benchmark", "benchmarks", "exercise", "exercises", "[._]*",
)  # fmt: skip


_PKG_EXCLUDE_ERAS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    zip(
        FLAT_LAYOUT_ERAS,
        (
            frozenset(_PKG_EXCLUDE_61),
            frozenset({*_PKG_EXCLUDE_61, "htmlcov"}),
            frozenset({*_PKG_EXCLUDE_61, "htmlcov", "debian", "newsfragments"}),
        ),
        strict=True,
    )
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


class _Layout(NamedTuple):
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
    # pbr (`setup(pbr=True)`, handled above) fills `packages` from setup.cfg [files] (or the
    # project name) in its setup keyword hook, before discovery runs; setuptools calls the
    # hook only for a value that is not None, so `pbr=None` leaves discovery on.
    if any(section in ("files", "pbr") for section, _ in cfg):
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
            span -= versions(ctx, FLAT_LAYOUT_CONFIGURED)
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
