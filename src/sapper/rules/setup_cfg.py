"""setup.cfg rules: keys and syntax, exactly as each setuptools version reads the file.

The verdicts come from replaying ``Distribution._parse_config_files`` with the facts that
``scripts/gen_setuptools_facts.py`` extracted from every setuptools wheel: which sections
are checked, which are exempt, whether a key is converted, warned about or rejected, and
the due date of the warning.
"""

from __future__ import annotations

import configparser
import datetime as _dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ..model import Finding, Reference
from ..versions import CfgFacts, KeyCheck
from ._base import Context, Rule, register
from ._cfgread import (
    KeyLocation,
    line_of_offset,
    locate_keys,
    locate_sections,
    parse_setup_cfg,
)

__all__ = ["analyse_setup_cfg"]

PATH = "setup.cfg"

_DOCS = "https://setuptools.pypa.io/en/latest/userguide/declarative_config.html"
_REF_4870 = Reference(
    title="setuptools 78.0.0 changelog (#4870): options with uppercase or dash characters rejected",
    url="https://setuptools.pypa.io/en/latest/history.html#v78-0-0",
)
_REF_4911 = Reference(
    title="setuptools 78.0.2 changelog (#4911): removal postponed, deprecated until 2026-03-03",
    url="https://setuptools.pypa.io/en/latest/history.html#v78-0-2",
)
_REF_5011 = Reference(
    title="pypa/setuptools discussion #5011: dash-separated and uppercase keys",
    url="https://github.com/pypa/setuptools/discussions/5011",
)
_REF_1608 = Reference(
    title="setuptools 54.1.0 changelog (#1608): dash-separated keys deprecated",
    url="https://setuptools.pypa.io/en/latest/history.html#v54-1-0",
)
_REF_2592 = Reference(
    title="setuptools 54.1.1 changelog (#2592): uppercase keys in [metadata] deprecated",
    url="https://setuptools.pypa.io/en/latest/history.html#v54-1-1",
)
_REF_1735 = Reference(
    title="setuptools 41.0.0 changelog (#1735): setup.cfg must be UTF-8",
    url="https://setuptools.pypa.io/en/latest/history.html#v41-0-0",
)
_REF_CONFIGPARSER = Reference(
    title="Python configparser: supported INI file structure",
    url="https://docs.python.org/3/library/configparser.html#supported-ini-file-structure",
)

# Keys setuptools reads from [metadata] (setuptools/config/setupcfg.py,
# ConfigMetadataHandler) and the aliases it maps, for advice only: verdicts never depend
# on this table.
_METADATA_KEYS = frozenset(
    {
        "name", "version", "url", "download_url", "project_urls", "author", "author_email",
        "maintainer", "maintainer_email", "classifiers", "license", "license_files",
        "license_file", "license_expression", "description", "long_description",
        "long_description_content_type", "keywords", "platforms", "provides", "requires",
        "obsoletes",
    }
)  # fmt: skip
_METADATA_ALIASES = {
    "home_page": "url",
    "summary": "description",
    "classifier": "classifiers",
    "platform": "platforms",
    "license_file": "license_files",  # what `sapper fix` writes
}

_CONTENT_TYPES = {".rst": "text/x-rst", ".md": "text/markdown", ".markdown": "text/markdown"}


def _content_type(filename: str) -> str:
    return _CONTENT_TYPES.get(PurePosixPath(filename.strip()).suffix.lower(), "text/plain")


def _ini_option(key: str, value: str) -> str:
    """``key = value`` as setup.cfg text: continuation lines indented, so that the
    suggestion is valid INI that configparser reads back as ``value``."""
    first, *rest = value.split("\n")
    head = f"{key} = {first.strip()}" if first.strip() else f"{key} ="
    return "\n".join([head, *(f"    {line.strip()}" if line.strip() else "" for line in rest)])


def _advice(section: str, key: str, value: str) -> tuple[str, str]:
    """What to write instead of ``key`` in ``section``: (short advice, replacement text)."""
    name = key.replace("-", "_").lower()
    if section == "metadata":
        if name == "description_file":
            files = value.split()
            target = ", ".join(files) if files else "README.rst"
            fix = (
                f"long_description = file: {target}\n"
                f"long_description_content_type = {_content_type(files[0] if files else target)}"
            )
            return (
                f"setuptools never read `{key}` (a pbr key) and ignores it; write "
                f"`long_description = file: {target}` and "
                f"`long_description_content_type = {_content_type(target)}`",
                fix,
            )
        if name in _METADATA_ALIASES:
            new = _METADATA_ALIASES[name]
            return f"write `{new}`", _ini_option(new, value)
        if name in ("requires_dist", "requires"):
            return (
                f"setuptools does not install requirements listed in `{key}`; "
                "move them to `install_requires` in [options]",
                "[options]\n" + _ini_option("install_requires", "\n" + value.strip()),
            )
        if name == "provides_extra":
            return (
                f"setuptools ignores `{key}`; declare each extra as a key of "
                "[options.extras_require] with its requirements",
                "[options.extras_require]\n" + "\n".join(f"{x} =" for x in value.split()),
            )
        if name == "description_content_type":
            return (
                "write `long_description_content_type`",
                _ini_option("long_description_content_type", value),
            )
        if name in ("requires_python", "python_requires"):
            return (
                f"setuptools ignores `{key}` in [metadata]; write `python_requires` in [options]",
                "[options]\n" + _ini_option("python_requires", value),
            )
        if name not in _METADATA_KEYS:
            return (
                f"setuptools does not know `{name}` either and ignores it; "
                "delete the key or use an option listed in the setuptools docs",
                # what `sapper fix` writes: the key commented out under a note
                f"# sapper fix: setuptools ignores {key} (SC001)\n"
                + "\n".join(f"# {line}".rstrip() for line in _ini_option(key, value).split("\n")),
            )
    return f"write `{name}`", _ini_option(name, value)


