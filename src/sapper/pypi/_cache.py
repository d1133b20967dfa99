"""The on-disk cache: verified archives, project pages with their HTTP validators, and
resolutions of exact pins.

Layout under the cache directory::

    sdists/<sha[:2]>/<sha>/<filename>   archives, content-addressed, checked on every read
    pages/<key>.json                    a project page's URL, headers and fetch time
    pages/<key>.body                    its body (the .json names the body's sha256)
    pages/<key>.summary                 what resolution reads of it, parsed (and from which body)
    resolve/<project>/<key>.json        what an exact pin resolved to

Every file is written atomically (a temporary file renamed into place), so concurrent
sapper processes may share the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import FetchError
from ._dirs import default_cache_dir
from ._http import describe
from ._models import SdistFile
from ._select import SHA256_RE

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CachedPage",
    "default_cache_dir",
    "page_is_fresh",
    "read_body",
    "read_page",
    "read_resolution",
    "read_summary",
    "resolution_json",
    "resolve_cache_path",
    "write_atomic",
    "write_page",
    "write_summary",
]


def write_atomic(path: Path, data: bytes, *, cache_dir: Path | None) -> None:
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
            Path(tmp).chmod(0o644)  # mkstemp makes it 0600; the cache may be shared
            Path(tmp).replace(path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        msg = (
            f"could not write {path.name} to the cache in {cache_dir}: "
            f"{describe(exc)}; set SAPPER_CACHE_DIR to a writable directory "
            "or disable the cache (--no-cache)"
        )
        raise FetchError(msg) from exc


# -- project pages ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CachedPage:
    """A project page as it was last fetched."""

    url: str
    final_url: str
    content_type: str
    #: The caching headers of the answer (``etag``, ``last-modified``, ``cache-control``...).
    headers: Mapping[str, str]
    #: When it was fetched or last revalidated (seconds since the epoch).
    fetched_at: float
    #: The body; None when only the record was read (``read_page(..., body=False)``).
    body: bytes | None
    #: The sha256 of the body (hex).
    sha256: str
    #: Where the body is kept in the cache (None for a page not read from the cache).
    body_path: Path | None = None

    def validators(self) -> dict[str, str]:
        """The conditional-request headers that revalidate this copy."""
        out = {}
        if "etag" in self.headers:
            out["If-None-Match"] = self.headers["etag"]
        if "last-modified" in self.headers:
            out["If-Modified-Since"] = self.headers["last-modified"]
        return out


def page_paths(cache_dir: Path, url: str) -> tuple[Path, Path]:
    key = hashlib.sha256(url.encode()).hexdigest()[:32]
    base = cache_dir / "pages" / key[:2]
    return base / f"{key}.json", base / f"{key}.body"


def _summary_path(cache_dir: Path, url: str) -> Path:
    return page_paths(cache_dir, url)[0].with_suffix(".summary")


def read_summary(cache_dir: Path, url: str, body_sha256: str) -> bytes | None:
    """The parsed summary of the page at ``url``, if it was made from that very body."""
    try:
        data = _summary_path(cache_dir, url).read_bytes()
    except OSError:
        return None
    made_from, _, summary = data.partition(b"\n")
    return summary if made_from.decode("ascii", "replace") == body_sha256 else None


def write_summary(cache_dir: Path, url: str, body_sha256: str, summary: bytes) -> None:
    data = body_sha256.encode() + b"\n" + summary
    write_atomic(_summary_path(cache_dir, url), data, cache_dir=cache_dir)


def read_page(cache_dir: Path, url: str, *, body: bool = True) -> CachedPage | None:
    """The cached copy of the page at ``url``, or None (absent, damaged, for another URL).

    ``body=False`` reads only its record: the body is neither read nor checked (see
    :func:`read_body`).
    """
    meta_path, body_path = page_paths(cache_dir, url)
    try:
        record = json.loads(meta_path.read_bytes())
        data = body_path.read_bytes() if body else None
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("version") != 1 or record.get("url") != url:
        return None
    sha256 = record.get("sha256")
    if not isinstance(sha256, str):
        return None
    if data is not None and hashlib.sha256(data).hexdigest() != sha256:
        return None  # the body was replaced by another writer after this record
    headers = record.get("headers")
    fetched_at = record.get("fetched_at")
    final_url, content_type = record.get("final_url"), record.get("content_type")
    if not (
        isinstance(headers, dict)
        and isinstance(fetched_at, int | float)
        and isinstance(final_url, str)
        and isinstance(content_type, str)
    ):
        return None
    return CachedPage(
        url=url,
        final_url=final_url,
        content_type=content_type,
        headers={str(k): str(v) for k, v in headers.items()},
        fetched_at=float(fetched_at),
        body=data,
        sha256=sha256,
        body_path=body_path,
    )


def read_body(path: Path, sha256: str) -> bytes | None:
    """The cached body at ``path`` if it is still the one with that sha256."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == sha256 else None


