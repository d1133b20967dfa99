"""``sapper migrate``: move a setuptools project's configuration to pyproject.toml.

:func:`plan_migration` reads a project tree (never writes, never runs its code) and says
what would change: ``[project]``, ``[tool.setuptools]`` and ``[build-system]`` written into
pyproject.toml, the keys that moved taken out of setup.cfg and setup.py, and what stays
there (``dynamic`` in ``[project]`` lists the metadata fields that stay). When the result
could build another wheel than before, nothing changes and the reasons are the refusals.
:func:`write_migration` writes a plan; :func:`migration_diff` renders it as a unified diff.
"""

from __future__ import annotations

from ._model import FileChange, Migration, Refusal
from .plan import plan_migration
from .writer import migration_diff, write_migration

__all__ = [
    "FileChange",
    "Migration",
    "Refusal",
    "migration_diff",
    "plan_migration",
    "write_migration",
]
