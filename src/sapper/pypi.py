"""Find and download source distributions from a package index.

The index is read through the simple repository API: the PEP 691 JSON form when the server
offers it, the PEP 503 HTML form otherwise. Every archive is checked against the sha256 the
index publishes before anyone sees its bytes, and kept in a content-addressed cache so that
a second run needs no network.

Heavy imports (``urllib.request``, ``packaging``, ``platformdirs``...) happen inside the
functions that need them: importing this module must stay cheap.
"""

from __future__ import annotations

import enum
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from sapper._exceptions import FetchError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from email.message import Message
    from typing import Protocol

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    class _Readable(Protocol):
        """What :meth:`Index._read_limited` needs of an HTTP response."""

        headers: Message

        def read(self, amt: int, /) -> bytes: ...


__all__ = [
    "DEFAULT_INDEX_URL",
    "MAX_DOWNLOAD_SIZE",
    "Download",
    "Index",
    "ProjectListing",
    "SdistFile",
    "default_cache_dir",
    "looks_like_requirement",
    "preferred_sdist",
]


def __dir__() -> list[str]:
    return __all__


DEFAULT_INDEX_URL = "https://pypi.org/simple"

#: Largest response (archive or project page) sapper reads, in bytes.
MAX_DOWNLOAD_SIZE = 512 * 1024 * 1024

_PROJECT_URL = "https://pypi.org/project/sapper/"

#: PEP 691 content negotiation, as pip does it: JSON preferred, HTML accepted.
_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, "
    "application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)

#: sdist suffixes in order of preference when a release has several sdists.
_SDIST_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")
#: Suffixes that mark a command-line target as an archive on disk, never a requirement.
_ARCHIVE_SUFFIXES = (*_SDIST_SUFFIXES, ".whl", ".egg", ".tbz", ".tar.zst")

_SHA256_RE = re.compile(r"[0-9a-f]{64}")
_NAME_START_RE = re.compile(r"[A-Za-z0-9]")

_BACKOFF_BASE = 0.5  # seconds before the first retry; doubles on each further one
_BACKOFF_CAP = 10.0
_RETRY_AFTER_CAP = 60.0
_CHUNK_SIZE = 1024 * 1024


class _Unset(enum.Enum):
    """Type of the "use the default" sentinel of ``Index(cache_dir=...)``."""

    TOKEN = enum.auto()


_UNSET: Literal[_Unset.TOKEN] = _Unset.TOKEN


@dataclass(frozen=True, slots=True, kw_only=True)
class SdistFile:
    """One source distribution file as the index lists it."""

    #: Project name as the index spells it (the canonical form for HTML indexes).
    name: str
    #: Release version as the filename spells it (may be a legacy, non-PEP 440 string).
    version: str
    filename: str
    #: Absolute download URL, without the ``#sha256=`` fragment.
    url: str
    #: Lower-case hex sha256 the index publishes; empty when it publishes none.
    sha256: str
    upload_time: str | None
    size: int | None
    yanked: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Download:
    """A downloaded sdist whose bytes match the sha256 the index published."""

    file: SdistFile
    data: bytes
    #: Where the archive sits in the cache (``None`` when the index has no cache).
    path: Path | None
    from_cache: bool


class _Page(NamedTuple):
    """What a project page says, reduced to what resolution needs."""

    url: str
    sdists: tuple[SdistFile, ...]
    #: Every version any file on the page belongs to (sdists, wheels, and the PEP 700 list).
    versions: frozenset[str]
    wheel_versions: frozenset[str]
    #: Versions with a pure-Python wheel (a ``none-any`` tag).
    pure_wheel_versions: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectListing:
    """Every sdist of a project, and which releases have wheels, as the index lists them."""

    #: Project name as the index spells it.
    name: str
    sdists: tuple[SdistFile, ...]
    #: Versions (as the wheel filenames spell them, PEP 440-normalised) that have a wheel.
    wheel_versions: frozenset[str]
    #: Versions that have a pure-Python (``*-none-any``) wheel.
    pure_wheel_versions: frozenset[str]


