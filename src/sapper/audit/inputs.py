"""Read what ``sapper audit`` audits: requirements files, lock files and pip reports.

The format of a file is told by its content, not its name (:func:`detect_format`); several
files can be read at once (:func:`read_inputs`). Every format becomes an :class:`InputSet`:
the distributions it names (:class:`Entry`), and, for requirements files, the pip options
that change what gets installed (``--only-binary``, ``--no-binary``, ``--pre``, index
URLs, constraints).

* Requirements files are read the way pip reads them: comments, ``\\`` continuations,
  ``${VAR}`` expansion, ``-r``/``-c`` nesting relative to the including file, per-line
  ``--hash`` options. Versions are not resolved here (see :mod:`sapper.audit.resolve`).
* Lock files (PEP 751 ``pylock.toml``, ``uv.lock``, ``poetry.lock``, including Poetry 1.1's
  ``[metadata.files]``) and the JSON of ``pip install --dry-run --report`` name exact
  releases and the files an installer may choose from, so no index is needed for them.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from .._exceptions import UsageError

__all__ = [
    "Entry",
    "FileRef",
    "FormatControl",
    "InputFormat",
    "InputSet",
    "detect_format",
    "read_input",
    "read_inputs",
]

InputFormat = Literal["requirements", "pylock", "uv.lock", "poetry.lock", "pip-report"]
#: ``registry``: a release from an index; the others are not built from an index's sdist
#: and are reported, not audited.
EntryKind = Literal["registry", "url", "path", "vcs", "editable", "virtual"]

_MAX_INPUT = 64 * 1024 * 1024
_MAX_NESTING = 32


@dataclass(frozen=True, slots=True, kw_only=True)
class FileRef:
    """One distribution file (wheel or sdist) that a lock, report or index lists."""

    filename: str
    url: str | None = None
    sha256: str | None = None
    requires_python: str | None = None
    yanked: bool = False
    size: int | None = None
    upload_time: str | None = None

    @property
    def is_wheel(self) -> bool:
        return self.filename.lower().endswith(".whl")


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One distribution the input names."""

    name: str
    #: The exact version (locks, reports, ``==`` pins); None when an index must decide.
    version: str | None = None
    #: The version specifier as written (``""`` for none).
    specifier: str = ""
    marker: str | None = None
    kind: EntryKind = "registry"
    #: The files to choose from when the input lists them (locks, reports); None: the index.
    files: tuple[FileRef, ...] | None = None
    #: ``--hash`` values of a requirements line (``sha256:...``).
    hashes: tuple[str, ...] = ()
    #: Where in the input this entry comes from (``requirements.txt:3``).
    origin: str = ""
    #: The URL or path of a direct reference (kind ``url``, ``path``, ``vcs``, ``editable``).
    reference: str | None = None

    @property
    def key(self) -> str:
        return canonicalize_name(self.name)


@dataclass(frozen=True, slots=True, kw_only=True)
class FormatControl:
    """pip's ``--no-binary``/``--only-binary`` sets (canonical names, or ``:all:``)."""

    no_binary: frozenset[str] = frozenset()
    only_binary: frozenset[str] = frozenset()

    def allows_wheels(self, name: str) -> bool:
        key = canonicalize_name(name)
        if key in self.only_binary:
            return True
        return not (key in self.no_binary or ":all:" in self.no_binary)

    def allows_sdists(self, name: str) -> bool:
        key = canonicalize_name(name)
        if key in self.no_binary:
            return True
        return not (key in self.only_binary or ":all:" in self.only_binary)

    def updated(self, option: Literal["no_binary", "only_binary"], value: str) -> FormatControl:
        """Apply one ``--no-binary VALUE`` or ``--only-binary VALUE`` as pip does.

        ``:all:`` replaces the set and clears the other one; ``:none:`` empties the set; a
        name list adds the names and removes them from the other set.
        """
        mine = set(self.no_binary if option == "no_binary" else self.only_binary)
        other = set(self.only_binary if option == "no_binary" else self.no_binary)
        for raw in value.split(","):
            item = raw.strip()
            if not item:
                continue
            if item == ":all:":
                mine = {":all:"}
                other = set()
            elif item == ":none:":
                mine = set()
            else:
                key = canonicalize_name(item)
                mine.add(key)
                other.discard(key)
        if option == "no_binary":
            return FormatControl(no_binary=frozenset(mine), only_binary=frozenset(other))
        return FormatControl(no_binary=frozenset(other), only_binary=frozenset(mine))


