"""Write src/sapper/data/plugins.json: what the releases of the build plugins a build
installs next to setuptools (setuptools-scm and pbr, which setuptools loads through entry
points; scikit-build, which setup.py imports) need from setuptools.

Every non-prerelease wheel of each plugin is downloaded from PyPI with
:class:`sapper.pypi.Index` (the simple API; each wheel checked against the sha256 the index
publishes, and cached) and read with ``ast`` (never imported). For each release it records,
over its modules (tests excluded):

- ``imports``: the ``setuptools``/``pkg_resources``/``distutils`` modules that some known
  setuptools release lacks (``sapper.versions``' module inventory) imported by an
  unguarded module-level statement (``import pkg_resources``, ``from
  setuptools.command.test import test``; ``from setuptools.command import test`` names
  ``setuptools.command.test`` too), which fail where a setuptools release lacks them;
- ``attributes``: the attributes read from ``setuptools.command.easy_install`` (``from
  setuptools.command import easy_install`` then ``easy_install.sys_executable``) and
  ``setuptools.dist`` (``from setuptools import dist`` then ``dist._get_unpatched``),
  anywhere in the code, and attributes of setuptools' command classes that later releases
  added (``self.ignore_egg_info_in_manifest`` in setuptools-scm's egg_info mixin): which of
  them break a build, and where, is a release fact of ``sapper.changes`` measured by real
  builds (docs/testing.md);
- ``commands``: the command names the code looks up as a constant
  (``get_finalized_command("bdist_wininst")``), likewise judged by ``sapper.changes``.

Releases without a (non-yanked) wheel are left out.

    python scripts/gen_plugin_facts.py            # regenerate (network)
    python scripts/gen_plugin_facts.py --check    # exit 1 if the file is out of date
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import io
import json
import os
import sys
import zipfile
from pathlib import Path

from packaging.version import InvalidVersion, Version

from sapper.facts.inventory import missing_in
from sapper.pypi import Index, ReleaseFile
from sapper.versions import catalogue

_CATALOGUE = catalogue()

PLUGINS = ("setuptools-scm", "pbr", "scikit-build")
OUT = Path(__file__).resolve().parent.parent / "src" / "sapper" / "data" / "plugins.json"


def _index() -> Index:
    base = os.environ.get("SAPPER_DEV_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "sapper-dev"
    return Index(cache_dir=root / "index", page_max_age=0)


_TOPS = ("setuptools", "pkg_resources", "distutils")
_EASY_INSTALL = "setuptools.command.easy_install"


def _setuptools_module(name: str) -> bool:
    return name.partition(".")[0] in _TOPS


#: Modules imported as a name (``from setuptools import dist``) whose attributes are
#: recorded: which of them break a build, and where, is a release fact of ``sapper.changes``.
_ATTRIBUTE_MODULES = {
    ("setuptools.command", "easy_install"): _EASY_INSTALL,
    ("setuptools", "dist"): "setuptools.dist",
}


def _module_attributes(tree: ast.Module) -> set[str]:
    """``alias.attr`` reads of the modules of :data:`_ATTRIBUTE_MODULES`, anywhere in the
    code, except inside a function whose parameter shadows the alias (pbr's ``def
    pbr(dist, attr, value)`` reads ``dist.metadata`` of a Distribution)."""
    aliases = {
        alias.asname or alias.name: _ATTRIBUTE_MODULES[(node.module, alias.name)]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
        if (node.module, alias.name) in _ATTRIBUTE_MODULES
    }
    found: set[str] = set()

    def visit(node: ast.AST, shadowed: frozenset[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            params += [a for a in (args.vararg, args.kwarg) if a is not None]
            shadowed = shadowed | {a.arg for a in params}
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.value.id not in shadowed
        ):
            found.add(f"{aliases[node.value.id]}.{node.attr}")
        for child in ast.iter_child_nodes(node):
            visit(child, shadowed)

    if aliases:
        visit(tree, frozenset())
    return found


#: The Command methods that look a command up by name (``invalid command`` when the
#: setuptools release, or the standard library's distutils it uses, lacks it).
_COMMAND_LOOKUPS = frozenset(
    {"get_finalized_command", "get_command_obj", "reinitialize_command", "run_command"}
)


#: Attributes of setuptools' command classes that later releases added, read on any object
#: (a command mixin's ``self``): the command class they belong to. setuptools-scm's egg_info
#: mixin reads ``ignore_egg_info_in_manifest`` (setuptools 64.0.0 on).
_COMMAND_ATTRIBUTES = {
    "ignore_egg_info_in_manifest": "setuptools.command.egg_info.egg_info",
}


def _command_attributes(tree: ast.Module) -> set[str]:
    """``obj.attr`` reads of :data:`_COMMAND_ATTRIBUTES`, as ``class.attr``."""
    return {
        f"{_COMMAND_ATTRIBUTES[node.attr]}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and node.attr in _COMMAND_ATTRIBUTES
    }


def _commands(tree: ast.Module) -> set[str]:
    """The command names the code looks up as a constant (``self.get_finalized_command(
    "bdist_wininst")``): which of them break a build, and where, is a release fact of
    ``sapper.changes``."""
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _COMMAND_LOOKUPS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    }


def needs(wheel: bytes) -> dict[str, list[str]]:
    """What one wheel of a plugin needs from setuptools: ``imports`` and ``attributes``
    (see the module docstring); empty lists left out."""
    imports: set[str] = set()
    attributes: set[str] = set()
    commands: set[str] = set()
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        for name in archive.namelist():
            if not name.endswith(".py") or "/tests/" in name or name.startswith("tests/"):
                continue
            try:
                tree = ast.parse(archive.read(name))
            except (SyntaxError, ValueError):
                continue
            for node in tree.body:  # unguarded module-level imports
                if isinstance(node, ast.Import):
                    imports.update(a.name for a in node.names if _setuptools_module(a.name))
                elif (
                    isinstance(node, ast.ImportFrom)
                    and node.level == 0
                    and node.module
                    and _setuptools_module(node.module)
                ):
                    imports.add(node.module)
                    # `from setuptools.command import test`: a submodule, if it is one (a
                    # name that is not a module is never in the module inventory)
                    if node.module != "pkg_resources":
                        imports.update(f"{node.module}.{a.name}" for a in node.names)
            attributes |= _module_attributes(tree) | _command_attributes(tree)
            commands |= _commands(tree)
    # only what some known setuptools release lacks (the others can never fail)
    imports = {m for m in imports if missing_in(_CATALOGUE, m)}
    out: dict[str, list[str]] = {}
    if imports:
        out["imports"] = sorted(imports)
    if attributes:
        out["attributes"] = sorted(attributes)
    if commands:
        out["commands"] = sorted(commands)
    return out


def plugin_facts(name: str) -> dict[str, dict[str, list[str]]]:
    index = _index()
    listing = index.listing(name)
    jobs: list[tuple[str, ReleaseFile]] = []
    for version in listing.versions:
        try:
            if Version(version).is_prerelease:
                continue
        except InvalidVersion:
            continue
        wheels = [f for f in listing.files(version) if f.kind == "wheel" and not f.yanked]
        if wheels:
            jobs.append((version, wheels[0]))
    with cf.ThreadPoolExecutor(8) as pool:
        flags = dict(
            zip(
                [v for v, _ in jobs],
                pool.map(lambda job: needs(index.download(job[1]).data), jobs),
                strict=True,
            )
        )
    return dict(sorted(flags.items(), key=lambda kv: Version(kv[0])))


def render() -> str:
    """The JSON text: one line per release."""
    lines = ['{"generated_by": "scripts/gen_plugin_facts.py", "plugins": {']
    for i, name in enumerate(PLUGINS):
        releases = plugin_facts(name)
        lines.append(f"{json.dumps(name)}: {{")
        lines.extend(
            f"  {json.dumps(version)}: {json.dumps(needs, sort_keys=True)}"
            + ("," if j + 1 < len(releases) else "")
            for j, (version, needs) in enumerate(releases.items())
        )
        lines.append("}" + ("," if i + 1 < len(PLUGINS) else ""))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if json.loads(current or "{}").get("plugins") != json.loads(text)["plugins"]:
            sys.stderr.write(f"{OUT} is out of date; run {sys.argv[0]}\n")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
