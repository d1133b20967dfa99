"""The lock and report readers of :mod:`sapper.audit.inputs`: the JSON of ``pip install
--dry-run --report``, PEP 751 ``pylock.toml``, ``uv.lock`` and ``poetry.lock`` (with Poetry
1.1's ``[metadata.files]``). Each names exact releases and the files an installer may
choose from, so no index is needed for them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from .._exceptions import UsageError
from .inputs import Entry, EntryKind, FileRef, InputSet

__all__ = ["read_pip_report", "read_poetry_lock", "read_pylock", "read_uv_lock"]


def _sha256_of(value: object) -> str | None:
    """``sha256:HEX`` / ``sha256=HEX`` / ``{sha256 = HEX}`` -> lower-case HEX."""
    if isinstance(value, Mapping):
        got = value.get("sha256")
        return got.lower() if isinstance(got, str) else None
    if isinstance(value, str):
        algo, sep, digest = value.replace("=", ":", 1).partition(":")
        if sep and algo.lower() == "sha256":
            return digest.lower()
    return None


def _basename(url: str) -> str:
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def _malformed(path: Path, what: str) -> UsageError:
    return UsageError(f"{path}: {what}; is it really this format?")


# -- pip install --report -----------------------------------------------------------------


def read_pip_report(path: Path, text: str) -> InputSet:
    try:
        data = json.loads(text)
    except ValueError as exc:
        msg = f"{path}: not JSON ({exc})"
        raise UsageError(msg) from None
    if isinstance(data, dict) and "_meta" in data and "default" in data:
        msg = (
            f"{path}: a Pipfile.lock, which sapper does not read; `pipenv requirements > "
            "requirements.txt` writes the same pins (with hashes) as a requirements file"
        )
        raise UsageError(msg)
    if not isinstance(data, dict) or not isinstance(data.get("install"), list):
        raise _malformed(path, "no 'install' list (expected `pip install --report` JSON)")
    if str(data.get("version", "")) != "1":
        msg = f"{path}: pip report version {data.get('version')!r}; sapper reads version 1"
        raise UsageError(msg)
    entries = []
    for i, item in enumerate(data["install"]):
        where = f"{path}:install[{i}]"
        if not isinstance(item, dict):
            raise _malformed(path, f"install[{i}] is not an object")
        meta = item.get("metadata") or {}
        info = item.get("download_info") or {}
        name, version, url = meta.get("name"), meta.get("version"), info.get("url")
        if not (isinstance(name, str) and isinstance(version, str) and isinstance(url, str)):
            raise _malformed(path, f"install[{i}] lacks metadata.name/version or download_info.url")
        if "vcs_info" in info:
            entries.append(
                Entry(name=name, version=version, kind="vcs", origin=where, reference=url)
            )
            continue
        if "dir_info" in info:
            editable = bool((info.get("dir_info") or {}).get("editable"))
            kind: EntryKind = "editable" if editable else "path"
            entries.append(
                Entry(name=name, version=version, kind=kind, origin=where, reference=url)
            )
            continue
        archive = info.get("archive_info") or {}
        sha = _sha256_of(archive.get("hashes")) or _sha256_of(archive.get("hash"))
        ref = FileRef(filename=_basename(url), url=url, sha256=sha)
        entries.append(
            Entry(
                name=name,
                version=version,
                specifier=f"=={version}",
                kind="url" if item.get("is_direct") else "registry",
                files=(ref,),
                origin=where,
                reference=url if item.get("is_direct") else None,
            )
        )
    return InputSet(path=str(path), format="pip-report", entries=tuple(entries))


# -- PEP 751 pylock.toml ------------------------------------------------------------------


_PYLOCK_DIRECT: tuple[tuple[str, EntryKind], ...] = (
    ("vcs", "vcs"),
    ("directory", "path"),
    ("archive", "url"),
)


def read_pylock(path: Path, data: dict[str, Any]) -> InputSet:
    lock_version = str(data.get("lock-version", ""))
    if not lock_version.startswith("1."):
        msg = f"{path}: lock-version {lock_version!r}; sapper reads PEP 751 lock-version 1.x"
        raise UsageError(msg)
    packages = data.get("packages")
    if not isinstance(packages, list):
        raise _malformed(path, "no [[packages]] array")
    entries = []
    for i, pkg in enumerate(packages):
        where = f"{path}:packages[{i}]"
        name = pkg.get("name") if isinstance(pkg, dict) else None
        if not isinstance(name, str):
            raise _malformed(path, f"packages[{i}] has no name")
        marker = pkg.get("marker") if isinstance(pkg.get("marker"), str) else None
        version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
        for key, kind in _PYLOCK_DIRECT:
            if isinstance(pkg.get(key), dict):
                ref = pkg[key].get("url") or pkg[key].get("path")
                entries.append(
                    Entry(
                        name=name,
                        version=version,
                        kind=kind,
                        marker=marker,
                        origin=where,
                        reference=str(ref),
                    )
                )
                break
        else:
            files: list[FileRef] = []
            requires_python = pkg.get("requires-python")
            rp = requires_python if isinstance(requires_python, str) else None
            sdist = pkg.get("sdist")
            wheels = pkg.get("wheels") or []
            for item in [*([sdist] if isinstance(sdist, dict) else []), *wheels]:
                if not isinstance(item, dict):
                    continue
                url = item.get("url") or item.get("path")
                filename = item.get("name") or (_basename(url) if isinstance(url, str) else None)
                if not isinstance(filename, str):
                    raise _malformed(path, f"packages[{i}] has a file with neither name nor url")
                files.append(
                    FileRef(
                        filename=filename,
                        url=url if isinstance(url, str) else None,
                        sha256=_sha256_of(item.get("hashes")),
                        requires_python=rp,
                        size=item.get("size") if isinstance(item.get("size"), int) else None,
                    )
                )
            entries.append(
                Entry(
                    name=name,
                    version=version,
                    specifier=f"=={version}" if version else "",
                    marker=marker,
                    files=tuple(files),
                    origin=where,
                )
            )
    return InputSet(path=str(path), format="pylock", entries=tuple(entries))


# -- uv.lock -------------------------------------------------------------------------------


def read_uv_lock(path: Path, data: dict[str, Any]) -> InputSet:
    packages = data.get("package")
    if not isinstance(packages, list):
        raise _malformed(path, "no [[package]] array")
    entries = []
    notes = []
    for i, pkg in enumerate(packages):
        where = f"{path}:package[{i}]"
        name, version = pkg.get("name"), pkg.get("version")
        if not isinstance(name, str):
            raise _malformed(path, f"package[{i}] has no name")
        source = pkg.get("source") or {}
        version = version if isinstance(version, str) else None
        if "registry" not in source:
            kind: EntryKind = (
                "virtual"
                if "virtual" in source
                else "editable"
                if "editable" in source
                else "vcs"
                if "git" in source
                else "url"
                if "url" in source
                else "path"
            )
            if kind == "virtual":
                notes.append(f"{where}: {name} is the project itself (virtual); not audited")
            ref = next((str(v) for v in source.values()), None)
            entries.append(
                Entry(name=name, version=version, kind=kind, origin=where, reference=ref)
            )
            continue
        files = []
        sdist = pkg.get("sdist")
        for item in [*([sdist] if isinstance(sdist, dict) else []), *(pkg.get("wheels") or [])]:
            url = item.get("url") or item.get("path") or item.get("filename")
            if not isinstance(url, str):
                continue
            files.append(
                FileRef(
                    filename=item.get("filename") or _basename(url),
                    url=url if "://" in url else None,
                    sha256=_sha256_of(item.get("hash")),
                    size=item.get("size") if isinstance(item.get("size"), int) else None,
                    upload_time=item.get("upload-time"),
                )
            )
        entries.append(
            Entry(
                name=name,
                version=version,
                specifier=f"=={version}" if version else "",
                files=tuple(files),
                origin=where,
            )
        )
    return InputSet(path=str(path), format="uv.lock", entries=tuple(entries), notes=tuple(notes))


# -- poetry.lock ---------------------------------------------------------------------------


def _file_version_matches(filename: str, version: str) -> bool:
    """Whether a file of Poetry 1.1's [metadata.files] (all the files of every locked
    version of a name) belongs to ``version``."""
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        parse_sdist_filename,
        parse_wheel_filename,
    )
    from packaging.version import InvalidVersion, Version

    try:
        if filename.lower().endswith(".whl"):
            got = parse_wheel_filename(filename)[1]
        else:
            got = parse_sdist_filename(filename)[1]
        return got == Version(version)
    except (InvalidSdistFilename, InvalidWheelFilename, InvalidVersion):
        return True  # an unusual name: keep it rather than lose a file


def read_poetry_lock(path: Path, data: dict[str, Any]) -> InputSet:
    packages = data.get("package")
    if not isinstance(packages, list):
        raise _malformed(path, "no [[package]] array")
    # Poetry before 1.2 (lock-version 1.1 and older) lists the files in [metadata.files].
    metadata = data.get("metadata")
    legacy = metadata.get("files") if isinstance(metadata, Mapping) else None
    legacy_files = (
        {canonicalize_name(str(k)): v for k, v in legacy.items()}
        if isinstance(legacy, Mapping)
        else {}
    )
    entries = []
    for i, pkg in enumerate(packages):
        where = f"{path}:package[{i}]"
        name, version = pkg.get("name"), pkg.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            raise _malformed(path, f"package[{i}] lacks name or version")
        source = pkg.get("source") or {}
        kind = source.get("type")
        if kind in ("git", "directory", "file", "url"):
            mapped: EntryKind = {"git": "vcs", "directory": "path", "file": "path"}.get(kind, "url")  # type: ignore[assignment]
            entries.append(
                Entry(
                    name=name,
                    version=version,
                    kind=mapped,
                    origin=where,
                    reference=str(source.get("url")),
                )
            )
            continue
        markers = pkg.get("markers")
        marker = markers if isinstance(markers, str) else None
        rp = pkg.get("python-versions")
        files = tuple(
            FileRef(
                filename=str(item.get("file")),
                sha256=_sha256_of(item.get("hash")),
                requires_python=rp if isinstance(rp, str) and rp != "*" else None,
            )
            for item in pkg.get("files") or legacy_files.get(canonicalize_name(name)) or []
            if isinstance(item, dict)
            and item.get("file")
            and _file_version_matches(str(item["file"]), version)
        )
        entries.append(
            Entry(
                name=name,
                version=version,
                specifier=f"=={version}",
                marker=marker,
                files=files,
                origin=where,
            )
        )
    return InputSet(path=str(path), format="poetry.lock", entries=tuple(entries))