@dataclass(slots=True)
class _Acc:
    """Versions in which one occurrence of a key warns, fails, or fails when enforced."""

    warns: set[str] = field(default_factory=set)
    fails: set[str] = field(default_factory=set)
    enforced: set[str] = field(default_factory=set)
    due: set[str] = field(default_factory=set)
    dash: bool = False
    upper: bool = False
    value: str = ""


def _apply(acc: _Acc, check: KeyCheck, versions: tuple[str, ...], today: str) -> None:
    if check.action == "raise":
        acc.fails.update(versions)
        acc.enforced.update(versions)
    elif check.action == "warn":
        acc.warns.update(versions)
        if check.due_date:
            acc.due.add(check.due_date)
            if check.enforceable and check.due_date < today:
                acc.enforced.update(versions)


def _error_location(
    exc: Exception, data: bytes, locations: list[KeyLocation]
) -> tuple[int | None, int | None]:
    if isinstance(exc, UnicodeDecodeError):
        return line_of_offset(data, exc.start)
    lineno = getattr(exc, "lineno", None)
    if (
        isinstance(exc, configparser.ParsingError)
        and not isinstance(exc, configparser.MissingSectionHeaderError)
        and exc.errors
    ):
        lineno = exc.errors[0][0]
    if isinstance(lineno, int):
        return lineno, 1
    if isinstance(exc, configparser.InterpolationError):
        for loc in locations:
            if loc.section == exc.section and loc.key.lower() == exc.option.lower():
                return loc.line, loc.column
    return None, None


def _error_finding(exc: Exception) -> tuple[str, str, str]:
    """(code, message, fix) for an exception setuptools would raise while reading."""
    if isinstance(exc, UnicodeDecodeError):
        return (
            "SC003",
            f"setup.cfg is not valid UTF-8 ({exc.reason}: byte 0x{exc.object[exc.start]:02x}); "
            "setuptools reads it as UTF-8 and stops with UnicodeDecodeError",
            "re-save setup.cfg as UTF-8",
        )
    if isinstance(exc, configparser.DuplicateSectionError):
        return (
            "SC005",
            f"section [{exc.section}] appears twice; configparser rejects the file "
            "(DuplicateSectionError)",
            f"merge the two [{exc.section}] sections into one",
        )
    if isinstance(exc, configparser.DuplicateOptionError):
        return (
            "SC005",
            f"key `{exc.option}` appears twice in [{exc.section}]; configparser rejects the "
            "file (DuplicateOptionError)",
            f"keep one `{exc.option}` in [{exc.section}]",
        )
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return (
            "SC004",
            f"line {exc.lineno} comes before any [section] header: {exc.line.strip()!r}; "
            "configparser rejects the file (MissingSectionHeaderError)",
            "put the line under a section header such as [metadata], or delete it"
            + (
                " (the file starts with a byte-order mark: save it as UTF-8 without BOM)"
                if exc.line.startswith("\ufeff")
                else ""
            ),
        )
    if isinstance(exc, configparser.ParsingError):
        lineno, line = exc.errors[0] if exc.errors else (None, "")
        return (
            "SC004",
            f"line {lineno} is neither a `key = value` pair, a [section] header nor a comment: "
            f"{str(line).strip()!r}; configparser rejects the file (ParsingError)",
            "add `=` and a value, indent it as a continuation line, or comment it out with #",
        )
    if isinstance(exc, configparser.InterpolationError):
        return (
            "SC006",
            f"value of `{exc.option}` in [{exc.section}] uses `%` interpolation that "
            f"configparser cannot resolve ({type(exc).__name__}); setuptools reads every "
            "value through it",
            "write a literal percent sign as `%%`",
        )
    return ("SC004", f"configparser rejects setup.cfg: {exc}", "")  # pragma: no cover


