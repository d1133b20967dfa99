"""What the project configures, gathered from setup.cfg and setup.py, key by key.

Each setuptools option (the ``setup()`` keyword name) becomes a :class:`Given`: where it
comes from, its value as setuptools reads it (setup.cfg strings parsed the way
``setuptools/config/setupcfg.py`` parses them) or ``UNKNOWN``, and whether sapper can take
it out of its file. Nothing here decides what moves: :mod:`sapper.migrate.translate` does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..facts._values import UNKNOWN, requirement_lines

__all__ = [
    "UNKNOWN",
    "Directive",
    "Given",
    "cfg_bool",
    "cfg_dict",
    "cfg_list",
    "cfg_value",
]


@dataclass(frozen=True, slots=True)
class Directive:
    """A setup.cfg ``attr:`` or ``file:`` directive."""

    kind: Literal["attr", "file"]
    #: The attribute path (``attr``), or the file names (``file``).
    target: str | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Given:
    """One setuptools option as the project gives it."""

    key: str
    origin: Literal["py", "cfg"]
    #: The parsed value (``UNKNOWN`` when code decides it; a :class:`Directive` for
    #: ``attr:``/``file:``).
    value: Any
    #: setup.cfg: the section (``metadata``, ``options``, ``options.extras_require``...).
    section: str | None = None
    line: int | None = None
    #: setup.py: the keyword is written in the ``setup()`` call itself (sapper can take it
    #: out); a key that reaches ``setup()`` through ``**kwargs`` stays where it is.
    direct: bool = True
    node: ast.expr | None = None
    #: setup.py: the value differs between the platforms and Pythons sapper reads it for.
    varies: bool = False
    #: setup.py: the key is an item of the dict display ``setup(**kwargs)`` expands (taken
    #: out of it when it moves).
    in_dict: bool = False
    #: setup.cfg: the option's name in the file (normalised), when setuptools reads it under
    #: another name (``home_page`` for ``url``...).
    cfg_name: str | None = None
    #: The same option given in the other file too, left without effect by this one: it
    #: leaves with it.
    shadow: Given | None = None


# -- setup.cfg values as setuptools parses them ----------------------------------------------


def _directive(value: str) -> Directive | None:
    text = value.strip()
    if text.startswith("file:"):
        files = tuple(p.strip() for p in text[len("file:") :].split(",") if p.strip())
        return Directive("file", files)
    if text.startswith("attr:"):
        return Directive("attr", text[len("attr:") :].strip())
    return None


def cfg_list(value: str) -> list[str]:
    """``ConfigHandler._parse_list``: lines when the value has several, else commas."""
    parts = value.splitlines() if "\n" in value else value.split(",")
    return [p.strip() for p in parts if p.strip()]


def cfg_dict(value: str) -> dict[str, str] | None:
    """``ConfigHandler._parse_dict``: ``key = value`` lines (None: a line without ``=``)."""
    out: dict[str, str] = {}
    for line in cfg_list(value):
        key, sep, val = line.partition("=")
        if not sep:
            return None
        out[key.strip()] = val.strip()
    return out


def cfg_bool(value: str) -> bool:
    """``ConfigHandler._parse_bool``."""
    return value.strip().lower() in {"1", "true", "yes"}


#: setup.cfg keys read as lists, dicts, booleans, requirement lists; the rest are strings.
_LISTS = frozenset(
    {"keywords", "platforms", "classifiers", "py_modules", "license_files", "provides",
     "requires", "obsoletes", "scripts", "namespace_packages", "setup_requires",
     "tests_require", "eager_resources", "dependency_links"}
)  # fmt: skip
_DICTS = frozenset({"project_urls", "package_dir"})
_BOOLS = frozenset({"zip_safe", "include_package_data"})
#: Keys whose ``file:`` directive setuptools expands (for the others the text is a value).
_FILE_KEYS = frozenset(
    {"version", "long_description", "classifiers", "description", "install_requires",
     "entry_points"}
)  # fmt: skip


def cfg_value(key: str, raw: str) -> Any:
    """The value setuptools makes of ``key = raw`` in ``[metadata]``/``[options]``:
    a :class:`Directive`, a list, dict or bool, the requirement list, or the string;
    ``UNKNOWN`` for a form sapper does not translate."""
    directive = _directive(raw)
    if directive is not None:
        if directive.kind == "file" and key not in _FILE_KEYS:
            return UNKNOWN
        if directive.kind == "attr" and key != "version":
            return UNKNOWN
        return directive
    if key == "install_requires":
        from ..facts.setup_cfg import split_requirements

        return split_requirements(raw)
    if key == "packages":
        text = raw.strip()
        if text in {"find:", "find_namespace:"}:
            return text
        return cfg_list(raw)
    if key in _LISTS:
        return cfg_list(raw)
    if key in _DICTS:
        found = cfg_dict(raw)
        return UNKNOWN if found is None else found
    if key in _BOOLS:
        return cfg_bool(raw)
    return raw


def cfg_section_value(section: str, options: Mapping[str, str]) -> Any:
    """The value of a setup.cfg ``[options.*]`` subsection as setuptools reads it."""
    if section == "options.extras_require":
        from ..facts.setup_cfg import split_requirements

        extras: dict[str, Any] = {}
        for key, raw in options.items():
            directive = _directive(raw)
            extras[key] = directive if directive is not None else split_requirements(raw)
        return extras
    if section in {"options.package_data", "options.exclude_package_data"}:
        data: dict[str, list[str]] = {}
        for key, raw in options.items():
            # ``_parse_package_data``: ``*`` means every package (the ``""`` key)
            data["" if key == "*" else key] = cfg_list(raw)
        return data
    if section == "options.entry_points":
        return {group: cfg_list(raw) for group, raw in options.items()}
    if section == "options.packages.find":
        found: dict[str, Any] = {}
        for key, raw in options.items():
            items = cfg_list(raw)
            if key == "where":  # ``where = where[0]``
                if items:
                    found[key] = items[0]
            elif items:
                found[key] = items
        return found
    return UNKNOWN


def requirements(value: Any) -> list[str] | None:
    """A requirement list from setup.py's ``str`` or list value, split as setuptools does."""
    if isinstance(value, str):
        return list(requirement_lines(value))
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(requirement_lines(list(value)))
    return None


