"""HTTP for the index: GET with retries, bounded reads, conditional requests, credentials.

Only the standard library (``urllib.request``); imported inside the functions so that
importing sapper stays cheap.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._exceptions import FetchError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from email.message import Message
    from typing import Protocol

    class _Readable(Protocol):
        """What :func:`read_limited` needs of an HTTP response."""

        headers: Message

        def read(self, amt: int, /) -> bytes: ...

    class Sink(Protocol):
        """Where :meth:`Http.get` streams a body instead of keeping it (``sink=``)."""

        def reset(self) -> None:
            """Forget what was written (a retry starts the body again)."""

        def write(self, chunk: bytes, /) -> object: ...


__all__ = ["Http", "Response", "describe", "redact", "split_credentials"]

_PROJECT_URL = "https://pypi.org/project/sapper/"
_BACKOFF_BASE = 0.5  # seconds before the first retry; doubles on each further one
_BACKOFF_CAP = 10.0
_RETRY_AFTER_CAP = 60.0
_CHUNK_SIZE = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Response:
    """A successful (or 304 Not Modified) answer."""

    #: 200, or 304 when a conditional request found the cached copy current.
    status: int
    body: bytes
    #: The URL after redirects.
    url: str
    #: Lower-cased ``Content-Type``, empty when absent.
    content_type: str
    #: The caching headers: ``etag``, ``last-modified``, ``cache-control``, ``date``, ``age``.
    headers: Mapping[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Http:
    """How sapper talks to one index: timeouts, retries, size limit, credentials."""

    index_url: str
    auth: str | None
    timeout: float
    retries: int
    user_agent: str
    max_size: int
    sleep: Callable[[float], None]

    def get(
        self,
        url: str,
        *,
        accept: str,
        what: str,
        not_found: str,
        conditional: Mapping[str, str] | None = None,
        compressed: bool = False,
        sink: Sink | None = None,
    ) -> Response:
        """GET ``url`` with retries.

        ``conditional`` holds ``If-None-Match``/``If-Modified-Since`` headers; a 304 answer
        is then returned with an empty body. ``compressed`` accepts a gzip-encoded answer
        (project pages shrink about tenfold), inflated here within ``max_size``. With a
        ``sink``, the body is written to it a chunk at a time (reset before each attempt),
        never held whole, and the answer's ``body`` is empty.

        :raises FetchError: 404 (with the ``not_found`` message), other HTTP errors, network
            errors once the retries are spent, or a body larger than ``max_size``.
        """
        import http.client
        import urllib.error
        import urllib.request

        headers = {"Accept": accept, "User-Agent": self.user_agent, **(conditional or {})}
        if compressed:
            headers["Accept-Encoding"] = "gzip"
        request = urllib.request.Request(url, headers=headers)
        if self.auth is not None and _same_origin(url, self.index_url):
            # Unredirected: a redirect to another host (a CDN) must not receive it.
            request.add_unredirected_header("Authorization", self.auth)
        opener = urllib.request.build_opener()  # cheap, and per call: no shared state
        shown = redact(url)
        attempts = self.retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                with opener.open(request, timeout=self.timeout) as response:
                    if sink is not None:
                        sink.reset()
                    body = read_limited(response, what=what, limit=self.max_size, sink=sink)
                    encoding = (response.headers.get("Content-Encoding") or "").strip().lower()
                    if compressed and encoding == "gzip":
                        body = _gunzip(body, what=what, url=shown, limit=self.max_size)
                    return Response(
                        status=200,
                        body=body,
                        url=response.geturl(),
                        content_type=(response.headers.get("Content-Type", "") or "").lower(),
                        headers=_caching_headers(response.headers),
                    )
            except urllib.error.HTTPError as exc:
                status, reason, retry_after = exc.code, exc.reason, exc.headers
                if status == 304 and conditional:
                    answer = Response(
                        status=304,
                        body=b"",
                        url=exc.geturl() or url,
                        content_type="",
                        headers=_caching_headers(exc.headers),
                    )
                    exc.close()
                    return answer
                exc.close()
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason_exc = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                if _is_permanent(reason_exc):
                    msg = f"could not fetch {what} from {shown}: {describe(reason_exc)}"
                    raise FetchError(msg) from exc
                if not last:
                    self.sleep(_backoff(attempt))
                    continue
                msg = (
                    f"could not fetch {what} from {shown} after {attempts} attempt"
                    f"{'s' if attempts > 1 else ''}: {describe(reason_exc)}; "
                    "check the network connection and the index URL, or try again later"
                )
                raise FetchError(msg) from exc
            # an HTTP error status, raised here rather than in its except clause: an error
            # raised there keeps urllib's HTTPError as its context, which cannot be unpickled
            # (and tblib, which Dask installs, pickles an exception's context with it)
            if status == 404:
                raise FetchError(not_found, permanent=True)
            if (status == 429 or 500 <= status < 600) and not last:
                self.sleep(_retry_delay(attempt, retry_after))
                continue
            raise FetchError(_http_error_message(status, reason, shown, attempts))
        raise AssertionError  # pragma: no cover  (the loop always returns or raises)


_CACHING_HEADERS = ("etag", "last-modified", "cache-control", "date", "age")


def _caching_headers(headers: Message | None) -> dict[str, str]:
    if headers is None:
        return {}
    out = {}
    for name in _CACHING_HEADERS:
        value = headers.get(name)
        if value:
            out[name] = str(value)
    return out


def read_limited(response: _Readable, *, what: str, limit: int, sink: Sink | None = None) -> bytes:
    """The body of ``response``, never past ``limit`` bytes; with ``sink``, written to it
    a chunk at a time, and the bytes returned are empty."""
    declared = response.headers.get("Content-Length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise FetchError(_too_big(what, limit))
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read(_CHUNK_SIZE):
        total += len(chunk)
        if total > limit:
            raise FetchError(_too_big(what, limit))
        if sink is not None:
            sink.write(chunk)
        else:
            chunks.append(chunk)
    if declared is not None and declared.strip().isdigit() and total < int(declared):
        # the connection was cut mid-body (http.client returns what came): retried by get()
        import http.client

        raise http.client.IncompleteRead(b"", int(declared) - total)
    return b"".join(chunks)


def _gunzip(data: bytes, *, what: str, url: str, limit: int) -> bytes:
    """Inflate a gzip-encoded body, never past ``limit`` bytes."""
    import zlib

    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        msg = f"{url} sent {what} gzip-encoded, but it does not inflate ({exc}); try again later"
        raise FetchError(msg) from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise FetchError(_too_big(what, limit))
    if not inflater.eof:
        msg = f"{url} sent {what} gzip-encoded, but truncated; try again later"
        raise FetchError(msg)
    return out


def default_user_agent() -> str:
    from .._version import __version__

    return f"sapper/{__version__} (+{_PROJECT_URL})"


def split_credentials(url: str) -> tuple[str, str | None]:
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


def redact(url: str) -> str:
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


def describe(reason: object) -> str:
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
