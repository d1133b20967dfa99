"""Write pyproject.toml (tomlkit: an existing file keeps its content and comments), write a
plan to disk, and render it as a unified diff."""

from __future__ import annotations

import contextlib
import difflib
from pathlib import Path
from typing import Any

import tomlkit
from packaging.specifiers import SpecifierSet
from tomlkit.items import Table

from ._model import Migration, Refusal
from .translate import Outcome

__all__ = ["build_pyproject", "migration_diff", "write_migration"]

_PROJECT_TABLES = ("urls", "optional-dependencies", "scripts", "gui-scripts", "entry-points")


def _value(value: Any, *, inline: bool = False) -> Any:
    """A TOML item: lists of several items one per line (not inside an inline table),
    dicts inline."""
    if isinstance(value, list):
        array = tomlkit.array()
        for item in value:
            array.append(_value(item, inline=True))
        if len(value) > 1 and not inline:
            array.multiline(True)
        return array
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, item in value.items():
            table[key] = _value(item, inline=True)
        return table
    return value


def _add(table: Any, key: str, value: Any, comments: dict[str, list[str]]) -> None:
    for text in comments.pop(key, []):
        table.add(tomlkit.comment(text))
    table.add(key, _value(value))


def _table(value: dict[str, Any], comments: list[str] = ()) -> Table:  # type: ignore[assignment]
    table = tomlkit.table()
    for text in comments:
        table.add(tomlkit.comment(text))
    for key, item in value.items():
        table.add(key, _value(item))
    return table


def _admits_a_release(spec: SpecifierSet, minimum: str) -> bool:
    """Whether a setuptools release at least ``minimum`` satisfies ``spec`` (``~=80.3``
    and ``==80.9.0`` do, ``<60`` does not): the releases are the catalogue's."""
    from packaging.version import Version

    from ..versions import catalogue

    low = Version(minimum)
    return any(
        Version(v) >= low and spec.contains(v, prereleases=False) for v in catalogue().universe
    )


