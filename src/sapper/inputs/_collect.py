"""What reading a tar archive keeps, and the checks on each member that both tar
readers of :mod:`sapper.inputs.sources` share (the lean one and ``tarfile``): member names
(:func:`_member_path`), the project root, link targets resolved inside the project
(:class:`_Where`), member types, claimed sizes and counts against the
:class:`~sapper.inputs._files.Limits` (:class:`_Collector`), and the files the rules want
(:class:`_Project`). Every problem is an :class:`~sapper._exceptions.ArchiveError` naming
the archive and the member.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sapper._exceptions import ArchiveError
from sapper.inputs import _tar
from sapper.inputs._files import Limits, ProjectFiles

__all__: list[str] = []

_RATIO_FLOOR: Final = 1024 * 1024  # the compression ratio is checked past this many bytes
_MAX_LINK_HOPS: Final = 40

_human = _tar._human  # one way to write a size in messages: the tar reader's


def _hostile(label: str, raw_name: str, problem: str) -> ArchiveError:
    return ArchiveError(
        f"{label}: member {raw_name!r} {problem}; refusing to read a hostile archive"
    )


def _member_path(label: str, raw: str) -> str:
    """Check a member name and return it normalised: posix separators, no ``.`` parts."""
    name = raw.replace("\\", "/") if "\\" in raw else raw
    if "\x00" in name:
        raise _hostile(label, raw, "has a NUL character in its name")
    if name.startswith("/") or (name[1:2] == ":" and name[:1].isalpha()):
        raise _hostile(label, raw, "has an absolute path")
    if ".." in name or "//" in name or "./" in name or name.endswith("/.") or name == ".":
        parts = [part for part in name.split("/") if part and part != "."]
        if ".." in parts:
            raise _hostile(label, raw, "has a '..' component")
        return "/".join(parts)
    return name.rstrip("/")


class _Project:
    """What is collected while reading an archive, keyed by paths relative to the root."""

    __slots__ = ("files", "hardlinks", "label", "names", "root", "symlinks", "wanted")

    def __init__(self, label: str, root: str, wanted: Callable[[str], bool]) -> None:
        self.label = label
        self.root = root
        self.wanted = wanted
        self.files: dict[str, bytes] = {}
        self.names: set[str] = set()
        # link path -> (raw member name, target): a symlink target is as written in the
        # archive; a hard link target is a normalised member path relative to the root.
        self.symlinks: dict[str, tuple[str, str]] = {}
        self.hardlinks: dict[str, tuple[str, str]] = {}

    @property
    def _outside(self) -> str:
        return (
            f"outside the top-level directory {self.root!r}" if self.root else "out of the archive"
        )

    def _check_target(self, raw: str, target: str) -> str:
        if "\x00" in target:
            raise _hostile(self.label, raw, "is a link whose target has a NUL character")
        target = target.replace("\\", "/")
        if target.startswith("/") or (target[1:2] == ":" and target[:1].isalpha()):
            raise _hostile(self.label, raw, f"is a link to the absolute path {target!r}")
        return target

    def add_symlink(self, rel: str, raw: str, target: str) -> None:
        target = self._check_target(raw, target)
        self.forget(rel)
        self.symlinks[rel] = (raw, target)

    def add_hardlink(self, rel: str, raw: str, target: str) -> None:
        target = self._check_target(raw, target)
        parts = [part for part in target.split("/") if part and part != "."]
        prefix = self.root.split("/") if self.root else []
        if ".." in parts or parts[: len(prefix)] != prefix:
            raise _hostile(self.label, raw, f"is a link to {target!r}, {self._outside}")
        self.forget(rel)
        self.hardlinks[rel] = (raw, "/".join(parts[len(prefix) :]))

    def forget(self, rel: str) -> None:
        """A later member replaces an earlier one of the same name."""
        self.names.discard(rel)
        self.files.pop(rel, None)
        self.symlinks.pop(rel, None)
        self.hardlinks.pop(rel, None)

    def _resolve(self, raw: str, parts: list[str], hops: int = 0) -> str | None:
        """Follow the symlinks of the archive along ``parts``, ``hops`` links already
        followed; None for a loop, or past the 40 links Linux follows in one lookup."""
        resolved: list[str] = []
        pending = parts[::-1]
        while pending:
            part = pending.pop()
            if not part or part == ".":
                continue
            if part == "..":
                if not resolved:
                    raise _hostile(self.label, raw, f"is a link that points {self._outside}")
                resolved.pop()
                continue
            resolved.append(part)
            link = self.symlinks.get("/".join(resolved))
            if link is not None:
                hops += 1
                if hops > _MAX_LINK_HOPS:
                    return None
                resolved.pop()
                pending.extend(link[1].split("/")[::-1])
        return "/".join(resolved)

    def result(self) -> ProjectFiles:
        """Check and resolve the links, and return the project."""
        links: list[tuple[str, str | None]] = []
        for rel, (raw, target) in self.symlinks.items():
            # the link itself is the first one followed
            parts = [*rel.split("/")[:-1], *target.split("/")]
            links.append((rel, self._resolve(raw, parts, hops=1)))
        for rel, (raw, target) in self.hardlinks.items():
            links.append((rel, self._resolve(raw, target.split("/"))))
        names = self.names
        files = self.files
        added: dict[str, bytes | None] = {}
        for rel, resolved in links:
            if resolved is not None and resolved in names:
                added[rel] = files.get(resolved) if self.wanted(rel) else None
        for rel, data in added.items():
            names.add(rel)
            if data is not None:
                files[rel] = data
        return ProjectFiles(
            label=self.label, root=self.root, files=files, names=tuple(sorted(names))
        )


class _Where:
    """Where reading a tar archive is, for messages; enforces the decompressed-size limits."""

    __slots__ = ("data_end", "ended", "head", "label", "limits", "member", "total")

    def __init__(self, label: str, limits: Limits) -> None:
        self.label = label
        self.limits = limits
        self.head = b""  # the first decompressed bytes
        self.total = 0  # decompressed bytes read so far
        self.member = ""  # the name of the last member read, and where its data ends
        self.data_end = 0
        self.ended = False  # past the end of the tar archive

    def __str__(self) -> str:
        if self.ended:
            return " after the end of the tar archive"
        if not self.member:
            return ""
        if self.total <= self.data_end:
            return f" in member {self.member!r}"
        return f" after member {self.member!r}"

    def check(self, done: int, total: int, consumed: int) -> None:
        """Enforce the limits: ``done`` bytes read, ``total`` inflated from ``consumed``.

        The ratio is measured against the compressed bytes consumed so far, not the size of
        the whole archive, so that a bomb is caught before it is inflated in full.
        """
        limits = self.limits
        if done > limits.max_total_size:
            msg = (
                f"{self.label}: decompresses to more than "
                f"{_human(limits.max_total_size)}{self}; refusing to read a "
                "likely decompression bomb (raise `max_total_size` if it is genuine)"
            )
            raise ArchiveError(msg)
        if total > _RATIO_FLOOR:
            consumed = max(consumed, 1)
            if total > limits.max_ratio * consumed:
                msg = (
                    f"{self.label}: {_human(consumed)} of compressed data expand to "
                    f"{_human(total)}{self}, a ratio over {limits.max_ratio:g}:1; refusing "
                    "to read a likely decompression bomb (raise `max_ratio` if it is genuine)"
                )
                raise ArchiveError(msg)


class _WrongRoot(Exception):  # a signal, not an error
    """The top-level directory guessed from the first member proved wrong."""


class _Collector:
    """Check each member of a tar archive and collect the project: shared by both readers."""

    __slots__ = ("claimed", "count", "cut", "label", "limits", "prefix", "project", "root")

    def __init__(
        self, label: str, wanted: Callable[[str], bool], limits: Limits, root: str | None
    ) -> None:
        self.label = label
        self.limits = limits
        self.root = root  # None: to be guessed from the first member
        self.project = _Project(label, root or "", wanted)
        self.prefix = root + "/" if root else ""
        self.cut = len(self.prefix)
        self.claimed = 0
        self.count = 0

    def member(self, raw: str, kind: str, size: int, linkname: str) -> str | None:
        """Check and record one member; return its path when its data must be read.

        :raises ArchiveError: for a hostile member or one over the limits.
        :raises _WrongRoot: when the guessed top-level directory proves wrong.
        """
        label = self.label
        limits = self.limits
        self.count += 1
        if self.count > limits.max_members:
            msg = (
                f"{label}: has more than {limits.max_members} members; refusing to read a "
                "likely hostile archive (raise `max_members` if it is genuine)"
            )
            raise ArchiveError(msg)
        path = _member_path(label, raw)
        project = self.project
        if self.root is None:  # guess the root from the first member
            top, slash, _ = path.partition("/")
            if not top:
                if kind != _tar.DIR:
                    raise _hostile(label, raw, "has an empty name")
                return None
            root = top if slash or kind == _tar.DIR else ""
            self.root = project.root = root
            self.prefix = root + "/" if root else ""
            self.cut = len(self.prefix)
        prefix = self.prefix
        if prefix and not path.startswith(prefix):
            if kind == _tar.DIR and (path == self.root or not path):
                return None
            raise _WrongRoot
        rel = path[self.cut :]
        if not rel:
            if kind == _tar.DIR:
                return None
            raise _hostile(label, raw, "has an empty name")
        if kind == _tar.REGULAR:
            if size < 0:
                raise _hostile(label, raw, "has a negative size")
            self.claimed += size
            if self.claimed > limits.max_total_size:
                msg = (
                    f"{label}: its members claim more than {_human(limits.max_total_size)} in "
                    f"all; refusing to read a likely decompression bomb (raise "
                    "`max_total_size` if it is genuine)"
                )
                raise ArchiveError(msg)
            names = project.names
            if rel in names or project.symlinks or project.hardlinks:
                project.forget(rel)
            names.add(rel)
            if project.wanted(rel):
                if size > limits.max_member_size:
                    msg = (
                        f"{label}: member {raw!r} claims {_human(size)}, more than "
                        f"the {_human(limits.max_member_size)} limit; refusing to read a likely "
                        "decompression bomb (raise `max_member_size` if it is genuine)"
                    )
                    raise ArchiveError(msg)
                return rel
        elif kind == _tar.DIR:
            pass
        elif kind == _tar.SYMLINK:
            project.add_symlink(rel, raw, linkname)
        elif kind == _tar.HARDLINK:
            project.add_hardlink(rel, raw, linkname)
        elif kind in (_tar.DEVICE, _tar.FIFO):
            what = "FIFO" if kind == _tar.FIFO else "device file"
            raise _hostile(label, raw, f"is a {what}")
        else:  # an unknown type, which extraction would turn into a file
            project.forget(rel)
            project.names.add(rel)
        return None
