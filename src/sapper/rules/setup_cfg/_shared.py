"""setup.cfg rules: keys and syntax, exactly as each setuptools version reads the file.

The verdicts come from replaying ``Distribution._parse_config_files`` with the facts that
``scripts/gen_setuptools_facts.py`` extracted from every setuptools wheel: which sections
are checked, which are exempt, whether a key is converted, warned about or rejected, and
the due date of the warning.

What the rules of this family share; each rule lives in its own module."""

from __future__ import annotations

import configparser
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...facts.cfgkeys import METADATA_KEYS, METADATA_RENAMES, content_type
from ...facts.setup_cfg import (
    PATH,
    CfgValue,
    KeyLocation,
    line_of_offset,
    parse_setup_cfg,
)
from ...model import Finding, Reference
from ...versions import CfgFacts, KeyCheck
from .._base import Context, Fix
from .._emit import failing_finding

if TYPE_CHECKING:
    from ...fix.setup_cfg import CfgFixer, CfgOption

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


_REF_CONFIGPARSER = Reference(
    title="Python configparser: supported INI file structure",
    url="https://docs.python.org/3/library/configparser.html#supported-ini-file-structure",
)


def _ini_option(key: str, value: str) -> str:
    """``key = value`` as setup.cfg text: continuation lines indented, so that the
    suggestion is valid INI that configparser reads back as ``value``."""
    value = value.replace("%", "%%")  # read back through interpolation, as setuptools reads
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
            ctype = content_type(files[0] if files else target)
            fix = f"long_description = file: {target}\nlong_description_content_type = {ctype}"
            return (
                f"setuptools never read `{key}` (a pbr key) and ignores it; write "
                f"`long_description = file: {target}` and "
                f"`long_description_content_type = {ctype}`",
                fix,
            )
        if name in METADATA_RENAMES:
            new = METADATA_RENAMES[name]
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
        if name in ("requires_python", "python_requires"):
            return (
                f"setuptools ignores `{key}` in [metadata]; write `python_requires` in [options]",
                "[options]\n" + _ini_option("python_requires", value),
            )
        if name not in METADATA_KEYS:
            return (
                f"setuptools does not know `{name}` either and ignores it; "
                "delete the key or use an option listed in the setuptools docs",
                # what `sapper fix` writes: the key commented out under a note
                f"# sapper fix: setuptools ignores {key} (SC001)\n"
                + "\n".join(f"# {line}".rstrip() for line in _ini_option(key, value).split("\n")),
            )
    return f"write `{name}`", _ini_option(name, value)


class _Acc:
    """Versions in which one occurrence of a key warns, fails, or fails when enforced."""

    # a plain class: a dataclass costs several exec() calls at every cold start
    __slots__ = ("dash", "due", "enforced", "fails", "upper", "value", "warns")

    def __init__(self, *, value: str = "") -> None:
        self.warns: set[str] = set()
        self.fails: set[str] = set()
        self.enforced: set[str] = set()
        self.due: set[str] = set()
        self.dash = False
        self.upper = False
        self.value = value


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
    if isinstance(exc, LookupError):  # the codec that the first line's `coding:` names
        return 1, 1
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