def _describe(
    ctx: Context,
    fails: tuple[str, ...],
    enforced: tuple[str, ...],
    due: str | None,
    warns: tuple[str, ...],
) -> str:
    parts: list[str] = []
    if fails:
        parts.append("fails in setuptools " + " | ".join(fails))
    if due:
        when = "overdue since" if due < ctx.today.isoformat() else "due"
        parts.append(f"deprecation {when} {due}")
    elif warns and not fails:
        parts.append("deprecated")
    extra = [s for s in enforced if s not in fails]
    if extra and due:
        parts.append("fails with SETUPTOOLS_ENFORCE_DEPRECATION=1 in " + " | ".join(extra))
    return "; ".join(parts)


def analyse_setup_cfg(ctx: Context) -> tuple[Finding, ...]:
    """Every SC finding of the project (cached per context)."""
    result: tuple[Finding, ...] = ctx.memo("setup_cfg", lambda: _analyse(ctx))
    return result


def _analyse(ctx: Context) -> tuple[Finding, ...]:
    data = ctx.files.files.get(PATH)
    if data is None:
        return ()
    cat = ctx.catalogue
    today = ctx.today.isoformat()
    locations = locate_keys(data)
    by_key: dict[tuple[str, str], list[KeyLocation]] = {}
    for loc in locations:
        by_key.setdefault((loc.section, loc.key), []).append(loc)

    # Group eras by how they read the file, parse once per group.
    groups: dict[tuple[bool, str, frozenset[str]], list[tuple[tuple[str, ...], CfgFacts]]] = {}
    for versions, facts in cat.cfg_eras:
        known = tuple(v for v in versions if cat.release(v) is not None)
        groups.setdefault((facts.optionxform_str, facts.encoding, facts.venv_ignored), []).append(
            (known, facts)
        )

    keys: dict[tuple[str, int, int], _Acc] = {}
    key_meta: dict[tuple[str, int, int], tuple[str, str, str | None]] = {}
    errors: dict[tuple[str, str], tuple[set[str], tuple[int | None, int | None], str]] = {}

    sections_seen: tuple[str, ...] = ()
    section_lines = locate_sections(data)
    for (xform, encoding, skip), eras in groups.items():
        parsed = parse_setup_cfg(data, optionxform_str=xform, encoding=encoding, skip=skip)
        sections_seen = sections_seen or parsed.sections
        group_versions = [v for versions, _ in eras for v in versions]
        if parsed.error is not None:
            code, message, fix = _error_finding(parsed.error)
            where = _error_location(parsed.error, data, locations)
            entry = errors.setdefault((code, message), (set(), where, fix))
            entry[0].update(group_versions)
        for section, opt, value in parsed.options:
            spot, inherited = _find_location(by_key, section, opt)
            if spot is None:
                continue
            ident = (section, spot.line, spot.column)
            acc = keys.get(ident)
            if acc is None:
                acc = keys[ident] = _Acc(value=value)
                key_meta[ident] = (section, spot.key, inherited)
            for era_versions, facts in eras:
                if "-" in opt and facts.checks(facts.dash, section):
                    acc.dash = True
                    _apply(acc, facts.dash, era_versions, today)
                if not opt.replace("-", "_").islower() and facts.checks(facts.upper, section):
                    acc.upper = True
                    _apply(acc, facts.upper, era_versions, today)

    for section in sections_seen:
        for prefix in ("metadata", "options"):
            failing_here: set[str] = set()
            lookup = ""
            for era_versions, handlers in cat.section_eras:
                split = str(handlers.get("split", "replace"))
                method = _section_method(section, prefix, split)
                if method is None:
                    continue
                lookup = method
                if method not in handlers.get(prefix, ()):
                    failing_here.update(v for v in era_versions if cat.release(v) is not None)
            if failing_here:
                sub = lookup.removeprefix("parse_section").removeprefix("_")
                message = (
                    f"section [{section}] starts with `{prefix}` but is not a section setuptools "
                    f"knows (it looks for a handler for [{prefix}.{sub.replace('__', '.')}]) and "
                    "stops with 'Unsupported distribution option section'"
                )
                errors.setdefault(
                    ("SC007", message),
                    (
                        set(),
                        (section_lines.get(section), 1),
                        "rename the section (setuptools knows [options], [options.packages.find], "
                        "[options.entry_points], [options.package_data], "
                        "[options.exclude_package_data], [options.extras_require], "
                        "[options.data_files]) or move its keys to another tool's file",
                    ),
                )[0].update(failing_here)

    findings: list[Finding] = []
    for (code, message), (failing, (line, col), fix) in errors.items():
        fails = cat.to_specifiers(failing)
        findings.append(
            Finding(
                code=code,
                slug=_SLUGS[code],
                message=f"{message} (fails in setuptools {' | '.join(fails)})",
                path=PATH,
                line=line,
                column=col,
                fails=fails,
                fails_enforced=fails,
                fix=fix or None,
            )
        )
    for ident, acc in keys.items():
        if not (acc.dash or acc.upper):
            continue
        # A key that only ever drew a warning in old releases (54.1.0 checked every
        # section) is not worth reporting: nothing fails and nothing warns today.
        if not (acc.fails or acc.enforced or cat.newest in acc.warns):
            continue
        section, key, inherited = key_meta[ident]
        _, key_line, key_col = ident
        code = "SC001" if acc.dash else "SC002"
        kind = (
            "dash-separated and uppercase key"
            if acc.dash and acc.upper
            else "dash-separated key"
            if acc.dash
            else "uppercase key"
        )
        advice, fix = _advice(section, key, acc.value)
        fails = cat.to_specifiers(acc.fails)
        enforced = cat.to_specifiers(acc.enforced | acc.fails)
        warns = cat.to_specifiers(acc.warns)
        due = max(acc.due) if acc.due else None
        place = f"[{section}]" + (f" (inherited from [{inherited}])" if inherited else "")
        described = _describe(ctx, fails, enforced, due, warns)
        findings.append(
            Finding(
                code=code,
                slug=_SLUGS[code],
                message=f"{kind} `{key}` in {place}: {advice}"
                + (f" ({described})" if described else ""),
                path=PATH,
                line=key_line,
                column=key_col,
                fails=fails,
                fails_enforced=enforced,
                warns=warns,
                due_date=due,
                fix=fix or None,
            )
        )
    findings.sort(key=lambda f: (f.line or 0, f.column or 0, f.code))
    return tuple(findings)