class _Link(NamedTuple):
    filename: str
    url: str
    sha256: str
    upload_time: str | None
    size: int | None
    yanked: bool


def default_cache_dir() -> Path:
    """Return ``$SAPPER_CACHE_DIR``, or else the user cache directory for sapper."""
    env = os.environ.get("SAPPER_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("sapper", appauthor=False))


def looks_like_requirement(text: str) -> bool:
    """Tell whether a command-line target names a project on an index rather than a file.

    Existing paths, anything containing a path separator and archive filenames are not
    requirements; ``stringcase``, ``stringcase==1.2.0``, ``requests>=2`` and
    ``zope.interface`` are. A URL requirement (``name @ https://...``) counts as one, so
    that :meth:`Index.resolve` can explain why it is not fetched.
    """
    text = text.strip()
    if not text or not _NAME_START_RE.match(text):
        return False
    try:
        if Path(text).exists():
            return False
    except (OSError, ValueError):  # e.g. a name too long for the filesystem
        pass
    separators = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    is_url_requirement = "@" in text
    if not is_url_requirement and (
        text.lower().endswith(_ARCHIVE_SUFFIXES) or any(sep in text for sep in separators)
    ):
        return False
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return False
    return (requirement.url is not None) == is_url_requirement


class Index:
    """A package index speaking the simple repository API, with an optional local cache.

    ``cache_dir=None`` disables the cache: nothing is read from or written to disk. The
    default is :func:`default_cache_dir`. An instance holds no mutable state and may be
    shared between threads; the cache is only ever written atomically.
    """

    __slots__ = (
        "_auth",
        "_sleep",
        "cache_dir",
        "index_url",
        "max_size",
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
    ) -> None:
        if retries < 0:
            msg = f"retries must be 0 or more, not {retries}"
            raise ValueError(msg)
        url, self._auth = _split_credentials(index_url.strip().rstrip("/"))
        if not url.lower().startswith(("http://", "https://", "file://")):
            msg = (
                f"index URL {_redact(index_url)!r} is not an http(s) URL; "
                f"give one like {DEFAULT_INDEX_URL!r}"
            )
            raise FetchError(msg)
        self.index_url = url
        self.cache_dir = (
            default_cache_dir() if isinstance(cache_dir, _Unset) else _as_path(cache_dir)
        )
        self.timeout = timeout
        self.retries = retries
        self.user_agent = user_agent or _default_user_agent()
        self.max_size = max_size
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"Index({self.index_url!r}, cache_dir={self.cache_dir!r})"

    # -- listing -------------------------------------------------------------------------

    def sdists(self, project: str) -> list[SdistFile]:
        """Return every sdist file the index lists for ``project``, all versions."""
        return list(self._page(project).sdists)

    def listing(self, project: str) -> ProjectListing:
        """Return every sdist of ``project`` and the versions that have (pure) wheels."""
        page = self._page(project)
        name = page.sdists[0].name if page.sdists else project
        return ProjectListing(
            name=name,
            sdists=page.sdists,
            wheel_versions=page.wheel_versions,
            pure_wheel_versions=page.pure_wheel_versions,
        )

    def _page(self, project: str) -> _Page:
        from packaging.utils import canonicalize_name

        canonical = canonicalize_name(project)
        url = f"{self.index_url}/{canonical}/"
        body, final_url, content_type = self._get(
            url,
            accept=_ACCEPT,
            what=f"the page of {project!r}",
            not_found=(
                f"no project named {project!r} on {self.index_url}; "
                "check the spelling, or the index URL"
            ),
        )
        if "json" in content_type or (not content_type and body.lstrip().startswith(b"{")):
            name, links, listed = _parse_json_page(body, final_url, where=url)
        else:
            name, links, listed = canonical, _parse_html_page(body, content_type, final_url), ()
        return _classify(name or canonical, canonical, links, listed, final_url)

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
        req = _parse_requirement(text)
        pin = _exact_pin(req.specifier)
        cache_key = None
        if pin is not None and self.cache_dir is not None:
            cache_key = _resolve_cache_path(self.cache_dir, self.index_url, req.name, pin)
            cached = _read_resolution(cache_key)
            if cached is not None:
                return cached
        page = self._page(req.name)
        chosen = _choose(
            page,
            text,
            req.name,
            req.specifier,
            pinned=pin is not None,
            index_url=_redact(self.index_url),
        )
        if cache_key is not None:
            payload = _resolution_json(chosen, index_url=self.index_url, requirement=text)
            self._write_atomic(cache_key, payload.encode())
        return chosen

    # -- download ------------------------------------------------------------------------

    def download(self, file: SdistFile) -> Download:
        """Return the bytes of ``file``, from the cache or the network, sha256-verified."""
        import hashlib

        sha256 = file.sha256.lower()
        if not _SHA256_RE.fullmatch(sha256):
            msg = (
                f"{file.filename}: the index gives no sha256 for it "
                f"({file.url}); sapper only downloads archives it can verify"
            )
            raise FetchError(msg)
        filename = _safe_filename(file.filename)
        path = None
        if self.cache_dir is not None:
            path = self.cache_dir / "sdists" / sha256[:2] / sha256 / filename
            try:
                cached = path.read_bytes()
            except OSError:
                pass
            else:
                if hashlib.sha256(cached).hexdigest() == sha256:
                    return Download(file=file, data=cached, path=path, from_cache=True)
                # A damaged cache entry: fetch it again and overwrite it.
        data, _, _ = self._get(
            file.url,
            accept="*/*",
            what=filename,
            not_found=(
                f"{filename}: the index lists it but {_redact(file.url)} answers 404; "
                "the file may have been removed, try again later or pick another version"
            ),
        )
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256:
            msg = (
                f"{filename}: sha256 mismatch (index says {sha256}, downloaded {actual}); "
                "the download was discarded"
            )
            raise FetchError(msg)
        if path is not None:
            self._write_atomic(path, data)
        return Download(file=file, data=data, path=path, from_cache=False)

    def fetch(self, requirement: str) -> Download:
        """Resolve ``requirement`` and download the chosen sdist."""
        return self.download(self.resolve(requirement))

    # -- HTTP ----------------------------------------------------------------------------

    def _get(self, url: str, *, accept: str, what: str, not_found: str) -> tuple[bytes, str, str]:
        """GET ``url`` with retries; return the body, the final URL and the content type."""
        import http.client
        import urllib.error
        import urllib.request

        request = urllib.request.Request(
            url, headers={"Accept": accept, "User-Agent": self.user_agent}
        )
        if self._auth is not None and _same_origin(url, self.index_url):
            # Unredirected: a redirect to another host (a CDN) must not receive it.
            request.add_unredirected_header("Authorization", self._auth)
        opener = urllib.request.build_opener()  # cheap, and per call: no shared state
        shown = _redact(url)
        attempts = self.retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                with opener.open(request, timeout=self.timeout) as response:
                    body = self._read_limited(response, what=what)
                    content_type = response.headers.get("Content-Type", "") or ""
                    return body, response.geturl(), content_type.lower()
            except urllib.error.HTTPError as exc:
                status, reason, retry_after = exc.code, exc.reason, exc.headers
                exc.close()
                if status == 404:
                    raise FetchError(not_found) from None
                if (status == 429 or 500 <= status < 600) and not last:
                    self._sleep(_retry_delay(attempt, retry_after))
                    continue
                msg = _http_error_message(status, reason, shown, attempts)
                raise FetchError(msg) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason_exc = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                if _is_permanent(reason_exc):
                    msg = f"could not fetch {what} from {shown}: {_describe(reason_exc)}"
                    raise FetchError(msg) from exc
                if not last:
                    self._sleep(_backoff(attempt))
                    continue
                msg = (
                    f"could not fetch {what} from {shown} after {attempts} attempt"
                    f"{'s' if attempts > 1 else ''}: {_describe(reason_exc)}; "
                    "check the network connection and the index URL, or try again later"
                )
                raise FetchError(msg) from exc
        raise AssertionError  # pragma: no cover  (the loop always returns or raises)

    def _read_limited(self, response: _Readable, *, what: str) -> bytes:
        limit = self.max_size
        declared = response.headers.get("Content-Length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            raise FetchError(_too_big(what, limit))
        chunks: list[bytes] = []
        total = 0
        while chunk := response.read(_CHUNK_SIZE):
            total += len(chunk)
            if total > limit:
                raise FetchError(_too_big(what, limit))
            chunks.append(chunk)
        return b"".join(chunks)

    # -- cache ---------------------------------------------------------------------------

    def _write_atomic(self, path: Path, data: bytes) -> None:
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
                f"could not write {path.name} to the cache in {self.cache_dir}: "
                f"{_describe(exc)}; set SAPPER_CACHE_DIR to a writable directory "
                "or disable the cache (--no-cache)"
            )
            raise FetchError(msg) from exc


# -- helpers: requirements and resolution -------------------------------------------------


def _as_path(value: Path | None) -> Path | None:
    return None if value is None else Path(value)


def _parse_requirement(text: str) -> Requirement:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        detail = str(exc).splitlines()[0]
        msg = (
            f"{text!r} is not a valid requirement ({detail}); "
            "write it as NAME, NAME==VERSION or NAME>=VERSION"
        )
        raise FetchError(msg) from None
    if req.url is not None:
        msg = (
            f"{text}: sapper does not fetch URL requirements; "
            "download the file and pass its path instead"
        )
        raise FetchError(msg)
    return req


def _exact_pin(specifier: SpecifierSet) -> str | None:
    """Return ``==X``/``===X`` when the specifier is one exact pin (pip's notion), else None."""
    specs = list(specifier)
    if len(specs) != 1:
        return None
    spec = specs[0]
    if spec.operator == "===" or (spec.operator == "==" and not spec.version.endswith(".*")):
        return f"{spec.operator}{spec.version}"
    return None


def _parse_version(text: str) -> Version | None:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def _legacy_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key for non-PEP 440 versions: numbers compare as numbers, the rest as text."""
    parts = re.split(r"(\d+)", text.lower())
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts if part)


def preferred_sdist(files: Iterable[SdistFile]) -> SdistFile:
    """The sdist pip would take among the files of one release (not yanked, hashed, .tar.gz)."""
    return min(files, key=_file_preference)


def _file_preference(file: SdistFile) -> tuple[bool, bool, int]:
    """Sort key of the files of one release: smaller is better."""
    lower = file.filename.lower()
    rank = next((i for i, s in enumerate(_SDIST_SUFFIXES) if lower.endswith(s)), 99)
    return (file.yanked, not _SHA256_RE.fullmatch(file.sha256), rank)


def _choose(
    page: _Page, text: str, name: str, specifier: SpecifierSet, *, pinned: bool, index_url: str
) -> SdistFile:
    valid: dict[Version, list[SdistFile]] = {}
    legacy: dict[str, list[SdistFile]] = {}
    for file in page.sdists:
        version = _parse_version(file.version)
        if version is None:
            legacy.setdefault(file.version, []).append(file)
        else:
            valid.setdefault(version, []).append(file)

    def usable(files: list[SdistFile]) -> bool:
        return pinned or any(not f.yanked for f in files)

    def pick(files: list[SdistFile]) -> SdistFile:
        return min(files, key=_file_preference)

    matches = list(specifier.filter(v for v, files in valid.items() if usable(files)))
    if matches:
        return pick(valid[max(matches)])
    legacy_matches = [
        v for v, files in legacy.items() if usable(files) and _legacy_matches(specifier, v)
    ]
    if legacy_matches:
        return pick(legacy[max(legacy_matches, key=_legacy_key)])

    # Nothing to choose: explain why, from the most specific reason to the least.
    if not page.versions:
        msg = f"no files for {name!r} on {index_url}; the project has no releases there"
        raise FetchError(msg)
    yanked = [str(v) for v in sorted(specifier.filter(valid), reverse=True)]
    yanked += sorted((v for v in legacy if _legacy_matches(specifier, v)), key=_legacy_key)[::-1]
    if yanked:
        shown = ", ".join(yanked[:5])
        msg = (
            f"{text}: every matching sdist is yanked ({shown}); "
            f"pin one with '{'==' if _parse_version(yanked[0]) else '==='}{yanked[0]}' "
            "to use it anyway"
        )
        raise FetchError(msg)
    all_valid = [v for v in (_parse_version(s) for s in page.versions) if v is not None]
    others = sorted(specifier.filter(all_valid), reverse=True)
    if others:
        newest_match = str(others[0])
        wheels = newest_match in _normalised(page.wheel_versions)
        has = "only wheels" if wheels else "only files that are not sdists"
        if pinned or len(others) == 1:
            msg = (
                f"no sdist for {name} {newest_match} on {index_url} ({has}); "
                "sapper reads source distributions"
            )
        else:
            msg = (
                f"{text}: no matching release has an sdist on {index_url} "
                f"(the newest, {newest_match}, has {has}); sapper reads source distributions"
            )
        raise FetchError(msg)
    newest = _newest(all_valid, page.versions)
    advice = "check the version or drop the pin" if pinned else "check the version range"
    msg = (
        f"{text}: no release of {name!r} matches {str(specifier)!r} (newest is {newest}); {advice}"
    )
    raise FetchError(msg)


def _normalised(versions: Iterable[str]) -> set[str]:
    out = set()
    for text in versions:
        version = _parse_version(text)
        out.add(str(version) if version is not None else text)
    return out


def _newest(valid: list[Version], everything: Iterable[str]) -> str:
    finals = [v for v in valid if not v.is_prerelease]
    if finals or valid:
        return str(max(finals or valid))
    return max(everything, key=_legacy_key)


def _legacy_matches(specifier: SpecifierSet, version: str) -> bool:
    """A legacy version matches no specifier but an empty one or ``===`` with its text."""
    return all(s.operator == "===" and s.version.lower() == version.lower() for s in specifier)


# -- helpers: page parsing ---------------------------------------------------------------


def _parse_json_page(
    body: bytes, page_url: str, *, where: str
) -> tuple[str | None, list[_Link], tuple[str, ...]]:
    import json
    from urllib.parse import urljoin

    def malformed(detail: str) -> FetchError:
        return FetchError(
            f"{_redact(where)} sent a malformed PEP 691 JSON page ({detail}); "
            "check that the index URL points at a simple repository API"
        )

    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise malformed(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise malformed("not an object")
    meta = data.get("meta")
    api_version = meta.get("api-version") if isinstance(meta, dict) else None
    if isinstance(api_version, str) and not api_version.startswith("1."):
        msg = (
            f"{_redact(where)} speaks version {api_version} of the simple API; "
            "sapper understands version 1 only"
        )
        raise FetchError(msg)
    files = data.get("files")
    if not isinstance(files, list):
        raise malformed("no 'files' list")
    links = []
    for entry in files:
        if not isinstance(entry, dict):
            raise malformed("a file entry is not an object")
        filename, url = entry.get("filename"), entry.get("url")
        if not isinstance(filename, str) or not isinstance(url, str):
            raise malformed("a file entry lacks 'filename' or 'url'")
        hashes = entry.get("hashes")
        sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
        clean_url, fragment_sha = _split_fragment(urljoin(page_url, url))
        upload_time, size = entry.get("upload-time"), entry.get("size")
        links.append(
            _Link(
                filename=filename,
                url=clean_url,
                sha256=(sha256 if isinstance(sha256, str) else fragment_sha).lower(),
                upload_time=upload_time if isinstance(upload_time, str) else None,
                size=size if isinstance(size, int) and not isinstance(size, bool) else None,
                yanked=bool(entry.get("yanked", False)),
            )
        )
    name = data.get("name")
    versions = data.get("versions")
    listed = tuple(v for v in versions if isinstance(v, str)) if isinstance(versions, list) else ()
    return (name if isinstance(name, str) and name else None), links, listed


def _parse_html_page(body: bytes, content_type: str, page_url: str) -> list[_Link]:
    from html.parser import HTMLParser
    from urllib.parse import unquote, urljoin, urlsplit

    charset = "utf-8"
    match = re.search(r"charset=([\w-]+)", content_type)
    if match:
        charset = match.group(1)
    try:
        text = body.decode(charset, errors="replace")
    except LookupError:
        text = body.decode("utf-8", errors="replace")

    anchors: list[dict[str, str | None]] = []
    base: list[str] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "a":
                anchors.append(dict(attrs))
            elif tag == "base" and not base:
                href = dict(attrs).get("href")
                if href:
                    base.append(href)

    parser = Parser(convert_charrefs=True)
    parser.feed(text)
    parser.close()
    base_url = urljoin(page_url, base[0]) if base else page_url
    links = []
    for attrs in anchors:
        href = attrs.get("href")
        if not href:
            continue
        url, sha256 = _split_fragment(urljoin(base_url, href))
        filename = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
        if not filename:
            continue
        links.append(
            _Link(
                filename=filename,
                url=url,
                sha256=sha256,
                upload_time=None,
                size=None,
                yanked="data-yanked" in attrs,
            )
        )
    return links


def _split_fragment(url: str) -> tuple[str, str]:
    """Split ``url#sha256=...`` into the bare URL and the (lower-case) sha256, if any."""
    bare, _, fragment = url.partition("#")
    algorithm, _, value = fragment.partition("=")
    return bare, (value.lower() if algorithm.lower() == "sha256" else "")


def _classify(
    name: str, canonical: str, links: list[_Link], listed: Iterable[str], page_url: str
) -> _Page:
    from packaging.utils import (
        InvalidWheelFilename,
        canonicalize_name,
        parse_wheel_filename,
    )

    sdists = []
    versions = set(listed)
    wheel_versions = set()
    pure_wheel_versions = set()
    for link in links:
        if link.filename.lower().endswith(".whl"):
            try:
                wheel_name, wheel_version, _, tags = parse_wheel_filename(link.filename)
            except InvalidWheelFilename:
                continue
            if canonicalize_name(wheel_name) == canonical:
                versions.add(str(wheel_version))
                wheel_versions.add(str(wheel_version))
                if any(t.abi == "none" and t.platform == "any" for t in tags):
                    pure_wheel_versions.add(str(wheel_version))
            continue
        version = _sdist_version(link.filename, canonical)
        if version is None:
            continue
        versions.add(version)
        sdists.append(
            SdistFile(
                name=name,
                version=version,
                filename=link.filename,
                url=link.url,
                sha256=link.sha256,
                upload_time=link.upload_time,
                size=link.size,
                yanked=link.yanked,
            )
        )
    return _Page(
        page_url,
        tuple(sdists),
        frozenset(versions),
        frozenset(wheel_versions),
        frozenset(pure_wheel_versions),
    )


def _sdist_version(filename: str, canonical: str) -> str | None:
    """Return the version part of an sdist filename of project ``canonical``, else None.

    ``packaging.utils.parse_sdist_filename`` is tried first; for the other suffixes and for
    legacy names (``foo-bar-1.0.zip``, ``foo-1.0-beta.tar.gz``, ``foo-2004d.tar.gz``) the
    stem is split at the dash where the part before it is the project's name.
    """
    from packaging.utils import (
        InvalidSdistFilename,
        canonicalize_name,
        parse_sdist_filename,
    )

    lower = filename.lower()
    suffix = next((s for s in _SDIST_SUFFIXES if lower.endswith(s)), None)
    if suffix is None:
        return None
    stem = filename[: -len(suffix)]
    try:
        parsed_name, _ = parse_sdist_filename(filename)
    except InvalidSdistFilename:
        pass
    else:
        if canonicalize_name(parsed_name) == canonical:
            return stem.rpartition("-")[2]
    for index, char in enumerate(stem):
        if char == "-" and canonicalize_name(stem[:index]) == canonical:
            version = stem[index + 1 :]
            return version or None
    return None


def _safe_filename(filename: str) -> str:
    """Refuse filenames that would escape the cache directory."""
    separators = {"/", "\\", os.sep} | ({os.altsep} if os.altsep else set())
    if not filename or filename.startswith(".") or any(s in filename for s in separators):
        msg = f"the index lists an sdist with a suspicious filename {filename!r}; refusing it"
        raise FetchError(msg)
    return filename


# -- helpers: resolution cache -----------------------------------------------------------


def _resolve_cache_path(cache_dir: Path, index_url: str, name: str, pin: str) -> Path:
    import hashlib

    from packaging.utils import canonicalize_name

    canonical = canonicalize_name(name)
    key = hashlib.sha256(f"{index_url}\n{canonical}\n{pin}".encode()).hexdigest()
    return cache_dir / "resolve" / canonical / f"{key[:32]}.json"


def _resolution_json(file: SdistFile, *, index_url: str, requirement: str) -> str:
    import json

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


def _read_resolution(path: Path) -> SdistFile | None:
    """Return the cached resolution in ``path``, or None when absent or unreadable."""
    import json

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
    if not _SHA256_RE.fullmatch(file["sha256"]):
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


# -- helpers: HTTP -----------------------------------------------------------------------


def _default_user_agent() -> str:
    from sapper._version import __version__

    return f"sapper/{__version__} (+{_PROJECT_URL})"


def _split_credentials(url: str) -> tuple[str, str | None]:
    """Move ``user:password@`` out of an index URL into a Basic ``Authorization`` value."""
    import base64
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    return urlunsplit(parts._replace(netloc=host)), f"Basic {token}"


def _redact(url: str) -> str:
    """Hide the password of a URL before it goes into a message."""
    return re.sub(r"(//[^/@:]*:)[^/@]*@", r"\1***@", url)


def _same_origin(url: str, other: str) -> bool:
    from urllib.parse import urlsplit

    a, b = urlsplit(url), urlsplit(other)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc)


