"""Rule objects, the per-project context the checks read, and the registry."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Container, Iterable
from typing import TYPE_CHECKING, NamedTuple

from ..facts import ProjectFacts
from ..model import Finding, Reference, version_summary

if TYPE_CHECKING:
    pass

__all__ = [
    "FAMILIES",
    "Context",
    "Fix",
    "Rule",
    "all_rules",
    "get_rule",
    "register",
    "render_index",
    "rule_index",
    "rules_for",
]

#: Rule family packages (each holds one module per rule code), in display order.
FAMILIES = ("setup_cfg", "setup_py", "pyproject", "layout", "requires")


class Context(ProjectFacts):
    """What a check can look at: the project's facts (``ctx.setup_py.keywords``,
    ``ctx.setup_cfg.values``, ``ctx.pyproject.build_system``, ``ctx.names``), the setuptools
    catalogue and today's date; the interpreter the build runs on (``target``: ``--python``
    and ``--platform``; None: the interpreter sapper runs on, see :meth:`target_python`);
    and the one way a check emits a finding (:meth:`report`)."""

    @property
    def target_python(self) -> tuple[int, int]:
        """(major, minor) of the Python the build runs on: the target's, or this interpreter."""
        if self.target is not None:
            return self.target.python
        import sys

        return sys.version_info.major, sys.version_info.minor

    def report(
        self,
        *,
        code: str,
        message: str,
        path: str,
        line: int | None = None,
        column: int | None = None,
        fails: tuple[str, ...] = (),
        fails_enforced: tuple[str, ...] = (),
        warns: tuple[str, ...] = (),
        due_date: str | None = None,
        fix: str | None = None,
    ) -> Finding:
        """A finding of rule ``code``, its slug filled from the registry and its version
        summary from :func:`~sapper.model.version_summary` (``message`` is the rule's own
        prose, without the versions)."""
        return Finding(
            code=code,
            slug=slug_of(code),
            message=message,
            path=path,
            line=line,
            column=column,
            fails=fails,
            fails_enforced=fails_enforced,
            warns=warns,
            due_date=due_date,
            fix=fix,
            summary=version_summary(
                fails, fails_enforced, warns, due_date, today=self.today.isoformat()
            ),
        )


class Fix(NamedTuple):
    """How ``sapper fix`` repairs a rule's findings: declared by the rule, next to its check.

    ``apply`` works from the findings (their file and line) and the facts, never detecting
    again; it is called by the editor of ``path`` (``sapper.fix.setup_cfg`` calls
    ``apply(fixer, finding, option)`` for each finding, with the option at its line;
    ``sapper.fix.setup_py`` calls ``apply(editor, findings)`` with all of the rule's findings
    in setup.py), and edits through that editor, the library of safe edits. Rules that
    share a fix share one ``Fix`` (``sapper fix --help`` lists them together).
    """

    #: The file the fix edits.
    path: str
    #: Lines for ``sapper fix --help`` (after the codes).
    help: tuple[str, ...]
    #: Markdown for the rule doc's "Fix safety" section.
    safety: str
    apply: Callable[..., None]


# A NamedTuple, not a frozen dataclass: every cold `sapper check` builds this class, and a
# frozen dataclass costs several exec() calls to build.
class Rule(NamedTuple):
    """A deprecated or removed setuptools practice that sapper detects.

    ``doc`` is Markdown with the headings ``What it does``, ``Why is this bad?``,
    ``Example``, ``Use instead`` and ``References``; ``example`` maps file names to the
    contents of a minimal project that triggers the rule.
    """

    code: str
    slug: str
    family: str
    summary: str
    doc: str
    references: tuple[Reference, ...]
    example: tuple[tuple[str, str], ...]
    check: Callable[[Context], Iterable[Finding]]
    #: The only project files the check reads (``None``: it may read any file, or the
    #: listing of the archive). ``sapper scan`` stops reading an archive early when every
    #: selected rule names its files here.
    reads: frozenset[str] | None = None
    #: The project file without which the check cannot report (its facts are empty when the
    #: file is absent); ``sapper check`` neither imports nor runs the rule for a project
    #: without it. Default: the one file ``reads`` names, if it names one (see
    #: :attr:`needed_file`).
    needs: str | None = None

    @property
    def needed_file(self) -> str | None:
        """:attr:`needs`, or the one file of :attr:`reads`."""
        if self.needs is not None:
            return self.needs
        if self.reads is not None and len(self.reads) == 1:
            return next(iter(self.reads))
        return None

    #: How ``sapper fix`` repairs it (None: it does not).
    fix: Fix | None = None

    @property
    def fixable(self) -> bool:
        """Whether ``sapper fix`` can repair it."""
        return self.fix is not None


