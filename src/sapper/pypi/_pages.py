"""Project pages of the simple repository API: PEP 691 JSON and PEP 503 HTML.

A page is parsed into light :class:`RawFile` records (filename, href as written, what the
index says of the file, the version its filename spells); URLs are joined and objects made
only for the files somebody asks for.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, NamedTuple

from .._exceptions import FetchError
from ._http import redact
from ._models import ReleaseFile, SdistFile

if TYPE_CHECKING:
    from collections.abc import Iterable

    from packaging.version import Version

    from ._models import FileKind

__all__ = ["ACCEPT", "SDIST_SUFFIXES", "Page", "RawFile", "parse_page"]

#: PEP 691 content negotiation, as pip does it: JSON preferred, HTML accepted.
ACCEPT = (
    "application/vnd.pypi.simple.v1+json, "
    "application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)

#: sdist suffixes in order of preference when a release has several sdists.
SDIST_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")


class RawFile(NamedTuple):
    """One file of a project page, as little processed as resolution allows."""

    filename: str
    #: The link as the page writes it (relative to the page, fragment included).
    href: str
    #: The sha256 the page's ``hashes`` give; None: take it from the ``#sha256=`` fragment.
    sha256: str | None
    upload_time: str | None
    size: int | None
    yanked: bool
    #: The reason the index gives for yanking the file (PEP 592), if it gives one.
    yanked_reason: str | None
    requires_python: str | None
    kind: FileKind
    #: sdists: the version as the filename spells it; wheels: the filename's version field
    #: (not yet validated); other files: empty.
    version: str
    #: A wheel with a ``none``-ABI, ``any``-platform tag.
    pure: bool


@functools.lru_cache(maxsize=4096)
def canonical_name(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


@functools.lru_cache(maxsize=65536)
def parsed_version(text: str) -> Version | None:
    """``text`` as a PEP 440 version, or None when it is not a valid one."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


@functools.lru_cache(maxsize=65536)
def normal_version(text: str) -> str | None:
    """``text`` as PEP 440 normalises it, or None when it is not a valid version."""
    version = parsed_version(text)
    return None if version is None else str(version)


