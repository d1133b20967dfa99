"""Build stages: what fails in ``prepare_metadata_for_build_wheel`` and in ``build_wheel``.

A PEP 517 frontend such as pip first asks for the metadata (``metadata`` stage), then builds
the wheel (``wheel`` stage). The practices sapper's rules find fail in both, since both
stages load the project's configuration and finalise ``bdist_wheel`` (``dist_info`` asks it
for the wheel's layout, so even ``[bdist_wheel] universal`` fails at the metadata stage). Under
``SETUPTOOLS_ENFORCE_DEPRECATION=1`` setuptools itself can fail every wheel build: from
80.1.0 ``bdist_wheel`` runs the ``install`` command, whose "setup.py install is deprecated"
warning carries a due date (2025-10-31) and so becomes an error once it is overdue.

The facts come from ``data/backend.json``, declared once from setuptools' sources and
proven by real builds in ``tests/oracle/test_stages_oracle.py``; renderers never type them.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from .model import Finding, Stage, StageName
from .versions import contains

__all__ = [
    "HOOKS",
    "STAGE_NAMES",
    "BackendDeprecation",
    "BackendFacts",
    "backend_facts",
    "backend_failure",
    "stages_for",
]

#: The stages, in the order a frontend runs them.
STAGE_NAMES: tuple[StageName, ...] = ("metadata", "wheel")
#: The PEP 517 hook of each stage.
HOOKS: Mapping[str, str] = {
    "metadata": "prepare_metadata_for_build_wheel",
    "wheel": "build_wheel",
}


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class BackendDeprecation(NamedTuple):
    """A deprecation that setuptools emits at one stage for every project."""

    stage: StageName
    #: The setuptools versions that emit it with a due date (PEP 440 ranges).
    versions: tuple[str, ...]
    due_date: str
    warning: str
    source: str

    def fails(self, version: str, *, today: _dt.date) -> bool:
        """Whether it is an error in ``version`` under enforcement on ``today``
        (setuptools raises when the due date is strictly before today)."""
        return contains(self.versions, version) and _dt.date.fromisoformat(self.due_date) < today

    def describe(self) -> str:
        return (
            f"setuptools itself fails every {HOOKS[self.stage]} in this mode: "
            f'"{self.warning}" is overdue since {self.due_date}'
        )


class BackendFacts(NamedTuple):
    deprecations: tuple[BackendDeprecation, ...]


def _load(raw: Mapping[str, Any]) -> BackendFacts:
    return BackendFacts(
        deprecations=tuple(
            BackendDeprecation(
                stage=d["stage"],
                versions=tuple(d["versions"]),
                due_date=d["due_date"],
                warning=d["warning"],
                source=d["source"],
            )
            for d in raw["backend_deprecations"]
        ),
    )


@functools.lru_cache(maxsize=1)
def backend_facts() -> BackendFacts:
    """The facts shipped with sapper (``data/backend.json``)."""
    from . import _data

    return _load(json.loads(_data.read_bytes("backend.json")))


def backend_failure(
    version: str, stage: StageName, *, enforce: bool, today: _dt.date
) -> BackendDeprecation | None:
    """The deprecation that makes setuptools ``version`` fail every build at ``stage``, if any."""
    if not enforce:
        return None
    for d in backend_facts().deprecations:
        if d.stage == stage and d.fails(version, today=today):
            return d
    return None


def stages_for(
    findings: Iterable[Finding], version: str, *, enforce: bool, today: _dt.date
) -> tuple[Stage, ...]:
    """Per stage: whether the project's own practices fail there, and whether setuptools
    itself fails every build there (only ever under enforcement)."""
    because = tuple(
        dict.fromkeys(
            f.code for f in findings if contains(f.fails_enforced if enforce else f.fails, version)
        )
    )
    out: list[Stage] = []
    for stage in STAGE_NAMES:
        backend = backend_failure(version, stage, enforce=enforce, today=today)
        out.append(
            Stage(
                name=stage,
                hook=HOOKS[stage],
                outcome="fails" if because or backend else "builds",
                because=because,
                backend=None if backend is None else backend.describe(),
            )
        )
    return tuple(out)
