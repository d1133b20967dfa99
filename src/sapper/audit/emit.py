"""Build constraints for pip, uv and Poetry, planned from audit verdicts.

pip's ``--build-constraint`` file (``PIP_CONSTRAINT`` for pip before 26.2) and uv's
``build-constraint-dependencies`` are *global*: one ``setuptools`` line constrains every
isolated build. :func:`plan_constraints` looks for the
loosest ``setuptools<X`` under which every sdist that gets built still gets a good setuptools
(pip and uv install the newest release that the sdist's ``build-system.requires`` and the
constraint both admit). When no single line serves them all, the needs *conflict*: the plan
names the groups that can share a line, keeps only a line that breaks no package building
today, and the wheelhouse route (``sapper wheelhouse``) builds each one with its own
setuptools. Poetry's ``[tool.poetry.build-constraints]`` is per package, so it never
conflicts; uv's per-package ``[tool.uv.extra-build-dependencies]`` is lost when a build
backend asks for more requirements (see :func:`_uv_per_package`), so it is written only for
the packages a conflict leaves out of the global line, and only where uv keeps it. Each
emitted text is one document its tool reads; every form is tried with the real tool in
tests/test_audit_emit_real.py.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .._version import __version__
from ..changes import change
from ..versions import Catalogue, catalogue
from .verdicts import admissible

if TYPE_CHECKING:
    from . import AuditReport, PackageAudit

__all__ = [
    "PIP_BUILD_CONSTRAINT_SINCE",
    "PIP_CONSTRAINT_REACHES_BUILDS_UNTIL",
    "ConstraintGroup",
    "ConstraintPlan",
    "EmitFormat",
    "emit",
    "pip_usage",
    "plan_constraints",
]

EmitFormat = Literal["pip", "uv", "poetry"]

#: pip's ``--build-constraint`` option (and ``PIP_BUILD_CONSTRAINT``) first appeared here.
PIP_BUILD_CONSTRAINT_SINCE = "25.3"
#: The first pip whose isolated build environments no longer see ``PIP_CONSTRAINT``.
PIP_CONSTRAINT_REACHES_BUILDS_UNTIL = "26.2"
#: The pip releases the two facts above were measured on (tests/test_audit_emit_real.py).
PIP_MEASURED_FROM = "23.2.1"
PIP_MEASURED_TO = "26.3"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstraintGroup:
    """Packages that one global constraint line serves together."""

    #: ``setuptools<X``, or None: the newest setuptools serves them.
    constraint: str | None
    #: ``name==version`` of each member.
    packages: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstraintPlan:
    """What one global build-constraints file can and cannot do for an audit."""

    #: The global line to emit (None: nothing to emit).
    constraint: str | None
    #: No single line serves every package built from source.
    conflict: bool
    #: Groups that can share one line (only meaningful when ``conflict``).
    groups: tuple[ConstraintGroup, ...]
    #: Packages failing today that ``constraint`` makes build.
    fixed: tuple[str, ...]
    #: Packages failing today that ``constraint`` leaves failing.
    unfixed: tuple[str, ...]
    #: Packages that fail with every setuptools their build-system.requires admits.
    unbuildable: tuple[str, ...]


def _label(p: PackageAudit) -> str:
    return f"{p.name}=={p.version}"


def _working_uppers(
    p: PackageAudit, uppers: Sequence[str | None], cat: Catalogue, python: str
) -> set[str | None]:
    """The ``X`` of every ``setuptools<X`` (None: no constraint) under which ``p`` gets a
    good setuptools: the newest release its build-system.requires admits below ``X``."""
    from packaging.specifiers import SpecifierSet

    from ..versions import contains

    assert p.verdict is not None
    requires = SpecifierSet(p.verdict.requires) if p.verdict.requires else None
    allowed = admissible(cat, requires, python)  # ascending
    good = {v for v in allowed if contains(p.verdict.good, v)}
    position = {v: i for i, v in enumerate(cat.universe)}
    ranks = [position[v] for v in allowed]
    out: set[str | None] = set()
    for upper in uppers:
        limit = len(cat.universe) if upper is None else position[upper]
        i = bisect.bisect_left(ranks, limit)
        if i and allowed[i - 1] in good:
            out.add(upper)
    return out


def plan_constraints(report: AuditReport) -> ConstraintPlan:
    """The best global ``setuptools`` build constraint for the sdists ``report`` builds."""
    cat = catalogue()
    python = report.target_python
    built = [
        p
        for p in report.packages
        if p.source == "sdist" and p.verdict is not None and p.verdict.outcome != "unknown"
    ]
    unbuildable = tuple(_label(p) for p in built if p.verdict is not None and not p.verdict.good)
    members = [p for p in built if p.verdict is not None and p.verdict.good]
    failing = [p for p in members if p.verdict is not None and p.verdict.outcome == "fails"]
    if not failing:
        return ConstraintPlan(
            constraint=None,
            conflict=False,
            groups=(),
            fixed=(),
            unfixed=(),
            unbuildable=unbuildable,
        )
    uppers: list[str | None] = [None, *reversed(cat.universe)]
    works = {_label(p): _working_uppers(p, uppers, cat, python) for p in members}
    order = {u: i for i, u in enumerate(uppers)}  # 0 = loosest
    common = set.intersection(*works.values()) if works else set()
    if common:
        best = min(common, key=order.__getitem__)
        return ConstraintPlan(
            constraint=f"setuptools<{best}" if best else None,
            conflict=False,
            groups=(
                ConstraintGroup(
                    constraint=f"setuptools<{best}" if best else None, packages=tuple(works)
                ),
            ),
            fixed=tuple(_label(p) for p in failing),
            unfixed=(),
            unbuildable=unbuildable,
        )
    # Conflict: group greedily, loosest needs first.
    groups: list[tuple[set[str | None], list[str]]] = []
    for label in sorted(works, key=lambda k: min(order[u] for u in works[k])):
        for shared, names in groups:
            if shared & works[label]:
                shared.intersection_update(works[label])
                names.append(label)
                break
        else:
            groups.append((set(works[label]), [label]))
    # The line to emit: breaks nothing that builds today, fixes as many failing as it can.
    today_ok = [
        _label(p) for p in members if p.verdict is not None and p.verdict.outcome == "builds"
    ]
    safe = [u for u in uppers if all(u in works[k] for k in today_ok)]
    fail_labels = [_label(p) for p in failing]
    chosen = max(safe, key=lambda u: (sum(u in works[k] for k in fail_labels), -order[u]))
    fixed = tuple(k for k in fail_labels if chosen in works[k])
    return ConstraintPlan(
        constraint=f"setuptools<{chosen}" if chosen and fixed else None,
        conflict=True,
        groups=tuple(
            ConstraintGroup(
                constraint=_line(min(shared, key=order.__getitem__)),
                packages=tuple(names),
            )
            for shared, names in groups
        ),
        fixed=fixed if chosen else (),
        unfixed=tuple(k for k in fail_labels if not (chosen and chosen in works[k])),
        unbuildable=unbuildable,
    )


def _line(upper: str | None) -> str | None:
    return f"setuptools<{upper}" if upper else None


def _header(report: AuditReport, what: str, usage: Sequence[str], fmt: str) -> list[str]:
    return [
        f"# {what}, written by sapper {__version__} (sapper audit {report.input} --emit {fmt}).",
        f"# Target: {report.target}. Each line below says which audited sdist needs it and why:",
        "# sapper read the sdist statically (it never runs setup.py) and found the setuptools",
        "# removals named by rule code (`sapper rule CODE` explains one).",
        *(f"# {line}" for line in usage),
        "#",
    ]


def _why(p: PackageAudit) -> str:
    v = p.verdict
    assert v is not None
    return (
        f"{p.name} {p.version} fails with setuptools {v.today} ({', '.join(v.because)}); "
        f"newest good release {v.newest_good}"
    )


def _others(report: AuditReport) -> list[PackageAudit]:
    """The sdists whose real build needed a constraint on another build requirement
    (``cython<3.0.0``, bisected by ``audit --verify`` or the wheelhouse)."""
    return [
        p
        for p in report.packages
        if p.source == "sdist" and p.verdict is not None and p.verdict.build_constraints
    ]


def _why_other(p: PackageAudit) -> str:
    assert p.verdict is not None
    return (
        f"{p.name} {p.version} builds only under {', '.join(p.verdict.build_constraints)} "
        "(real builds, bisected)"
    )


def _other_lines(report: AuditReport) -> tuple[list[str], list[str]]:
    """The comment lines and the distinct constraint lines for other build requirements."""
    comments: list[str] = []
    constraints: list[str] = []
    for p in _others(report):
        assert p.verdict is not None
        comments.append(f"# {_why_other(p)}")
        constraints += [c for c in p.verdict.build_constraints if c not in constraints]
    if constraints:
        comments.append("# (global too: it constrains every isolated build that installs it)")
    return comments, constraints


def emit(report: AuditReport, fmt: EmitFormat) -> str:
    """The file for ``fmt``: one document (a constraints file for pip, TOML for uv and
    Poetry) that its tool reads as it is."""
    plan = plan_constraints(report)
    if fmt == "pip":
        return _pip_text(report, plan)
    if fmt == "uv":
        return _uv_text(report, plan)
    return _poetry_text(report)


def _conflict_lines(plan: ConstraintPlan, unfixed: Sequence[str] | None = None) -> list[str]:
    """The CONFLICT block; ``unfixed``: what this file leaves failing (default: what the
    global line leaves failing)."""
    if not plan.conflict:
        return []
    left = plan.unfixed if unfixed is None else unfixed
    lines = [
        "# CONFLICT: no single setuptools constraint serves every sdist built from source.",
        "# Groups that can share one line:",
    ]
    for i, group in enumerate(plan.groups, start=1):
        need = group.constraint or "the newest setuptools, no constraint"
        lines.append(f"#   group {i} ({need}): {', '.join(group.packages)}")
    if left:
        lines.append(f"# Left failing by this file: {', '.join(left)}.")
        lines.append(
            "# Build them apart instead: `sapper wheelhouse INPUT -o DIR` builds each with its"
        )
        lines.append("# own setuptools, then install with --no-index --find-links DIR.")
    lines.append("#")
    return lines


def pip_usage(input_name: str) -> list[str]:
    """How each pip release takes a build-constraints file (measured; tests prove it)."""
    since, until = PIP_BUILD_CONSTRAINT_SINCE, PIP_CONSTRAINT_REACHES_BUILDS_UNTIL
    return [
        f"Use, by pip version (`pip --version`; measured with pip {PIP_MEASURED_FROM} to "
        f"{PIP_MEASURED_TO}):",
        f"  pip >= {since}:  pip install --build-constraint THIS_FILE -r {input_name}",
        "                (or PIP_BUILD_CONSTRAINT=THIS_FILE in the environment)",
        f"  pip < {until}:   PIP_CONSTRAINT=THIS_FILE pip install -r {input_name}",
        "                the environment variable reaches pip's isolated build environments",
        "                (`pip install -c` on the command line does not); it also constrains",
        f"                what gets installed. pip {until} stopped passing it on to builds.",
        "A fresh virtual environment may ship an older pip (Python 3.11's has 23.2): use",
        f"PIP_CONSTRAINT there, or first `python -m pip install 'pip>={since}'`.",
        "Either way the file is global: one setuptools line constrains every isolated build.",
    ]


def _pip_text(report: AuditReport, plan: ConstraintPlan) -> str:
    lines = _header(report, "Build constraints for pip", pip_usage(report.input), "pip")
    lines += _conflict_lines(plan)
    if plan.constraint is None:
        lines.append(
            "# Nothing to constrain: every sdist built from source gets a good setuptools today."
            if not plan.conflict
            else "# No line is written: every candidate would break a package that builds today."
        )
    else:
        by_label = {_label(p): p for p in report.packages}
        for label in plan.fixed:
            lines.append(f"# {_why(by_label[label])}")
        lines.append(plan.constraint)
    comments, others = _other_lines(report)
    lines += comments + others
    return "\n".join(lines) + "\n"


def _toml_key(name: str) -> str:
    import re

    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else f'"{name}"'


def _uv_per_package(p: PackageAudit) -> bool:
    """Whether uv honours a per-package ``setuptools<X`` in extra-build-dependencies for
    ``p``: only when the setuptools it gets asks for no further build requirement. Before
    setuptools stopped requesting ``wheel`` (ST40), get_requires_for_build_wheel returns
    ``wheel`` and uv resolves the build requirements again without the extra ones (uv 0.13.9,
    astral-sh/uv#17950), so the cap is lost."""
    v = p.verdict
    assert v is not None
    if v.newest_good is None:
        return False
    cat = catalogue()
    return cat.parsed(v.newest_good) >= cat.parsed(_no_wheel_since())


def _no_wheel_since() -> str:
    """The first setuptools whose get_requires_for_build_wheel no longer returns ``wheel``."""
    first = change("ST40").fails[0][0]
    assert first is not None
    return first


def _uv_text(report: AuditReport, plan: ConstraintPlan) -> str:
    usage = [
        "Paste into the pyproject.toml of the directory `uv pip install` runs in, or of the",
        "workspace root for `uv sync`/`uv lock` (uv.toml, without the `tool.uv.` prefixes,",
        "serves `uv pip install` only: uv sync and uv lock ignore it there).",
        "build-constraint-dependencies is global: uv applies it to every build, including",
        "the second resolution it makes when a build backend asks for more requirements",
        f"(setuptools before {_no_wheel_since()} asks for `wheel`). The same line works as",
        "`uv pip install --build-constraint FILE` (the --emit pip file) or UV_BUILD_CONSTRAINT.",
        "Per-package extra-build-dependencies are written only when the needs conflict,",
        "and only where uv keeps them: it drops them in that second resolution",
        "(astral-sh/uv#17950, uv 0.13.9), so a cap whose setuptools asks for `wheel` is lost",
        "(as is any cap on a setup.py that declares setup_requires).",
    ]
    lines = _header(report, "Build constraints for uv", usage, "uv")
    by_label = {_label(p): p for p in report.packages}
    apart = [by_label[k] for k in plan.unfixed] if plan.conflict else []
    kept = [p for p in apart if _uv_per_package(p)]
    lost = [p for p in apart if not _uv_per_package(p)]
    lines += _conflict_lines(plan, [_label(p) for p in lost])
    lines.append("[tool.uv]")
    comments, others = _other_lines(report)
    if plan.constraint or others:
        for label in plan.fixed:
            lines.append(f"# {_why(by_label[label])}")
        lines += comments
        listed = [plan.constraint] if plan.constraint else []
        quoted = ", ".join(f'"{c}"' for c in [*listed, *others])
        lines.append(f"build-constraint-dependencies = [{quoted}]")
    else:
        lines.append(
            "# No global build constraint: "
            + (
                "every sdist built from source gets a good setuptools today."
                if not plan.conflict
                else "every candidate would break a package that builds today."
            )
        )
    if apart:
        lines.append("")
        lines.append("[tool.uv.extra-build-dependencies]")
        for p in kept:
            assert p.verdict is not None
            lines.append(f"# {_why(p)}")
            lines.append(f'{_toml_key(p.name)} = ["{p.verdict.constraint}"]')
        for p in lost:
            assert p.verdict is not None
            lines.append(f"# {_why(p)}.")
            lines.append(
                f"# uv cannot cap {p.name} per package: {p.verdict.constraint} gets "
                f"{p.verdict.newest_good},"
            )
            lines.append("# which asks for `wheel`; build it with `sapper wheelhouse`.")
    return "\n".join(lines) + "\n"


def _poetry_text(report: AuditReport) -> str:
    usage = [
        "Paste the table into pyproject.toml (Poetry >= 2.3). Poetry applies each entry to",
        "the build environment of that one dependency.",
    ]
    lines = _header(report, "Per-package build constraints for Poetry", usage, "poetry")
    lines.append("[tool.poetry.build-constraints]")
    from packaging.requirements import Requirement

    for p in report.packages:
        v = p.verdict
        if p.source != "sdist" or v is None or not (v.constraint or v.build_constraints):
            continue
        entries: dict[str, str] = {}
        if v.constraint:
            lines.append(f"# {_why(p)}")
            entries["setuptools"] = v.constraint.removeprefix("setuptools")
        if v.build_constraints:
            lines.append(f"# {_why_other(p)}")
            for c in v.build_constraints:
                req = Requirement(c)
                entries[req.name] = str(req.specifier)
        table = ", ".join(f'{_toml_key(k)} = "{spec}"' for k, spec in entries.items())
        lines.append(f"{_toml_key(p.name)} = {{ {table} }}")
    return "\n".join(lines) + "\n"