def _section_method(section: str, prefix: str, split: str) -> str | None:
    """The handler method setuptools looks up for ``section``, or None if not its prefix."""
    if not section.startswith(prefix):
        return None
    if split == "partition":
        sub = section[len(prefix) :].lstrip(".")
    else:  # "replace": every occurrence of the prefix is removed
        sub = section.replace(prefix, "").strip(".")
    return ("parse_section" + (f"_{sub}" if sub else "")).replace(".", "__")


def _find_location(
    by_key: dict[tuple[str, str], list[KeyLocation]], section: str, opt: str
) -> tuple[KeyLocation | None, str | None]:
    for sec, inherited in ((section, None), ("DEFAULT", "DEFAULT")):
        locs = by_key.get((sec, opt))
        if locs:
            return locs[-1], inherited
        # configparser lowercased the key (setuptools < 53.1.0): match case-insensitively.
        for (s, k), found in by_key.items():
            if s == sec and k.lower() == opt:
                return found[-1], inherited
    return None, None


_SLUGS = {
    "SC001": "setupcfg-dash-separated-key",
    "SC002": "setupcfg-uppercase-key",
    "SC003": "setupcfg-not-utf8",
    "SC004": "setupcfg-syntax-error",
    "SC005": "setupcfg-duplicate",
    "SC006": "setupcfg-interpolation",
    "SC007": "setupcfg-unsupported-section",
}


def _checker(code: str) -> _Check:
    return _Check(code)


@dataclass(frozen=True, slots=True)
class _Check:
    """A picklable check that selects one code from the shared setup.cfg analysis."""

    code: str

    def __call__(self, ctx: Context) -> Iterable[Finding]:
        return [f for f in analyse_setup_cfg(ctx) if f.code == self.code]


def _rule(
    code: str,
    summary: str,
    doc: str,
    example: str,
    refs: tuple[Reference, ...],
    *,
    fixable: bool = False,
) -> Rule:
    return register(
        Rule(
            code=code,
            slug=_SLUGS[code],
            family="setup.cfg",
            summary=summary,
            doc=doc.strip(),
            references=refs,
            example=((PATH, example),),
            check=_Check(code),
            fixable=fixable,
        )
    )