def _requires(old: list[str] | None, minimum: str) -> list[str] | Refusal:
    """build-system.requires with ``setuptools>=minimum``: a lower bound below it is raised,
    other requirements and bounds kept; a bound that excludes ``minimum`` refuses."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    wanted = f"setuptools>={minimum}"
    if old is None:
        return [wanted]
    out: list[str] = []
    seen = False
    for text in old:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            out.append(text)
            continue
        if req.name.lower() != "setuptools":
            out.append(text)
            continue
        seen = True
        kept = [
            s
            for s in req.specifier
            if not (s.operator in {">=", ">"} and Version(s.version) < Version(minimum))
        ]
        spec = SpecifierSet(",".join(str(s) for s in kept))
        if not any(s.operator in {">=", ">", "==", "~=", "==="} for s in kept):
            spec &= SpecifierSet(f">={minimum}")
        if not _admits_a_release(spec, minimum):
            return Refusal(
                "build-requires",
                f"build-system.requires has {text!r}; [project] needs setuptools>={minimum}",
                "pyproject.toml",
            )
        extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
        marker = f"; {req.marker}" if req.marker else ""
        out.append(f"setuptools{extras}{','.join(sorted(str(s) for s in spec))}{marker}")
    if not seen:
        out.insert(0, wanted)
    return out


def build_pyproject(
    old: str | None, outcome: Outcome, comments: dict[str, list[str]], *, backend: bool
) -> str | Refusal:
    """The new pyproject.toml: ``old`` (kept as it is) with ``[build-system]`` written or
    completed, and the ``[project]`` and ``[tool.setuptools]`` tables of ``outcome``."""
    doc = tomlkit.parse(old) if old is not None else tomlkit.document()
    comments = {k: list(v) for k, v in comments.items()}
    system = doc.get("build-system")
    if system is None:
        system = tomlkit.table()
        doc.add("build-system", system)
        if old:  # keep it first, as the spec's examples do
            body = doc.body
            body.insert(0, body.pop())
    requires = _requires(system.get("requires"), outcome.minimum)
    if isinstance(requires, Refusal):
        return requires
    system["requires"] = _value(requires)
    if backend and "build-backend" not in system:
        system["build-backend"] = "setuptools.build_meta"
    project = tomlkit.table()
    subtables: dict[str, Any] = {}
    for key, value in outcome.project.items():
        if key in _PROJECT_TABLES:
            subtables[key] = value
            continue
        _add(project, key, value, comments)
    for key, value in subtables.items():
        if key == "entry-points":
            outer = tomlkit.table(is_super_table=True)
            for group, entries in value.items():
                outer.add(group, _table(entries, comments.pop(key, [])))
            project.add(key, outer)
        else:
            project.add(key, _table(value, comments.pop(key, [])))
    if old is None:
        doc.add("project", project)
    else:  # right after [build-system], before the other tools' tables
        ordered = tomlkit.document()
        placed = False
        for name, item in doc.body:
            ordered.append(name, item)
            if name is not None and name.key == "build-system":
                ordered.append("project", project)
                placed = True
        if not placed:
            ordered.append("project", project)
        doc = ordered
    if outcome.tool or outcome.tool_dynamic:
        tool = doc.get("tool")
        if tool is None:
            tool = tomlkit.table(is_super_table=True)
            doc.add("tool", tool)
        setuptools = tomlkit.table()
        for key, value in outcome.tool.items():
            if key in {"package-data", "exclude-package-data"}:
                setuptools.add(key, _table(value, comments.pop(key, [])))
            elif key == "packages" and isinstance(value, dict):
                packages = tomlkit.table(is_super_table=True)
                packages.add("find", _table(value["find"], comments.pop(key, [])))
                setuptools.add("packages", packages)
            else:
                _add(setuptools, key, value, comments)
        if outcome.tool_dynamic:
            dynamic = tomlkit.table()
            for key, value in outcome.tool_dynamic.items():
                if key == "optional-dependencies":
                    dynamic.add(key, _table(value))
                else:
                    dynamic.add(key, _value(value))
            setuptools.add("dynamic", dynamic)
        tool.add("setuptools", setuptools)
    rendered = doc.as_string()
    if old is not None and not old.startswith("\n"):
        rendered = rendered.lstrip("\n")  # a [build-system] put first comes with a blank line
    leftover = [text for texts in comments.values() for text in texts]
    if leftover:
        # comments of keys that have no single place here: a block at the top, never dropped
        block = tomlkit.document()
        for text in leftover:
            block.add(tomlkit.comment(text))
        return block.as_string() + rendered
    return rendered


def write_migration(migration: Migration, dest: Path | None = None) -> None:
    """Write the plan: in place (``dest`` None), or into ``dest`` as a copy of the tree
    with the changes applied (``dest`` must not exist or be empty)."""
    if migration.refusals:
        msg = "a refused migration has nothing to write"
        raise ValueError(msg)
    base = Path(migration.root)
    if dest is not None:
        import shutil

        shutil.copytree(base, dest, symlinks=True, dirs_exist_ok=True)
        base = Path(dest)
    for change in migration.changes:
        path = base / change.path
        if change.after is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            continue
        data = change.after.encode("utf-8", "surrogateescape")
        tmp = path.with_name(f".{path.name}.sapper-tmp")
        tmp.write_bytes(data)
        with contextlib.suppress(OSError):
            tmp.chmod(path.stat().st_mode & 0o7777)
        tmp.replace(path)


def _split(text: str | None) -> list[str]:
    if not text:
        return []
    lines = text.split("\n")
    out = [f"{line}\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def migration_diff(migration: Migration, prefix: str = "") -> str:
    """A unified diff of the plan that ``git apply`` and ``patch -p1`` apply (``a/`` and
    ``b/`` paths under ``prefix``; a created or deleted file from or to ``/dev/null``)."""
    out: list[str] = []
    for change in sorted(migration.changes, key=lambda c: c.path):
        name = f"{prefix}{change.path}"
        old = f"a/{name}" if change.before is not None else "/dev/null"
        new = f"b/{name}" if change.after is not None else "/dev/null"
        for line in difflib.unified_diff(
            _split(change.before), _split(change.after), fromfile=old, tofile=new
        ):
            out.append(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n")
    return "".join(out)
