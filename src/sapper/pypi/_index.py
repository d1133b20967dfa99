"""The :class:`Index`: listing, resolution and download, over HTTP and the cache."""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._exceptions import FetchError
from ._cache import (
    CachedPage,
    default_cache_dir,
    page_is_fresh,
    read_page,
    read_resolution,
    read_summary,
    resolution_json,
    resolve_cache_path,
    safe_filename,
    write_atomic,
    write_page,
    write_summary,
)
from ._http import Http, default_user_agent, redact, split_credentials
from ._models import Download, ProjectListing, ReleaseFile, SdistFile
from ._pages import ACCEPT, Page, canonical_name, parse_page
from ._select import SHA256_RE, choose, exact_pin, parse_requirement

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DEFAULT_INDEX_URL", "DEFAULT_PAGE_MAX_AGE", "MAX_DOWNLOAD_SIZE", "Index"]

DEFAULT_INDEX_URL = "https://pypi.org/simple"

#: Largest response (archive or project page) sapper reads, in bytes.
MAX_DOWNLOAD_SIZE = 512 * 1024 * 1024

#: Seconds a cached project page is used without asking the index, when the index does not
#: say (``Cache-Control: max-age``). PyPI's own simple pages say 600.
DEFAULT_PAGE_MAX_AGE = 600.0

#: Parsed pages kept in memory per :class:`Index` (resolution may ask for a page twice),
#: each for at most ``page_max_age`` (or :data:`DEFAULT_PAGE_MAX_AGE`) seconds.
_MEMO_SIZE = 64


class _Unset(enum.Enum):
    """Type of the "use the default" sentinel of ``Index(cache_dir=...)``."""

    TOKEN = enum.auto()


_UNSET: Literal[_Unset.TOKEN] = _Unset.TOKEN


