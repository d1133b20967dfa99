"""pyproject.toml rules: ``[project]`` and ``[tool.setuptools]`` as each setuptools reads them.

setuptools reads pyproject.toml since 61.0.0 (earlier releases ignore ``[project]`` and
``[tool.setuptools]`` altogether, so nothing here fails before 61.0.0). It validates the two
tables with a vendored ``validate-pyproject`` and then applies them. The version bounds below
were read from the vendored schema and ``config/_apply_pyprojecttoml.py``, ``config/
pyprojecttoml.py`` and ``dist.py`` of every release from 61.0.0 on, and each rule's
boundaries are proven by an oracle test that builds a minimal project with real setuptools
(``tests/oracle/test_pyproject_oracle.py``).

The forward direction matters as much as removals: a 2025 project with
``license = "MIT"`` or ``license-files`` fails with any setuptools before 77.0.1, which is what
a build pinned to ``setuptools<77`` (or a Python 3.8 build, capped at 75.3.x) gets.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ..facts.setup_py import import_sites
from ..model import Finding, Reference
from ._base import Context, Rule, register
from ._emit import HISTORY_URL, DueEras, due_sets, make_finding, versions

#: ``project.license`` as a table and ``tool.setuptools.license-files``
#: (``_apply_pyprojecttoml.py``): 2026-02-18 in 77.0.1-80.10.1, 2027-02-18 since 80.10.2.
LICENSE_TABLE_DUE: DueEras = (("77.0.1", "2026-02-18"), ("80.10.2", "2027-02-18"))

__all__: list[str] = []

PATH = "pyproject.toml"

# ------------------------------------------------------------ what setup.py/setup.cfg set


def _truthy(value: Any) -> bool:
    from ..facts._values import UNKNOWN

    return value is UNKNOWN or bool(value)


# ------------------------------------------------------------------------ pyproject data


_SLUGS = {
    "PP001": "pyproject-invalid-project-table",
    "PP002": "pyproject-license-expression",
    "PP003": "pyproject-license-classifier-with-expression",
    "PP004": "pyproject-license-table",
    "PP005": "pyproject-namespace-packages",
    "PP006": "pyproject-tool-license-files",
    "PP007": "pyproject-invalid-tool-setuptools",
    "PP008": "pyproject-missing-dynamic",
    "PP009": "pyproject-without-build-system",
}

# ------------------------------------------------------------------------------- PP001

#: PEP 621 keys every setuptools since 61.0.0 accepts in [project].
_PEP621 = frozenset(
    {
        "name", "version", "description", "readme", "requires-python", "license",
        "authors", "maintainers", "keywords", "classifiers", "urls", "entry-points",
        "scripts", "gui-scripts", "dependencies", "optional-dependencies", "dynamic",
    }
)  # fmt: skip
#: Keys added to the vendored schema later (PEP 639 in 77.0.1, PEP 794 in 82.0.1).
_LATER_PROJECT_KEYS = {
    "license-files": "77.0.1",
    "import-names": "82.0.1",
    "import-namespaces": "82.0.1",
}
#: ``_skip_bad_config`` (61.2.0-67.8.0): an invalid [project] holding only these keys is
#: ignored with a warning when setup.py/setup.cfg configure the project and there is no
#: [tool.setuptools]; 68.0.0 (#3948) removed the grace period.
_POPULAR_SUBSET = frozenset({"name", "version", "python_requires", "requires-python"})
_RELAX = ("61.2.0", "68.0.0")

_NAME_RE = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
_DYNAMIC_FIELDS = _PEP621 - {"name", "dynamic"} | set(_LATER_PROJECT_KEYS)


def _relaxed(ctx: Context, project: Mapping[str, Any], tool: Mapping[str, Any] | None) -> bool:
    """Whether 61.2.0-67.8.0 ignore this invalid [project] table instead of failing."""
    if tool or not set(project) <= _POPULAR_SUBSET:
        return False
    other = ctx.config
    if other.opaque:
        return True  # setup.py may well set name/version: assume the lenient path
    kw = other.keywords
    if any(_truthy(kw[k]) for k in ("name", "version", "install_requires") if k in kw):
        return True
    cfg = other.cfg
    keys = (("metadata", "name"), ("metadata", "version"), ("options", "install_requires"))
    return any(cfg.get(k) for k in keys)


def _type_problem(key: str, value: Any) -> str | None:
    def strings(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(x, str) for x in v)

    def str_table(v: Any) -> bool:
        return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())

    if key == "name":
        if not isinstance(value, str):
            return "`project.name` must be a string"
        if not _NAME_RE.match(value):
            return f"`project.name` {value!r} is not a valid project name (PEP 508)"
    elif key == "version":
        from packaging.version import InvalidVersion, Version

        if not isinstance(value, str):
            return "`project.version` must be a string"
        try:
            Version(value)
        except InvalidVersion:
            return f"`project.version` {value!r} is not a PEP 440 version"
    elif key in ("description", "requires-python") and not isinstance(value, str):
        return f"`project.{key}` must be a string"
    elif key in ("keywords", "classifiers", "dependencies", "dynamic") and not strings(value):
        return f"`project.{key}` must be an array of strings"
    elif key in ("authors", "maintainers"):
        if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
            return f'`project.{key}` must be an array of tables such as {{name = "..."}}'
    elif key in ("urls", "scripts", "gui-scripts") and not str_table(value):
        return f"`project.{key}` must be a table of strings"
    elif key == "optional-dependencies" and not (
        isinstance(value, dict) and all(strings(v) for v in value.values())
    ):
        return "`project.optional-dependencies` must be a table of arrays of strings"
    elif key == "entry-points" and not (
        isinstance(value, dict) and all(str_table(v) for v in value.values())
    ):
        return "`project.entry-points` must be a table of tables of strings"
    elif key == "readme" and not (
        isinstance(value, str)
        or (isinstance(value, dict) and len({"file", "text"} & set(value)) == 1)
    ):
        return "`project.readme` must be a file name or a table with one of `file` or `text`"
    elif key == "license" and isinstance(value, dict) and len({"file", "text"} & set(value)) != 1:
        return "`project.license` as a table must have exactly one of `file` or `text`"
    elif key == "license-files" and not strings(value):
        return "`project.license-files` must be an array of glob patterns"
    return None


#: Dynamic fields that 61.2.0+ insist on getting from somewhere (their default is None; the
#: others default to an empty value, and plugins such as setuptools-scm set the version).
#: Probed with every field on 61.2.0, 68.0.0 and 84.2.1.
_REQUIRED_DYNAMIC = frozenset(
    {
        "description", "readme", "requires-python", "license", "authors", "maintainers",
        "keywords", "classifiers",
    }
)  # fmt: skip


def _unfilled_dynamic(
    ctx: Context,
    project: Mapping[str, Any],
    tool: Mapping[str, Any] | None,
    dynamic: set[str],
) -> Iterator[tuple[str, str | None, set[str], str]]:
    """Fields listed in ``dynamic`` that nothing fills.

    61.0.0-61.1.1 fill dynamic fields only from ``[tool.setuptools.dynamic]``
    ("Impossible to expand dynamic value of 'dependencies'"); since 61.2.0
    ``_ensure_previously_set`` also accepts a value from setup.py or setup.cfg and fails
    with "No configuration found for dynamic 'dependencies'" otherwise.
    """
    table = tool.get("dynamic") if tool is not None else None
    configured = set(table) if isinstance(table, dict) else set()
    other = ctx.config
    supplied = _supplied_fields(ctx)
    for field in sorted(dynamic - configured - set(project)):
        if field not in _DYNAMIC_FIELDS or field in {"version", "scripts", "gui-scripts"}:
            continue
        failing = versions(ctx, "61.0.0", "61.2.0")
        if field in _REQUIRED_DYNAMIC and not other.opaque and field not in supplied:
            failing |= versions(ctx, "61.2.0")
        if failing:
            yield (
                f"`{field}` is listed in `project.dynamic` but "
                + (
                    "nothing supplies it (no [tool.setuptools.dynamic] entry, setup.py "
                    "keyword or setup.cfg option)"
                    if field not in supplied
                    else "[tool.setuptools.dynamic] does not fill it, which setuptools "
                    "61.0.0-61.1.1 require"
                ),
                "dynamic",
                failing,
                f"add `{field}` to [tool.setuptools.dynamic] or supply it in setup.py",
            )


def _check_project_table(ctx: Context) -> Iterable[Finding]:
    project, tool = ctx.pyproject.tables
    if not project:
        return []  # an empty [project] is ignored like a missing one (read_configuration)
    since61 = versions(ctx, "61.0.0")
    relax = versions(ctx, *_RELAX) if _relaxed(ctx, project, tool) else set()
    dynamic = project.get("dynamic")
    dynamic = set(dynamic) if isinstance(dynamic, list) else set()
    problems: list[tuple[str, str | None, set[str], str]] = []
    if "name" not in project:
        problems.append(
            (
                "[project] has no `name`; setuptools' validation stops with "
                "\"`project` must contain ['name'] properties\"",
                None,
                since61,
                'add `name = "..."` to [project] (it cannot be dynamic)',
            )
        )
    if "name" in dynamic:
        problems.append(
            (
                "`name` is listed in `project.dynamic`, which PEP 621 forbids",
                "dynamic",
                since61,
                "remove `name` from `dynamic` and set it in [project]",
            )
        )
    if "version" not in project and "version" not in dynamic:
        problems.append(
            (
                "[project] has no `version` and does not list it in `dynamic`; setuptools "
                "stops with \"`project` must contain ['version'] properties\"",
                None,
                versions(ctx, "61.2.0"),
                'add `version = "..."` to [project], or `dynamic = ["version"]` with '
                '`[tool.setuptools.dynamic] version = {attr = "pkg.__version__"}`',
            )
        )
    for key in sorted(dynamic & set(project)):
        problems.append(
            (
                f"`{key}` is set in [project] and listed in `project.dynamic` too",
                key,
                since61,
                f"either remove `{key}` from `dynamic` or drop the static value",
            )
        )
    for key, value in project.items():
        if key not in _PEP621:
            intro = _LATER_PROJECT_KEYS.get(key)
            failing = versions(ctx, "61.0.0", intro) if intro else since61
            if failing:
                what = (
                    f"`{key}` in [project] is only known to setuptools >= {intro}"
                    if intro
                    else f"[project] has the key `{key}`, which is not a PEP 621 field"
                )
                problems.append(
                    (
                        f"{what}: \"`project` must not contain {{'{key}'}} properties\"",
                        key,
                        failing,
                        f"require `setuptools>={intro}` in build-system.requires"
                        if intro
                        else f"remove `{key}` (or move it to [tool.<your tool>])",
                    )
                )
            continue
        if key == "license" and isinstance(value, str):
            continue  # PP002
        problem = _type_problem(key, value)
        if problem:
            problems.append((problem, key, since61, "fix the value's type"))
        if key == "dynamic" and isinstance(value, list):
            for item in value:
                if isinstance(item, str) and item not in _DYNAMIC_FIELDS and item != "name":
                    problems.append(
                        (
                            f"`project.dynamic` lists `{item}`, which is not a [project] field",
                            "dynamic",
                            since61,
                            f"remove `{item}` from `dynamic`",
                        )
                    )
    problems.extend(_unfilled_dynamic(ctx, project, tool, dynamic))
    findings = []
    for message, key, versions_hit, fix in problems:
        failing = versions_hit - relax
        if not failing:
            continue
        note = (
            " (61.2.0-67.8.0 ignored the whole [project] table with a warning instead)"
            if relax
            else ""
        )
        findings.append(
            make_finding(
                ctx,
                "PP001",
                message + note,
                line=ctx.pyproject.locate("project", key),
                fails=failing,
                fix=fix,
            )
        )
    return findings


# ------------------------------------------------------------------------- PP002/PP003


def _license_expression_problem(text: str) -> str | None:
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    try:
        canonicalize_license_expression(text)
    except InvalidLicenseExpression as exc:
        return str(exc)
    return None


def _check_license_string(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if project is None or not isinstance(project.get("license"), str):
        return []
    text = project["license"]
    problem = _license_expression_problem(text)
    line = ctx.pyproject.locate("project", "license")
    if problem:
        return [
            make_finding(
                ctx,
                "PP002",
                f"`project.license = {text!r}` is not a valid SPDX license expression "
                f"({problem}); setuptools >= 77.0.1 rejects it and older releases accept no "
                "string at all",
                line=line,
                fails=versions(ctx, "61.0.0"),
                fix='write an SPDX expression such as `license = "MIT"`, or '
                '`license = {text = "..."}` for setuptools < 77',
            )
        ]
    return [
        make_finding(
            ctx,
            "PP002",
            f"`project.license = {text!r}` is a PEP 639 license expression, which setuptools "
            'before 77.0.1 rejects ("`project.license` must be valid exactly by one '
            'definition")',
            line=line,
            fails=versions(ctx, "61.0.0", "77.0.1"),
            fix="require `setuptools>=77.0.1` in build-system.requires",
        )
    ]


def _license_classifiers(ctx: Context, project: Mapping[str, Any]) -> list[str]:
    """The ``License ::`` classifiers setuptools would see (static or dynamic)."""
    raw: Any = project.get("classifiers")
    dynamic = project.get("dynamic")
    if raw is None and isinstance(dynamic, list) and "classifiers" in dynamic:
        other = ctx.config
        raw = other.keywords.get("classifiers")
        if not isinstance(raw, list | tuple):
            text = other.cfg.get(("metadata", "classifiers")) or other.cfg.get(
                ("metadata", "classifier")
            )
            raw = text.splitlines() if text else []
    if not isinstance(raw, list | tuple):
        return []
    return [c.strip() for c in raw if isinstance(c, str) and c.strip().startswith("License ::")]


def _check_classifier_conflict(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if project is None or not isinstance(project.get("license"), str):
        return []
    classifiers = _license_classifiers(ctx, project)
    if not classifiers:
        return []
    return [
        make_finding(
            ctx,
            "PP003",
            f"`project.license` is a license expression and the classifiers still say "
            f'{classifiers[0]!r}; setuptools >= 77.0.1 stops with "License classifiers have '
            'been superseded by license expressions"',
            line=ctx.pyproject.locate("project", "classifiers")
            or ctx.pyproject.locate("project", "license"),
            fails=versions(ctx, "77.0.1"),
            fix="remove the `License ::` classifiers",
        )
    ]


# ------------------------------------------------------------------------- PP004/PP006


def _check_license_table(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if project is None or not isinstance(project.get("license"), dict):
        return []
    table = project["license"]
    warns, enforced, due = due_sets(ctx, LICENSE_TABLE_DUE)
    if "file" in table:
        fix = f"license-files = [{str(table['file'])!r}] and an SPDX `license` string"
    else:
        fix = 'license = "<SPDX expression>" (with setuptools>=77.0.1)'
    return [
        make_finding(
            ctx,
            "PP004",
            "`project.license` is a TOML table; setuptools >= 77.0.1 warns that this is "
            "deprecated in favour of an SPDX expression and `license-files`",
            line=ctx.pyproject.locate("project", "license"),
            warns=warns,
            enforced=enforced,
            due=due,
            fix=fix,
        )
    ]


def _check_tool_license_files(ctx: Context) -> Iterable[Finding]:
    project, tool = ctx.pyproject.tables
    if tool is None or "license-files" not in tool:
        return []
    line = ctx.pyproject.locate("tool.setuptools", "license-files")
    if project is not None and "license-files" in project:
        return [
            make_finding(
                ctx,
                "PP006",
                "`license-files` is set in both [project] and [tool.setuptools]; setuptools "
                ">= 77.0.1 stops with \"'project.license-files' is defined already\"",
                line=line,
                fails=versions(ctx, "77.0.1"),
                fix="remove `license-files` from [tool.setuptools]",
            )
        ]
    warns, enforced, due = due_sets(ctx, LICENSE_TABLE_DUE)
    return [
        make_finding(
            ctx,
            "PP006",
            "`tool.setuptools.license-files` is deprecated in favour of "
            "`project.license-files` since setuptools 77.0.1",
            line=line,
            warns=warns,
            enforced=enforced,
            due=due,
            fix="move `license-files` to [project] and require `setuptools>=77.0.1`",
        )
    ]


# ------------------------------------------------------------------------------- PP005


def _check_namespace_packages(ctx: Context) -> Iterable[Finding]:
    _, tool = ctx.pyproject.tables
    if tool is None:
        return []
    key = next((k for k in tool if k.replace("_", "-") == "namespace-packages"), None)
    if key is None or key != "namespace-packages":
        return []  # the underscore spelling is a schema error (PP007)
    # TOOL_TABLE_DEPRECATIONS: warning since 62.3.0, due 2023-10-30 since 67.7.0;
    # TOOL_TABLE_REMOVALS: RemovedConfigError since 69.0.0 (#4066).
    warns = versions(ctx, "62.3.0", "69.0.0")
    _, enforced, _ = due_sets(ctx, (("67.7.0", "2023-10-30"),), until="69.0.0")
    return [
        make_finding(
            ctx,
            "PP005",
            "`tool.setuptools.namespace-packages` was removed in setuptools 69.0.0 "
            "(RemovedConfigError)",
            line=ctx.pyproject.locate("tool.setuptools", key),
            fails=versions(ctx, "69.0.0"),
            enforced=enforced,
            warns=warns,
            fix="delete `namespace-packages` and the `__init__.py` of the namespace "
            "(PEP 420 implicit namespace packages); use `packages.find` with "
            "`namespaces = true`",
        )
    ]


# ------------------------------------------------------------------------------- PP007

_TOOL_KEYS = frozenset(
    {
        "cmdclass", "data-files", "dynamic", "eager-resources", "exclude-package-data",
        "include-package-data", "license-files", "namespace-packages", "obsoletes",
        "package-data", "package-dir", "packages", "platforms", "provides", "py-modules",
        "script-files", "zip-safe",
    }
)  # fmt: skip
_LATER_TOOL_KEYS = {"ext-modules": "74.1.0"}
_DYNAMIC_KEYS = frozenset({"version", "classifiers", "description", "entry-points", "readme"})
_LATER_DYNAMIC_KEYS = {"dependencies": "62.6.0", "optional-dependencies": "62.6.0"}


def _check_tool_table(ctx: Context) -> Iterable[Finding]:
    _, tool = ctx.pyproject.tables
    if tool is None:
        return []
    since61 = versions(ctx, "61.0.0")
    problems: list[tuple[str, str, set[str], str]] = []
    for key in tool:
        if key in _TOOL_KEYS:
            continue
        intro = _LATER_TOOL_KEYS.get(key)
        if intro:
            problems.append(
                (
                    f"`tool.setuptools.{key}` is only known to setuptools >= {intro}",
                    key,
                    versions(ctx, "61.0.0", intro),
                    f"require `setuptools>={intro}` in build-system.requires",
                )
            )
            continue
        dashed = key.replace("_", "-")
        hint = (
            f"write `{dashed}`"
            if dashed in _TOOL_KEYS or dashed in _LATER_TOOL_KEYS
            else f"remove `{key}`"
        )
        problems.append(
            (
                f'[tool.setuptools] has the unknown key `{key}`: "`tool.setuptools` must not '
                f"contain {{'{key}'}} properties\"",
                key,
                since61,
                hint,
            )
        )
    packages = tool.get("packages")
    if "packages" in tool and not (
        (isinstance(packages, list) and all(isinstance(p, str) for p in packages))
        or (isinstance(packages, dict) and set(packages) == {"find"})
    ):
        problems.append(
            (
                "`tool.setuptools.packages` must be a list of names or a `{find = {...}}` table",
                "packages",
                since61,
                'write `packages = ["pkg"]` or a [tool.setuptools.packages.find] table',
            )
        )
    dynamic = tool.get("dynamic")
    if isinstance(dynamic, dict):
        for key in dynamic:
            if key in _DYNAMIC_KEYS:
                continue
            intro = _LATER_DYNAMIC_KEYS.get(key)
            problems.append(
                (
                    f"`tool.setuptools.dynamic.{key}` is only known to setuptools >= {intro}"
                    if intro
                    else f"`tool.setuptools.dynamic` has the unknown key `{key}`",
                    "dynamic",
                    versions(ctx, "61.0.0", intro) if intro else since61,
                    f"require `setuptools>={intro}` in build-system.requires"
                    if intro
                    else f"remove `{key}`",
                )
            )
    return [
        make_finding(
            ctx,
            "PP007",
            message,
            line=ctx.pyproject.locate("tool.setuptools", key),
            fails=failing,
            fix=fix,
        )
        for message, key, failing, fix in problems
        if failing
    ]


# ------------------------------------------------------------------------------- PP008

#: ``_PREVIOUSLY_DEFINED`` of ``_apply_pyprojecttoml.py``: [project] field -> the setup()
#: keywords and setup.cfg keys that supply it.
_PREVIOUS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "description": (("description",), (("metadata", "description"), ("metadata", "summary"))),
    "readme": (("long_description",), (("metadata", "long_description"),)),
    "requires-python": (("python_requires",), (("options", "python_requires"),)),
    "license": (("license",), (("metadata", "license"),)),
    "authors": (
        ("author", "author_email"),
        (("metadata", "author"), ("metadata", "author_email")),
    ),
    "maintainers": (
        ("maintainer", "maintainer_email"),
        (("metadata", "maintainer"), ("metadata", "maintainer_email")),
    ),
    "keywords": (("keywords",), (("metadata", "keywords"),)),
    "classifiers": (("classifiers",), (("metadata", "classifiers"), ("metadata", "classifier"))),
    "urls": (("project_urls",), (("metadata", "project_urls"),)),
    "dependencies": (("install_requires",), (("options", "install_requires"),)),
}


def _entry_point_fields(ctx: Context) -> dict[str, str]:
    """[project] field -> where setup.py/setup.cfg supply entry points for it."""
    other = ctx.config
    out: dict[str, str] = {}
    value = other.keywords.get("entry_points")
    if value is not None and _truthy(value):
        groups: list[str] | None = None
        node = other.keyword_nodes.get("entry_points")
        if isinstance(value, dict):
            groups = [str(g) for g in value]
        elif isinstance(node, ast.Dict) and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys
        ):
            groups = [str(k.value) for k in node.keys if isinstance(k, ast.Constant)]
        # Groups that cannot be read are not guessed: scripts and other entry points
        # fare differently (dropped / kept).
        for group in groups or ():
            field = {"console_scripts": "scripts", "gui_scripts": "gui-scripts"}.get(
                group, "entry-points"
            )
            out.setdefault(field, "setup(entry_points=...)")
    for section, key in other.cfg:
        if section == "options.entry_points":
            field = {"console_scripts": "scripts", "gui_scripts": "gui-scripts"}.get(
                key, "entry-points"
            )
            out.setdefault(field, "[options.entry_points] in setup.cfg")
        elif section == "options.extras_require":
            out.setdefault("optional-dependencies", "[options.extras_require] in setup.cfg")
    extras = other.keywords.get("extras_require")
    if extras is not None and _truthy(extras):
        out.setdefault("optional-dependencies", "setup(extras_require=...)")
    return out


def _supplied_fields(ctx: Context) -> dict[str, tuple[str, int | None, str]]:
    """[project] field -> (what supplies it, line, file) for setup.py/setup.cfg values."""
    return ctx.once(_compute_supplied)


def _compute_supplied(ctx: Context) -> dict[str, tuple[str, int | None, str]]:
    other = ctx.config
    supplied: dict[str, tuple[str, int | None, str]] = {}
    for field, (kws, keys) in _PREVIOUS.items():
        for kw in kws:
            if kw in other.keywords and _truthy(other.keywords[kw]):
                where = f"setup({kw}=...)"
                supplied.setdefault(field, (where, other.keyword_lines.get(kw), "setup.py"))
        for key in keys:
            if other.cfg.get(key):
                where = f"`{key[1]}` in [{key[0]}] of setup.cfg"
                supplied.setdefault(field, (where, None, "setup.cfg"))
    for field, where in _entry_point_fields(ctx).items():
        path = "setup.py" if where.startswith("setup(") else "setup.cfg"
        line = other.keyword_lines.get("entry_points") if path == "setup.py" else None
        supplied.setdefault(field, (where, line, path))
    return supplied


#: What 69.0.0+ do with a field supplied outside pyproject.toml and not listed in
#: ``dynamic``: (first release, release it stops at or None, effect). ``_handle_missing_dynamic``
#: resets the field to a value some ``_apply_pyprojecttoml`` handlers cannot take, so for
#: some fields the build crashes instead of dropping the value. Probed field by field on
#: every release from 68.2.2 to 84.2.1 (69.1.0-70.0.0 for optional-dependencies: no crash,
#: kept or dropped not established, reported as dropped).
_EFFECT_SINCE_69: dict[str, tuple[tuple[str, str | None, str], ...]] = {
    "readme": (("69.0.0", None, "fails"),),
    "requires-python": (("69.0.0", None, "fails"),),
    "license": (("69.0.0", "77.0.1", "fails"), ("77.0.1", None, "dropped")),
    "optional-dependencies": (
        ("69.0.0", "69.1.0", "fails"),
        ("69.1.0", "70.1.0", "dropped"),
        ("70.1.0", "75.3.0", "kept"),
        ("75.3.0", None, "dropped"),
    ),
    "authors": (("69.0.0", None, "kept"),),
    "maintainers": (("69.0.0", None, "kept"),),
    "entry-points": (("69.0.0", None, "kept"),),
}
_CRASH = {
    "readme": "AttributeError: 'NoneType' object has no attribute 'get'",
    "requires-python": "TypeError: 'NoneType' object is not iterable",
    "license": "KeyError: 'text'",
    "optional-dependencies": "TypeError: 'list' object is not a mapping",
}


def _check_missing_dynamic(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if not project:
        return []
    dynamic = project.get("dynamic")
    declared = set(dynamic) if isinstance(dynamic, list) else set()
    supplied = _supplied_fields(ctx)
    # 61.2.0 (#3218) keeps the value with a warning; 67.7.0 gives the warning a due date
    # (2023-10-30); 69.0.0 (#4066) enforces PEP 621 (see _EFFECT_SINCE_69).
    warns = versions(ctx, "61.2.0")
    _, enforced, _ = due_sets(ctx, (("67.7.0", "2023-10-30"),), until="69.0.0")
    newest = ctx.catalogue.newest
    findings = []
    for field in sorted(supplied):
        if field in project or field in declared:
            continue
        where, line, path = supplied[field]
        effects = _EFFECT_SINCE_69.get(field, (("69.0.0", None, "dropped"),))
        failing: set[str] = set()
        now = "dropped"
        for lo, hi, effect in effects:
            span = versions(ctx, lo, hi)
            if effect == "fails":
                failing |= span
            if newest in span:
                now = effect
        if failing:
            first = min(failing, key=ctx.catalogue.parsed)
            what = f"setuptools >= {first} crashes on it ({_CRASH[field]})" + (
                "" if now == "fails" else f" and the newest release drops it ({now})"
            )
        elif now == "kept":
            what = "setuptools >= 69.0.0 warns that it is ignored (the value is still used)"
        else:
            what = "setuptools >= 69.0.0 silently drops it from the built metadata"
        findings.append(
            make_finding(
                ctx,
                "PP008",
                f"{where} supplies `{field}`, which pyproject.toml neither sets in [project] "
                f"nor lists in `project.dynamic`: {what}",
                path=path,
                line=line,
                fails=failing,
                warns=warns,
                enforced=enforced,
                fix=f'add "{field}" to `dynamic` in [project], or move the value to [project]',
            )
        )
    return findings


# ------------------------------------------------------------------------------- PP009

#: What pip's PEP 517 fallback build environment holds (``setuptools>=40.8.0``, and
#: ``wheel`` for older pip), plus what setuptools brings along.
_FALLBACK_PROVIDES = frozenset({"setuptools", "pkg_resources", "distutils", "_distutils_hack"})
#: Standard-library modules removed in recent Pythons that an older build interpreter has.
_OLD_STDLIB = frozenset(
    {"imp", "asynchat", "asyncore", "smtpd", "distutils", "cgi", "cgitb", "crypt", "imghdr",
     "mailcap", "nntplib", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
     "aifc", "audioop", "chunk", "msilib", "nis", "ossaudiodev", "lib2to3", "tkinter"}
)  # fmt: skip


def _local_names(ctx: Context) -> set[str]:
    """Module names the project itself provides (top-level or one directory down, since
    setup.py often puts ``src`` or ``lib`` on sys.path)."""
    out: set[str] = set()
    for name in ctx.files.names:
        parts = name.split("/")
        for i, part in enumerate(parts[:3]):
            last = i == len(parts) - 1
            stem = part.rsplit(".", 1)[0] if last and "." in part else part
            if stem.isidentifier():
                out.add(stem)
            if last:
                break
    return out


def _check_without_build_system(ctx: Context) -> Iterable[Finding]:
    import sys

    data = ctx.pyproject.data
    if not isinstance(data, dict):
        return []
    table = data.get("build-system")
    if isinstance(table, dict) and "requires" in table:
        return []
    tree = ctx.setup_py.tree
    if tree is None:
        return []
    # Only unconditional imports: those under `if` usually depend on the platform or the
    # command (`if "py2exe" in sys.argv: import py2exe`).
    top_level = ast.Module(
        body=[n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)],
        type_ignores=[],
    )
    stdlib = set(sys.stdlib_module_names) | _OLD_STDLIB
    local = _local_names(ctx)
    findings = []
    seen: set[str] = set()
    for site in import_sites(top_level):
        top = site.module.split(".")[0]
        if (
            top in seen
            or top in stdlib
            or top in _FALLBACK_PROVIDES
            or top in {"wheel", "__future__"}  # older pip adds wheel; SP rules cover it
            or top in local
        ):
            continue
        seen.add(top)
        what = (
            "has no [build-system] table"
            if not isinstance(table, dict)
            else "has a [build-system] table without `requires`"
        )
        findings.append(
            make_finding(
                ctx,
                "PP009",
                f"setup.py imports `{top}` at module level and pyproject.toml {what}: pip "
                "builds in an isolated environment holding only setuptools (and wheel), so "
                f"`import {top}` fails with ModuleNotFoundError whatever the setuptools version",
                path="setup.py",
                line=site.line,
                fails=set(ctx.catalogue.universe),
                fix=f'add [build-system] with requires = ["setuptools", "<the distribution '
                f'that provides {top}>"] and build-backend = "setuptools.build_meta"',
            )
        )
    return findings


# --------------------------------------------------------------------------------- rules


def _rule(  # noqa: PLR0917
    code: str,
    summary: str,
    doc: str,
    example: tuple[tuple[str, str], ...],
    refs: tuple[Reference, ...],
    check: Callable[[Context], Iterable[Finding]],
) -> None:
    register(
        Rule(
            code=code,
            slug=_SLUGS[code],
            family="pyproject.toml",
            summary=summary,
            doc=doc.strip(),
            references=refs,
            example=example,
            check=check,
        )
    )


def _ref(version: str, title: str) -> Reference:
    return Reference(
        title=f"setuptools {version} changelog: {title}",
        url=f"{HISTORY_URL}#v{version.replace('.', '-')}",
    )


_REF_61 = _ref("61.0.0", "PEP 621 metadata in pyproject.toml, validated (#3067, #3068)")
_REF_61_2 = _ref("61.2.0", "subgroup of invalid files ignored, transitional (#3215)")
_REF_68 = _ref("68.0.0", "support for invalid pyproject.toml files removed (#3948)")
_REF_77 = _ref("77.0.0", "PEP 639 license expressions and license-files (#4829, #4833, #4840)")
_REF_69 = _ref("69.0.0", "namespace-packages removed; project.dynamic enforced (#4066)")
_REF_PEP639 = Reference(
    title="PEP 639: improving license clarity with better package metadata",
    url="https://peps.python.org/pep-0639/",
)
_REF_PYPROJECT = Reference(
    title="Python Packaging User Guide: writing your pyproject.toml",
    url="https://packaging.python.org/en/latest/guides/writing-pyproject-toml/",
)

_rule(
    "PP001",
    "pyproject.toml [project] table that setuptools' validation rejects",
    """
