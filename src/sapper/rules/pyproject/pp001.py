"""PP001 `pyproject-invalid-project-table`:
pyproject.toml [project] table that setuptools' validation rejects.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...changes import (
    DYNAMIC_FROM_SETUP_SINCE,
    PROJECT_KEYS_SINCE,
    PROJECT_RELAX,
    PROJECT_TABLE_SINCE,
    PROJECT_VERSION_REQUIRED_SINCE,
    change,
)
from ...model import Finding
from .._base import Context, Rule, register
from .._emit import make_finding, versions
from ._shared import (
    _REF_61,
    PATH,
    _ref,
    _supplied_fields,
    _truthy,
)
from ._validation import locate, validation, validator_fix
from ._validation import message as validator_message

#: PEP 621 keys every setuptools since 61.0.0 accepts in [project].
_PEP621 = frozenset(
    {
        "name", "version", "description", "readme", "requires-python", "license",
        "authors", "maintainers", "keywords", "classifiers", "urls", "entry-points",
        "scripts", "gui-scripts", "dependencies", "optional-dependencies", "dynamic",
    }
)  # fmt: skip


#: Keys added to the vendored schema later (PEP 639 in 77.0.1, PEP 794 in 82.0.1).
_LATER_PROJECT_KEYS = PROJECT_KEYS_SINCE


#: ``_skip_bad_config`` (61.2.0-67.8.0): an invalid [project] holding only these keys is
#: ignored with a warning when setup.py/setup.cfg configure the project and there is no
#: [tool.setuptools]; 68.0.0 (#3948) removed the grace period.
_POPULAR_SUBSET = frozenset({"name", "version", "python_requires", "requires-python"})


_RELAX = PROJECT_RELAX


# compiled on first use (re caches it), not at every start-up
_NAME_RE = r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$"


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
        if not re.match(_NAME_RE, value, re.IGNORECASE):
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
        failing = versions(ctx, PROJECT_TABLE_SINCE, DYNAMIC_FROM_SETUP_SINCE)
        if field in _REQUIRED_DYNAMIC and not other.opaque and field not in supplied:
            failing |= versions(ctx, DYNAMIC_FROM_SETUP_SINCE)
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


def _validator_findings(
    ctx: Context, relax: set[str], table: str, code: str
) -> tuple[list[Finding], set[str]]:
    """Findings of the real validators' rejections of ``table`` (``project`` or ``tool``),
    and every release a validator rejected the file at (setuptools stops there)."""
    val = validation(ctx)
    stopped: set[str] = set()
    for releases, _ in val.rejected:
        stopped |= releases
    findings = []
    note = _RELAX_NOTE if relax else ""
    for releases, rejection in val.rejected_at(table):
        failing = set(releases) - relax
        if failing:
            findings.append(
                make_finding(
                    ctx,
                    code,
                    validator_message(rejection) + note,
                    line=locate(ctx, rejection),
                    fails=failing,
                    fix=validator_fix(rejection),
                )
            )
    return findings, stopped


_RELAX_NOTE = " (61.2.0-67.8.0 ignored the whole [project] table with a warning instead)"


def _check_project_table(ctx: Context) -> Iterable[Finding]:
    project, tool = ctx.pyproject.tables
    relax = versions(ctx, *_RELAX) if project and _relaxed(ctx, project, tool) else set()
    findings, stopped = _validator_findings(ctx, relax, "project", "PP001")
    if not project:
        unjudged = versions(ctx, PROJECT_TABLE_SINCE) & set(validation(ctx).unavailable)
        if tool and unjudged:
            # read_configuration validates {"project": {}, ...} when [tool.setuptools] is
            # there: the schema wants `name` (and `version` or `dynamic`) in every release
            findings.append(
                make_finding(
                    ctx,
                    "PP001",
                    "[tool.setuptools] without [project]: setuptools validates an empty "
                    '[project] and stops with "invalid pyproject.toml config: `project`"',
                    line=ctx.pyproject.locate("tool.setuptools"),
                    fails=unjudged,
                    fix="add a [project] table with `name` and `version`, or move the "
                    "[tool.setuptools] options to setup.cfg/setup.py",
                )
            )
        return findings  # an empty [project] alone is ignored like a missing one
    # The hand-written schema checks stand for the releases whose validator is not cached;
    # the checks setuptools makes after validation, for every release that got past it.
    schema = set(validation(ctx).unavailable)
    after = versions(ctx, PROJECT_TABLE_SINCE) - stopped
    since61 = versions(ctx, PROJECT_TABLE_SINCE) & schema
    dynamic = project.get("dynamic")
    # non-strings are reported as a type problem below; a set of mixed types cannot be
    # sorted, and a list or table in the list cannot be in a set at all
    dynamic = {d for d in dynamic if isinstance(d, str)} if isinstance(dynamic, list) else set()
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
                versions(ctx, PROJECT_VERSION_REQUIRED_SINCE) & schema,
                'add `version = "..."` to [project], or `dynamic = ["version"]` with '
                '`[tool.setuptools.dynamic] version = {attr = "pkg.__version__"}`',
            )
        )
    for key in sorted(dynamic & set(project)):
        problems.append(
            (
                f"`{key}` is set in [project] and listed in `project.dynamic` too",
                key,
                versions(ctx, PROJECT_TABLE_SINCE) & (schema | after),
                f"either remove `{key}` from `dynamic` or drop the static value",
            )
        )
    for key, value in project.items():
        if key not in _PEP621:
            intro = _LATER_PROJECT_KEYS.get(key)
            failing = versions(ctx, PROJECT_TABLE_SINCE, intro) & schema if intro else since61
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
                elif isinstance(item, str) and item in _LATER_PROJECT_KEYS:
                    intro = _LATER_PROJECT_KEYS[item]
                    problems.append(
                        (
                            f"`project.dynamic` lists `{item}`, a field only setuptools >= "
                            f"{intro} knows",
                            "dynamic",
                            versions(ctx, PROJECT_TABLE_SINCE, intro) & schema,
                            f"require `setuptools>={intro}` in build-system.requires",
                        )
                    )
    for key in ("authors", "maintainers"):
        people = project.get(key)
        if isinstance(people, list) and any(
            isinstance(p, dict) and "name" not in p and "email" not in p for p in people
        ):
            # the validators before 82.0.1 accept it; _apply_pyprojecttoml._people then
            # reads person["email"] (KeyError: 'email')
            problems.append(
                (
                    f"`project.{key}` has a table with neither `name` nor `email`; setuptools "
                    "stops with \"KeyError: 'email'\" (or the validator rejects it)",
                    key,
                    change("ST77").failing(ctx.catalogue) & (schema | after),
                    "give each person a `name` or an `email`, or drop the empty table",
                )
            )
    problems.extend(
        (m, k, v & (schema | after), f)
        for m, k, v, f in _unfilled_dynamic(ctx, project, tool, dynamic)
    )
    for message, key, versions_hit, fix in problems:
        failing = versions_hit - relax
        if not failing:
            continue
        findings.append(
            make_finding(
                ctx,
                "PP001",
                message + (_RELAX_NOTE if relax else ""),
                line=ctx.pyproject.locate("project", key),
                fails=failing,
                fix=fix,
            )
        )
    return findings


_REF_61_2 = _ref("61.2.0", "subgroup of invalid files ignored, transitional (#3215)")


_REF_68 = _ref("68.0.0", "support for invalid pyproject.toml files removed (#3948)")


register(
    Rule(
        code="PP001",
        slug="pyproject-invalid-project-table",
        family="pyproject.toml",
        summary="pyproject.toml [project] table that setuptools' validation rejects",
        doc="""
## What it does
Runs each setuptools release's own vendored validator (`validate-pyproject`, generated
code under `setuptools/config/_validate_pyproject/`) on `[project]` and reports its
rejections in its own words, at the line of the offending key (`sapper cache warm` puts the
validators in the cache; see docs/cli.md), and the checks setuptools makes after
validation: a field both set and dynamic, dynamic fields nothing fills, an author table
with neither `name` nor `email`. A `[tool.setuptools]` table without `[project]` fails
too: setuptools validates an empty `[project]`. Where a release's validator is not cached
it checks the table itself, the way the validator does:
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
        references=(_REF_61, _REF_61_2, _REF_68),
        example=(
            (PATH, '[project]\nrequires-python = ">=3.8"\n'),
            ("setup.py", 'from setuptools import setup\n\nsetup(name="example", version="1.0")\n'),
        ),
        check=_check_project_table,
    )
)
