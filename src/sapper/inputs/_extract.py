"""Unpack an sdist (or copy a source tree) for a build: :func:`unpack_sdist`. A zip is
extracted by ``zipfile`` after its members are checked; a tar sdist with sapper's lean tar
reader (:mod:`sapper.inputs._tar`), as safely as ``tarfile``'s ``data`` filter and without its
cost per member (``tarfile`` with that filter for what the lean reader leaves).

``tarfile.extractall(filter="data")`` builds a ``TarInfo`` per member and resolves the real
path of every member twice: 7 to 12 s for an sdist with thousands of members (botocore,
numpy) on a loaded machine. This reader streams the decompressed archive once and writes
each file as it comes, with the same refusals:

* a member name that is absolute, has a ``..`` part, a drive or a NUL: the whole archive is
  refused (``tarfile`` would refuse it too);
* symbolic and hard links are made as pip makes them (with ``tarfile``'s ``data`` filter):
  a link whose target is absolute or lies outside the directory refuses the whole archive
  (pip refuses it too); the others are made after every file and directory, so that no
  member is ever written through a link: a symbolic link as it is, a hard link as a copy of
  the file it names (when that file was extracted);
* devices, FIFOs and members of unknown types are never created (the build does not need
  them);
* more than ``max_members`` members, more than ``max_unpacked`` bytes decompressed, or a
  compression ratio over ``max_ratio`` past the first MiB: refused;
* files get the ``data`` filter's permissions (no set-id or group/other write bits,
  executable only when the owner may execute, always readable and writable by the owner)
  and the member's modification time; directories get the default permissions.

Files are opened with ``O_NOFOLLOW`` and ``O_EXCL`` after removing what a previous member of
the same name left, so nothing is written through a link even if one were there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Final

from .._exceptions import BuildError
from . import _tar
from ._collect import _RATIO_FLOOR

__all__ = ["TAR_FORMATS", "Unsupported", "extract_tar", "unpack_sdist", "unpack_source"]

#: The formats (:func:`sapper.inputs.sources.archive_format`) this module extracts.
TAR_FORMATS: Final = frozenset({"gzip", "bzip2", "xz", "tar"})
Unsupported = _tar.Unsupported  # a sparse member: the caller extracts with tarfile instead

#: What a build unpacks at most (:func:`unpack_sdist`).
_MAX_MEMBERS: Final = 100_000
_MAX_UNPACKED: Final = 2 * 1024**3
_PIECE: Final = 1024 * 1024  # bytes of a member written at a time
_OPEN_FLAGS: Final = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
)


def check_name(name: str) -> list[str]:
    """The parts of a member's path; refuse (:class:`BuildError`) a name that would be
    written outside the directory: absolute, with a ``..`` part, a drive or a NUL."""
    unified = name.replace("\\", "/")
    parts = unified.split("/")
    if unified.startswith("/") or ".." in parts or ":" in parts[0] or "\x00" in name:
        msg = f"archive member {name!r} would be written outside the build directory; refused"
        raise BuildError(msg)
    return [part for part in name.split("/") if part and part != "."]


def _file_mode(mode: int) -> int:
    """The permissions ``tarfile``'s ``data`` filter gives a regular file."""
    mode &= 0o755
    if not mode & 0o100:
        mode &= ~0o111
    return mode | 0o600


def extract_tar(
    data: bytes,
    fmt: str,
    dest: Path,
    *,
    label: str,
    max_members: int,
    max_unpacked: int,
    max_ratio: float = 250.0,
) -> None:
    """Extract the tar archive ``data`` (compressed as ``fmt``, one of
    :data:`TAR_FORMATS`) into the existing directory ``dest``.

    :raises BuildError: for a hostile, damaged or oversized archive (``label`` names it).
    :raises Unsupported: for a sparse member (left to ``tarfile``).
    """
    from .sources import _chunks  # the decompressed chunks, as the static reader gets them

    chunks, consumed = _chunks(fmt, data)

    def check(done: int, total: int) -> None:
        if done > max_unpacked:
            msg = f"{label}: unpacks to more than {max_unpacked} bytes; refused"
            raise BuildError(msg)
        if fmt != "tar" and total > _RATIO_FLOOR and total > max_ratio * max(consumed(), 1):
            msg = (
                f"{label}: compressed data expand more than {max_ratio:g} times; refused "
                "as a likely decompression bomb"
            )
            raise BuildError(msg)

    stream = _tar.Stream(chunks, check)
    try:
        _extract_members(stream, dest, label, max_members, max_unpacked)
    except _tar.ReadError as exc:
        msg = f"{label}: cannot unpack ({exc})"
        raise BuildError(msg) from exc
    except (OSError, EOFError, ValueError, RuntimeError) as exc:
        msg = f"{label}: cannot unpack ({exc})"
        raise BuildError(msg) from exc