def _backoff(attempt: int) -> float:
    return float(min(_BACKOFF_BASE * 2**attempt, _BACKOFF_CAP))


def _retry_delay(attempt: int, headers: Message | None) -> float:
    """Seconds to wait before retrying: ``Retry-After`` (capped) when given, else backoff."""
    value = headers.get("Retry-After") if headers is not None else None
    if value:
        value = value.strip()
        delay: float | None = None
        if value.isdigit():
            delay = float(value)
        else:
            from email.utils import parsedate_to_datetime

            try:
                when = parsedate_to_datetime(value)
            except (TypeError, ValueError):
                when = None
            if when is not None and when.tzinfo is not None:
                delay = max(0.0, when.timestamp() - time.time())
        if delay is not None:
            return min(delay, _RETRY_AFTER_CAP)
    return _backoff(attempt)


def _is_permanent(reason: object) -> bool:
    """Errors that retrying cannot fix: bad certificates, unknown URL schemes, bad URLs."""
    import ssl

    if isinstance(reason, ssl.SSLCertVerificationError):
        return True
    if isinstance(reason, str):  # URLError("unknown url type: ...")
        return True
    return isinstance(reason, (ValueError, FileNotFoundError, IsADirectoryError))


def _describe(reason: object) -> str:
    if isinstance(reason, BaseException):
        text = str(reason) or type(reason).__name__
        if isinstance(reason, TimeoutError) and "timed out" not in text:
            text = f"timed out ({text})"
        return text
    return str(reason)


def _http_error_message(status: int, reason: object, url: str, attempts: int) -> str:
    if status in {401, 403}:
        return (
            f"{url} answered HTTP {status} {reason}; "
            "check the index URL and its credentials (user:password@ in the URL)"
        )
    if status == 429 or status >= 500:
        return (
            f"{url} answered HTTP {status} {reason} {attempts} time"
            f"{'s' if attempts > 1 else ''}; the index is overloaded or down, try again later"
        )
    return f"{url} answered HTTP {status} {reason}; check the index URL"


def _too_big(what: str, limit: int) -> str:
    mib = 1024 * 1024
    size = f"{limit // mib} MiB" if limit >= mib and limit % mib == 0 else f"{limit} byte"
    return (
        f"{what} is larger than the {size} download limit; sapper does not read archives that large"
    )
