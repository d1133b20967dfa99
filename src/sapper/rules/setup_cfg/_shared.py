"""setup.cfg rules: keys and syntax, exactly as each setuptools version reads the file.

The verdicts come from replaying ``Distribution._parse_config_files`` with the facts that
``scripts/gen_setuptools_facts.py`` extracted from every setuptools wheel: which sections
are checked, which are exempt, whether a key is converted, warned about or rejected, and
the due date of the warning.

What the rules of this family share (references, the replay of the key checks SC001 and
SC002 judge, the finding of a parse error, the fix SC001 and SC002 share); each rule's
detection lives in its own module, over the facts (``ctx.setup_cfg.era_parses``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from ...facts.cfgkeys import METADATA_KEYS, METADATA_RENAMES, content_type
from ...facts.setup_cfg import PATH, CfgValue
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


class KeyOccurrence(NamedTuple):
    """One key of setup.cfg as the eras read it."""

    section: str
    #: The key as written, and where.
    key: str
    line: int
    column: int
    #: "DEFAULT" when the key is inherited from [DEFAULT].
    inherited: str | None
    value: str
    #: (the era's releases, its facts, the option name configparser gave), per era.
    reads: tuple[tuple[tuple[str, ...], CfgFacts, str], ...]


def key_occurrences(ctx: Context) -> tuple[KeyOccurrence, ...]:
    """Every key of setup.cfg, with how each era read it (cached per project)."""
    result: tuple[KeyOccurrence, ...] = ctx.once(_key_occurrences)
    return result


def _key_occurrences(ctx: Context) -> tuple[KeyOccurrence, ...]:
    found: dict[tuple[str, int, int], KeyOccurrence] = {}
    for group in ctx.setup_cfg.era_parses(ctx.catalogue):
        for section, opt, value in group.parsed.options:
            spot, inherited = ctx.setup_cfg.key_location(section, opt)
            if spot is None:
                continue
            ident = (section, spot.line, spot.column)
            occ = found.get(ident)
            if occ is None:
                occ = KeyOccurrence(section, spot.key, spot.line, spot.column, inherited, value, ())
            reads = tuple((versions, facts, opt) for versions, facts in group.eras)
            found[ident] = occ._replace(reads=occ.reads + reads)
    return tuple(found.values())


def judge_key(ctx: Context, occ: KeyOccurrence) -> _Acc:
    """The versions in which the key warns, fails or fails when enforced, for its dashes
    (``acc.dash``) and its capitals (``acc.upper``), era by era as setuptools checks them."""
    today = ctx.today.isoformat()
    acc = _Acc(value=occ.value)
    for versions, facts, opt in occ.reads:
        if "-" in opt and facts.checks(facts.dash, occ.section):
            acc.dash = True
            _apply(acc, facts.dash, versions, today)
        if not opt.islower() and facts.checks(facts.upper, occ.section):
            acc.upper = True
            _apply(acc, facts.upper, versions, today)
    return acc


def key_finding(ctx: Context, code: str, occ: KeyOccurrence, acc: _Acc) -> Finding | None:
    """The finding of a judged key, or None when it is not worth reporting: a key that only
    ever drew a warning in old releases (54.1.0 checked every section) fails nowhere and
    warns in no current release."""
    cat = ctx.catalogue
    if not (acc.fails or acc.enforced or cat.newest in acc.warns):
        return None
    kind = (
        "dash-separated and uppercase key"
        if acc.dash and acc.upper
        else "dash-separated key"
        if acc.dash
        else "uppercase key"
    )
    advice, fix = _advice(occ.section, occ.key, acc.value)
    place = f"[{occ.section}]" + (f" (inherited from [{occ.inherited}])" if occ.inherited else "")
    return ctx.report(
        code=code,
        message=f"{kind} `{occ.key}` in {place}: {advice}",
        path=PATH,
        line=occ.line,
        column=occ.column,
        fails=cat.to_specifiers(acc.fails),
        fails_enforced=cat.to_specifiers(acc.enforced | acc.fails),
        warns=cat.to_specifiers(acc.warns),
        due_date=max(acc.due) if acc.due else None,
        fix=fix or None,
    )


#: What a check of a parse error says: (message, fix) for an exception it reports, or None.
Describe = Callable[[Exception, bytes], "tuple[str, str] | None"]


def error_findings(ctx: Context, code: str, describe: Describe) -> list[Finding]:
    """The findings of rule ``code`` for the errors configparser (or decoding) raises on
    setup.cfg in some eras: one per distinct message, failing in those eras."""
    data = ctx.setup_cfg.data
    if data is None:
        return []
    errors: dict[str, tuple[set[str], tuple[int | None, int | None], str]] = {}
    for group in ctx.setup_cfg.era_parses(ctx.catalogue):
        exc = group.parsed.error
        if exc is None:
            continue
        said = describe(exc, data)
        if said is None:
            continue
        message, fix = said
        entry = errors.setdefault(message, (set(), ctx.setup_cfg.error_location(exc), fix))
        entry[0].update(group.versions)
    findings = [
        failing_finding(ctx, code, message, PATH, line, col, failing, fix=fix or None)
        for message, (failing, (line, col), fix) in errors.items()
    ]
    return sorted(findings, key=lambda f: (f.line or 0, f.column or 0))


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