def _extract_members(
    stream: _tar.Stream, dest: Path, label: str, max_members: int, max_unpacked: int
) -> None:
    made: set[str] = {str(dest)}
    claimed = 0
    root = str(dest)

    def makedirs(path: str) -> None:
        if path not in made:
            os.makedirs(path, exist_ok=True)  # noqa: PTH103  # str paths: cheaper per member
            made.add(path)

    count = 0
    links: list[tuple[list[str], str, str]] = []  # (parts, kind, target): made at the end
    for member in _tar.members(stream, times=True):
        count += 1
        if count > max_members:
            msg = f"{label}: more than {max_members} members; refused"
            raise BuildError(msg)
        parts = check_name(member.name)
        kind = member.kind
        if kind in (_tar.SYMLINK, _tar.HARDLINK) and parts:
            links.append((parts, kind, member.linkname))
            continue
        if kind not in (_tar.REGULAR, _tar.DIR) or not parts:
            continue  # devices, FIFOs, unknown types: not needed to build, never made
        path = os.path.join(root, *parts)  # noqa: PTH118
        if kind == _tar.DIR:
            makedirs(path)
            continue
        claimed += member.size
        if member.size < 0 or claimed > max_unpacked:
            msg = f"{label}: unpacks to more than {max_unpacked} bytes; refused"
            raise BuildError(msg)
        makedirs(os.path.dirname(path))  # noqa: PTH120
        _write(stream, member, path)
    for parts, kind, target in links:
        _make_link(root, parts, kind=kind, target=target, label=label, makedirs=makedirs)


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _make_link(
    root: str,
    parts: list[str],
    *,
    kind: str,
    target: str,
    label: str,
    makedirs: Callable[[str], None],
) -> None:
    """Make one link member as ``tarfile``'s ``data`` filter lets pip make it."""
    path = os.path.join(root, *parts)  # noqa: PTH118
    real_root = os.path.realpath(root)
    if kind == _tar.SYMLINK:
        source = os.path.join(os.path.dirname(path), target)  # noqa: PTH118, PTH120
    else:  # a hard link names a member from the archive's root
        source = os.path.join(root, target)  # noqa: PTH118
    if (
        not target
        or "\x00" in target
        or os.path.isabs(target)  # noqa: PTH117
        or not _inside(real_root, os.path.realpath(source))
    ):
        msg = (
            f"{label}: link {'/'.join(parts)!r} -> {target!r} points outside the build "
            "directory; refused (pip refuses such an archive too)"
        )
        raise BuildError(msg)
    makedirs(os.path.dirname(path))  # noqa: PTH120
    if os.path.lexists(path):  # a member of the same name came before: replaced
        if os.path.isdir(path) and not os.path.islink(path):  # noqa: PTH112, PTH114
            return
        os.unlink(path)  # noqa: PTH108
    if kind == _tar.SYMLINK:
        # checked above through the real path of its parent, earlier links included
        os.symlink(target, path)  # noqa: PTH211
    elif os.path.isfile(source):  # noqa: PTH113
        shutil.copy2(source, path)


def _write(stream: _tar.Stream, member: _tar.Member, path: str) -> None:
    try:
        fd = os.open(path, _OPEN_FLAGS, 0o600)
    except FileExistsError:  # a member of the same name came before: replaced, as tarfile does
        if os.path.isdir(path) and not os.path.islink(path):  # noqa: PTH112, PTH114
            raise
        os.unlink(path)  # noqa: PTH108
        fd = os.open(path, _OPEN_FLAGS, 0o600)
    try:
        left = member.size
        while left > 0:
            piece = stream.read(min(left, _PIECE))
            if not piece:
                msg = "unexpected end of data"
                raise _tar.ReadError(msg)
            _write_all(fd, piece)
            left -= len(piece)
        mode, mtime = _tar.mode_mtime(member)
        os.fchmod(fd, _file_mode(mode))
        os.utime(fd, (mtime, mtime))
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def unpack_sdist(source: Path, dest: Path, *, data: bytes | None = None) -> Path:
    """Extract an sdist archive safely into ``dest`` (created; member count, size,
    compression ratio and names checked, links made only inside it as pip makes them,
    devices never created) and return the
    project root (the archive's single top directory, as pip sees it). ``data``: the
    archive's bytes, when the caller has already read them.

    :raises BuildError: for an archive that cannot be used.
    """
    return unpack_source(source, dest, data=data)


