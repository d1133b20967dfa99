"""RQ002 `requires-plugin-removed-api`:
A build requirement gets a plugin release that needs a setuptools module or attribute some
releases lack.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...model import Finding, Reference
from .._base import Context, Rule, register
from ._shared import PluginPin, plugin_pins

#: The ``setuptools.command.easy_install`` attributes whose absence breaks a build, and the
#: release fact that says where (pbr reads ``sys_executable`` in every wheel build; the
#: other attributes it reads only on Windows or outside wheel builds).
_ATTRIBUTES = {
    "setuptools.command.easy_install.sys_executable": "ST78",
    # pbr < 4 calls it in its `pbr=True` keyword, in every build
    "setuptools.dist._get_unpatched": "ST80",
    # setuptools-scm >= 10.1.1 reads it when the sdist ships its tracked-file list
    "setuptools.command.egg_info.egg_info.ignore_egg_info_in_manifest": "ST83",
}
#: Attributes read only when the tree has something: the egg_info mixin of setuptools-scm
#: reads ``ignore_egg_info_in_manifest`` only with a list of tracked files to give it.
_ONLY_WITH = {
    "setuptools.command.egg_info.egg_info.ignore_egg_info_in_manifest": "scm_file_list",
}


def _ships_scm_file_list(ctx: Context) -> bool:
    """Whether the tree ships the tracked-file list setuptools-scm 10 writes into an sdist
    (``NAME.egg-info/scm_file_list.json`` at the root, with files in it, beside
    ``scm_version.json``), from which its egg_info mixin takes the sdist's files (a
    checkout's VCS is not read: a directory check may miss it)."""
    import json

    files = ctx.files.files
    for path, data in files.items():
        # setuptools-scm looks for them in an egg-info directory at the root only (its
        # `discover_egg_info_metadata`), beside the scm_version.json it requires
        if not path.endswith(".egg-info/scm_file_list.json") or path.count("/") != 1:
            continue
        if path.replace("scm_file_list.json", "scm_version.json") not in files:
            continue
        try:
            files = json.loads(data).get("files")
        except (ValueError, AttributeError):
            continue
        if files:
            return True
    return False


#: The commands whose lookup by name (``get_finalized_command``) breaks a build, and the
#: release facts that say where: (every Python, Python >= 3.10 only). pbr < 5.5 asks for
#: ``bdist_wininst`` in every wheel build.
_COMMANDS = {"bdist_wininst": ("ST81", "ST82")}
#: The first Python whose standard library distutils lacks ``bdist_wininst`` (removed in
#: Python 3.10), which setuptools before 60.0.0 uses.
_STDLIB_WITHOUT_WININST = (3, 10)

#: Plugins setuptools does not load by itself: they matter when setup.py (or an in-tree
#: build backend) imports them.
_IMPORTED_AS = {"scikit-build": "skbuild"}

_FIX = {
    "pbr": "allow pbr>=7.0.2 (it no longer reads easy_install's attributes)",
    "scikit-build": "allow scikit-build>=0.18 (it no longer imports setuptools.command.test)",
}


def _removed(ctx: Context, module: str) -> set[str]:
    """The releases that lack ``module`` after one that shipped it (a removal, not a
    module added later)."""
    cat = ctx.catalogue
    missing = ctx.missing_in(module)
    shipped = [cat.parsed(v) for v in cat.universe if v not in missing]
    if not shipped:
        return set()
    first = min(shipped)
    return {v for v in missing if cat.parsed(v) > first}


def _loaded(ctx: Context, pin: PluginPin) -> bool:
    top = _IMPORTED_AS.get(pin.name)
    if top is None:
        return True  # loaded by setuptools through its entry points
    if any(site.module.split(".")[0] == top for site in ctx.setup_py.import_sites):
        return True
    return any(module.split(".")[0] == top for module in _backend_imports(ctx))


def _backend_imports(ctx: Context) -> list[str]:
    """The modules an in-tree build backend (``backend-path`` and ``build-backend`` in
    pyproject.toml) imports when the frontend loads it: rapidfuzz 3.9.4's
    ``_custom_build/backend.py`` imports ``skbuild`` (the 72.0.0 ecosystem check)."""
    from ...facts.setup_py import import_sites

    data = ctx.pyproject.data
    table = data.get("build-system") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return []
    backend, paths = table.get("build-backend"), table.get("backend-path")
    if not isinstance(backend, str) or not isinstance(paths, list):
        return []
    module = backend.partition(":")[0].replace(".", "/")
    out: list[str] = []
    for base in paths:
        if not isinstance(base, str):
            continue
        root = base.strip("/").removeprefix("./").strip(".")
        for candidate in (f"{module}.py", f"{module}/__init__.py"):
            path = f"{root}/{candidate}" if root else candidate
            tree = ctx.setup_py.module(path)
            if tree is not None:
                out += [site.module for site in import_sites(tree, target=ctx.target)]
    return out