class Page:
    """A parsed project page; its views are computed once, when first asked for.

    What resolution reads (the sdists, and which versions have a (pure) wheel) is held as a
    small summary, which the cache keeps next to the page's body: a rerun does not parse
    the body again. The full list of files (every wheel with its tags) is parsed from the
    body only when asked for (:meth:`release_files`).
    """

    __slots__ = (
        "_body",
        "_body_source",
        "_files",
        "_memo",
        "canonical",
        "content_type",
        "listed",
        "name",
        "requested",
        "sdist_files",
        "source_url",
        "url",
        "wheels",
    )

    def __init__(
        self,
        *,
        name: str,
        canonical: str,
        requested: str,
        url: str,
        sdist_files: tuple[RawFile, ...],
        wheels: dict[str, bool],
        listed: tuple[str, ...],
        files: tuple[RawFile, ...] | None = None,
        body: bytes | None = None,
        body_source: tuple[str, str] | None = None,
        content_type: str = "",
        source_url: str | None = None,
    ) -> None:
        self.name = name
        self.canonical = canonical
        self.requested = requested
        #: The base URL of the page's links.
        self.url = url
        #: The sdists of the page, in page order.
        self.sdist_files = sdist_files
        #: Wheel versions as their filenames spell them -> whether one of them is pure.
        self.wheels = wheels
        self.listed = listed
        self.content_type = content_type
        #: The URL the page was fetched from (after redirects).
        self.source_url = source_url or url
        self._files = files
        self._body = body
        #: (path, sha256) of the cached body, read when the full file list is wanted
        self._body_source = body_source
        self._memo: dict[str, object] = {}

    def _key(self) -> tuple[object, ...]:
        return (self.url, self.sdist_files, tuple(sorted(self.wheels.items())), self.listed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Page) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __getstate__(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__ if k != "_memo"}

    def __setstate__(self, state: dict[str, object]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        self._memo = {}

    def for_request(self, requested: str) -> Page:
        """This page as asked for under another spelling of the project's name."""
        if requested == self.requested:
            return self
        return Page(
            name=self.name,
            canonical=self.canonical,
            requested=requested,
            url=self.url,
            sdist_files=self.sdist_files,
            wheels=self.wheels,
            listed=self.listed,
            files=self._files,
            body=self._body,
            body_source=self._body_source,
            content_type=self.content_type,
            source_url=self.source_url,
        )

    def display_name(self) -> str:
        return self.name if self.sdist_files else self.requested

    def file_count(self) -> int:
        return len(self.all_files())

    # -- the summary the cache keeps ---------------------------------------------------

    def summary(self) -> bytes:
        import json

        record = {
            "version": 1,
            "name": self.name,
            "url": self.url,
            "listed": list(self.listed),
            "sdists": [list(raw) for raw in self.sdist_files],
            "wheels": self.wheels,
            "sdist_order": list(self.sdist_order()),
            "wheel_versions": sorted(self.wheel_versions()[0]),
            "pure_wheel_versions": sorted(self.wheel_versions()[1]),
        }
        return json.dumps(record, separators=(",", ":")).encode()

    @classmethod
    def from_summary(
        cls,
        data: bytes,
        *,
        body: bytes | None,
        content_type: str,
        requested: str,
        source_url: str,
        body_source: tuple[str, str] | None = None,
    ) -> Page | None:
        """The page a :meth:`summary` describes (None when it is not one)."""
        import json

        try:
            record = json.loads(data)
            if record.get("version") != 1:
                return None
            sdists = tuple(RawFile(*raw) for raw in record["sdists"])
            wheels = {str(k): bool(v) for k, v in record["wheels"].items()}
            listed = tuple(str(v) for v in record["listed"])
            name, url = str(record["name"]), str(record["url"])
            order = tuple(str(v) for v in record["sdist_order"])
            normalised = (
                frozenset(str(v) for v in record["wheel_versions"]),
                frozenset(str(v) for v in record["pure_wheel_versions"]),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        page = cls(
            name=name,
            canonical=canonical_name(requested),
            requested=requested,
            url=url,
            sdist_files=sdists,
            wheels=wheels,
            listed=listed,
            body=body,
            body_source=body_source,
            content_type=content_type,
            source_url=source_url,
        )
        page._memo["wheels"] = normalised
        page._memo["order"] = order
        return page

    # -- sdists ----------------------------------------------------------------------

    def sdist_positions(self) -> dict[str, list[int]]:
        memo = self._memo.get("positions")
        if memo is None:
            positions: dict[str, list[int]] = {}
            for at, raw in enumerate(self.sdist_files):
                positions.setdefault(raw.version, []).append(at)
            self._memo["positions"] = memo = positions
        return memo  # type: ignore[return-value]

    def sdist_order(self) -> tuple[str, ...]:
        """The sdist versions (as filenames spell them) that are valid PEP 440 versions,
        oldest first."""
        memo = self._memo.get("order")
        if memo is None:
            valid = [(v, t) for t in self.sdist_positions() if (v := parsed_version(t)) is not None]
            valid.sort(key=lambda pair: pair[0])
            self._memo["order"] = memo = tuple(text for _, text in valid)
        return memo  # type: ignore[return-value]

    def sdist_at(self, position: int) -> SdistFile:
        raw = self.sdist_files[position]
        url, sha256 = self._url_and_sha(raw)
        return SdistFile(
            name=self.name,
            version=raw.version,
            filename=raw.filename,
            url=url,
            sha256=sha256,
            upload_time=raw.upload_time,
            size=raw.size,
            yanked=raw.yanked,
        )

    def sdist_meta(self, position: int) -> tuple[str, str, str | None, bool]:
        raw = self.sdist_files[position]
        sha256 = raw.sha256 if raw.sha256 is not None else _fragment_sha(raw.href)
        return raw.filename, sha256, raw.upload_time, raw.yanked

    def sdists(self) -> tuple[SdistFile, ...]:
        memo = self._memo.get("sdists")
        if memo is None:
            self._memo["sdists"] = memo = tuple(
                self.sdist_at(p) for p in range(len(self.sdist_files))
            )
        return memo  # type: ignore[return-value]

    # -- wheels and versions -----------------------------------------------------------

    def wheel_versions(self) -> tuple[frozenset[str], frozenset[str]]:
        """(versions with a wheel, versions with a pure wheel), PEP 440-normalised."""
        memo = self._memo.get("wheels")
        if memo is None:
            every = {n for n in map(normal_version, self.wheels) if n is not None}
            pure_raw = [raw for raw, pure in self.wheels.items() if pure]
            pure = {n for n in map(normal_version, pure_raw) if n is not None}
            self._memo["wheels"] = memo = (frozenset(every), frozenset(pure))
        return memo  # type: ignore[return-value]

    def all_versions(self) -> frozenset[str]:
        memo = self._memo.get("versions")
        if memo is None:
            versions = set(self.listed) | set(self.sdist_positions()) | self.wheel_versions()[0]
            self._memo["versions"] = memo = frozenset(versions)
        return memo  # type: ignore[return-value]

    # -- any file ----------------------------------------------------------------------

    def all_files(self) -> tuple[RawFile, ...]:
        """Every file of the page (parsed from the body the first time)."""
        if self._files is None:
            body = self._body
            if body is None and self._body_source is not None:
                from pathlib import Path

                from ._cache import read_body

                path, sha256 = self._body_source
                body = read_body(Path(path), sha256)
                if body is None:
                    msg = (
                        f"the cached page of {self.requested!r} changed or vanished while in "
                        "use (another sapper refreshed it?); run again"
                    )
                    raise FetchError(msg)
            if body is None:  # pragma: no cover - pages always carry one or the other
                return self.sdist_files
            full = parse_page(
                body,
                content_type=self.content_type,
                page_url=self.source_url,
                requested=self.requested,
                where=self.source_url,
            )
            self._files = full._files
        return self._files or ()

    def release_files(self, version: str | None) -> tuple[ReleaseFile, ...]:
        wanted = None if version is None else (parsed_version(version) or version)
        out = []
        for raw in self.all_files():
            if wanted is not None:
                if raw.kind == "other":
                    continue
                if (parsed_version(raw.version) or raw.version) != wanted:
                    continue
            file = self._release_file(raw)
            if file is not None:
                out.append(file)
        return tuple(out)

    def _release_file(self, raw: RawFile) -> ReleaseFile | None:
        tags: frozenset[object] = frozenset()
        if raw.kind == "wheel":
            from packaging.utils import InvalidWheelFilename, parse_wheel_filename

            try:
                _, _, _, parsed = parse_wheel_filename(raw.filename)
            except InvalidWheelFilename:
                return None
            tags = frozenset(parsed)
        url, sha256 = self._url_and_sha(raw)
        return ReleaseFile(
            name=self.name,
            version=raw.version,
            kind=raw.kind,
            filename=raw.filename,
            url=url,
            sha256=sha256,
            upload_time=raw.upload_time,
            size=raw.size,
            yanked=raw.yanked,
            yanked_reason=raw.yanked_reason,
            requires_python=raw.requires_python,
            tags=tags,  # type: ignore[arg-type]
        )

    def _url_and_sha(self, raw: RawFile) -> tuple[str, str]:
        from urllib.parse import urljoin

        url, fragment_sha = split_fragment(urljoin(self.url, raw.href))
        return url, (raw.sha256 if raw.sha256 is not None else fragment_sha)


# -- parsing ------------------------------------------------------------------------------


def parse_page(
    body: bytes, *, content_type: str, page_url: str, requested: str, where: str
) -> Page:
    """Parse a project page fetched from ``where`` (redirected to ``page_url``)."""
    canonical = canonical_name(requested)
    if "json" in content_type or (not content_type and body.lstrip().startswith(b"{")):
        name, entries, listed = _parse_json(body, page_url, where=where)
        base = page_url
    else:
        name, listed = None, ()
        base, entries = _parse_html(body, content_type, page_url)
    files = tuple(_classify(entries, canonical))
    wheels: dict[str, bool] = {}
    for raw in files:
        if raw.kind == "wheel":
            wheels[raw.version] = wheels.get(raw.version, False) or raw.pure
    return Page(
        name=name or canonical,
        canonical=canonical,
        requested=requested,
        url=base,
        sdist_files=tuple(raw for raw in files if raw.kind == "sdist"),
        wheels=wheels,
        listed=listed,
        files=files,
        content_type=content_type,
        source_url=page_url,
    )


# An entry before classification: filename, href, sha256, upload time, size, yanked,
# yanked reason, requires-python.
_Entry = tuple[str, str, str | None, str | None, int | None, bool, str | None, str | None]


def _parse_json(
    body: bytes, page_url: str, *, where: str
) -> tuple[str | None, list[_Entry], tuple[str, ...]]:
    import json

    def malformed(detail: str) -> FetchError:
        return FetchError(
            f"{redact(where)} sent a malformed PEP 691 JSON page ({detail}); "
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
            f"{redact(where)} speaks version {api_version} of the simple API; "
            "sapper understands version 1 only"
        )
        raise FetchError(msg)
    files = data.get("files")
    if not isinstance(files, list):
        raise malformed("no 'files' list")
    entries: list[_Entry] = []
    for entry in files:
        if not isinstance(entry, dict):
            raise malformed("a file entry is not an object")
        filename, url = entry.get("filename"), entry.get("url")
        if not isinstance(filename, str) or not isinstance(url, str):
            raise malformed("a file entry lacks 'filename' or 'url'")
        hashes = entry.get("hashes")
        sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
        upload_time, size = entry.get("upload-time"), entry.get("size")
        requires_python = entry.get("requires-python")
        yanked = entry.get("yanked", False)
        entries.append(
            (
                filename,
                url,
                sha256.lower() if isinstance(sha256, str) else None,
                upload_time if isinstance(upload_time, str) else None,
                size if isinstance(size, int) and not isinstance(size, bool) else None,
                bool(yanked),
                yanked if isinstance(yanked, str) and yanked else None,
                requires_python if isinstance(requires_python, str) else None,
            )
        )
    name = data.get("name")
    versions = data.get("versions")
    listed = tuple(v for v in versions if isinstance(v, str)) if isinstance(versions, list) else ()
    return (name if isinstance(name, str) and name else None), entries, listed


def _parse_html(body: bytes, content_type: str, page_url: str) -> tuple[str, list[_Entry]]:
    """The base URL of the page's links, and its entries."""
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
    entries: list[_Entry] = []
    for attrs in anchors:
        href = attrs.get("href")
        if not href:
            continue
        filename = unquote(urlsplit(href.partition("#")[0]).path.rsplit("/", 1)[-1])
        if not filename:
            continue
        entries.append(
            (
                filename,
                href,
                None,
                None,
                None,
                "data-yanked" in attrs,
                attrs.get("data-yanked") or None,
                attrs.get("data-requires-python"),
            )
        )
    return base_url, entries


def _classify(entries: Iterable[_Entry], canonical: str) -> Iterable[RawFile]:
    for filename, href, sha256, upload_time, size, yanked, reason, requires_python in entries:
        kind: FileKind
        pure = False
        if filename.lower().endswith(".whl"):
            parts = filename[:-4].split("-")
            if len(parts) not in (5, 6) or canonical_name(parts[0]) != canonical:
                continue  # not a wheel of this project (or not a valid wheel name)
            kind, version = "wheel", parts[1]
            pure = "none" in parts[-2].split(".") and "any" in parts[-1].split(".")
        else:
            found = sdist_version(filename, canonical)
            if found is None:
                kind, version = "other", ""
            else:
                kind, version = "sdist", found
        yield RawFile(
            filename,
            href,
            sha256,
            upload_time,
            size,
            yanked,
            reason,
            requires_python,
            kind,
            version,
            pure,
        )


def sdist_version(filename: str, canonical: str) -> str | None:
    """Return the version part of an sdist filename of project ``canonical``, else None.

    The stem is split at its last dash when the part before it is the project's name (as
    ``packaging.utils.parse_sdist_filename`` does); legacy names (``foo-bar-1.0.zip``,
    ``foo-1.0-beta.tar.gz``, ``foo-2004d.tar.gz``) are split at the first dash where the
    part before it is the project's name.
    """
    lower = filename.lower()
    suffix = next((s for s in SDIST_SUFFIXES if lower.endswith(s)), None)
    if suffix is None:
        return None
    stem = filename[: -len(suffix)]
    head, dash, tail = stem.rpartition("-")
    if dash and tail and canonical_name(head) == canonical:
        return tail
    for index, char in enumerate(stem):
        if char == "-" and canonical_name(stem[:index]) == canonical:
            version = stem[index + 1 :]
            return version or None
    return None


def split_fragment(url: str) -> tuple[str, str]:
    """Split ``url#sha256=...`` into the bare URL and the (lower-case) sha256, if any."""
    bare, _, fragment = url.partition("#")
    algorithm, _, value = fragment.partition("=")
    return bare, (value.lower() if algorithm.lower() == "sha256" else "")


def _fragment_sha(href: str) -> str:
    return split_fragment(href)[1]
