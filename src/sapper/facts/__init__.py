"""The facts layer: one typed, lazily computed view per input of a project.

Rules never parse files themselves; they read these views, each computed on first use and
kept for the project (``facts.setup_py.keywords``, ``facts.setup_cfg.values``,
``facts.pyproject.build_system``, ``facts.names``). Views never import rules, and rule
families never import each other: what two families share lives here.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..inputs.sources import ProjectFiles
    from ..versions import Catalogue
    from ._values import Target
    from .config import OtherConfig
    from .pyproject import PyprojectFacts
    from .setup_cfg import SetupCfgFacts
    from .setup_py import SetupPyFacts

__all__ = ["ProjectFacts"]

_F = TypeVar("_F", bound="ProjectFacts")
_T = TypeVar("_T")


class ProjectFacts:
    """Everything known about one project's files, computed on first use."""

    def __init__(
        self,
        *,
        files: ProjectFiles,
        catalogue: Catalogue,
        today: _dt.date,
        target: Target | None = None,
    ) -> None:
        self.files = files
        self.catalogue = catalogue
        self.today = today
        #: The Python and platform the build runs on (default: the running interpreter).
        self.target = target
        self._once: dict[Callable[..., Any], Any] = {}

    @cached_property
    def setup_py(self) -> SetupPyFacts:
        from .setup_py import SetupPyFacts

        return SetupPyFacts(self.files, self.target)

    @cached_property
    def setup_cfg(self) -> SetupCfgFacts:
        from .setup_cfg import SetupCfgFacts

        return SetupCfgFacts(self.files)

    @cached_property
    def pyproject(self) -> PyprojectFacts:
        from .pyproject import PyprojectFacts

        return PyprojectFacts(self.files)

    @cached_property
    def config(self) -> OtherConfig:
        """What setup.py and setup.cfg configure together."""
        from .config import other_config

        return other_config(self.setup_py, self.setup_cfg)

    @property
    def names(self) -> tuple[str, ...]:
        """The listing of the project: every member path, directories included."""
        return self.files.names

    def missing_in(self, module: str) -> set[str]:
        """The known setuptools releases that do not ship ``module``."""
        from .inventory import missing_in

        return missing_in(self.catalogue, module)

    def once(self: _F, compute: Callable[[_F], _T]) -> _T:
        """``compute(self)``, computed once per project: for an analysis several rules of
        one family share (the setup.cfg replay, for instance)."""
        if compute not in self._once:
            self._once[compute] = compute(self)
        result: _T = self._once[compute]
        return result
