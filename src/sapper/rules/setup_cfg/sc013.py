"""SC013 `setupcfg-attr-imports-package`: `version = attr:` of a submodule, whose package
imports a module the build does not have (setuptools before 61.0.0 imports the package)."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.setup_cfg import PATH, CfgValue
from ...facts.setup_py import ImportSite
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
        target_files = {f"{prefix}{'/'.join(module)}{tail}" for tail in (".py", "/__init__.py")}
        found = _first_missing(ctx, parents, target_files, (root,))
        if found is None:
            return []
        path, site = found
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


def _first_missing(
    ctx: Context, start: list[str], target: set[str], roots: tuple[str, ...]
) -> tuple[str, ImportSite] | None:
    """Run the files ``start`` in order, following their imports of the project's modules
    depth first: the first import of a module the build lacks, unless the submodule
    ``attr:`` names (``target``) is imported before it. (setuptools then falls back to
    ``importlib.import_module``, which finds the submodule in ``sys.modules`` although its
    package failed: msal 1.39.0 imports ``.sku`` before ``requests`` and builds.)"""
    import ast

    from ...facts.setup_py import local_files, relative_import_files, statements

    setup_py = ctx.setup_py
    files = setup_py.files
    seen: set[str] = set()
    reached = object()

    def run(path: str) -> object:
        if path in target:
            return reached
        if path in seen:
            return None
        seen.add(path)
        tree = setup_py.module(path)
        if tree is None:
            return None
        package = path.rpartition("/")[0]
        in_package = f"{package}/__init__.py" in files
        for node in statements(tree.body, imports=True, target=setup_py.target):
            inner: list[str] = []
            if isinstance(node, ast.Import | ast.ImportFrom) and not (
                isinstance(node, ast.ImportFrom) and node.level
            ):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                for name in names:
                    if not setup_py.available(name.split(".")[0]):
                        return (path, ImportSite(name, node.lineno, node.col_offset + 1))
                    inner += local_files(files, name, roots)
            elif isinstance(node, ast.ImportFrom) and node.level == 1 and in_package:
                single = ast.Module(body=[node], type_ignores=[])
                inner += relative_import_files(files, single, package, setup_py.target)
            for sub in inner:
                result = run(sub)
                if result is not None:
                    return result
        return None

    for path in start:
        result = run(path)
        if result is reached:
            return None
        if isinstance(result, tuple):
            return result
    return None


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
TYPE_CHECKING:` never runs), in the order they run: when the package imports the submodule
before the missing module, the build works (setuptools falls back to
`importlib.import_module`, which finds the submodule in `sys.modules`), so nothing is
reported.

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