_rule(
    "SC001",
    "Dash-separated key in a setuptools section of setup.cfg",
    """
## What it does
Finds keys with a `-` in `[metadata]`, in `[options]` and its subsections, and in sections
named after a setuptools or distutils command (`[egg_info]`, `[sdist]`, `[bdist_wheel]`
from 70.1.0 ...). The subsections whose keys are data, not option names
(`[options.extras_require]`, `[options.entry_points]`, `[options.package_data]`,
`[options.exclude_package_data]`, `[options.data_files]`) and other tools' sections
(`[flake8]`, `[tool:pytest]`) are not checked, as in setuptools.

## Why is this bad?
setuptools 78.0.1 raised `InvalidConfigError` on every such key and broke thousands of
sdists until 78.0.2 reverted it hours later. Every other version since 54.1.0 warns; the
warning's due date (2026-03-03) has passed, so the next release may make it an error
again, and `SETUPTOOLS_ENFORCE_DEPRECATION=1` already does. Some of these keys were never
read at all: `description-file` is pbr's, so setuptools ignores it and the project has no
long description.

## Example
```ini
[metadata]
name = example
author-email = dev@example.org
description-file = README.rst
```

## Use instead
```ini
[metadata]
name = example
author_email = dev@example.org
long_description = file: README.rst
long_description_content_type = text/x-rst
```

## References
- setuptools 78.0.0 changelog, #4870; 78.0.2, #4911; discussion #5011
- `Distribution._enforce_underscore` in `setuptools/dist.py`
""",
    "[metadata]\nname = example\nauthor-email = dev@example.org\n",
    (_REF_4870, _REF_4911, _REF_5011, _REF_1608),
    fixable=True,
)
_rule(
    "SC002",
    "Uppercase key in a setuptools section of setup.cfg",
    """
## What it does
Finds keys that are not all lowercase (Python's `str.islower()` is false) in the sections
setuptools checks: `[metadata]`, `[options*]` and command sections, except the data
subsections (`[options.extras_require]`, `[options.entry_points]`, ...).

## Why is this bad?
Since 53.1.0 setuptools keeps the case of setup.cfg keys. 78.0.1 raised
`InvalidConfigError: Invalid uppercase key 'Name' in 'metadata'`; every other version since
54.1.1 warns (only for `[metadata]` before 78), with a due date of 2026-03-03 that has
passed.

## Example
```ini
[metadata]
Name = example
Version = 1.0
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- setuptools 54.1.1 changelog, #2592; 78.0.0, #4870; 78.0.2, #4911
- `Distribution._enforce_option_lowercase` in `setuptools/dist.py`
""",
    "[metadata]\nName = example\nversion = 1.0\n",
    (_REF_2592, _REF_4870, _REF_4911, _REF_5011),
    fixable=True,
)
_rule(
    "SC003",
    "setup.cfg is not valid UTF-8",
    """
## What it does
Decodes setup.cfg as UTF-8, as setuptools does.

## Why is this bad?
Since 41.0.0 setuptools opens setup.cfg as UTF-8 and the build stops with
`UnicodeDecodeError` on any other encoding (a Latin-1 author name is the usual cause).

## Example
A setup.cfg saved as Latin-1:
```ini
[metadata]
author = Jos\xe9
```

## Use instead
The same file saved as UTF-8.

## References
- setuptools 41.0.0 changelog, #1735
""",
    "[metadata]\nauthor = Jos\udce9\n",
    (_REF_1735,),
)
_rule(
    "SC004",
    "setup.cfg has INI syntax configparser rejects",
    """
## What it does
Parses setup.cfg with Python's configparser, as setuptools does, and reports lines before
any section header, lines that are not `key = value`, and a UTF-8 byte-order mark.

## Why is this bad?
configparser raises `MissingSectionHeaderError` or `ParsingError` and the build fails in
every setuptools version.

## Example
```ini
name = example
[metadata]
version
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- Python documentation: configparser, supported INI file structure
""",
    "[metadata]\nname = example\nversion\n",
    (_REF_CONFIGPARSER,),
)
_rule(
    "SC005",
    "Duplicate section or key in setup.cfg",
    """
## What it does
Finds a section that appears twice, or a key that appears twice in one section. Before
setuptools 53.1.0 keys were compared case-insensitively (`Name` and `name` clash).

## Why is this bad?
configparser is strict: `DuplicateSectionError` or `DuplicateOptionError` fails the build
in every setuptools version.

## Example
```ini
[metadata]
name = example

[metadata]
version = 1.0
```

## Use instead
```ini
[metadata]
name = example
version = 1.0
```

## References
- Python documentation: configparser, `strict`
""",
    "[metadata]\nname = example\n\n[metadata]\nversion = 1.0\n",
    (_REF_CONFIGPARSER,),
)
_rule(
    "SC006",
    "Unresolvable % interpolation in setup.cfg",
    """
## What it does
Reads every value with configparser's basic interpolation, as setuptools does for every
section (including `[flake8]` and `[tool:pytest]`), and reports `%` signs it cannot
resolve.

## Why is this bad?
`InterpolationSyntaxError` or `InterpolationMissingOptionError` fails the build in every
setuptools version, even when the value belongs to another tool.

## Example
```ini
[tool:pytest]
log_format = %(asctime)s %(message)s
```

## Use instead
```ini
[tool:pytest]
log_format = %%(asctime)s %%(message)s
```
or move the tool's settings to its own file (`pytest.ini`, `.flake8`).

## References
- Python documentation: configparser, interpolation of values
""",
    "[metadata]\nname = example\n\n[tool:pytest]\nlog_format = %(asctime)s\n",
    (_REF_CONFIGPARSER,),
)
_rule(
    "SC007",
    "setup.cfg section that starts with `metadata` or `options` but that setuptools lacks",
    """
## What it does
Finds sections whose name starts with `metadata` or `options` (a prefix match, as in
setuptools: `[options_extra]` and `[options.test]` count) for which setuptools' config
handlers have no parser. The sub-sections each version accepts come from the handlers in
that version's wheel (`[options.data_files]` exists since 40.5.0).

## Why is this bad?
`parse_configuration` raises `Unsupported distribution option section` and the build fails
in every setuptools version that lacks the handler, whatever the section contains.

## Example
```ini
[metadata]
name = example

[options.extras]
test = pytest
```

## Use instead
```ini
[metadata]
name = example

[options.extras_require]
test = pytest
```

## References
- `ConfigHandler.parse` in `setuptools/config/setupcfg.py`
- setuptools docs: configuring setuptools using setup.cfg files
""",
    "[metadata]\nname = example\n\n[options.extras]\ntest = pytest\n",
    (Reference(title="setuptools: configuring setuptools using setup.cfg files", url=_DOCS),),
)