class Index:
    """A package index speaking the simple repository API, with an optional local cache.

    ``cache_dir=None`` disables the cache: nothing is read from or written to disk. The
    default is :func:`default_cache_dir`. Project pages are cached with their HTTP
    validators (``ETag``, ``Last-Modified``): a copy younger than the index's
    ``Cache-Control: max-age`` (:data:`DEFAULT_PAGE_MAX_AGE` seconds when it gives none)
    is used as it is, an older one is revalidated with a conditional request.
    ``page_max_age`` replaces the index's say with the caller's: 0 revalidates every
    page (as pip does), ``float("inf")`` takes any cached copy. An instance may be shared
    between threads; the cache is only ever written atomically.
    """

    __slots__ = (
        "_http",
        "_lock",
        "_memo",
        "cache_dir",
        "index_url",
        "max_size",
        "page_max_age",
        "retries",
        "timeout",
        "user_agent",
    )

    index_url: str
    cache_dir: Path | None
    timeout: float
    retries: int
    user_agent: str
    max_size: int
    page_max_age: float | None

    def __init__(
        self,
        index_url: str = DEFAULT_INDEX_URL,
        *,
        cache_dir: Path | _Unset | None = _UNSET,
        timeout: float = 30.0,
        retries: int = 3,
        user_agent: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_size: int = MAX_DOWNLOAD_SIZE,
        page_max_age: float | None = None,
    ) -> None:
        if retries < 0:
            msg = f"retries must be 0 or more, not {retries}"
            raise ValueError(msg)
        url, auth = split_credentials(index_url.strip().rstrip("/"))
        if not url.lower().startswith(("http://", "https://", "file://")):
            msg = (
                f"index URL {redact(index_url)!r} is not an http(s) URL; "
                f"give one like {DEFAULT_INDEX_URL!r}"
            )
            raise FetchError(msg)
        self.index_url = url
        self.cache_dir = (
            default_cache_dir()
            if isinstance(cache_dir, _Unset)
            else (None if cache_dir is None else Path(cache_dir))
        )
        self.timeout = timeout
        self.retries = retries
        self.user_agent = user_agent or default_user_agent()
        self.max_size = max_size
        self.page_max_age = page_max_age
        self._http = Http(
            index_url=url,
            auth=auth,
            timeout=timeout,
            retries=retries,
            user_agent=self.user_agent,
            max_size=max_size,
            sleep=sleep,
        )
        self._memo: OrderedDict[str, tuple[Page, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Index({self.index_url!r}, cache_dir={self.cache_dir!r})"

    # -- listing -------------------------------------------------------------------------

    def sdists(self, project: str) -> list[SdistFile]:
        """Return every sdist file the index lists for ``project``, all versions."""
        return list(self._page(project).sdists())

    def listing(self, project: str) -> ProjectListing:
        """Return every file of ``project``: its sdists, its wheels (with tags), the rest."""
        return ProjectListing(self._page(project))

    def files(self, project: str, version: str | None = None) -> tuple[ReleaseFile, ...]:
        """Every file the index lists for ``project`` (for one ``version`` when given)."""
        return self.listing(project).files(version)

    def _page(self, project: str) -> Page:
        canonical = canonical_name(project)
        url = f"{self.index_url}/{canonical}/"
        with self._lock:
            memo = self._memo.get(url)
            if memo is not None and memo[1] > time.monotonic():
                self._memo.move_to_end(url)
                return memo[0].for_request(project)
        page = self._cached_page(project, url)
        if page is None:
            cached = read_page(self.cache_dir, url) if self.cache_dir is not None else None
            fetched, changed = self._fetch_page(project, url, cached)
            assert fetched.body is not None
            if not changed and self.cache_dir is not None:  # 304: the summary still holds
                summary = read_summary(self.cache_dir, url, fetched.sha256)
                if summary is not None:
                    page = Page.from_summary(
                        summary,
                        body=fetched.body,
                        content_type=fetched.content_type,
                        requested=project,
                        source_url=fetched.final_url,
                    )
            if page is None:
                page = parse_page(
                    fetched.body,
                    content_type=fetched.content_type,
                    page_url=fetched.final_url,
                    requested=project,
                    where=url,
                )
                if self.cache_dir is not None:
                    write_summary(self.cache_dir, url, fetched.sha256, page.summary())
        keep = DEFAULT_PAGE_MAX_AGE if self.page_max_age is None else self.page_max_age
        if keep > 0:
            with self._lock:
                self._memo[url] = (page, time.monotonic() + keep)
                self._memo.move_to_end(url)
                while len(self._memo) > _MEMO_SIZE:
                    self._memo.popitem(last=False)
        return page

    def _cached_page(self, project: str, url: str) -> Page | None:
        """The page from the cache alone, when it is fresh: its summary, or else its body."""
        if self.cache_dir is None:
            return None
        record = read_page(self.cache_dir, url, body=False)
        fresh = record is not None and page_is_fresh(
            record, default_max_age=DEFAULT_PAGE_MAX_AGE, max_age=self.page_max_age
        )
        if record is None or not fresh:
            return None
        summary = read_summary(self.cache_dir, url, record.sha256)
        if summary is not None and record.body_path is not None:
            page = Page.from_summary(
                summary,
                body=None,
                body_source=(str(record.body_path), record.sha256),
                content_type=record.content_type,
                requested=project,
                source_url=record.final_url,
            )
            if page is not None:
                return page
        cached = read_page(self.cache_dir, url)
        if cached is None or cached.body is None:
            return None
        page = parse_page(
            cached.body,
            content_type=cached.content_type,
            page_url=cached.final_url,
            requested=project,
            where=url,
        )
        write_summary(self.cache_dir, url, cached.sha256, page.summary())
        return page

    def _fetch_page(
        self, project: str, url: str, cached: CachedPage | None
    ) -> tuple[CachedPage, bool]:
        """The page from the index (revalidating ``cached``), and whether its body changed."""
        response = self._http.get(
            url,
            accept=ACCEPT,
            what=f"the page of {project!r}",
            not_found=(
                f"no project named {project!r} on {self.index_url}; "
                "check the spelling, or the index URL"
            ),
            conditional=cached.validators() if cached is not None else None,
            compressed=True,
        )
        if response.status == 304 and cached is not None and cached.body is not None:
            page = CachedPage(
                url=url,
                final_url=cached.final_url,
                content_type=cached.content_type,
                headers={**cached.headers, **response.headers},
                fetched_at=time.time(),
                body=cached.body,
                sha256=cached.sha256,
            )
            changed = False
        else:
            page = CachedPage(
                url=url,
                final_url=response.url,
                content_type=response.content_type,
                headers=response.headers,
                fetched_at=time.time(),
                body=response.body,
                sha256=hashlib.sha256(response.body).hexdigest(),
            )
            changed = True
        if self.cache_dir is not None:
            write_page(self.cache_dir, page, body_changed=changed)
        return page, changed

    # -- resolution ----------------------------------------------------------------------

    def resolve(self, requirement: str) -> SdistFile:
        """Choose the sdist that ``requirement`` designates, as pip would choose a release.

        A bare name gives the newest final release that has an sdist (a pre-release only
        when there is no final one). A specifier gives the newest release it matches;
        pre-releases only when the specifier names one or nothing else matches. Yanked
        files are only chosen for an exact ``==``/``===`` pin. Extras and markers are
        ignored. Resolutions of exact pins are cached, so they work offline afterwards.
        """
        text = requirement.strip()
        req = parse_requirement(text)
        pin = exact_pin(req.specifier)
        cache_key = None
        if pin is not None and self.cache_dir is not None:
            cache_key = resolve_cache_path(self.cache_dir, self.index_url, req.name, pin)
            cached = read_resolution(cache_key)
            if cached is not None:
                return cached
        page = self._page(req.name)
        chosen = choose(
            page,
            text,
            req.name,
            req.specifier,
            pinned=pin is not None,
            index_url=redact(self.index_url),
        )
        if cache_key is not None:
            payload = resolution_json(chosen, index_url=self.index_url, requirement=text)
            write_atomic(cache_key, payload.encode(), cache_dir=self.cache_dir)
        return chosen

    # -- download ------------------------------------------------------------------------

    def download(self, file: SdistFile | ReleaseFile) -> Download:
        """Download ``file``, or find it in the cache, sha256-verified.

        Any file of a listing can be downloaded (a :class:`ReleaseFile` wheel too); the
        :class:`Download` names it as an :class:`SdistFile`-shaped record. With a cache, the
        file is streamed into a temporary file next to its place while it is hashed, and
        renamed into place once the hash matches: it is never held whole in memory (a
        cached copy is hashed as a stream too). Without a cache, its bytes are kept.
        """
        folder = "sdists"
        if isinstance(file, ReleaseFile):
            folder = "sdists" if file.kind == "sdist" else f"{file.kind}s"
            file = file.as_sdist()
        sha256 = file.sha256.lower()
        if not SHA256_RE.fullmatch(sha256):
            msg = (
                f"{file.filename}: the index gives no sha256 for it "
                f"({file.url}); sapper only downloads archives it can verify"
            )
            raise FetchError(msg)
        filename = safe_filename(file.filename)
        if self.cache_dir is None:
            data = self._get_file(file, filename, sink=None)
            _verify(filename, sha256, hashlib.sha256(data).hexdigest())
            return Download(file=file, path=None, from_cache=False, size=len(data), body=data)
        path = self.cache_dir / folder / sha256[:2] / sha256 / filename
        with contextlib.suppress(OSError):
            size, digest = _hash_file(path)
            if digest == sha256:
                return Download(file=file, path=path, from_cache=True, size=size)
            # A damaged cache entry: fetch it again and overwrite it.
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            sink = _HashingFile(path.parent)
        except OSError as exc:
            raise FetchError(_unwritable(path.parent, exc)) from exc
        with sink:
            self._get_file(file, filename, sink=sink)
            _verify(filename, sha256, sink.digest.hexdigest())
            sink.keep(path)
        return Download(file=file, path=path, from_cache=False, size=sink.size)

    def _get_file(self, file: SdistFile, filename: str, *, sink: _HashingFile | None) -> bytes:
        return self._http.get(
            file.url,
            accept="*/*",
            what=filename,
            not_found=(
                f"{filename}: the index lists it but {redact(file.url)} answers 404; "
                "the file may have been removed, try again later or pick another version"
            ),
            sink=sink,
        ).body

    def fetch(self, requirement: str) -> Download:
        """Resolve ``requirement`` and download the chosen sdist."""
        return self.download(self.resolve(requirement))


def _verify(filename: str, expected: str, actual: str) -> None:
    if actual != expected:
        msg = (
            f"{filename}: sha256 mismatch (index says {expected}, downloaded {actual}); "
            "the download was discarded"
        )
        raise FetchError(msg)


_CHUNK = 1024 * 1024


def _hash_file(path: Path) -> tuple[int, str]:
    """The size and sha256 of the file at ``path``, read a chunk at a time."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            digest.update(chunk)
    return size, digest.hexdigest()


def _unwritable(folder: Path, exc: OSError) -> str:
    return (
        f"could not write a download to the cache in {folder}: {exc.strerror or exc}; set "
        "SAPPER_CACHE_DIR to a writable directory with room, or disable the cache (--no-cache)"
    )


class _HashingFile:
    """A temporary file in the cache that hashes what is written to it; :meth:`keep`
    renames it into place, and leaving the ``with`` block removes it otherwise."""

    def __init__(self, folder: Path) -> None:
        import tempfile

        fd, name = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
        self.tmp = Path(name)
        self.stream = os.fdopen(fd, "wb")
        self.digest = hashlib.sha256()
        self.size = 0
        self.kept = False

    def reset(self) -> None:
        self.stream.seek(0)
        self.stream.truncate()
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, chunk: bytes) -> None:
        try:
            self.stream.write(chunk)
        except OSError as exc:  # a full disk: not a network error to retry
            raise FetchError(_unwritable(self.tmp.parent, exc)) from exc
        self.digest.update(chunk)
        self.size += len(chunk)

    def keep(self, path: Path) -> None:
        try:
            self.stream.close()
            self.tmp.chmod(0o644)  # mkstemp makes it 0600; the cache may be shared
            self.tmp.replace(path)
        except OSError as exc:
            raise FetchError(_unwritable(path.parent, exc)) from exc
        self.kept = True

    def __enter__(self) -> _HashingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stream.close()
        if not self.kept:
            self.tmp.unlink(missing_ok=True)
