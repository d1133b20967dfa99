"""setup.cfg: the options setuptools reads from it, and the file without those that move.

Options are read through the facts layer (``SetupCfgFacts``: configparser as setuptools
runs it, keys normalised); the edit goes line by line through ``sapper.fix``'s ``IniDoc``,
so every other byte (other tools' sections, comments) stays. Comment lines directly above a
moved option, or inside its value, leave with it and are returned for pyproject.toml.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..facts.setup_cfg import SetupCfgFacts
from ..fix.setup_cfg import IniDoc
from ..inputs.sources import ProjectFiles
from ._model import Refusal
from ._values import Given, cfg_section_value, cfg_value

__all__ = ["CfgEdit", "edit_setup_cfg", "read_setup_cfg"]

PATH = "setup.cfg"

#: ``ConfigMetadataHandler.aliases``: names setuptools reads as another key.
_ALIASES = {
    "home_page": "url",
    "summary": "description",
    "classifier": "classifiers",
    "platform": "platforms",
}

#: The keys setuptools applies from ``[metadata]`` (attributes of the distribution's
#: metadata). A key in the other section is read onto an object nothing reads it from, so
#: it has no effect: ``[options] platforms = any`` writes no ``Platform`` (checked with
#: setuptools 84.2.1, as ``[metadata] install_requires`` and ``python_requires`` write no
#: requirement). Such a key stays where it is, without effect, and is not moved.
METADATA_KEYS = frozenset(
    {
        "name",
        "version",
        "author",
        "author_email",
        "maintainer",
        "maintainer_email",
        "url",
        "download_url",
        "license",
        "license_expression",
        "license_file",
        "license_files",
        "description",
        "long_description",
        "long_description_content_type",
        "keywords",
        "platforms",
        "classifiers",
        "project_urls",
        "provides",
        "requires",
        "obsoletes",
        "provides_extras",
    }
)

#: ``[options.*]`` subsections read as one option each.
SUBSECTIONS = {
    "options.extras_require": "extras_require",
    "options.entry_points": "entry_points",
    "options.package_data": "package_data",
    "options.exclude_package_data": "exclude_package_data",
    "options.packages.find": "packages.find",
}


def read_setup_cfg(files: ProjectFiles) -> tuple[dict[str, Given], list[Refusal]]:
    """The options of ``[metadata]``, ``[options]`` and its subsections, by setuptools name."""
    facts = SetupCfgFacts(files)
    if facts.data is None:
        return {}, []
    from ..facts.setup_cfg import parse_setup_cfg

    if parse_setup_cfg(facts.data, optionxform_str=True, encoding="utf-8").error is not None:
        return {}, [
            Refusal(
                "setup-cfg-unreadable",
                "configparser cannot read setup.cfg (sapper check says why)",
                PATH,
            )
        ]
    values = facts.values
    given: dict[str, Given] = {}
    subs: dict[str, dict[str, str]] = {}
    lines: dict[str, int | None] = {}
    for item in values:
        if item.section in {"metadata", "options"}:
            key = _ALIASES.get(item.key, item.key) if item.section == "metadata" else item.key
            if (key in METADATA_KEYS) != (item.section == "metadata"):
                continue  # in the wrong section: setuptools ignores it, so it stays
            given[key] = Given(
                key,
                "cfg",
                cfg_value(key, item.value),
                section=item.section,
                line=item.line,
                cfg_name=item.key,
            )
        elif item.section in SUBSECTIONS:
            subs.setdefault(item.section, {})[item.key] = item.value
            lines.setdefault(item.section, item.line)
    for section, options in subs.items():
        key = SUBSECTIONS[section]
        given[key] = Given(
            key, "cfg", cfg_section_value(section, options), section=section, line=lines[section]
        )
    return given, []


@dataclass(frozen=True, slots=True)
class CfgEdit:
    #: The new text; None when nothing but blank lines would remain (the file goes).
    text: str | None
    comments: tuple[tuple[str, str], ...]


def _comment(line: str) -> bool:
    return line.strip().startswith(("#", ";"))


def edit_setup_cfg(text: str, moved: Iterable[tuple[Given, str]]) -> CfgEdit:
    """``text`` without the moved options (whole subsections for the ``[options.*]`` ones)
    and the sections they leave empty."""
    doc = IniDoc(text)
    comments: list[tuple[str, str]] = []
    touched: set[str] = set()
    gone: set[int] = set()

    def take(first: int, last: int, to: str) -> None:
        # comment lines directly above (up to a blank line or anything else)
        above = first - 1
        while above >= 0 and _comment(doc.lines[above]) and above not in gone:
            above -= 1
        for i in range(above + 1, last + 1):
            if _comment(doc.lines[i]):
                comments.append((to, doc.lines[i].strip().lstrip("#;").strip()))
            gone.add(i)
            doc._replace[i] = []  # IniDoc's line edits

    for given, to in moved:
        if given.origin != "cfg" or given.section is None:
            continue
        section = doc.section(given.section)
        if section is None:
            continue
        if given.section in SUBSECTIONS:
            for opt in section.options:
                if not opt.deleted:
                    take(opt.line, opt.last, to)
                    opt.deleted = True
            touched.add(given.section)
            continue
        found = doc.find(given.section, given.cfg_name or given.key)
        if found is None:
            continue
        take(found.line, found.last, to)
        found.deleted = True
        touched.add(given.section)
    for name in sorted(touched):
        doc.drop_section_if_empty(name)
    new = doc.render()
    if not new.strip():
        return CfgEdit(None, tuple(comments))
    return CfgEdit(new, tuple(comments))
