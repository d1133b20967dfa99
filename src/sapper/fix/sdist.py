"""Write a repaired copy of an sdist: same members in the same order, with the same modes,
owners and mtimes, and only the fixed files' contents replaced (PKG-INFO is never touched).

The archive is read in memory after :func:`sapper.inputs.sources.read_sdist` has checked it, and the
copy is built in memory; nothing is extracted.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from .._exceptions import ArchiveError
from ..inputs.sources import ProjectFiles, archive_format

__all__ = ["rewrite_sdist", "write_sdist_bytes"]


def _normal(name: str) -> str:
    parts = [p for p in name.replace("\\", "/").split("/") if p and p != "."]
    return "/".join(parts)


def _targets(files: ProjectFiles, new_files: Mapping[str, bytes]) -> dict[str, bytes]:
    prefix = f"{files.root}/" if files.root else ""
    return {prefix + path: content for path, content in new_files.items()}


def rewrite_sdist(data: bytes, files: ProjectFiles, new_files: Mapping[str, bytes]) -> bytes:
    """The archive ``data`` (already read as ``files``) with ``new_files`` replaced.

    :raises ArchiveError: if a file to replace is not a regular member of the archive.
    """
    if "PKG-INFO" in new_files:  # pragma: no cover - programming error
        msg = "PKG-INFO is never rewritten"
        raise ArchiveError(msg)
    targets = _targets(files, new_files)
    fmt = archive_format(data) or "tar"  # read_sdist has accepted the archive
    if fmt == "zip":
        out = _rewrite_zip(data, targets, files.label)
    else:
        out = _rewrite_tar(data, fmt, targets, files.label)
    return out


def _missing(label: str, missing: set[str]) -> ArchiveError:
    return ArchiveError(
        f"{label}: {', '.join(sorted(missing))} is not a regular member of the archive; "
        "cannot write a repaired copy"
    )


def _rewrite_tar(data: bytes, fmt: str, targets: dict[str, bytes], label: str) -> bytes:
    raw = io.BytesIO()
    pending = dict(targets)
    with tarfile.open(
        fileobj=io.BytesIO(data), mode="r:*", encoding="utf-8", errors="surrogateescape"
    ) as src:
        members = src.getmembers()
        pax = any(m.pax_headers for m in members)
        with tarfile.open(
            fileobj=raw,
            mode="w",
            format=tarfile.PAX_FORMAT if pax else tarfile.GNU_FORMAT,
            encoding="utf-8",
            errors="surrogateescape",
        ) as dst:
            for member in members:
                key = _normal(member.name)
                if member.isreg():
                    stream = src.extractfile(member)
                    assert stream is not None
                    # Every member of that name: an extractor keeps the last one.
                    content = targets.get(key)
                    pending.pop(key, None)
                    if content is None:
                        content = stream.read()
                    else:
                        headers = dict(member.pax_headers)
                        headers.pop("size", None)
                        member.pax_headers = headers
                    member.size = len(content)
                    dst.addfile(member, io.BytesIO(content))
                else:
                    if key in pending:
                        raise _missing(label, {key})
                    dst.addfile(member)
    if pending:
        raise _missing(label, set(pending))
    tar = raw.getvalue()
    if fmt == "gzip":
        mtime = int.from_bytes(data[4:8], "little")
        buf = io.BytesIO()
        name = ""
        flags = data[3]
        if flags & 0x08:  # FNAME: keep the original name in the header
            end = data.index(b"\x00", 10)
            name = data[10:end].decode("latin-1")
        with gzip.GzipFile(filename=name, mode="wb", fileobj=buf, mtime=mtime) as gz:
            gz.write(tar)
        return buf.getvalue()
    if fmt == "bzip2":
        return bz2.compress(tar)
    if fmt == "xz":
        return lzma.compress(tar)
    return tar


def _rewrite_zip(data: bytes, targets: dict[str, bytes], label: str) -> bytes:
    out = io.BytesIO()
    pending = dict(targets)
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w") as dst,
    ):
        for info in src.infolist():
            key = _normal(info.filename)
            content = targets.get(key)
            pending.pop(key, None)
            if content is None:
                content = src.read(info)
            dst.writestr(info, content)
        dst.comment = src.comment
    if pending:
        raise _missing(label, set(pending))
    return out.getvalue()


def write_sdist_bytes(
    data: bytes,
    filename: str,
    files: ProjectFiles,
    new_files: Mapping[str, bytes],
    out_dir: str | os.PathLike[str],
) -> Path:
    """Write the repaired copy of the archive ``data`` (read as ``files``) into ``out_dir``
    under ``filename``; returns its path."""
    dest_dir = Path(out_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / filename
    repaired = rewrite_sdist(data, files, new_files)
    tmp = dest.with_name(f".{dest.name}.sapper-tmp")
    tmp.write_bytes(repaired)
    tmp.replace(dest)
    return dest