@dataclass(frozen=True, slots=True, kw_only=True)
class InputSet:
    """Everything one input file says about what to install."""

    path: str
    format: InputFormat
    entries: tuple[Entry, ...]
    #: Requirements from ``-c`` files: they narrow versions, they install nothing.
    constraints: tuple[Entry, ...] = ()
    format_control: FormatControl = field(default_factory=FormatControl)
    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    pre: bool = False
    #: Lines or entries that were skipped, with the reason (``requirements.txt:7: ...``).
    notes: tuple[str, ...] = ()
    #: The files given (several requirements files read together); empty: just ``path``.
    files: tuple[str, ...] = ()


_LOCK_NAMES: dict[str, InputFormat] = {"uv.lock": "uv.lock", "poetry.lock": "poetry.lock"}


def _format_by_name(path: Path) -> InputFormat | None:
    """What the file name says, used only when the content does not tell."""
    name = path.name.lower()
    if name in _LOCK_NAMES:
        return _LOCK_NAMES[name]
    if name == "pylock.toml" or (name.startswith("pylock.") and name.endswith(".toml")):
        return "pylock"
    if name.endswith(".json"):
        return "pip-report"
    return None


def _lock_kind(table: Mapping[str, Any]) -> InputFormat | None:
    """Which lock a parsed TOML document is, from the keys each tool writes."""
    if "lock-version" in table and isinstance(table.get("packages"), list):
        return "pylock"
    packages = table.get("package")
    metadata = table.get("metadata")
    if isinstance(metadata, Mapping) and ("content-hash" in metadata or "lock-version" in metadata):
        return "poetry.lock"  # Poetry 1.x and 2.x: [metadata] with content-hash
    if isinstance(packages, list) and isinstance(table.get("version"), int):
        return "uv.lock"  # uv: top-level integer version (and revision), [[package]]
    if "lock-version" in table:
        return "pylock"  # a pylock without packages: its reader says what is wrong
    return None


def _sniff(path: Path, data: bytes) -> tuple[InputFormat, dict[str, Any] | None]:
    """The format from the content (and the parsed TOML of a lock), whatever the name.

    A JSON object is a pip report; a TOML document is a lock when it has the keys of one;
    anything else is a requirements file, unless the name says it is a lock or report (then
    that reader reports what is wrong with it).
    """
    text = data.decode("utf-8-sig", errors="replace")
    if text.lstrip().startswith("{"):
        return "pip-report", None
    table = _toml_or_none(text)
    if table:
        kind = _lock_kind(table)
        if kind is not None:
            return kind, table
        if "source" in table and ("packages" in table or "dev-packages" in table):
            msg = (
                f"{path}: a Pipfile, which pins nothing; `pipenv requirements > "
                "requirements.txt` writes the pins of its Pipfile.lock for sapper to read"
            )
            raise UsageError(msg)
        if {"project", "build-system", "tool"} & set(table):
            msg = (
                f"{path}: a pyproject.toml, not a lock or requirements file; give the lock "
                "its tool wrote (uv.lock, poetry.lock, pylock.toml) or a requirements file"
            )
            raise UsageError(msg)
        msg = (
            f"{path}: a TOML document but not a lock sapper reads (pylock.toml, uv.lock, "
            f"poetry.lock); its top-level keys are {', '.join(sorted(table)[:6])}"
        )
        raise UsageError(msg)
    named = _format_by_name(path)
    if named is not None and not _looks_like_requirements(text):
        return named, None  # a damaged lock or report: its reader says what is wrong
    return "requirements", None