## What it does
Checks the `[project]` table the way setuptools' vendored `validate-pyproject` does:
`name` present and not dynamic, `version` present or listed in `dynamic`, no field both set
and dynamic, no keys outside PEP 621 (or keys that only newer setuptools knows, such as
`license-files` before 77.0.1), and the types of the fields.

## Why is this bad?
Since 61.0.0 setuptools reads `[project]` and stops with
`ValueError: invalid pyproject.toml config: project` when it is invalid. 61.2.0-67.8.0
ignored a small group of invalid tables (only `name`, `version` and `requires-python`,
with setup.py or setup.cfg configuring the project and no `[tool.setuptools]`); 68.0.0
ended that grace period, which broke many sdists whose `[project]` held only
`requires-python`.

## Example
```toml
[project]
requires-python = ">=3.8"
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
requires-python = ">=3.8"
```
or drop `[project]` and keep `python_requires` in setup.py/setup.cfg.

## References
- setuptools 61.0.0 changelog, #3067/#3068; 61.2.0, #3215; 68.0.0, #3948
- `setuptools/config/pyprojecttoml.py` (`validate`, `_skip_bad_config`)
""",
    (
        (PATH, '[project]\nrequires-python = ">=3.8"\n'),
        ("setup.py", 'from setuptools import setup\n\nsetup(name="example", version="1.0")\n'),
    ),
    (_REF_61, _REF_61_2, _REF_68),
    _check_project_table,
)
_rule(
    "PP002",
    "`project.license` string (PEP 639 expression) unknown to setuptools < 77.0.1",
    """
