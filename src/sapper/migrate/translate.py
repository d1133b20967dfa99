"""Decide, field by field, what moves to pyproject.toml and what stays (and is ``dynamic``).

A field moves only when the pyproject form builds the same wheel (METADATA fields, entry
points, files) with current setuptools. Otherwise it stays, and a metadata field that stays
is listed in ``project.dynamic`` (else setuptools ignores it: ``_handle_missing_dynamic``).
What stays is said in the notes; what makes the migration impossible is a refusal.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..changes import change
from ..facts._values import func_name, requirement_problem
from ._forms import (
    FINDERS,
    dict_form,
    entry_groups,
    find_call,
    find_table,
    module_literal,
    newest,
    strings,
    text_of,
)
from ._model import Refusal
from ._values import UNKNOWN, Directive, Given, plugin_keywords, requirements

__all__ = ["DYNAMIC_DEPENDENCIES_SINCE", "PYPROJECT_SINCE", "Outcome", "translate"]

#: The first release that reads ``[project]`` and ``[tool.setuptools]`` (ST73's names are
#: validated from the first release that reads the table at all).
PYPROJECT_SINCE: str = change("ST73").fails[0][0] or ""
#: ``file:`` for ``dynamic`` dependencies and optional-dependencies (ST71).
DYNAMIC_DEPENDENCIES_SINCE: str = change("ST71").fails[0][1] or ""

_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
_EXTRA = re.compile(r"^([a-z0-9]|[a-z0-9]([a-z0-9-](?!--))*[a-z0-9])$", re.IGNORECASE)
_EMAIL = re.compile(r"^[^@\s,<>]+@[^@\s,<>]+$")
_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


#: setup() keywords of plugins that set the version (setuptools_scm, calver,
#: setuptools-git-versioning): the version is then dynamic, with nothing in setup.py.
_VERSION_PLUGINS = ("use_scm_version", "use_calver", "setuptools_git_versioning", "version_config")


@dataclass(slots=True)
class Outcome:
    """What goes to pyproject.toml, and which given keys leave their files."""

    project: dict[str, Any] = field(default_factory=dict)
    dynamic: list[str] = field(default_factory=list)
    tool: dict[str, Any] = field(default_factory=dict)
    tool_dynamic: dict[str, Any] = field(default_factory=dict)
    #: The given keys that move (taken out of setup.py / setup.cfg), with the pyproject key
    #: their comments go to.
    moved: list[tuple[Given, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    #: The oldest setuptools that reads everything written.
    minimum: str = PYPROJECT_SINCE


def _where(given: Given) -> str:
    return "setup.py" if given.origin == "py" else "setup.cfg"


def _movable(*items: Given | None) -> bool:
    return all(g is None or (g.value is not UNKNOWN and not g.varies and g.direct) for g in items)


def _why(given: Given) -> str:
    if given.varies:
        return "its value differs between platforms or Python versions"
    if not given.direct:
        return "it reaches setup() through a dict sapper does not rewrite"
    if given.value is UNKNOWN:
        return "its value is computed by code sapper does not run"
    return "it has no equivalent form in pyproject.toml"


class _Translator:
    def __init__(
        self, given: Mapping[str, Given], files: Mapping[str, bytes], *, scm: bool
    ) -> None:
        self.given = given
        self.files = files
        self.scm = scm or any(key in given for key in _VERSION_PLUGINS)
        self.out = Outcome()

    def stay(self, key: str, dynamic: tuple[str, ...], why: str | None = None) -> None:
        given = self.given[key]
        for name in dynamic:
            if name not in self.out.dynamic:
                self.out.dynamic.append(name)
        reason = why or _why(given)
        listed = f" (listed in project.dynamic: {', '.join(dynamic)})" if dynamic else ""
        self.out.notes.append(f"`{key}` stays in {_where(given)}{listed}: {reason}")

    def move(self, key: str, to: str) -> None:
        given = self.given.get(key)
        if given is not None:
            self.out.moved.append((given, to))

    # -- [project] --------------------------------------------------------------------

    def name(self) -> None:
        given = self.given.get("name")
        if given is None:
            self.out.refusals.append(Refusal("no-name", "the project gives no name", "setup.py"))
            return
        literal = module_literal(given, self.given, self.files)
        if literal is not None:
            given = Given(
                **{**{n: getattr(given, n) for n in Given.__slots__}, "value": literal[1]}
            )
        if not _movable(given) or not isinstance(given.value, str):
            self.out.refusals.append(
                Refusal(
                    "name-unknown",
                    f"the name cannot be moved ({_why(given)}) and `name` cannot be dynamic",
                    _where(given),
                    given.line,
                )
            )
            return
        if not _NAME.match(given.value):
            self.out.refusals.append(
                Refusal(
                    "name-invalid",
                    f"{given.value!r} is not a valid project name for [project]",
                    _where(given),
                    given.line,
                )
            )
            return
        self.out.project["name"] = given.value
        self.move("name", "name")

    def version(self) -> None:
        from packaging.version import InvalidVersion, Version

        given = self.given.get("version")
        if given is None and self.scm:
            # setuptools_scm sets the version (use_scm_version stays in setup.py)
            self.out.dynamic.append("version")
            self.out.notes.append("the version stays with the plugin that sets it (dynamic)")
            return
        if given is None:
            self.out.refusals.append(
                Refusal("no-version", "the project gives no version", "setup.py")
            )
            return
        value = given.value
        if _movable(given) and isinstance(value, Directive):
            self.out.dynamic.append("version")
            target = value.target
            self.out.tool_dynamic["version"] = (
                {"attr": target} if value.kind == "attr" else {"file": list(target)}
            )
            self.move("version", "dynamic")
            return
        attr = self._version_attr(given)
        if attr is not None:
            self.out.dynamic.append("version")
            self.out.tool_dynamic["version"] = {"attr": attr}
            self.move("version", "dynamic")
            return
        if _movable(given) and isinstance(value, str):
            try:
                normal = str(Version(value))
            except InvalidVersion:
                normal = None
            if normal == value:
                self.out.project["version"] = value
                self.move("version", "version")
                return
            self.stay("version", ("version",), "it is not written as a normalised version")
            return
        self.stay("version", ("version",))

    def _version_attr(self, given: Given) -> str | None:
        """``version=pkg.__version__`` as ``attr:`` (see :meth:`_module_literal`), for a
        normalised version literal."""
        from packaging.version import InvalidVersion, Version

        found = module_literal(given, self.given, self.files)
        if found is None:
            return None
        try:
            if str(Version(found[1])) != found[1]:
                return None
        except InvalidVersion:
            return None
        return found[0]

    def description(self) -> None:
        given = self.given.get("description")
        if given is None:
            return
        value = given.value
        if _movable(given) and isinstance(value, str) and "\n" not in value and "\r" not in value:
            self.out.project["description"] = value
            self.move("description", "description")
        else:
            self.stay("description", ("description",))

    def _file_with(self, text: str) -> str | None:
        """The one file of the tree whose text (UTF-8, universal newlines) is ``text``."""
        found = [
            path
            for path, data in self.files.items()
            if len(data) >= len(text) // 2 and text_of(data) == text
        ]
        found.sort(key=lambda p: (p.count("/"), p))
        return found[0] if found else None

    def _read(self, directive: Directive) -> str | None:
        """The text of a ``file:`` directive as setuptools reads it (None: a file that is
        not in the tree, or not a ``file:`` directive)."""
        if directive.kind != "file" or not directive.target:
            return None
        texts = []
        for path in directive.target:
            data = self.files.get(path.strip().removeprefix("./"))
            text = None if data is None else text_of(data)
            if text is None:
                return None
            texts.append(text)
        return "\n".join(texts)

    def readme(self) -> None:
        long = self.given.get("long_description")
        ctype = self.given.get("long_description_content_type")
        if long is None:
            return
        if ctype is None or not _movable(long, ctype) or not isinstance(ctype.value, str):
            why = (
                "without long_description_content_type, pyproject.toml would add one"
                if ctype is None
                else None
            )
            self.stay("long_description", ("readme",), why)
            if ctype is not None:
                self.stay("long_description_content_type", (), "it goes with long_description")
            return
        value = long.value
        content_type = ctype.value
        if isinstance(value, Directive) and value.kind == "file" and value.target:
            files = list(value.target)
            if len(files) == 1:
                self.out.project["readme"] = {"file": files[0], "content-type": content_type}
            else:
                self.out.dynamic.append("readme")
                self.out.tool_dynamic["readme"] = {"file": files, "content-type": content_type}
        elif long.origin == "py" and isinstance(value, str) and value:
            path = self._file_with(value)
            if path is None:
                self.stay("long_description", ("readme",), "its text is not one file's text")
                self.stay("long_description_content_type", (), "it goes with long_description")
                return
            self.out.project["readme"] = {"file": path, "content-type": content_type}
        else:
            self.stay("long_description", ("readme",), "its text is not read from a file")
            self.stay("long_description_content_type", (), "it goes with long_description")
            return
        self.move("long_description", "readme")
        self.move("long_description_content_type", "readme")

    def requires_python(self) -> None:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        given = self.given.get("python_requires")
        if given is None:
            return
        if _movable(given) and isinstance(given.value, str):
            try:
                normal = str(SpecifierSet(given.value))
            except InvalidSpecifier:
                normal = None
            # setuptools writes a [project] value normalised, a setup() one as it is
            if normal == given.value:
                self.out.project["requires-python"] = given.value
                self.move("python_requires", "requires-python")
                return
            if normal is not None:
                self.stay(
                    "python_requires",
                    ("requires-python",),
                    f"[project] would write Requires-Python as {normal!r}",
                )
                return
        self.stay("python_requires", ("requires-python",))

    def license(self) -> None:
        for key in ("license", "license_expression"):
            if key in self.given:
                self.stay(
                    key,
                    ("license",),
                    "project.license takes an SPDX expression only (License-Expression "
                    "instead of License in METADATA), and its table form is deprecated "
                    "(due 2027-02-18)",
                )

    def people(self, kind: str, field_name: str) -> None:
        name = self.given.get(kind)
        email = self.given.get(f"{kind}_email")
        if name is None and email is None:
            return
        people: list[dict[str, str]] | None = None
        if _movable(name, email):
            if email is None and name is not None and isinstance(name.value, str):
                people = [{"name": name.value}] if name.value else []
            elif name is None and email is not None and isinstance(email.value, str):
                parts = [p.strip() for p in email.value.split(",")]
                if ", ".join(parts) == email.value and all(_EMAIL.match(p) for p in parts):
                    people = [{"email": p} for p in parts]
        if people is None:
            why = (
                f"[project] {field_name} would merge {kind} and {kind}_email into one "
                f"{kind.capitalize()}-email field"
                if name is not None and email is not None
                else None
            )
            for key in (kind, f"{kind}_email"):
                if key in self.given:
                    self.stay(key, (field_name,), why)
            return
        if people:
            self.out.project[field_name] = people
        self.move(kind, field_name)
        self.move(f"{kind}_email", field_name)

    def keywords(self) -> None:
        given = self.given.get("keywords")
        if given is None:
            return
        value = given.value
        words: list[str] | None = None
        if _movable(given):
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                words = list(value)
            elif isinstance(value, str):
                parts = value.split(",")
                if ",".join(parts) == value and all(p and p.strip() == p for p in parts):
                    words = parts
        if words is None:
            self.stay("keywords", ("keywords",))
            return
        if words:
            self.out.project["keywords"] = words
        self.move("keywords", "keywords")

    def classifiers(self) -> None:
        given = self.given.get("classifiers")
        if given is None:
            return
        value = given.value
        text = self._read(value) if isinstance(value, Directive) else None
        if (
            _movable(given)
            and text is not None
            and text.splitlines() == [line.strip() for line in text.splitlines() if line.strip()]
        ):
            # setup.cfg strips the lines and drops blank ones, pyproject only splits them
            assert isinstance(value, Directive)
            self.out.dynamic.append("classifiers")
            self.out.tool_dynamic["classifiers"] = {"file": list(value.target)}
        elif _movable(given) and strings(value):
            if value:
                self.out.project["classifiers"] = list(value)
        else:
            self.stay("classifiers", ("classifiers",))
            return
        self.move("classifiers", "classifiers")

    def urls(self) -> None:
        given = self.given.get("project_urls")
        if given is not None:
            value = given.value
            if (
                _movable(given)
                and isinstance(value, dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
            ):
                if value:
                    self.out.project["urls"] = dict(value)
                self.move("project_urls", "urls")
            else:
                self.stay("project_urls", ("urls",))
        for key in ("url", "download_url"):
            if key in self.given:
                self.stay(
                    key,
                    (),
                    "[project] urls would write a Project-URL instead of the "
                    f"{'Home-page' if key == 'url' else 'Download-URL'} field (setuptools "
                    "keeps reading it with [project])",
                )

    def dependencies(self) -> None:
        given = self.given.get("install_requires")
        if given is None:
            return
        value = given.value
        text = self._read(value) if isinstance(value, Directive) else None
        if _movable(given) and text is not None and ("\n" in text.strip() or ";" not in text):
            # setup.cfg splits a one-line file at ";" (losing its marker), pyproject does not
            assert isinstance(value, Directive)
            self.out.dynamic.append("dependencies")
            self.out.tool_dynamic["dependencies"] = {"file": list(value.target)}
            self.out.minimum = newest(self.out.minimum, DYNAMIC_DEPENDENCIES_SINCE)
            self.move("install_requires", "dependencies")
            return
        reqs = requirements(value) if _movable(given) else None
        if reqs is None or any(requirement_problem(r) for r in reqs):
            self.stay("install_requires", ("dependencies",))
            return
        if reqs:
            self.out.project["dependencies"] = reqs
        self.move("install_requires", "dependencies")

    def extras(self) -> None:
        given = self.given.get("extras_require")
        if given is None:
            return
        value = given.value
        ok = _movable(given) and isinstance(value, dict)
        static: dict[str, list[str]] = {}
        files: dict[str, dict[str, list[str]]] = {}
        if ok:
            for extra, reqs_value in value.items():
                if not isinstance(extra, str) or not _EXTRA.match(extra):
                    ok = False
                    break
                text = self._read(reqs_value) if isinstance(reqs_value, Directive) else None
                if text is not None and ("\n" in text.strip() or ";" not in text):
                    assert isinstance(reqs_value, Directive)
                    files[extra] = {"file": list(reqs_value.target)}
                    continue
                reqs = requirements(reqs_value)
                if reqs is None or any(requirement_problem(r) for r in reqs):
                    ok = False
                    break
                static[extra] = reqs
        if not ok or (static and files):
            self.stay("extras_require", ("optional-dependencies",))
            return
        if files:
            self.out.dynamic.append("optional-dependencies")
            self.out.tool_dynamic["optional-dependencies"] = files
            self.out.minimum = newest(self.out.minimum, DYNAMIC_DEPENDENCIES_SINCE)
        elif static:
            self.out.project["optional-dependencies"] = static
        self.move("extras_require", "optional-dependencies")

    def entry_points(self) -> None:
        given = self.given.get("entry_points")
        if given is None:
            return
        value = given.value
        if isinstance(value, Directive):  # setup.cfg's ``entry_points = file: ...``
            value = self._read(value)
            if value is None:
                given = Given(
                    **{**{n: getattr(given, n) for n in Given.__slots__}, "value": UNKNOWN}
                )
        groups = entry_groups(value) if _movable(given) else None
        if groups is None:
            if not dict_form(given):
                # setuptools reads a staying entry_points beside [project] as a dict
                # (``_get_previous_entrypoints``: ``value.items()``); any other form fails
                # the build ('str' object has no attribute 'items')
                self.out.refusals.append(
                    Refusal(
                        "entry-points",
                        "entry_points cannot move (" + _why(given) + ") and cannot stay: "
                        "setuptools reads entry_points given outside pyproject.toml as a dict "
                        "once [project] exists, and this one "
                        + (
                            "is a string"
                            if isinstance(value, str)
                            else "may not be a dict (computed by code)"
                        )
                        + "; given as a dict ({group: [entries]}) it can stay in setup.py",
                        _where(given),
                        given.line,
                    )
                )
                return
            self.stay("entry_points", ("scripts", "gui-scripts", "entry-points"))
            return
        first = None
        for group, entries in groups.items():
            if not entries:
                continue
            if group == "console_scripts":
                self.out.project["scripts"] = entries
                first = first or "scripts"
            elif group == "gui_scripts":
                self.out.project["gui-scripts"] = entries
                first = first or "gui-scripts"
            else:
                self.out.project.setdefault("entry-points", {})[group] = entries
                first = first or "entry-points"
        self.move("entry_points", first or "scripts")

    # -- [tool.setuptools] --------------------------------------------------------------

    def packages(self) -> None:
        packages = self.given.get("packages")
        package_dir = self.given.get("package_dir")
        find = self.given.get("packages.find")
        modules = self.given.get("py_modules")
        ext = self.given.get("ext_modules")
        nsp = self.given.get("namespace_packages")
        plugins = plugin_keywords(self.given, _VERSION_PLUGINS)
        held = (
            f"the plugin keyword {plugins[0]} stays in setup.py and may add to it"
            if plugins
            else "namespace_packages stays in setup.py and needs it there"
            if nsp is not None and nsp.origin == "py"
            else None
        )
        if held:  # setup() uses them before pyproject.toml is read (SETUPTOOLS_KEYWORDS)
            for key in ("packages", "package_dir", "packages.find", "py_modules"):
                if key in self.given:
                    self.stay(key, (), held)
            return
        if packages is None and modules is None and ext is not None:
            # setup.py/setup.cfg skip auto-discovery when ext_modules is given, pyproject
            # does not: an empty list keeps the wheel without discovered packages
            if ext.varies:
                self.out.refusals.append(
                    Refusal(
                        "discovery",
                        "ext_modules is given on some paths only and packages not at all: "
                        "setup.py discovers packages on the others, pyproject on all",
                        _where(ext),
                        ext.line,
                    )
                )
                return
            self.out.tool["packages"] = []
        if modules is not None:
            if (
                _movable(modules)
                and strings(modules.value)
                and all(_MODULE.match(m) for m in modules.value)
            ):
                self.out.tool["py-modules"] = list(modules.value)
                self.move("py_modules", "py-modules")
            else:
                self.stay("py_modules", ())
        written: Any = None
        finder = (
            packages is not None
            and packages.origin == "py"
            and packages.value is UNKNOWN
            and isinstance(packages.node, ast.Call)
            and func_name(packages.node.func) in FINDERS
            and not packages.varies
            and packages.direct
        )
        ok = _movable(None if finder else packages, package_dir, find)
        dirs = package_dir.value if package_dir is not None else None
        if (
            ok
            and dirs is not None
            and not (
                isinstance(dirs, dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in dirs.items())
            )
        ):
            ok = False
        if ok and packages is not None:
            value = packages.value
            if isinstance(value, str) and value in {"find:", "find_namespace:"}:
                options = dict(find.value) if find is not None else {}
                written = find_table(options, value == "find_namespace:")
            elif packages.origin == "py" and packages.node is not None:
                written = find_call(packages.node, dirs, self.files)
                if written is None and strings(value):
                    written = list(value)
            elif strings(value):
                written = list(value)
            if written is None or (
                isinstance(written, list) and not all(_MODULE.match(p) for p in written)
            ):
                ok = False
        if not ok:
            for key in ("packages", "package_dir", "packages.find"):
                if key in self.given:
                    self.stay(key, ())
            return
        if dirs:
            self.out.tool["package-dir"] = dict(dirs)
            self.move("package_dir", "package-dir")
        if written is not None:
            self.out.tool["packages"] = written
            self.move("packages", "packages")
            self.move("packages.find", "packages")

    def package_data(self, key: str, to: str) -> None:
        given = self.given.get(key)
        if given is None:
            return
        value = given.value
        if not (
            _movable(given)
            and isinstance(value, dict)
            and all(isinstance(k, str) and strings(v) for k, v in value.items())
            and all(k == "" or _MODULE.match(k) for k in value)
        ):
            self.stay(key, ())
            return
        table = {("*" if k == "" else k): list(v) for k, v in value.items()}
        if table:
            self.out.tool[to] = table
        self.move(key, to)

    def flag(self, key: str, to: str, default: bool | None) -> None:
        given = self.given.get(key)
        if given is None:
            if default is not None:
                self.out.tool[to] = default
            return
        if _movable(given) and isinstance(given.value, bool):
            self.out.tool[to] = given.value
            self.move(key, to)
        else:
            self.stay(key, ())

    def platforms(self) -> None:
        given = self.given.get("platforms")
        if given is None:
            return
        if _movable(given) and strings(given.value):
            if given.value:
                self.out.tool["platforms"] = list(given.value)
            self.move("platforms", "platforms")
        else:
            self.stay("platforms", ())


_STEPS: tuple[Callable[[_Translator], None], ...] = (
    _Translator.name,
    _Translator.version,
    _Translator.description,
    _Translator.readme,
    _Translator.requires_python,
    _Translator.license,
    lambda t: t.people("author", "authors"),
    lambda t: t.people("maintainer", "maintainers"),
    _Translator.keywords,
    _Translator.classifiers,
    _Translator.urls,
    _Translator.dependencies,
    _Translator.extras,
    _Translator.entry_points,
    _Translator.packages,
    lambda t: t.package_data("package_data", "package-data"),
    lambda t: t.package_data("exclude_package_data", "exclude-package-data"),
    # setup.py/setup.cfg default to False, [tool.setuptools] to True: always written
    lambda t: t.flag("include_package_data", "include-package-data", False),
    lambda t: t.flag("zip_safe", "zip-safe", None),
    _Translator.platforms,
)


def translate(
    given: Mapping[str, Given], files: Mapping[str, bytes], *, scm: bool = False
) -> Outcome:
    """What moves where, for the merged options of setup.cfg and setup.py (``scm``: the
    build uses setuptools_scm, which sets the version)."""
    translator = _Translator(given, files, scm=scm)
    if "pbr" in given:
        pbr = given["pbr"]
        translator.out.refusals.append(
            Refusal(
                "pbr",
                "pbr computes the metadata from setup.cfg and git: its own reading is not "
                "setuptools'",
                _where(pbr),
                pbr.line,
            )
        )
        return translator.out
    for step in _STEPS:
        step(translator)
    out = translator.out
    if out.dynamic:
        out.project["dynamic"] = list(out.dynamic)
    return out