def _looks_like_requirements(text: str) -> bool:
    """Whether some line is a requirement or an option and none is anything else."""
    seen = False
    for _, line in _logical_lines(text, {}):
        if not line.startswith("-"):
            try:
                Requirement(line.split(" --", 1)[0])
            except InvalidRequirement:
                return False
        seen = True
    return seen


def detect_format(path: Path, data: bytes) -> InputFormat:
    """Tell the format of an input from its content (``data``: the file's bytes); the name
    decides only for a file whose content is no known lock or report."""
    return _sniff(path, data)[0]


def read_input(path: str | Path, *, environ: Mapping[str, str] | None = None) -> InputSet:
    """Read one input file, detecting its format; raise UsageError when it is unusable."""
    (one,) = read_inputs([path], environ=environ)
    return one


def read_inputs(
    paths: Sequence[str | Path],
    *,
    constraints: Sequence[str | Path] = (),
    environ: Mapping[str, str] | None = None,
) -> tuple[InputSet, ...]:
    """Read several inputs, each detected by its content.

    Requirements files are read into one set, in order, as pip reads several ``-r`` files
    (their options and ``-c`` constraints apply to all of them); ``constraints`` are
    constraints files for that set, as pip's ``-c`` on the command line. Each lock or report
    stays a set of its own, at the place of its path.
    """
    from ._locks import read_pip_report, read_poetry_lock, read_pylock, read_uv_lock

    env = os.environ if environ is None else environ
    out: list[InputSet | None] = []
    requirements: list[Path] = []
    where: int | None = None
    for raw in paths:
        file = Path(raw)
        data = _read_bytes(file)
        kind, table = _sniff(file, data)
        if kind == "requirements":
            requirements.append(file)
            if where is None:
                where = len(out)
                out.append(None)
            continue
        if kind == "pip-report":
            out.append(read_pip_report(file, _decode(file, data)))
            continue
        if table is None:
            table = _toml(file, _decode(file, data))
        if kind == "pylock":
            out.append(read_pylock(file, table))
        elif kind == "uv.lock":
            out.append(read_uv_lock(file, table))
        else:
            out.append(read_poetry_lock(file, table))
    if constraints and where is None:
        msg = (
            "-c constrains the versions a requirements file leaves open; give one "
            "(-r FILE): locks and reports pin every version already"
        )
        raise UsageError(msg)
    if where is not None:
        out[where] = _read_requirements(requirements, [Path(c) for c in constraints], environ=env)
    return tuple(s for s in out if s is not None)


def _toml_or_none(text: str) -> dict[str, Any] | None:
    from .._toml import TOMLDecodeError, loads

    try:
        return loads(text)
    except TOMLDecodeError:
        return None


# -- common ------------------------------------------------------------------------------


def _read_bytes(path: Path) -> bytes:
    try:
        with path.open("rb") as stream:
            data = stream.read(_MAX_INPUT + 1)
    except FileNotFoundError:
        msg = f"{path}: no such file; give a requirements file, a lock file or a pip report"
        raise UsageError(msg) from None
    except OSError as exc:
        msg = f"{path}: cannot be read ({exc.strerror or exc})"
        raise UsageError(msg) from None
    if len(data) > _MAX_INPUT:
        msg = f"{path}: larger than {_MAX_INPUT // (1024 * 1024)} MiB; not an input sapper reads"
        raise UsageError(msg)
    return data


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        msg = f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})"
        raise UsageError(msg) from None


def _toml(path: Path, text: str) -> dict[str, Any]:
    from .._toml import TOMLDecodeError, loads

    try:
        return loads(text)
    except TOMLDecodeError as exc:
        msg = f"{path}: invalid TOML ({exc})"
        raise UsageError(msg) from None


# -- requirements files -------------------------------------------------------------------

_ENV_VAR = re.compile(r"\$\{([A-Z0-9_]+)\}")
_COMMENT = re.compile(r"(^|\s+)#.*$")
_VCS = ("git+", "hg+", "svn+", "bzr+")