# -- values in setup.cfg ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CfgValue:
    section: str
    key: str
    value: str
    line: int | None
    column: int | None


def cfg_values(ctx: Context, *, partial: bool = False) -> tuple[CfgValue, ...]:
    """setup.cfg options as current setuptools reads them (keys with underscores and
    lowercased in setuptools sections), with their lines. When configparser fails on the
    file, () — or, with ``partial``, the options read before the error."""

    def compute() -> tuple[tuple[CfgValue, ...], bool]:
        data = ctx.files.files.get(PATH)
        if data is None:
            return (), False
        parsed = parse_setup_cfg(data, optionxform_str=True, encoding="utf-8")
        where: dict[tuple[str, str], KeyLocation] = {}
        for found in locate_keys(data):
            where.setdefault((found.section, found.key.strip()), found)
        out = []
        for section, key, value in parsed.options:
            loc = where.get((section, key))
            norm = key
            if section == "metadata" or section.startswith("options"):
                norm = key.replace("-", "_").lower()
            out.append(
                CfgValue(
                    section,
                    norm,
                    value,
                    loc.line if loc is not None else None,
                    loc.column if loc is not None else None,
                )
            )
        return tuple(out), parsed.error is not None

    values, failed = ctx.memo("setup.cfg:values", compute)
    return values if partial or not failed else ()


def _value_finding(
    ctx: Context,
    code: str,
    item: CfgValue,
    message: str,
    failing: set[str],
    *,
    fix: str | None,
) -> Finding:
    fails = ctx.catalogue.to_specifiers(failing)
    return Finding(
        code=code,
        slug=_VALUE_SLUGS[code],
        message=f"[{item.section}] {item.key}: {message} (fails in setuptools {' | '.join(fails)})",
        path=PATH,
        line=item.line,
        column=item.column,
        fails=fails,
        fails_enforced=fails,
        fix=fix,
    )


_VALUE_SLUGS = {
    "SC008": "setupcfg-license-file-directive",
    "SC009": "setupcfg-bdist-wheel-universal",
    "SC010": "setupcfg-invalid-requirement",
    "SC011": "setupcfg-invalid-version",
    "SC012": "setupcfg-description-newline",
}


def _check_license_file(ctx: Context) -> Iterable[Finding]:
    return [
        _value_finding(
            ctx,
            "SC008",
            item,
            "`license = file:` is rejected since setuptools 40.7.0 (`ValueError: Only "
            "strings are accepted for the license field, files are not accepted`)",
            ctx.catalogue.between("40.7.0"),
            fix=f"license_files = {item.value.strip()[5:].strip()}",
        )
        for item in cfg_values(ctx)
        if item.section == "metadata"
        and item.key == "license"
        and item.value.strip().startswith("file:")
    ]


_TRUE = frozenset({"1", "true", "yes"})
_STRTOBOOL_TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})


def _check_universal(ctx: Context) -> Iterable[Finding]:
    due = "2025-08-30"
    overdue = ctx.today > _date(due)
    findings = []
    for item in cfg_values(ctx):
        if item.section not in {"bdist_wheel", "wheel"} or item.key.lower() != "universal":
            continue
        # [bdist_wheel] options go through strtobool; bdist_wheel reads the old [wheel]
        # section itself and accepts only 1/true/yes there.
        truthy = _STRTOBOOL_TRUE if item.section == "bdist_wheel" else _TRUE
        if item.value.strip().lower() not in truthy:
            continue
        warning = ctx.catalogue.between("75.1.0")
        enforced = ctx.catalogue.to_specifiers(warning if overdue else set())
        warns = ctx.catalogue.to_specifiers(warning)
        findings.append(
            Finding(
                code="SC009",
                slug=_VALUE_SLUGS["SC009"],
                message=(
                    f"[{item.section}] universal = {item.value.strip()} is deprecated since "
                    "setuptools 75.1.0 "
                    f"(`bdist_wheel.universal is deprecated`, due {due}"
                    + (
                        f"; overdue: fails in setuptools {' | '.join(enforced)} with "
                        "SETUPTOOLS_ENFORCE_DEPRECATION=1)"
                        if overdue
                        else ")"
                    )
                ),
                path=PATH,
                line=item.line,
                column=item.column,
                fails=(),
                fails_enforced=enforced,
                warns=warns,
                due_date=due,
                fix="remove `universal = 1` (and the [bdist_wheel] section if it is empty); "
                "a pure-Python wheel is py3-none-any",
            )
        )
    return findings