def write_page(cache_dir: Path, page: CachedPage, *, body_changed: bool = True) -> None:
    """Store ``page``; with ``body_changed=False`` only its record (a revalidation)."""
    if "no-store" in _directives(page.headers.get("cache-control", "")):
        return
    meta_path, body_path = page_paths(cache_dir, page.url)
    record = {
        "version": 1,
        "url": page.url,
        "final_url": page.final_url,
        "content_type": page.content_type,
        "headers": dict(page.headers),
        "fetched_at": page.fetched_at,
        "sha256": page.sha256,
    }
    if body_changed and page.body is not None:
        write_atomic(body_path, page.body, cache_dir=cache_dir)
    write_atomic(meta_path, (json.dumps(record, indent=1) + "\n").encode(), cache_dir=cache_dir)


def page_is_fresh(
    page: CachedPage,
    *,
    default_max_age: float,
    max_age: float | None = None,
    now: float | None = None,
) -> bool:
    """Whether ``page`` may be used without asking the index (RFC 9111 freshness).

    With ``max_age`` None, the index decides: its ``Cache-Control: max-age`` (minus the
    ``Age`` the answer already had), ``no-cache`` meaning always revalidate, and
    ``default_max_age`` seconds when it says nothing (PyPI itself says ``max-age=600``).
    A number is the caller's own limit, whatever the index says: 0 always revalidates,
    ``inf`` takes any cached copy (an offline run).
    """
    age_header = page.headers.get("age", "").strip()
    initial_age = float(age_header) if age_header.isdigit() else 0.0
    age = (time.time() if now is None else now) - page.fetched_at + initial_age
    if max_age is not None:
        return 0 <= age < max_age
    directives = _directives(page.headers.get("cache-control", ""))
    if "no-cache" in directives or "no-store" in directives:
        return False
    lifetime = default_max_age
    server = directives.get("max-age")
    if server is not None and server.isdigit():
        lifetime = float(server)
    return 0 <= age < lifetime


def _directives(value: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for part in value.split(","):
        name, eq, arg = part.strip().partition("=")
        if name:
            out[name.lower()] = arg.strip().strip('"') if eq else None
    return out


# -- resolutions of exact pins --------------------------------------------------------------


def resolve_cache_path(cache_dir: Path, index_url: str, name: str, pin: str) -> Path:
    from packaging.utils import canonicalize_name

    canonical = canonicalize_name(name)
    key = hashlib.sha256(f"{index_url}\n{canonical}\n{pin}".encode()).hexdigest()
    return cache_dir / "resolve" / canonical / f"{key[:32]}.json"


def resolution_json(file: SdistFile, *, index_url: str, requirement: str) -> str:
    record: dict[str, object] = {
        "version": 1,
        "index_url": index_url,
        "requirement": requirement,
        "file": {
            "name": file.name,
            "version": file.version,
            "filename": file.filename,
            "url": file.url,
            "sha256": file.sha256,
            "upload_time": file.upload_time,
            "size": file.size,
            "yanked": file.yanked,
        },
    }
    return json.dumps(record, indent=2) + "\n"


def read_resolution(path: Path) -> SdistFile | None:
    """Return the cached resolution in ``path``, or None when absent or unreadable."""
    try:
        record = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    file = record.get("file") if isinstance(record, dict) else None
    if not isinstance(file, dict) or record.get("version") != 1:
        return None
    strings = ("name", "version", "filename", "url", "sha256")
    if not all(isinstance(file.get(key), str) for key in strings):
        return None
    if not SHA256_RE.fullmatch(file["sha256"]):
        return None
    upload_time, size = file.get("upload_time"), file.get("size")
    return SdistFile(
        name=file["name"],
        version=file["version"],
        filename=file["filename"],
        url=file["url"],
        sha256=file["sha256"],
        upload_time=upload_time if isinstance(upload_time, str) else None,
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
        yanked=file.get("yanked") is True,
    )


def safe_filename(filename: str) -> str:
    """Refuse filenames that would escape the cache directory."""
    separators = {"/", "\\", os.sep} | ({os.altsep} if os.altsep else set())
    if not filename or filename.startswith(".") or any(s in filename for s in separators):
        msg = f"the index lists an sdist with a suspicious filename {filename!r}; refusing it"
        raise FetchError(msg)
    return filename
