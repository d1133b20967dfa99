"""``sapper fix``: repair what ``sapper check`` finds, leaving files as their authors wrote them.

setup.cfg is edited line by line (comments, order, blank lines, indentation, continuation
lines and line endings stay as they were; configparser is only used to read), setup.py
through libcst's concrete syntax tree. Every edit is *safe* (the project builds the same
core metadata, or only gains what the author evidently meant) or *unsafe* (it changes
requirements or code paths); unsafe edits are applied only with ``unsafe_fixes=True``.
An edit that cannot be made without guessing is *skipped* and reported.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import difflib
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .._exceptions import TargetError, UsageError
from ..inputs.sources import ProjectFiles
from ..model import Finding

__all__ = [
    "Edit",
    "FixResult",
    "LoadedTarget",
    "Status",
    "fix_files",
    "load_target",
    "write_result",
]


def __dir__() -> list[str]:
    return __all__


#: ``applied``: made; ``unsafe``: would be made with ``unsafe_fixes``; ``skipped``: reported
#: and left alone (a conflict, a key with no equivalent, a missing file...).
Status = Literal["applied", "unsafe", "skipped"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Edit:
    """One repair, made or not."""

    code: str
    path: str
    line: int | None
    message: str
    safe: bool = True
    status: Status = "applied"


@dataclass(frozen=True, slots=True, kw_only=True)
class FixResult:
    """The outcome of fixing one project: new contents of the changed files, and every edit."""

    label: str
    #: Changed files only: path relative to the project root -> new content.
    files: Mapping[str, bytes] = field(default_factory=dict)
    #: The original contents of the changed files.
    originals: Mapping[str, bytes] = field(default_factory=dict)
    edits: tuple[Edit, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.files)

    @property
    def applied(self) -> tuple[Edit, ...]:
        return tuple(e for e in self.edits if e.status == "applied")

    @property
    def unsafe(self) -> tuple[Edit, ...]:
        return tuple(e for e in self.edits if e.status == "unsafe")

    @property
    def skipped(self) -> tuple[Edit, ...]:
        return tuple(e for e in self.edits if e.status == "skipped")

    def diff(self, prefix: str = "") -> str:
        """A unified diff of every changed file (``a/`` and ``b/`` paths under ``prefix``)
        that ``git apply`` and ``patch -p1`` apply: lines are split at ``\\n`` only (a form
        feed or a lone ``\\r`` stays inside its line), and a last line without a newline is
        followed by the ``\\ No newline at end of file`` marker. Undecodable bytes come back
        as lone surrogates: encode the text with ``surrogateescape`` to write it."""
        out: list[str] = []
        for path in sorted(self.files):
            old = self.originals.get(path, b"").decode("utf-8", "surrogateescape")
            new = self.files[path].decode("utf-8", "surrogateescape")
            name = f"{prefix}{path}"
            for line in difflib.unified_diff(
                _split_lines(old), _split_lines(new), fromfile=f"a/{name}", tofile=f"b/{name}"
            ):
                if line.endswith("\n"):
                    out.append(line)
                else:
                    out.append(f"{line}\n\\ No newline at end of file\n")
        return "".join(out)


def _split_lines(text: str) -> list[str]:
    """Lines ending at ``\\n`` (kept), as diff and patch count them."""
    lines = text.split("\n")
    out = [f"{line}\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def fix_files(
    files: ProjectFiles,
    *,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    unsafe_fixes: bool = False,
    today: _dt.date | None = None,
    suppressions: bool = False,
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = (),
    unused_suppressions: bool = False,
) -> FixResult:
    """Fix one project's files in memory; nothing is written.

    With ``unused_suppressions`` (and ``suppressions``) the ``sapper: ignore`` comments that
    suppress nothing (SAP100) lose their stale codes first, or go (see
    :mod:`sapper.fix.suppressions`); the rules are then fixed in what that leaves.

    ``select``/``ignore`` take rule codes or prefixes as in ``sapper check``. The rules'
    findings decide what is fixed, so a fixed project has no findings left for the rules
    fixed, except for the edits reported as unsafe or skipped. With ``suppressions`` (and
    ``per_file_ignores``) a suppressed finding is never fixed, finding by finding: in
    setup.cfg its key or section is left as written, and in setup.py an edit that would
    change a line whose finding is suppressed is not made, even when another finding of the
    same rule in the file is fixed.
    """
    original_files = files.files
    pre_files: dict[str, bytes] = {}
    pre_edits: list[Edit] = []
    if suppressions and unused_suppressions:
        pre_files, pre_edits = _fix_unused(files, select, ignore, today, per_file_ignores)
    if pre_files:
        merged = {**files.files, **pre_files}
        files = ProjectFiles(label=files.label, root=files.root, files=merged, names=files.names)
    result = _fix_rules(
        files,
        select=select,
        ignore=ignore,
        unsafe_fixes=unsafe_fixes,
        today=today,
        suppressions=suppressions,
        per_file_ignores=per_file_ignores,
    )
    if not pre_files:
        return result
    new_files = {**pre_files, **result.files}
    return FixResult(
        label=result.label,
        files=new_files,
        originals={path: original_files[path] for path in new_files},
        edits=(*pre_edits, *result.edits),
    )


def _fix_unused(
    files: ProjectFiles,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    today: _dt.date | None,
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[dict[str, bytes], list[Edit]]:
    from ..check import Options, check_files
    from .suppressions import remove_unused

    checked = check_files(
        files,
        target=files.label,
        kind="directory",
        options=Options(
            select=select,
            ignore=ignore,
            today=today,
            suppressions=True,
            per_file_ignores=per_file_ignores,
            unused_suppressions=True,
        ),
    )
    return remove_unused(dict(files.files), checked.findings)


def _fix_rules(
    files: ProjectFiles,
    *,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    unsafe_fixes: bool,
    today: _dt.date | None,
    suppressions: bool,
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...],
) -> FixResult:
    from ..check import Options, check_files
    from . import setup_cfg, setup_py

    # What `sapper check` reports decides which rules are fixed: nothing for projects built
    # by another backend, nothing a finding outside the setuptools versions the project
    # allows would have asked for.
    checked = check_files(
        files,
        target=files.label,
        kind="directory",
        options=Options(
            select=select,
            ignore=ignore,
            today=today,
        ),
    )
    kept: tuple[Finding, ...] = checked.findings
    suppressed: tuple[Finding, ...] = ()
    if suppressions or per_file_ignores:
        from ..suppress import apply_suppressions

        split = apply_suppressions(
            checked.findings,
            files.files,
            comments=suppressions,
            per_file_ignores=per_file_ignores,
        )
        kept, suppressed = split.kept, split.suppressed
    # One dispatch: each finding of a fixable rule goes to the editor of the file its rule's
    # fix edits, which hands it to that rule's `Fix.apply`.
    from .registry import fixers

    fixes = fixers()
    to_fix: dict[str, list[Finding]] = {}
    for finding in kept:
        fix = fixes.get(finding.code)
        if fix is not None and finding.path == fix.path:
            to_fix.setdefault(fix.path, []).append(finding)
    if not to_fix:
        return FixResult(label=files.label)
    new_files: dict[str, bytes] = {}
    originals: dict[str, bytes] = {}
    edits: list[Edit] = []
    cfg = files.files.get("setup.cfg")
    if cfg is not None and "setup.cfg" in to_fix:
        new_cfg, cfg_edits = setup_cfg.fix_setup_cfg(
            files,
            to_fix["setup.cfg"],
            py_info=setup_py.setup_py_info(files.files.get("setup.py")),
            unsafe_fixes=unsafe_fixes,
            today=today,
        )
        edits.extend(cfg_edits)
        if new_cfg is not None and new_cfg != cfg:
            new_files["setup.cfg"] = new_cfg
            originals["setup.cfg"] = cfg
    py = files.files.get("setup.py")
    if py is not None and "setup.py" in to_fix:
        held: dict[str, frozenset[int]] = {}
        for f in suppressed:
            if f.path == "setup.py" and f.line is not None:
                held[f.code] = held.get(f.code, frozenset()) | {f.line}
        new_py, py_edits = setup_py.fix_setup_py(
            py, to_fix["setup.py"], unsafe_fixes=unsafe_fixes, held=held
        )
        edits.extend(py_edits)
        if new_py is not None and new_py != py:
            new_files["setup.py"] = new_py
            originals["setup.py"] = py
    return FixResult(label=files.label, files=new_files, originals=originals, edits=tuple(edits))


# --------------------------------------------------------------------------- targets


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedTarget:
    """A target read into memory: a directory, an sdist file, or a download from the index."""

    target: str
    kind: Literal["directory", "sdist", "pypi"]
    files: ProjectFiles
    #: The archive's bytes and file name (sdist and pypi targets).
    archive: bytes | None = None
    filename: str | None = None


def load_target(
    target: str,
    *,
    index_url: str | None = None,
    cache_dir: Path | None = None,
    no_cache: bool = False,
) -> LoadedTarget:
    """Read a target as ``sapper check`` does.

    :raises UsageError: if the target is neither a directory, an sdist nor a requirement.
    :raises TargetError: if it cannot be read or downloaded.
    """
    from ..check import classify_target
    from ..inputs.sources import read_directory, read_sdist

    kind = classify_target(target)
    if kind == "directory":
        return LoadedTarget(target=target, kind=kind, files=read_directory(target))
    if kind == "sdist":
        path = Path(target)
        try:
            data = path.read_bytes()
        except OSError as exc:
            msg = f"{target}: cannot read the file ({exc.strerror}); check its path"
            raise TargetError(msg) from exc
        files = read_sdist(data, label=path.name)
        return LoadedTarget(target=target, kind=kind, files=files, archive=data, filename=path.name)
    from ..pypi import DEFAULT_INDEX_URL, Index, default_cache_dir

    index = Index(
        index_url or DEFAULT_INDEX_URL,
        cache_dir=None if no_cache else (cache_dir or default_cache_dir()),
    )
    download = index.fetch(target)
    files = read_sdist(download.data, label=download.file.filename)
    return LoadedTarget(
        target=target,
        kind="pypi",
        files=files,
        archive=download.data,
        filename=download.file.filename,
    )


def write_result(
    loaded: LoadedTarget, result: FixResult, *, out_dir: Path | None = None
) -> tuple[Path, ...]:
    """Write what ``result`` changed: in place for a directory (``out_dir`` must be None),
    as a repaired archive in ``out_dir`` for an sdist or a download.

    :raises UsageError: if an archive target has no ``out_dir``, or a directory has one.
    """
    if not result.changed:
        return ()
    if loaded.kind == "directory":
        if out_dir is not None:
            msg = f"{loaded.target}: -o is for sdists; a directory is fixed in place"
            raise UsageError(msg)
        written: list[Path] = []
        for rel, content in sorted(result.files.items()):
            path = Path(loaded.target) / rel
            tmp = path.with_name(f".{path.name}.sapper-tmp")
            tmp.write_bytes(content)
            with contextlib.suppress(OSError):
                tmp.chmod(stat.S_IMODE(path.stat().st_mode))
            tmp.replace(path)
            written.append(path)
        return tuple(written)
    if out_dir is None:
        msg = (
            f"{loaded.target}: an sdist is never changed in place; pass -o DIR to write a "
            "repaired copy, or --diff to see the changes"
        )
        raise UsageError(msg)
    from .sdist import write_sdist_bytes

    assert loaded.archive is not None
    assert loaded.filename is not None
    dest = Path(out_dir) / loaded.filename
    original = Path(loaded.target)
    if loaded.kind == "sdist" and dest.exists() and dest.resolve() == original.resolve():
        msg = f"{dest}: -o would overwrite the original sdist; choose another directory"
        raise UsageError(msg)
    written_to = write_sdist_bytes(
        loaded.archive, loaded.filename, loaded.files, result.files, out_dir
    )
    return (written_to,)