#: The setup() keywords setuptools itself handles (the attributes of setuptools 84.2.1's
#: ``Distribution()`` and of its metadata, and the setup keywords setuptools registers). A
#: keyword outside this set belongs to a plugin (cffi's ``cffi_modules``...), whose handler
#: runs while setup() starts, before pyproject.toml is read, and may add to the packages or
#: modules setup() was given: cffi appends its generated module to ``py_modules``, which
#: ``[tool.setuptools] py-modules`` would then replace (soundfile 0.14.0 lost
#: ``_soundfile`` from top_level.txt).
SETUPTOOLS_KEYWORDS = frozenset(
    {
        "author", "author_email", "classifiers", "cmdclass", "command_options",
        "command_packages", "contact", "contact_email", "data_files", "dependency_links",
        "description", "download_url", "eager_resources", "entry_points",
        "exclude_package_data", "ext_modules", "ext_package", "extra_path", "extras_require",
        "headers", "include_dirs", "include_package_data", "install_requires", "keywords",
        "libraries", "licence", "license", "license_expression", "license_file",
        "license_files", "long_description", "long_description_content_type", "maintainer",
        "maintainer_email", "name", "namespace_packages", "obsoletes", "options",
        "package_data", "package_dir", "packages", "password", "platforms", "project_urls",
        "provides", "provides_extras", "py_modules", "python_requires", "requires",
        "script_args", "script_name", "scripts", "setup_requires", "src_root", "test_loader",
        "test_suite", "tests_require", "url", "use_2to3", "use_2to3_exclude_fixers",
        "use_2to3_fixers", "convert_2to3_doctests", "version", "zip_safe",
    }
)  # fmt: skip


def plugin_keywords(given: Mapping[str, Given], version_plugins: Iterable[str]) -> list[str]:
    """The setup.py keywords of plugins other than version plugins (sorted)."""
    skip = set(version_plugins)
    return sorted(
        key
        for key, value in given.items()
        if value.origin == "py"
        and key not in SETUPTOOLS_KEYWORDS
        and key not in skip
        and "." not in key
    )