@dataclass
class _ReqState:
    entries: list[Entry] = field(default_factory=list)
    constraints: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    control: FormatControl = field(default_factory=FormatControl)
    index_url: str | None = None
    extra: list[str] = field(default_factory=list)
    find_links: list[str] = field(default_factory=list)
    pre: bool = False
    seen: set[Path] = field(default_factory=set)
    #: ``file:line`` of the lines that are neither options nor requirements.
    rejected: list[str] = field(default_factory=list)


def _logical_lines(text: str, environ: Mapping[str, str]) -> Iterator[tuple[int, str]]:
    """Yield (first line number, line) as pip's ``preprocess`` does: join continuations,
    drop comments, expand ``${VAR}``."""
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        line = raw
        if line.endswith("\\") and not _COMMENT.search(line[:-1]):
            pending.append(line[:-1])
            continue
        pending.append(line)
        joined = "".join(pending)
        pending = []
        joined = _COMMENT.sub("", joined).strip()
        if not joined:
            continue
        joined = _ENV_VAR.sub(lambda m: environ.get(m.group(1), m.group(0)), joined)
        yield start, joined
    if pending:
        joined = _COMMENT.sub("", "".join(pending)).strip()
        if joined:
            yield start, joined


def _read_requirements(
    paths: Sequence[Path], constraints: Sequence[Path] = (), *, environ: Mapping[str, str]
) -> InputSet:
    state = _ReqState()
    for path in paths:
        _read_req_file(path, state, environ=environ, constraint=False, depth=0)
    for path in constraints:
        _read_req_file(path, state, environ=environ, constraint=True, depth=0)
    if not state.entries and state.rejected:
        first = state.rejected[0]
        msg = (
            f"{first}: not a requirement pip would accept, nor is any other line "
            f"({len(state.rejected)} lines); is it a requirements file? (pip stops at the "
            "first such line)"
        )
        raise UsageError(msg)
    return InputSet(
        path=", ".join(str(p) for p in paths),
        format="requirements",
        entries=tuple(state.entries),
        constraints=tuple(state.constraints),
        format_control=state.control,
        index_url=state.index_url,
        extra_index_urls=tuple(state.extra),
        find_links=tuple(state.find_links),
        pre=state.pre,
        notes=tuple(state.notes),
        files=tuple(str(p) for p in paths),
    )


def _split_option(token: str, tokens: list[str]) -> tuple[str, str | None]:
    """``--opt=value`` / ``--opt value`` / ``-rfile`` -> (option, value)."""
    if token.startswith("--"):
        name, eq, value = token.partition("=")
        if eq:
            return name, value
        return name, tokens.pop(0) if tokens else None
    name, rest = token[:2], token[2:]
    if rest:
        return name, rest.lstrip("=")
    return name, tokens.pop(0) if tokens else None


_VALUE_OPTIONS = {
    "-r": "requirement",
    "--requirement": "requirement",
    "-c": "constraint",
    "--constraint": "constraint",
    "-e": "editable",
    "--editable": "editable",
    "-i": "index_url",
    "--index-url": "index_url",
    "--extra-index-url": "extra_index_url",
    "-f": "find_links",
    "--find-links": "find_links",
    "--no-binary": "no_binary",
    "--only-binary": "only_binary",
    "--trusted-host": "ignored",
    "--use-feature": "ignored",
    "--config-settings": "ignored",
}
_FLAG_OPTIONS = {
    "--pre": "pre",
    "--no-index": "no_index",
    "--prefer-binary": "prefer_binary",
    "--require-hashes": "ignored",
}