def _date(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


def split_requirements(value: str) -> list[str]:
    """``_parse_requirements_list``: lines if the value has several, else ``;``-separated
    items (which is how a one-line `foo; python_version<"3"` loses its marker), then what
    ``_reqs.parse_strings`` keeps of them."""
    from ._values import requirement_lines

    items = value.splitlines() if "\n" in value else value.split(";")
    # setuptools then parses them with `_reqs.parse_strings`: `#` comment lines and
    # ` #` trailing comments are dropped, backslash continuations joined.
    return list(requirement_lines(items))


def _requirement_key(item: CfgValue) -> bool:
    return (
        item.section == "options" and item.key in {"install_requires", "setup_requires"}
    ) or item.section == "options.extras_require"


def _check_requirements(ctx: Context) -> Iterable[Finding]:
    from ._values import requirement_problem, specifier_problem

    findings = []
    everywhere = ctx.catalogue.between()
    for item in cfg_values(ctx):
        value = item.value.strip()
        if value.startswith("file:"):
            if _requirement_key(item):
                findings.append(
                    _value_finding(
                        ctx,
                        "SC010",
                        item,
                        "`file:` for requirements needs setuptools 62.6.0; older releases "
                        f"read {value!r} as a requirement and reject it",
                        ctx.catalogue.between(None, "62.6.0"),
                        fix='require "setuptools>=62.6" in build-system.requires, or list '
                        "the requirements inline",
                    )
                )
            continue
        if item.section == "options" and item.key == "python_requires":
            problem = specifier_problem(value)
            if problem:
                findings.append(
                    _value_finding(
                        ctx,
                        "SC010",
                        item,
                        f"{value!r} is not a valid specifier for `packaging` ({problem}); "
                        "setuptools 67 and later reject it",
                        ctx.catalogue.between("67.0.0"),
                        fix="write a PEP 440 specifier such as `>=3.6`",
                    )
                )
            continue
        if not _requirement_key(item):
            continue
        for req in split_requirements(item.value):
            problem = requirement_problem(req)
            if problem is None:
                continue
            hint = (
                " (a one-line value is split at `;`, so an environment marker must go on "
                "its own line with its requirement)"
                if "\n" not in item.value and ";" in value
                else ""
            )
            findings.append(
                _value_finding(
                    ctx,
                    "SC010",
                    item,
                    f"{req!r} is not a PEP 508 requirement ({problem}){hint}; setuptools 67 "
                    "and later reject it, and so does the `wheel` package that writes the "
                    "metadata with older setuptools",
                    everywhere,
                    fix="one PEP 508 requirement per line",
                )
            )
            break
    return findings


def _check_version(ctx: Context) -> Iterable[Finding]:
    from ._values import version_problem

    for item in cfg_values(ctx):
        if item.section != "metadata" or item.key != "version":
            continue
        value = item.value.strip()
        if value.startswith(("attr:", "file:")):
            return []
        problem = version_problem(value)
        if problem is None:
            return []
        return [
            _value_finding(
                ctx,
                "SC011",
                item,
                f"{value!r} is not a PEP 440 version: setuptools 66 and later fail with "
                f"`InvalidVersion: {problem}`",
                ctx.catalogue.between("66.0.0"),
                fix="use a PEP 440 version (1.0.0.dev1, 1.0.0+local, 1.0.0rc1, ...)",
            )
        ]
    return []


def _check_description(ctx: Context) -> Iterable[Finding]:
    for item in cfg_values(ctx):
        if item.section != "metadata" or item.key not in {"description", "summary"}:
            continue
        if "\n" not in item.value.strip():
            continue
        failing = ctx.catalogue.between("51.3.0", "51.3.3") | ctx.catalogue.between(
            "59.0.0", "59.4.0"
        )
        return [
            _value_finding(
                ctx,
                "SC012",
                item,
                "the one-line summary spans several lines: setuptools 51.3.0-51.3.2 and "
                "59.0.1-59.3.0 fail with `ValueError: Newlines are not allowed`; later ones "
                "keep only the first line with a deprecation warning",
                failing,
                fix="one line in `description`, the rest in `long_description`",
            )
        ]
    return []


def _value_rule(  # noqa: PLR0917
    code: str,
    summary: str,
    doc: str,
    example: str,
    refs: tuple[Reference, ...],
    check: Callable[[Context], Iterable[Finding]],
    *,
    fixable: bool = False,
) -> Rule:
    return register(
        Rule(
            code=code,
            slug=_VALUE_SLUGS[code],
            family="setup.cfg",
            summary=summary,
            doc=doc.strip(),
            references=refs,
            example=((PATH, example),),
            check=check,
            fixable=fixable,
        )
    )


_value_rule(
    "SC008",
    "`license = file:` in setup.cfg [metadata]",
    """
## What it does
Finds `license = file: ...` in the `[metadata]` section of setup.cfg.

## Why is this bad?
The `license` field is a short license name. setuptools 40.7.0 made a `file:` directive
there an error: `ValueError: Only strings are accepted for the license field, files are
not accepted`. The build fails in every later release.

## Example
```ini
[metadata]
name = example
license = file: LICENSE
```

## Use instead
```ini
[metadata]
name = example
license_files = LICENSE
```

## References
- setuptools 40.7.0 changelog (#1551)
""",
    "[metadata]\nname = example\nversion = 1.0\nlicense = file: LICENSE\n",
    (
        Reference(
            title="setuptools 40.7.0 changelog (#1551): file: rejected for license",
            url="https://setuptools.pypa.io/en/latest/history.html#v40-7-0",
        ),
    ),
    _check_license_file,
    fixable=True,
)

_value_rule(
    "SC009",
    "`[bdist_wheel] universal = 1`, deprecated and overdue",
    """
## What it does
Finds `universal = 1` (or `true`, `yes`, ...) in the `[bdist_wheel]` section of setup.cfg,
or in the old `[wheel]` section, which setuptools' `bdist_wheel` still reads.

## Why is this bad?
Universal (`py2.py3`) wheels are meaningless since Python 2's end of life. setuptools
75.1.0 deprecated the option with a due date of 2025-08-30, which has passed: the build
already fails under `SETUPTOOLS_ENFORCE_DEPRECATION=1` (while reading the configuration,
before anything is built), and a future release can make it an error for everyone.

## Example
```ini
[bdist_wheel]
universal = 1
```

## Use instead
Remove the option (and the section if it is empty); a pure-Python wheel is
`py3-none-any`.

## References
- setuptools 75.1.0 changelog (#4617)
""",
    "[metadata]\nname = example\nversion = 1.0\n\n[bdist_wheel]\nuniversal = 1\n",
    (
        Reference(
            title="setuptools 75.1.0 changelog (#4617): bdist_wheel.universal deprecated",
            url="https://setuptools.pypa.io/en/latest/history.html#v75-1-0",
        ),
    ),
    _check_universal,
    fixable=True,
)

_value_rule(
    "SC010",
    "Requirement or python_requires in setup.cfg that modern packaging rejects",
    """
## What it does
Parses `[options] install_requires`, `setup_requires`, `python_requires` and every entry of
`[options.extras_require]` as setuptools splits them (one requirement per line; a one-line
value is split at `;`) and checks each with `packaging`. A `file:` directive there needs
setuptools 62.6.0: older releases take `file: requirements.txt` for a requirement and
fail, which matters for builds capped at an older setuptools.

## Why is this bad?
setuptools 67.0.0 vendored packaging 23, which only accepts PEP 508 requirements and PEP
440 specifiers; `pytz>=2012f`, `foo>=1.0.*` or a pip option fail the build. With older
setuptools, the `wheel` package pip installs next to it rejects the same requirements when
it writes the metadata. A one-line `install_requires = foo; python_version<"3.8"` is split
at the `;`, so the marker becomes a requirement of its own and fails.

## Example
```ini
[options]
install_requires = pytz>=2012f
```

## Use instead
```ini
[options]
install_requires =
    pytz>=2012.6
```

## References
- setuptools 67.0.0 changelog (#3790): strict requirement parsing
""",
    "[metadata]\nname = example\nversion = 1.0\n\n[options]\ninstall_requires =\n    pytz>=2012f\n",
    (
        Reference(
            title="setuptools 67.0.0 changelog (#3790): strict requirement parsing",
            url="https://setuptools.pypa.io/en/latest/history.html#v67-0-0",
        ),
    ),
    _check_requirements,
)

_value_rule(
    "SC011",
    "setup.cfg [metadata] version is not a PEP 440 version",
    """
## What it does
Finds a literal `version` in `[metadata]` that is not a valid PEP 440 version.

## Why is this bad?
setuptools 66.0.0 removed support for non-PEP 440 versions: the build fails with
`InvalidVersion: Invalid version: '...'`.

## Example
```ini
[metadata]
name = example
version = 1.0.0-SNAPSHOT
```

## Use instead
```ini
[metadata]
name = example
version = 1.0.0.dev0
```

## References
- setuptools 66.0.0 changelog (#2497)
""",
    "[metadata]\nname = example\nversion = 1.0.0-SNAPSHOT\n",
    (
        Reference(
            title="setuptools 66.0.0 changelog (#2497): non-PEP 440 versions removed",
            url="https://setuptools.pypa.io/en/latest/history.html#v66-0-0",
        ),
    ),
    _check_version,
)

_value_rule(
    "SC012",
    "setup.cfg [metadata] description spans several lines",
    """
## What it does
Finds a `description` (or `summary`) in `[metadata]` that continues over several lines.

## Why is this bad?
It becomes the one-line `Summary` of the core metadata. setuptools 51.3.0 to 51.3.2 and
59.0.1 to 59.3.0 fail with `ValueError: Newlines are not allowed`; other releases keep
only the first line and warn that it will break in the future.

## Example
```ini
[metadata]
name = example
description = An example
    that does things.
```

## Use instead
```ini
[metadata]
name = example
description = An example that does things.
```

## References
- setuptools 51.3.0 changelog (#1390); 59.0.0 (#2870); 59.4.0 (#2893)
""",
    "[metadata]\nname = example\nversion = 1.0\ndescription = An example\n    that does things.\n",
    (
        Reference(
            title="setuptools 59.4.0 changelog (#2893): newlines in Summary tolerated",
            url="https://setuptools.pypa.io/en/latest/history.html#v59-4-0",
        ),
    ),
    _check_description,
)
