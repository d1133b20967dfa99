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

What the rules of this family share; each rule lives in its own module."""

from __future__ import annotations

import ast
from typing import Any

from ...changes import history_ref
from ...model import Reference
from .._base import Context

#: ``project.license`` as a table and ``tool.setuptools.license-files``
#: (``_apply_pyprojecttoml.py``): 2026-02-18 in 77.0.1-80.10.1, 2027-02-18 since 80.10.2.


PATH = "pyproject.toml"


def _truthy(value: Any) -> bool:
    from ...facts._values import UNKNOWN

    return value is UNKNOWN or bool(value)


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
        if where.startswith("setup("):
            # the line of the keyword named: setup(entry_points=...) or setup(extras_require=...)
            kw = where.removeprefix("setup(").removesuffix("=...)")
            supplied.setdefault(field, (where, other.keyword_lines.get(kw), "setup.py"))
        else:
            supplied.setdefault(field, (where, None, "setup.cfg"))
    return supplied


#: A reference to a release's changelog entry (one definition, in the changes table).
_ref = history_ref


_REF_61 = _ref("61.0.0", "PEP 621 metadata in pyproject.toml, validated (#3067, #3068)")


_REF_77 = _ref("77.0.0", "PEP 639 license expressions and license-files (#4829, #4833, #4840)")


_REF_69 = _ref("69.0.0", "namespace-packages removed; project.dynamic enforced (#4066)")


_REF_PEP639 = Reference(
    title="PEP 639: improving license clarity with better package metadata",
    url="https://peps.python.org/pep-0639/",
)