def _read_req_file(
    path: Path,
    state: _ReqState,
    *,
    environ: Mapping[str, str],
    constraint: bool,
    depth: int,
) -> None:
    if depth > _MAX_NESTING:
        msg = f"{path}: -r/-c nesting deeper than {_MAX_NESTING} levels (a cycle?)"
        raise UsageError(msg)
    resolved = path.resolve()
    if resolved in state.seen:
        return
    state.seen.add(resolved)
    text = _decode(path, _read_bytes(path))
    for number, line in _logical_lines(text, environ):
        where = f"{path}:{number}"
        if line.startswith("-"):
            tokens = shlex.split(line, posix=True)
            token = tokens.pop(0)
            option, value = _split_option(token, tokens)
            kind = _VALUE_OPTIONS.get(option) or _FLAG_OPTIONS.get(option)
            if kind is None:
                state.notes.append(f"{where}: option {option} ignored (sapper does not model it)")
                continue
            if option in _VALUE_OPTIONS and value is None:
                msg = f"{where}: {option} needs a value"
                raise UsageError(msg)
            _apply_option(kind, value, where, path, state, environ, constraint, depth)
            continue
        entry = _requirement_line(line, where, path)
        if entry is None:
            state.notes.append(f"{where}: not a requirement pip would accept: {line!r}")
            state.rejected.append(where)
            continue
        (state.constraints if constraint else state.entries).append(entry)


def _apply_option(  # noqa: PLR0917 - one call site, all of the reader's state
    kind: str,
    value: str | None,
    where: str,
    path: Path,
    state: _ReqState,
    environ: Mapping[str, str],
    constraint: bool,
    depth: int,
) -> None:
    assert value is not None or kind in _FLAG_OPTIONS.values()
    if kind in ("requirement", "constraint"):
        assert value is not None
        if "://" in value:
            state.notes.append(f"{where}: remote file {value} not read (local files only)")
            return
        nested = path.parent / value
        _read_req_file(
            nested,
            state,
            environ=environ,
            constraint=constraint or kind == "constraint",
            depth=depth + 1,
        )
    elif kind == "editable":
        state.entries.append(
            Entry(name=value or "", kind="editable", origin=where, reference=value)
        )
    elif kind == "index_url":
        state.index_url = value
    elif kind == "extra_index_url":
        state.extra.append(value or "")
    elif kind == "find_links":
        assert value is not None
        if "://" not in value:
            value = str((path.parent / value).resolve())
        state.find_links.append(value)
    elif kind in ("no_binary", "only_binary"):
        assert value is not None
        state.control = state.control.updated(
            "no_binary" if kind == "no_binary" else "only_binary", value
        )
    elif kind == "pre":
        state.pre = True
    elif kind == "no_index":
        state.notes.append(f"{where}: --no-index noted; sapper still reads --find-links")
        state.index_url = ""
    elif kind == "prefer_binary":
        state.notes.append(
            f"{where}: --prefer-binary not modelled: sapper picks the newest release, "
            "as pip does without it"
        )


def _is_path(path: Path, spec: str) -> bool:
    """Whether ``spec`` names an existing file or directory next to ``path`` (as pip tries
    a line as a path); a name the system refuses (too long) is none."""
    try:
        return (path.parent / spec).exists()
    except (OSError, ValueError):
        return False


def _requirement_line(line: str, where: str, path: Path) -> Entry | None:
    """One requirement line with its per-line options (``--hash``)."""
    hashes: list[str] = []
    parts = re.split(r"\s+(?=--)", line)
    spec = parts[0].strip()
    for option in parts[1:]:
        name, _, value = option.partition("=")
        if not value:
            name, _, value = option.partition(" ")
        if name.strip() == "--hash":
            hashes.append(value.strip())
    if spec.startswith(_VCS):
        return Entry(name=spec, kind="vcs", origin=where, reference=spec)
    if spec.startswith((".", "/")) or "://" in spec.split("@", 1)[0] or _is_path(path, spec):
        kind: EntryKind = "url" if "://" in spec else "path"
        return Entry(name=spec, kind=kind, origin=where, reference=spec)
    try:
        req = Requirement(spec)
    except InvalidRequirement:
        return None
    marker = str(req.marker) if req.marker else None
    if req.url:
        kind = "vcs" if req.url.startswith(_VCS) else "url"
        return Entry(name=req.name, kind=kind, marker=marker, origin=where, reference=req.url)
    specifier = str(req.specifier)
    pins = [s for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    return Entry(
        name=req.name,
        version=pins[0].version if len(pins) == 1 and len(req.specifier) == 1 else None,
        specifier=specifier,
        marker=marker,
        hashes=tuple(hashes),
        origin=where,
    )