## What it does
Finds `license = "..."` strings in `[project]`. A valid SPDX expression needs setuptools
77.0.1 or newer; a string that is not a valid SPDX expression (`"MIT License"`) fails in
every version.

## Why is this bad?
Before 77.0.1 setuptools' schema only accepts `license = {text = ...}` or
`{file = ...}` and the build stops with "`project.license` must be valid exactly by one
definition". A project that caps setuptools (`setuptools<77`), or is built on Python 3.8
(whose newest setuptools is 75.3.x), fails.

## Example
```toml
[build-system]
requires = ["setuptools<77"]
build-backend = "setuptools.build_meta"

[project]
name = "example"
version = "1.0"
license = "MIT"
```

## Use instead
```toml
[build-system]
requires = ["setuptools>=77.0.1"]
build-backend = "setuptools.build_meta"

[project]
name = "example"
version = "1.0"
license = "MIT"
```

## References
- setuptools 77.0.0 changelog (#4829, #4833, #4840); PEP 639
""",
    ((PATH, '[project]\nname = "example"\nversion = "1.0"\nlicense = "MIT"\n'),),
    (_REF_77, _REF_PEP639),
    _check_license_string,
)
_rule(
    "PP003",
    "License classifiers next to a PEP 639 license expression",
    """
## What it does
Finds a `project.license` expression together with `License ::` classifiers (static, or
from setup.py/setup.cfg when `classifiers` is dynamic).

## Why is this bad?
PEP 639 deprecates license classifiers; setuptools 77.0.1 and later stop with
`InvalidConfigError: License classifiers have been superseded by license expressions`.
Before 77.0.1 the license string itself is rejected (PP002), so such a project builds with
no setuptools at all.

## Example
```toml
[project]
name = "example"
version = "1.0"
license = "MIT"
classifiers = ["License :: OSI Approved :: MIT License"]
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
license = "MIT"
```

## References
- setuptools 77.0.0 changelog (#4833); PEP 639, deprecate license classifiers
""",
    (
        (
            PATH,
            '[project]\nname = "example"\nversion = "1.0"\nlicense = "MIT"\n'
            'classifiers = ["License :: OSI Approved :: MIT License"]\n',
        ),
    ),
    (_REF_77, _REF_PEP639),
    _check_classifier_conflict,
)
_rule(
    "PP004",
    "`project.license` as a TOML table, deprecated since setuptools 77.0.1",
    """
## What it does
Finds `license = {text = "..."}` or `license = {file = "..."}` in `[project]`.

## Why is this bad?
setuptools 77.0.1 deprecated the table form (`SetuptoolsDeprecationWarning:
project.license as a TOML table is deprecated`). The due date was 2026-02-18 in 77.0.1 to
80.10.1 (so those releases fail today under `SETUPTOOLS_ENFORCE_DEPRECATION=1`) and is
2027-02-18 since 80.10.2: a release after that date may turn it into an error.

## Example
```toml
[project]
name = "example"
version = "1.0"
license = {text = "MIT"}
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
license = "MIT"
license-files = ["LICENSE"]
```
with `setuptools>=77.0.1` in `build-system.requires`.

## References
- setuptools 77.0.0 changelog (#4840)
- `_license` in `setuptools/config/_apply_pyprojecttoml.py`
""",
    ((PATH, '[project]\nname = "example"\nversion = "1.0"\nlicense = {text = "MIT"}\n'),),
    (_REF_77, _REF_PEP639),
    _check_license_table,
)
_rule(
    "PP005",
    "`[tool.setuptools] namespace-packages`, removed in setuptools 69.0.0",
    """
## What it does
Finds `namespace-packages` in `[tool.setuptools]`.

## Why is this bad?
The key was deprecated in 62.3.0 (due 2023-10-30 from 67.7.0, so 67.7.0-68.2.2 fail under
`SETUPTOOLS_ENFORCE_DEPRECATION=1`), and 69.0.0 removed it: the build stops with
`RemovedConfigError: The parameter tool.setuptools.namespace-packages was long deprecated
and has been removed from pyproject.toml`.

## Example
```toml
[project]
name = "example.ns"
version = "1.0"

[tool.setuptools]
namespace-packages = ["example"]
```

## Use instead
```toml
[project]
name = "example.ns"
version = "1.0"

[tool.setuptools.packages.find]
namespaces = true
```
and delete `example/__init__.py` (PEP 420 implicit namespace package).

## References
- setuptools 69.0.0 changelog (#4066); 62.3.0 (#3262)
""",
    (
        (
            PATH,
            '[project]\nname = "example"\nversion = "1.0"\n\n[tool.setuptools]\n'
            'namespace-packages = ["example"]\n',
        ),
    ),
    (_REF_69, _ref("62.3.0", "namespace_packages formally deprecated (#3262)")),
    _check_namespace_packages,
)
_rule(
    "PP006",
    "`[tool.setuptools] license-files`, deprecated since setuptools 77.0.1",
    """
## What it does
Finds `license-files` in `[tool.setuptools]`, and reports it as an error when
`project.license-files` is set too.

## Why is this bad?
setuptools 77.0.1 moved the setting to `project.license-files` (PEP 639). Both together
stop the build with `InvalidConfigError: 'project.license-files' is defined already`; the
tool key alone warns, with the same due dates as the license table (2026-02-18 in
77.0.1-80.10.1, 2027-02-18 since 80.10.2).

## Example
```toml
[project]
name = "example"
version = "1.0"
license-files = ["LICENSE"]

[tool.setuptools]
license-files = ["LICENSE"]
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
license-files = ["LICENSE"]
```

## References
- setuptools 77.0.0 changelog (#4837); 77.0.3 (#4899)
""",
    (
        (
            PATH,
            '[project]\nname = "example"\nversion = "1.0"\nlicense-files = ["LICENSE"]\n\n'
            '[tool.setuptools]\nlicense-files = ["LICENSE"]\n',
        ),
        ("LICENSE", "MIT\n"),
    ),
    (_REF_77, _ref("77.0.3", "no eager error for license-files outside pyproject (#4899)")),
    _check_tool_license_files,
)
_rule(
    "PP007",
    "`[tool.setuptools]` key that the setuptools schema rejects",
    """
## What it does
Checks `[tool.setuptools]` against setuptools' schema: unknown keys (underscores instead of
dashes, typos), keys only newer releases know (`ext-modules` before 74.1.0,
`dynamic.dependencies`/`dynamic.optional-dependencies` before 62.6.0) and a `packages`
value that is neither a list nor a `find` table.

## Why is this bad?
Since 61.0.0 the table is validated and the build stops with
"`tool.setuptools` must not contain {...} properties"; a build pinned below the release
that introduced a key fails the same way.

## Example
```toml
[project]
name = "example"
version = "1.0"

[tool.setuptools]
include_package_data = true
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"

[tool.setuptools]
include-package-data = true
```

## References
- setuptools 61.0.0 changelog (#3067); 62.6.0 (#3255); 74.1.0 (#4568)
- `setuptools/config/setuptools.schema.json`
""",
    (
        (
            PATH,
            '[project]\nname = "example"\nversion = "1.0"\n\n[tool.setuptools]\n'
            "include_package_data = true\n",
        ),
    ),
    (_REF_61, _ref("74.1.0", "ext-modules in pyproject.toml (#4568)"), _REF_PYPROJECT),
    _check_tool_table,
)
_rule(
    "PP008",
    "setup.py/setup.cfg metadata that [project] does not list in `dynamic`",
    """
## What it does
With a `[project]` table, finds fields that setup.py (`install_requires=`,
`entry_points=`, `long_description=` ...) or setup.cfg supply although `[project]` neither
sets them nor lists them in `dynamic`.

## Why is this bad?
PEP 621 says such values must be ignored. setuptools 61.2.0-68.2.2 kept them with a
warning (due 2023-10-30 from 67.7.0, so those releases fail under
`SETUPTOOLS_ENFORCE_DEPRECATION=1`). Since 69.0.0 most are silently dropped: the wheel
builds without its dependencies, scripts, classifiers or description. Some crash the
build instead: `long_description` (readme) and `python_requires` in every release since
69.0.0, `license` in 69.0.0-76.1.0, `extras_require` in 69.0.x. Authors, maintainers and
plain entry points are still used, with a warning.

## Example
```toml
[project]
name = "example"
version = "1.0"
```
with a setup.py calling `setup(install_requires=["six"])`.

## Use instead
```toml
[project]
name = "example"
version = "1.0"
dynamic = ["dependencies"]
```
or move the dependencies to `[project]`.

## References
- setuptools 69.0.0 changelog (#4066); 61.2.0 (#3218)
""",
    (
        (PATH, '[project]\nname = "example"\nversion = "1.0"\n'),
        ("setup.py", 'from setuptools import setup\n\nsetup(install_requires=["six"])\n'),
    ),
    (_REF_69, _ref("61.2.0", "transitional tolerance for missing dynamic (#3218)")),
    _check_missing_dynamic,
)
_rule(
    "PP009",
    "setup.py imports a third-party module but pyproject.toml declares no build requirements",
    """
## What it does
When pyproject.toml exists but has no `[build-system]` table (or one without `requires`),
finds unconditional module-level imports in setup.py (not under `if`, `try` or a function)
of modules that are neither in the standard library, nor setuptools itself, nor part of
the project.

## Why is this bad?
A pyproject.toml, even one holding only `[tool.black]`, switches pip to PEP 517 builds in
an isolated environment that contains only what `build-system.requires` lists, by default
`setuptools>=40.8.0` (and `wheel` in older pip). setuptools 43.0.0 (#1634) started
shipping pyproject.toml in sdists, so many sdists got this switch without their authors
noticing: `import numpy` or `from Cython.Build import cythonize` in setup.py then fails
with `ModuleNotFoundError` before `setup()` runs, with every setuptools version.
`setup_requires` does not help, since the import comes first.

## Example
```toml
[tool.black]
line-length = 100
```
with
```python
import numpy
from setuptools import setup

setup(name="example", version="1.0", include_dirs=[numpy.get_include()])
```

## Use instead
```toml
[build-system]
requires = ["setuptools", "numpy"]
build-backend = "setuptools.build_meta"
```

## References
- setuptools 43.0.0 changelog (#1634): pyproject.toml included in sdists
- PEP 518: build-system table and its default
""",
    (
        (PATH, "[tool.black]\nline-length = 100\n"),
        (
            "setup.py",
            "import numpy\nfrom setuptools import setup\n\n"
            'setup(name="example", version="1.0", include_dirs=[numpy.get_include()])\n',
        ),
    ),
    (
        _ref("43.0.0", "pyproject.toml included in sdists (#1634)"),
        Reference(
            title="PEP 518: specifying minimum build system requirements",
            url="https://peps.python.org/pep-0518/",
        ),
    ),
    _check_without_build_system,
)