def _source_line(data: bytes, lineno: int) -> str:
    """Line ``lineno`` (1-based) of ``data``, split as text mode splits it (universal newlines)."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")[lineno - 1]


def _error_finding(exc: Exception, data: bytes) -> tuple[str, str, str]:
    """(code, message, fix) for an exception setuptools would raise while reading."""
    if isinstance(exc, UnicodeDecodeError):
        return (
            "SC003",
            f"setup.cfg is not valid UTF-8 ({exc.reason}: byte 0x{exc.object[exc.start]:02x}); "
            "setuptools reads it as UTF-8 and stops with UnicodeDecodeError",
            "re-save setup.cfg as UTF-8",
        )
    if isinstance(exc, LookupError):
        return (
            "SC003",
            f"the `coding:` comment on the first line of setup.cfg names no text encoding "
            f"Python knows ({exc}); setuptools that decode setup.cfg with that comment stop "
            "with LookupError",
            "remove the `coding:` comment (setuptools reads setup.cfg as UTF-8 since 41.0.0) "
            "or name a text encoding such as utf-8",
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
        # The line from the file: configparser's errors hold repr(line) in Python 3.11 and the
        # line itself in newer releases (ParsingError.append), so neither is printed as is.
        lineno = exc.errors[0][0]
        return (
            "SC004",
            f"line {lineno} is neither a `key = value` pair, a [section] header nor a comment: "
            f"{_source_line(data, lineno).strip()!r}; configparser rejects the file (ParsingError)",
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


def analyse_setup_cfg(ctx: Context) -> tuple[Finding, ...]:
    """Every SC finding of the project (cached per context)."""
    result: tuple[Finding, ...] = ctx.once(_analyse)
    return result


def _analyse(ctx: Context) -> tuple[Finding, ...]:
    data = ctx.setup_cfg.data
    if data is None:
        return ()
    cat = ctx.catalogue
    today = ctx.today.isoformat()
    locations = list(ctx.setup_cfg.locations)
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
    section_lines = ctx.setup_cfg.section_lines
    for (xform, encoding, skip), eras in groups.items():
        parsed = parse_setup_cfg(data, optionxform_str=xform, encoding=encoding, skip=skip)
        sections_seen = sections_seen or parsed.sections
        group_versions = [v for versions, _ in eras for v in versions]
        if parsed.error is not None:
            code, message, fix = _error_finding(parsed.error, data)
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
                if not opt.islower() and facts.checks(facts.upper, section):
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
        findings.append(
            failing_finding(ctx, code, message, PATH, line, col, failing, fix=fix or None)
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
        findings.append(
            ctx.report(
                code=code,
                message=f"{kind} `{key}` in {place}: {advice}",
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


def _checker(code: str) -> _Check:
    return _Check(code)


class _Check:
    """A picklable check that selects one code from the shared setup.cfg analysis (a plain
    class: a frozen dataclass costs several exec() calls at every cold start)."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code

    def __eq__(self, other: object) -> bool:
        return type(other) is _Check and other.code == self.code

    def __hash__(self) -> int:
        return hash(self.code)

    def __repr__(self) -> str:
        return f"_Check(code={self.code!r})"

    def __call__(self, ctx: Context) -> Iterable[Finding]:
        return [f for f in analyse_setup_cfg(ctx) if f.code == self.code]


def _value_finding(
    ctx: Context,
    code: str,
    item: CfgValue,
    message: str,
    failing: set[str],
    *,
    fix: str | None,
) -> Finding:
    return failing_finding(
        ctx,
        code,
        f"[{item.section}] {item.key}: {message}",
        PATH,
        item.line,
        item.column,
        failing,
        fix=fix,
    )


def _fix_key(fixer: CfgFixer, finding: Finding, opt: CfgOption) -> None:
    fixer.fix_key(finding.code, opt)


#: The fix SC001 and SC002 share: the key renamed to what setuptools reads
#: (:meth:`sapper.fix.setup_cfg.CfgFixer.fix_key`).
KEY_FIX = Fix(
    path="setup.cfg",
    help=(
        "setup.cfg keys with dashes or capitals, renamed to what",
        "setuptools reads (description-file -> long_description = file:",
        "..., home-page -> url, ...); a [metadata] key setuptools ignores",
        "anyway (a misspelt decsription-file) is commented out under a",
        "one-line note. Edited line by line: comments, order and",
        "indentation stay.",
    ),
    safety=(
        "Safe: a key is renamed to the name setuptools already reads it under (or to the "
        "key setuptools maps it to: `home-page` becomes `url`, `license-file` "
        "`license_files`), so the built metadata does not change; `description-file` "
        "becomes `long_description = file: ...`, which adds the long description "
        "setuptools silently dropped. Unsafe (only with `--unsafe-fixes`): moving pbr's "
        "`requires-dist`, `provides-extra` or `requires-python` to `[options]`, which "
        "changes the declared requirements. A `[metadata]` key setuptools ignores anyway "
        "(a misspelt `decsription-file`) is commented out under a one-line note: "
        "setuptools never read it, so the built metadata does not change. A conflicting "
        "key is reported and left alone."
    ),
    apply=_fix_key,
)
