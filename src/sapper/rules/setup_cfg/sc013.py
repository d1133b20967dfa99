"""SC013 `setupcfg-attr-imports-package`: `version = attr:` of a submodule, whose package
imports a module the build does not have (setuptools before 61.0.0 imports the package)."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_cfg import PATH, CfgValue
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import _value_finding


def _package_root(items: Iterable[CfgValue], top: str) -> str | None:
    """The directory the top-level package ``top`` is found in, from ``[options]
    package_dir`` as setuptools before 61.0.0 reads it for ``attr:`` (``=src``: every root
    package under ``src``); None when a mapping names ``top`` itself (not modelled)."""
    for item in items:
        if item.section != "options" or item.key != "package_dir":
            continue
        root = ""
        for line in item.value.splitlines():
            name, sep, path = line.partition("=")
            if not sep:
                continue
            if name.strip() == top:
                return None
            if not name.strip():
                root = path.strip().strip("/")
        return root
    return ""


def _check_attr_package(ctx: Context) -> Iterable[Finding]:
    from ...facts.project_modules import modules_run, unavailable_import

    items = ctx.setup_cfg.values
    for item in items:
        if item.section != "metadata" or item.key != "version":
            continue
        value = item.value.strip()
        if not value.startswith("attr:"):
            return []
        *module, _attr = value.removeprefix("attr:").strip().split(".")
        if len(module) < 2 or not all(part.isidentifier() for part in module):
            return []  # a top-level module: no package is imported for it
        root = _package_root(items, module[0])
        if root is None:
            return []
        prefix = f"{root}/" if root else ""
        parents = [f"{prefix}{'/'.join(module[:i])}/__init__.py" for i in range(1, len(module))]
        if not all(path in ctx.files.files for path in parents):
            return []  # a namespace package, or not shipped: not modelled
        for path in modules_run(ctx.setup_py, parents, roots=(root,)):
            site = unavailable_import(ctx.setup_py, path)
            if site is None:
                continue
            package = ".".join(module[:-1])
            return [
                _value_finding(
                    ctx,
                    "SC013",
                    item,
                    f"`{value}` names a submodule: setuptools before 61.0.0 imports the "
                    f"package `{package}` first, and {path}:{site.line} imports "
                    f"`{site.module}`, which the build environment lacks "
                    "(ModuleNotFoundError)",
                    change("ST79").failing(ctx.catalogue),
                    fix=f"require setuptools>=61.0.0 in pyproject.toml, or add "
                    f"`{site.module.split('.')[0]}`'s distribution to build-system.requires",
                )
            ]
        return []
    return []


register(
    Rule(
        code="SC013",
        slug="setupcfg-attr-imports-package",
        family="setup.cfg",
        summary=(
            "`version = attr:` of a submodule whose package imports a module the build lacks "
            "(setuptools < 61.0.0 imports the package)"
        ),
        doc="""
## What it does
Finds `version = attr: package.module.__version__` in setup.cfg's `[metadata]` (an
attribute of a submodule) when the package's `__init__.py`, or a project module it imports
in turn, imports at module level a module the build environment does not have: not the
standard library, not shipped in the sdist, not a build requirement (`import idna` in a
package whose runtime dependency it is). Only imports that surely run are read (module
level, the branch that runs on the target, no working `except ImportError`; `if
TYPE_CHECKING:` never runs).

## Why is this bad?
Before 61.0.0, setuptools reads `attr:` by looking the module up with
`importlib.util.find_spec`, which imports the parent package first, and falls back to
importing the module: the package's `__init__.py` runs inside the build, and its imports of
runtime dependencies fail with `ModuleNotFoundError`. setuptools 61.0.0 locates the
module's file without importing its package and reads the attribute statically, so the
same tree builds from 61.0.0 on. email-validator 2.4.0 (`attr:
email_validator.version.__version__`, whose package imports `idna`) fails with
setuptools 60.10.0 and builds with 61.0.0.

## Example
```ini
[metadata]
name = example
version = attr: example.version.__version__
```
with `example/__init__.py`:
```python
import requests
```

## Use instead
```toml
[build-system]
requires = ["setuptools>=61.0.0"]
build-backend = "setuptools.build_meta"
```
or keep the package's `__init__.py` free of runtime imports.

## References
- setuptools 61.0.0 changelog: configuration reading rewritten (`attr:` read statically)
""",
        references=(
            Reference(
                title="setuptools 61.0.0 changelog: attr: directive read statically",
                url="https://setuptools.pypa.io/en/latest/history.html#v61-0-0",
            ),
        ),
        example=(
            (
                PATH,
                "[metadata]\nname = example\nversion = attr: example.version.__version__\n\n"
                "[options]\npackages = example\n",
            ),
            ("setup.py", "from setuptools import setup\n\nsetup()\n"),
            ("example/__init__.py", "import example_runtime_dependency\n"),
            ("example/version.py", '__version__ = "1.0"\n'),
        ),
        check=_check_attr_package,
    )
)