def _check(ctx: Context) -> Iterable[Finding]:
    cat = ctx.catalogue
    findings: list[Finding] = []
    for pin in plugin_pins(ctx, pinned_only=False):
        if not _loaded(ctx, pin):
            continue
        failing: set[str] = set()
        enforced: set[str] = set()
        warning: set[str] = set()
        why: list[str] = []
        for module in pin.needs.get("imports", ()):
            if module.partition(".")[0] == "pkg_resources":
                continue  # RQ001
            removed = _removed(ctx, module)
            if removed:
                failing |= removed
                why.append(f"imports `{module}` (ModuleNotFoundError)")
        for attribute in pin.needs.get("attributes", ()):
            ident = _ATTRIBUTES.get(attribute)
            if ident is None:
                continue
            if _ONLY_WITH.get(attribute) == "scm_file_list" and not _ships_scm_file_list(ctx):
                continue
            fact = change(ident)
            failing |= fact.failing(cat)
            enforced |= fact.enforced(cat, ctx.today.isoformat())
            warning |= fact.warning(cat)
            why.append(f"reads `{attribute}` (AttributeError where it is missing)")
        for command in pin.needs.get("commands", ()):
            idents = _COMMANDS.get(command)
            if idents is None:
                continue
            everywhere, newer_python = idents
            failing |= change(everywhere).failing(cat)
            if ctx.target_python >= _STDLIB_WITHOUT_WININST:
                failing |= change(newer_python).failing(cat)
            why.append(f"asks for the `{command}` command (`invalid command` where it is gone)")
        if not failing:
            continue
        item = pin.requirement
        fails = cat.to_specifiers(failing)
        findings.append(
            ctx.report(
                code="RQ002",
                message=(
                    f"{item.where} asks for `{item.text}`, so the build gets {pin.name} "
                    f"{pin.version}, which {' and '.join(why)} while it builds: not every "
                    "setuptools release has it"
                ),
                path=item.path,
                line=item.line,
                fails=fails,
                fails_enforced=cat.to_specifiers(failing | enforced),
                warns=cat.to_specifiers(warning),
                fix=f"{_FIX.get(pin.name, 'allow a newer release')}, or keep setuptools off "
                "the failing releases in build-system.requires",
            )
        )
    return findings


register(
    Rule(
        code="RQ002",
        slug="requires-plugin-removed-api",
        family="build requirements",
        summary="A build requirement gets a plugin release that needs a setuptools module or "
        "attribute some releases lack",
        doc="""
## What it does
Reads `build-system.requires` and `setup_requires` (setup.py and setup.cfg) for build
plugins (`pbr`, `setuptools-scm`, which setuptools loads; `scikit-build` when setup.py
imports `skbuild`, or an in-tree build backend does), works out the release the frontend
installs (the newest the specifier allows), and checks what that release needs from
setuptools, as read from every wheel of the plugin: modules it imports at module level
that some setuptools release removed (other than `pkg_resources`, which RQ001 reports),
`easy_install` attributes its `install_scripts` reads in every wheel build, and
`setuptools.dist._get_unpatched`, which pbr before 4.0.0 calls in every build, and the
`bdist_wininst` command, which pbr before 5.5.0 asks for in every wheel build; and
`egg_info.ignore_egg_info_in_manifest`, which setuptools-scm 10.1.1 and later read when the
sdist ships their tracked-file list (`NAME.egg-info/scm_file_list.json`).

## Why is this bad?
The plugin fails inside the build: scikit-build 0.7-0.17 import `setuptools.command.test`,
which 72.0.0 did not ship (ModuleNotFoundError); pbr before 7.0.2 reads
`easy_install.sys_executable`, which 80.3.0 did not have (AttributeError while building the
wheel); 80.3.1 serves it again with a deprecation warning that is past its due date, so it
fails under `SETUPTOOLS_ENFORCE_DEPRECATION=1`. pbr before 4.0.0 calls
`setuptools.dist._get_unpatched`, which 68.0.0 removed (AttributeError while setup.py
runs, at the metadata stage already), and pbr before 5.5.0 asks for the `bdist_wininst`
command, which setuptools' distutils dropped in 65.0.0 and the standard library's (which
setuptools before 60.0.0 uses) in Python 3.10: `error: invalid command 'bdist_wininst'`
while building the wheel. setuptools-scm 10.1.1 and later read
`egg_info.ignore_egg_info_in_manifest`, which setuptools added in 64.0.0, and require
`setuptools` without a bound: an older setuptools (a pin, or a distribution's) fails with
`AttributeError: ignore_egg_info_in_manifest` on an sdist they made.

## Example
```python
from setuptools import setup

setup(setup_requires=["pbr<7"], pbr=True)
```

## Use instead
```python
from setuptools import setup

setup(setup_requires=["pbr>=7.0.2"], pbr=True)
```

## References
- setuptools 80.3.1 changelog (#4976): easy_install attributes restored for pbr
- setuptools 72.1.0 changelog: `setuptools.command.test` restored
""".strip(),
        references=(
            Reference(
                title="setuptools 80.3.1 changelog (#4976)",
                url="https://setuptools.pypa.io/en/latest/history.html#v80-3-1",
            ),
            Reference(
                title="setuptools 72.1.0 changelog",
                url="https://setuptools.pypa.io/en/latest/history.html#v72-1-0",
            ),
        ),
        example=(
            (
                "setup.py",
                'from setuptools import setup\n\nsetup(setup_requires=["pbr<7"], pbr=True)\n',
            ),
            ("setup.cfg", "[metadata]\nname = example\n"),
        ),
        check=_check,
    )
)