def unpack_source(
    source: Path, dest: Path, *, move: bool = False, data: bytes | None = None
) -> Path:
    """Copy (or ``move``) a source tree to ``dest/NAME``, keeping its directory name (a
    version derived from the folder's name, as versioneer can, sees what pip's build sees),
    or extract an sdist as :func:`unpack_sdist` does; return the project root.

    :raises BuildError: for an archive that cannot be used.
    """
    if source.is_dir():
        dest.mkdir(parents=True)
        target = dest / source.name
        if move:
            shutil.move(source, target)
        else:
            shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        return target
    name = source.name.lower()
    dest.mkdir(parents=True)
    if name.endswith(".zip"):
        _unzip(source, dest)
    else:
        _untar(source, dest, data)
    entries = [p for p in dest.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return dest


def _check_name(name: str) -> None:
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
        msg = f"archive member {name!r} would be written outside the build directory; refused"
        raise BuildError(msg)


def _untar(source: Path, dest: Path, data: bytes | None = None) -> None:
    """Extract with sapper's lean tar reader (:func:`extract_tar`); ``tarfile`` and its
    ``data`` filter for what it leaves (sparse members) or does not recognise."""
    from .sources import archive_format

    try:
        if data is None:
            data = source.read_bytes()
    except OSError as exc:
        msg = f"{source.name}: cannot unpack ({exc})"
        raise BuildError(msg) from exc
    fmt = archive_format(data[:1024]) if data else None
    if fmt in TAR_FORMATS:
        assert fmt is not None
        try:
            extract_tar(
                data,
                fmt,
                dest,
                label=source.name,
                max_members=_MAX_MEMBERS,
                max_unpacked=_MAX_UNPACKED,
            )
        except Unsupported:
            shutil.rmtree(dest)
            dest.mkdir()
        else:
            return
    _untar_tarfile(source, dest)


def _untar_tarfile(source: Path, dest: Path) -> None:
    import tarfile

    try:
        with tarfile.open(source) as archive:
            members = []
            total = 0
            for count, member in enumerate(archive, 1):
                if count > _MAX_MEMBERS:
                    msg = f"{source.name}: more than {_MAX_MEMBERS} members; refused"
                    raise BuildError(msg)
                _check_name(member.name)
                if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
                    continue  # devices, fifos: not needed to build, never extracted
                total += member.size
                if total > _MAX_UNPACKED:
                    msg = f"{source.name}: unpacks to more than {_MAX_UNPACKED} bytes; refused"
                    raise BuildError(msg)
                members.append(member)
            if hasattr(tarfile, "data_filter"):
                archive.extractall(dest, members=members, filter="data")
            else:  # pragma: no cover - Python before 3.10.12
                archive.extractall(dest, members=members)
    except (tarfile.TarError, EOFError, OSError) as exc:
        msg = f"{source.name}: cannot unpack ({exc})"
        raise BuildError(msg) from exc


def _unzip(source: Path, dest: Path) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(source) as archive:
            infos = archive.infolist()
            if len(infos) > _MAX_MEMBERS:
                msg = f"{source.name}: more than {_MAX_MEMBERS} members; refused"
                raise BuildError(msg)
            if sum(i.file_size for i in infos) > _MAX_UNPACKED:
                msg = f"{source.name}: unpacks to more than {_MAX_UNPACKED} bytes; refused"
                raise BuildError(msg)
            for info in infos:
                _check_name(info.filename)
            archive.extractall(dest)
    except (zipfile.BadZipFile, OSError) as exc:
        msg = f"{source.name}: cannot unpack ({exc})"
        raise BuildError(msg) from exc
