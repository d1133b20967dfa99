"""What the sandboxed resolver of :mod:`sapper.audit.closure` reads: copies of a
requirements file, the files it includes, and the local projects it names.

The sandbox sees none of the user's files. A requirements file and its ``-r``/``-c``
includes are copied under a staging directory at their absolute paths, so that relative
includes still hold. A line naming a local project (``-e .``, ``-e .[dev]``, ``./pkg``,
``file:../pkg``, ``name @ file:///abs/pkg``) is resolved as pip resolves it, against the
current directory first (then against the file's directory), the project is copied there
too (without version-control metadata, virtual environments or caches, and within a size
bound), and the line is rewritten to name the copy: pip then reads the project's own
dependencies. The repository metadata a version plugin needs (``.git``) is bound read-only
in place of a copy. A line whose project is missing or too large is commented out, and
said so, so that the rest of the file still resolves.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..inputs._directory import _SKIPPED_DIRS

__all__ = ["MAX_LOCAL_BYTES", "Staged", "stage_directory", "stage_requirements"]

#: The most bytes copied of all local projects of one requirements file.
MAX_LOCAL_BYTES = 256 * 1024 * 1024
#: The most files copied of all local projects of one requirements file.
MAX_LOCAL_FILES = 50_000

_INCLUDE = re.compile(
    r"^\s*(?:-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+)(?P<path>\S+)", re.MULTILINE
)
#: ``-e REF rest`` / ``--editable=REF rest``
_EDITABLE = re.compile(r"^(?P<lead>\s*(?:-e|--editable)(?:\s*=\s*|\s+))(?P<ref>\S+)(?P<rest>.*)$")
#: ``name[extras] @ file:...``
_DIRECT = re.compile(
    r"^(?P<lead>\s*[A-Za-z0-9][\w.-]*(?:\[[^\]]*\])?\s*@\s*)(?P<ref>file:\S+)(?P<rest>.*)$"
)
#: a bare first token: a path when it starts with ``.``, ``/`` or ``~``, holds a ``/`` and
#: no URL scheme, or is a ``file:`` URL (as pip's ``_looks_like_path`` decides)
_BARE = re.compile(r"^(?P<lead>\s*)(?P<ref>[^\s;#-]\S*)(?P<rest>.*)$")
_VCS_SCHEME = re.compile(r"^(?:git|hg|svn|bzr)\+")
_EXTRAS = re.compile(r"^(?P<path>.*?)(?P<extras>\[[^\]]*\])?$")
#: What a copy of a local project leaves out: what reading a tree skips (version control,
#: bound read-only instead; virtual environments) but its build outputs, and caches.
_SKIP = (_SKIPPED_DIRS - {"build", "dist"}) | {
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".eggs",
}
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclass(slots=True)
class Staged:
    """What staging made: the copy of the requirements file, the paths the sandbox must
    also read (a project's ``.git``), and a note per local line left out."""

    requirements: Path
    readonly: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the lines commented out
    dropped: list[str] = field(default_factory=list)
    #: (name, version, pip's error) of the listed sdists whose metadata pip could not
    #: prepare, for a reason no setuptools cap mends
    unprepared: list[tuple[str, str, str]] = field(default_factory=list)
    #: requirements files written, local projects copied
    files: set[Path] = field(default_factory=set)
    projects: set[Path] = field(default_factory=set)
    #: bytes and files left to copy
    budget: list[int] = field(default_factory=lambda: [MAX_LOCAL_BYTES, MAX_LOCAL_FILES])


def _staged(path: Path, stage: Path) -> Path:
    return stage / path.relative_to(path.anchor)


def stage_requirements(path: Path, stage: Path, *, cwd: Path | None = None) -> Staged:
    """Copy ``path`` (absolute), what it includes and the local projects it names under
    ``stage`` (see the module's documentation); ``cwd`` is where pip would run (default:
    the current directory)."""
    staged = Staged(requirements=_staged(path, stage))
    _stage_file(path, stage, staged, Path.cwd() if cwd is None else cwd, 0)
    return staged


def _stage_file(path: Path, stage: Path, staged: Staged, cwd: Path, depth: int) -> None:
    target = _staged(path, stage)
    if target in staged.files or not path.is_file():
        return
    staged.files.add(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [_local_line(line, path, stage, staged, cwd) for line in text.splitlines()]
    target.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    if depth < 32:
        for match in _INCLUDE.finditer(text):
            ref = match.group("path")
            if "://" not in ref and "$" not in ref:
                _stage_file((path.parent / ref).resolve(), stage, staged, cwd, depth + 1)


def _local_line(line: str, file: Path, stage: Path, staged: Staged, cwd: Path) -> str:
    """``line`` naming the staged copy of the local project it names; ``line`` itself when
    it names none; commented out when the project cannot be staged."""
    match = _EDITABLE.match(line) or _DIRECT.match(line)
    if match is None:
        match = _BARE.match(line)
        if match is None or not _looks_like_path(match.group("ref")):
            return line
    ref = match.group("ref")
    if ("://" in ref and not ref.startswith("file:")) or _VCS_SCHEME.match(ref):
        return line  # a VCS or remote URL: pip fetches it
    parts = _EXTRAS.match(ref)
    raw, extras = (parts.group("path"), parts.group("extras") or "") if parts else (ref, "")
    raw = raw.split("#", 1)[0]
    if raw.startswith("file:"):
        raw = unquote(urlsplit(raw).path) or "/"
    local = _find_local(Path(raw).expanduser(), file, cwd)
    if local is None:
        staged.notes.append(
            f"{file.name}: `{line.strip()}` names no local project here; left out of the resolution"
        )
        staged.dropped.append(line.strip())
        return f"# {line}"
    copy = _staged(local, stage)
    if local.is_dir():
        if copy not in staged.projects:
            staged.projects.add(copy)
            why = _copy_project(local, copy, staged)
            if why:
                staged.notes.append(
                    f"{file.name}: `{line.strip()}`: {why}; its dependencies are not resolved"
                )
                staged.projects.discard(copy)
                staged.dropped.append(line.strip())
                return f"# {line}"
    elif not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(local, copy)
    named = copy.as_uri() if ref.startswith("file:") else str(copy)
    return f"{match.group('lead')}{named}{extras}{match.group('rest')}"


def _looks_like_path(ref: str) -> bool:
    if ref.startswith("file:"):
        return True
    if "://" in ref or "@" in ref:
        return False
    return ref.startswith((".", "/", "~")) or "/" in ref


def _find_local(path: Path, file: Path, cwd: Path) -> Path | None:
    """The project or archive ``path`` names: pip reads it against the directory it runs
    in; a file read from elsewhere most often means its own directory."""
    for base in (cwd, file.parent):
        candidate = (base / path).resolve()
        if candidate.is_file() or (
            candidate.is_dir() and any((candidate / f).is_file() for f in _PROJECT_FILES)
        ):
            return candidate
    return None


def _copy_project(source: Path, target: Path, staged: Staged) -> str:
    """Copy the project ``source`` to ``target`` (files already there are kept: the staged
    requirements files); "" when done, else why not (what was copied then stays unread)."""
    budget = staged.budget
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP)
        here = Path(root)
        there = target / here.relative_to(source)
        there.mkdir(parents=True, exist_ok=True)
        for name in (*dirs, *files):
            item = here / name
            if item.is_symlink():
                dest = there / name
                if not dest.exists() and not dest.is_symlink():
                    dest.symlink_to(item.readlink())
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
        for name in files:
            item, dest = here / name, there / name
            if item.is_symlink() or dest.exists():
                continue
            try:
                size = item.stat().st_size
            except OSError:
                continue
            budget[0] -= size
            budget[1] -= 1
            if budget[0] < 0 or budget[1] < 0:
                return (
                    f"the local project {source} is over {MAX_LOCAL_BYTES >> 20} MiB or "
                    f"{MAX_LOCAL_FILES} files"
                )
            shutil.copyfile(item, dest)
    if _reads_repository(source):
        _bind_repository(source, target, staged)
    return ""


#: What a project that takes its version from the repository names in its build files.
_VERSION_FROM_VCS = re.compile(r"(?i)scm|versioneer|vcs|\bpbr\b|dunamai|dynamic.versioning|git")


def _reads_repository(source: Path) -> bool:
    """Whether the project's build files name a tool that reads the repository (so that
    the repository is shown to the sandbox only when a version depends on it: every hook
    pip runs there could read it)."""
    for name in ("pyproject.toml", "setup.cfg", "setup.py"):
        try:
            text = (source / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if _VERSION_FROM_VCS.search(text):
            return True
    return False


def _bind_repository(source: Path, target: Path, staged: Staged) -> None:
    """setuptools-scm and versioneer read the version from the repository, which may sit
    above the project (a monorepo): its ``.git`` (a directory, or a worktree's file) is
    made visible at the copy's matching ancestor, bound read-only, never copied."""
    for depth, up in enumerate((source, *source.parents)):
        git = up / ".git"
        if not (git.is_dir() or git.is_file()):
            continue
        there = (target, *target.parents)[depth] / ".git"
        if there.exists() or there.is_symlink():
            return
        if git.is_dir():
            there.symlink_to(git)
            staged.readonly.append(git)
            return
        # a worktree: `gitdir: <main>/.git/worktrees/<name>`, which git reads with <main>/.git
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        gitdir = Path(text.removeprefix("gitdir:").strip())
        main = gitdir.parent.parent if gitdir.parent.name == "worktrees" else gitdir
        if text.startswith("gitdir:") and gitdir.is_absolute() and main.is_dir():
            there.write_text(text + "\n", encoding="utf-8")
            staged.readonly.append(main)
        return


def stage_directory(path: Path, stage: Path) -> Path:
    """Copy the files of a --find-links directory (pip reads no subdirectory)."""
    target = _staged(path, stage)
    target.mkdir(parents=True, exist_ok=True)
    for file in path.iterdir():
        if file.is_file() and not (target / file.name).exists():
            shutil.copyfile(file, target / file.name)
    return target


_VCS_LINE = re.compile(
    r"^\s*(?:(?:-e|--editable)(?:\s*=\s*|\s+))?(?:[\w.\[\], -]+@\s*)?(?:git|hg|svn|bzr)\+\S+"
)
_VCS_FAILED = re.compile(
    r"\b(?:git clone|git fetch|git checkout|hg clone|svn checkout|bzr branch)\b"
)


def drop_vcs_lines(staged: Staged, output: str) -> list[str]:
    """When pip could not fetch a version-control requirement (``git clone`` failed: no
    network to that host, no credentials), comment out the VCS lines of the staged files
    so that the rest still resolves; the lines dropped ([] when pip's failure was not a
    fetch, or there are none)."""
    if _VCS_FAILED.search(output) is None:
        return []
    return _drop_lines(staged, lambda line: _VCS_LINE.match(line) is not None)


_NAMED = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:[\[<>=!~;@ \\]|$)"
)


def drop_named_lines(staged: Staged, name: str) -> list[str]:
    """Comment out the lines of the staged files that require the distribution ``name``
    (an sdist whose metadata stops pip for a reason no setuptools cap mends), so that the
    rest still resolves; the lines dropped ([] when no line names it: a dependency)."""
    from packaging.utils import canonicalize_name

    key = canonicalize_name(name)

    def names_it(line: str) -> bool:
        m = _NAMED.match(line)
        return m is not None and canonicalize_name(m.group("name")) == key

    return _drop_lines(staged, names_it)


def _drop_lines(staged: Staged, hit: Callable[[str], bool]) -> list[str]:
    """Comment out the requirements of the staged files whose first line ``hit`` accepts
    (with their continuation lines); the requirements dropped."""
    dropped = []
    for file in sorted(staged.files):
        lines = file.read_text(encoding="utf-8").splitlines()
        hits = [i for i, line in enumerate(lines) if hit(line)]
        dropped += [_comment_out(lines, i) for i in hits]
        if hits:
            file.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    staged.dropped += dropped
    return dropped


def _comment_out(lines: list[str], i: int) -> str:
    """Comment out the requirement that starts at ``lines[i]`` with the lines it continues
    on (``\\`` at the end: the ``--hash`` lines of a pip-compile file, which pip would
    otherwise read as a line of options alone); the requirement, without its options."""
    first = lines[i].strip()
    end = i
    while lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
        end += 1
    for j in range(i, end + 1):
        lines[j] = f"# {lines[j]}"
    return first.removesuffix("\\").strip()