_REGISTRY: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    """Declare a rule (at the end of its module); its doc is stripped of surrounding blank lines."""
    rule = rule._replace(doc=rule.doc.strip())
    if rule.code in _REGISTRY:  # pragma: no cover - programming error
        msg = f"rule code {rule.code} registered twice"
        raise RuntimeError(msg)
    _REGISTRY[rule.code] = rule
    return rule


def rule_index() -> dict[str, str]:
    """Rule code -> the module that declares it (``SC001`` -> ``sapper.rules.setup_cfg.sc001``).

    A table generated from the rule modules (``sapper.rules._index``, written by
    :func:`render_index` through ``scripts/gen_rules_doc.py``), so that ``sapper check
    --select SC`` imports only the rule modules it runs and nothing lists directories at
    start-up; ``tests/test_rules_meta.py`` fails when it is stale.
    """
    from ._index import RULE_MODULES

    return RULE_MODULES


def scan_rule_modules() -> dict[str, str]:
    """:func:`rule_index` as read from the file names of the family packages."""
    import pkgutil
    import re

    rule_module = re.compile(r"[a-z]{2}[0-9]{3}")
    index: dict[str, str] = {}
    for family in FAMILIES:
        package = importlib.import_module(f"sapper.rules.{family}")
        for info in pkgutil.iter_modules(package.__path__):
            if rule_module.fullmatch(info.name):
                index[info.name.upper()] = f"sapper.rules.{family}.{info.name}"
    return index


def render_index() -> str:
    """The text of ``sapper.rules._index``, derived from the rule modules on disk (their file
    names: :func:`scan_rule_modules`) and their declarations (``Rule.needed_file``)."""
    modules = scan_rule_modules()
    for module in modules.values():
        importlib.import_module(module)
    missing = sorted(set(modules) - set(_REGISTRY))
    if missing:
        msg = f"rule modules that declare no rule of their name: {', '.join(missing)}"
        raise RuntimeError(msg)
    lines = [
        '"""Rule code -> its module, and the file each rule needs: GENERATED from the rule',
        "modules by ``scripts/gen_rules_doc.py`` (``sapper.rules._base.render_index``); do not",
        "edit. A cold ``sapper check`` reads this table instead of listing the family packages",
        "and importing every rule; ``tests/test_rules_meta.py`` fails when it is stale.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "RULE_MODULES: dict[str, str] = {",
        *(f'    "{code}": "{modules[code]}",' for code in sorted(modules)),
        "}",
        "",
        "#: Rule code -> the project file without which it cannot report (``Rule.needed_file``).",
        "NEEDS_FILE: dict[str, str] = {",
        *(
            f'    "{code}": "{_REGISTRY[code].needed_file}",'
            for code in sorted(modules)
            if _REGISTRY[code].needed_file is not None
        ),
        "}",
    ]
    return "\n".join(lines) + "\n"


def _load(codes: Iterable[str]) -> None:
    for code in codes:
        if code not in _REGISTRY:
            importlib.import_module(rule_index()[code])
            if code not in _REGISTRY:  # pragma: no cover - programming error
                msg = f"{rule_index()[code]} does not declare rule {code}"
                raise RuntimeError(msg)


def all_rules() -> tuple[Rule, ...]:
    """Every rule, by code."""
    _load(rule_index())
    return tuple(sorted(_REGISTRY.values(), key=lambda r: r.code))


def rules_for(
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    *,
    present: Container[str] | None = None,
) -> tuple[Rule, ...]:
    """The rules ``--select``/``--ignore`` (codes or prefixes; the most specific selector
    decides, as :func:`sapper.selection.selected` says) let run, by code; only their
    modules are imported. With ``present`` (the project's file paths), the rules that cannot
    report without a file it lacks are left out (``sapper.rules._index.NEEDS_FILE``)."""
    from ..selection import selected
    from ._index import NEEDS_FILE

    codes = sorted(
        c
        for c in rule_index()
        if selected(c, select, ignore)
        and (present is None or c not in NEEDS_FILE or NEEDS_FILE[c] in present)
    )
    _load(codes)
    return tuple(_REGISTRY[c] for c in codes)


def slug_of(code: str) -> str:
    """The slug of rule ``code``, whichever rules were chosen to run (its module is imported
    if it was not)."""
    _load((code,))
    return _REGISTRY[code].slug


def get_rule(code: str) -> Rule | None:
    """The rule ``code`` (any case), or None if there is none."""
    code = code.upper()
    if code not in _REGISTRY:
        if code not in rule_index():
            return None
        _load([code])
    return _REGISTRY[code]
