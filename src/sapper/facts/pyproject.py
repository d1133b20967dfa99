"""Facts about pyproject.toml: its tables as parsed once, the build system, line lookup."""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from ..inputs.sources import ProjectFiles

# packaging.requirements and tomllib are imported where they are needed: most checks never
# touch them and start-up time matters.

__all__ = [
    "DEFAULT_REQUIRES",
    "LEGACY_BACKEND",
    "PATH",
    "BuildSystem",
    "PyProject",
    "PyprojectFacts",
    "build_system",
    "frontend_refusal",
    "load_pyproject",
    "parse_pyproject",
]

PATH = "pyproject.toml"

#: What pip uses for a project without ``[build-system]`` (PEP 517 fallback).
LEGACY_BACKEND = "setuptools.build_meta:__legacy__"
#: What pip installs to build a project without ``[build-system]`` (same fallback).
DEFAULT_REQUIRES = ("setuptools>=40.8.0",)

#: Backends that run setuptools (and so read setup.cfg) themselves.
_SETUPTOOLS_BACKENDS = frozenset(
    {
        "setuptools.build_meta",
        "setuptools.build_meta:__legacy__",
        "pbr.build",
        "jupyter_packaging.build_api",
    }
)


# NamedTuples, not frozen dataclasses: every cold `sapper check` builds these classes, and
# a frozen dataclass costs several exec() calls to build (issue 13).
class BuildSystem(NamedTuple):
    backend: str
    requires: tuple[str, ...]
    in_tree: bool
    #: Combined specifier of the setuptools requirements in ``requires`` (None: unconstrained).
    setuptools: SpecifierSet | None
    #: ``yes``: the backend is setuptools; ``assumed``: an unknown backend that requires
    #: setuptools; ``no``: another backend.
    uses_setuptools: str
    #: A problem reading pyproject.toml, if any.
    error: str | None = None
    #: ``backend-path`` as written (None: absent).
    backend_path: tuple[str, ...] | None = None


class PyProject(NamedTuple):
    """pyproject.toml as parsed once per project: its tables, or why it could not be read."""

    data: dict[str, Any] | None
    error: str | None = None
    #: Where the TOML (or UTF-8) error is, when ``error`` says one.
    line: int | None = None
    column: int | None = None


def load_pyproject(files: ProjectFiles) -> PyProject:
    return parse_pyproject(files.files.get(PATH))


def parse_pyproject(data: bytes | None) -> PyProject:
    """The bytes of a pyproject.toml (None: no such file) as parsed, or why they are not TOML."""
    if data is None:
        return PyProject(None)
    from .._toml import TOMLDecodeError, loads

    try:
        return PyProject(loads(data.decode("utf-8")))
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return PyProject(None, f"pyproject.toml is not valid UTF-8 ({exc.reason})", line, column)
    except TOMLDecodeError as exc:
        # "... (at line 3, column 5)" (Python 3.14 and tomli 2.1 also have .lineno/.colno)
        where = re.search(r"at line (\d+), column (\d+)\)$", str(exc))
        message = f"pyproject.toml is not valid TOML: {exc}"
        if where is None:
            return PyProject(None, message)
        return PyProject(None, message, int(where[1]), int(where[2]))


def build_system(pp: PyProject) -> BuildSystem:
    pyproject, error = pp.data, pp.error
    table = pyproject.get("build-system") if isinstance(pyproject, dict) else None
    if not isinstance(table, dict):
        # pip's fallback for projects without [build-system]: setuptools>=40.8.0, which
        # every release sapper models satisfies.
        return BuildSystem(
            backend=LEGACY_BACKEND,
            requires=DEFAULT_REQUIRES,
            in_tree=False,
            setuptools=None,
            uses_setuptools="yes",
            error=error,
        )
    raw = table.get("requires")
    requires = tuple(str(r) for r in raw) if isinstance(raw, list) else ()
    backend = str(table.get("build-backend") or LEGACY_BACKEND)
    raw_path = table.get("backend-path")
    in_tree = bool(raw_path)
    spec: SpecifierSet | None = None
    wants_setuptools = False
    if requires:
        from .._requirement import canonical_name, parse_requirement
    for text in requires:
        req = parse_requirement(text)
        if req is None:
            continue
        if canonical_name(req.name) != "setuptools":
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        wants_setuptools = True
        if req.specifier:
            spec = req.specifier if spec is None else spec & req.specifier
    if backend in _SETUPTOOLS_BACKENDS or backend.startswith("setuptools.build_meta"):
        uses = "yes"
    elif wants_setuptools and in_tree:
        uses = "assumed"
    else:
        uses = "no"
    return BuildSystem(
        backend=backend,
        requires=requires,
        in_tree=in_tree,
        setuptools=spec,
        uses_setuptools=uses,
        error=error,
        backend_path=tuple(map(str, raw_path)) if isinstance(raw_path, list) else None,
    )


def frontend_refusal(pp: PyProject) -> str | None:
    """Why a PEP 517 frontend (pip, build) refuses this pyproject.toml before it builds
    anything (None: it accepts it): not UTF-8 TOML, ``[build-system]`` not a table, its
    ``requires`` missing or not a list of strings, its ``backend-path`` not one."""
    if pp.error is not None:
        return pp.error
    table = pp.data.get("build-system") if pp.data is not None else None
    if table is None:
        return None
    if not isinstance(table, dict):
        return "pyproject.toml: `build-system` is not a table"
    requires = table.get("requires")
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        return "pyproject.toml: `build-system.requires` is missing or not a list of strings"
    backend_path = table.get("backend-path")
    if backend_path is not None and not (
        isinstance(backend_path, list) and all(isinstance(p, str) for p in backend_path)
    ):
        return "pyproject.toml: `build-system.backend-path` must be a list of strings"
    return None


# compiled on first use (re caches it), not at every start-up
_HEADER = r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$"


class PyprojectFacts:
    """pyproject.toml of one project, each view computed on first use."""

    def __init__(self, files: ProjectFiles) -> None:
        self._files = files

    @cached_property
    def parsed(self) -> PyProject:
        """The parsed document, or why it could not be read."""
        return load_pyproject(self._files)

    @property
    def data(self) -> dict[str, Any] | None:
        return self.parsed.data

    @cached_property
    def build_system(self) -> BuildSystem:
        return build_system(self.parsed)

    @cached_property
    def tables(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """``[project]`` and ``[tool.setuptools]`` (None when absent or not tables)."""
        data = self.data
        if not isinstance(data, dict):
            return None, None
        project = data.get("project")
        tool = data.get("tool")
        setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
        return (
            project if isinstance(project, dict) else None,
            setuptools if isinstance(setuptools, dict) else None,
        )

    @property
    def project(self) -> dict[str, Any] | None:
        """The ``[project]`` table."""
        return self.tables[0]

    @property
    def tool_setuptools(self) -> dict[str, Any] | None:
        """The ``[tool.setuptools]`` table."""
        return self.tables[1]

    @cached_property
    def _lines(self) -> list[str] | None:
        text = self._files.read_text(PATH)
        return None if text is None else text.splitlines()

    def locate(self, table: str, key: str | None = None) -> int | None:
        """The line of ``key = ...`` in ``[table]`` (or of the table header), if found.

        Dotted forms are understood too: ``license.text = ...`` under ``[project]`` and
        ``[project.license]`` both locate ``project``/``license``.
        """
        lines = self._lines
        if lines is None:
            return None
        current = ""
        header_line: int | None = None
        want = f"{table}.{key}" if key is not None else table
        for lineno, raw in enumerate(lines, start=1):
            mo = re.match(_HEADER, raw)
            if mo and not raw.lstrip().startswith("[["):
                current = re.sub(r"\s*\.\s*", ".", re.sub(r"[\"']", "", mo.group(1)))
                if current == want or (key and current.startswith(want + ".")):
                    return lineno
                if current == table:
                    header_line = lineno
                continue
            if key is None:
                continue
            stripped = re.sub(r"[\"']", "", raw.strip())
            full = f"{current}.{stripped}" if current else stripped
            if re.match(rf"{re.escape(want)}\s*[.=]", full):
                return lineno
        return header_line
