"""A small package index served over real HTTP on 127.0.0.1, for tests.

``FakeIndex`` holds projects (PEP 691 JSON or PEP 503 HTML pages), archive files and
scripted responses (a path that answers 503 twice, then 200...). ``serve(index)`` runs it
in a thread and yields its ``/simple`` URL. Every request is recorded in ``index.requests``.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import html
import io
import json
import re
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

JSON_TYPE = "application/vnd.pypi.simple.v1+json"


def make_sdist(name: str, version: str) -> bytes:
    """Return a tiny, deterministic ``.tar.gz`` sdist."""
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w") as tar,
    ):
        for member, text in (
            ("PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
            ("setup.cfg", f"[metadata]\nname = {name}\nversion = {version}\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(f"{name}-{version}/{member}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Reply:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: The Content-Length sent, when not the body's (a connection cut mid-body).
    declared: int | None = None


@dataclass
class Request:
    path: str
    headers: dict[str, str]


@dataclass
class FakeIndex:
    #: canonical project name -> list of PEP 691 file entries (url relative to the server root
    #: unless it starts with "http" or "."), served as JSON.
    json_projects: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    #: canonical project name -> HTML body of its PEP 503 page.
    html_projects: dict[str, str] = field(default_factory=dict)
    #: path -> bytes served with 200.
    files: dict[str, bytes] = field(default_factory=dict)
    #: path -> replies served (and consumed) before the normal answer.
    scripted: dict[str, list[Reply]] = field(default_factory=dict)
    #: path -> reply served every time.
    fixed: dict[str, Reply] = field(default_factory=dict)
    #: raw JSON pages, served as they are.
    raw_json: dict[str, object] = field(default_factory=dict)
    #: canonical project name -> extra headers of its JSON page (``ETag``, ``Cache-Control``,
    #: ``Last-Modified``); a request whose ``If-None-Match``/``If-Modified-Since`` matches
    #: them is answered 304.
    page_headers: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Answer gzip-encoded page requests that accept it (as PyPI does).
    gzip_pages: bool = False
    #: path -> seconds to wait before answering (a slow or hanging server).
    delays: dict[str, float] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    root: str = ""

    def add_file(self, filename: str, data: bytes | None = None) -> tuple[str, bytes]:
        """Serve ``data`` (a fresh sdist by default) at ``/files/<filename>``."""
        if data is None:
            stem = re.sub(r"\.(tar\.\w+|tgz|zip|tar)$", "", filename)
            name, _, version = stem.rpartition("-")
            data = make_sdist(name or stem, version or "0")
        path = f"/files/{filename}"
        self.files[path] = data
        return path, data

    def paths_requested(self) -> list[str]:
        with self.lock:
            return [r.path for r in self.requests]

    def answer(self, path: str, headers: dict[str, str]) -> Reply:
        with self.lock:
            self.requests.append(Request(path, headers))
            queue = self.scripted.get(path)
            if queue:
                return queue.pop(0)
        if path in self.fixed:
            return self.fixed[path]
        if path in self.files:
            return Reply(200, self.files[path], {"Content-Type": "application/octet-stream"})
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "simple" and path.endswith("/"):
            project = parts[1]
            if project in self.raw_json:
                body = json.dumps(self.raw_json[project]).encode()
                return Reply(200, body, {"Content-Type": JSON_TYPE})
            if project in self.json_projects:
                extra = self.page_headers.get(project, {})
                etag, modified = extra.get("ETag"), extra.get("Last-Modified")
                if (etag and headers.get("If-None-Match") == etag) or (
                    modified and headers.get("If-Modified-Since") == modified
                ):
                    return Reply(304, b"", dict(extra))
                reply = self._json_page(project)
                reply.headers.update(extra)
                if self.gzip_pages and "gzip" in headers.get("Accept-Encoding", ""):
                    reply.body = gzip.compress(reply.body, mtime=0)
                    reply.headers["Content-Encoding"] = "gzip"
                return reply
            if project in self.html_projects:
                body = self.html_projects[project].encode()
                return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})
        return Reply(404, b"not found", {"Content-Type": "text/plain"})

    def _json_page(self, project: str) -> Reply:
        files = []
        for entry in self.json_projects[project]:
            item = dict(entry)
            url = str(item["url"])
            if url.startswith("/"):
                item["url"] = self.root + url
            files.append(item)
        page = {"meta": {"api-version": "1.1"}, "name": project, "files": files}
        return Reply(200, json.dumps(page).encode(), {"Content-Type": JSON_TYPE})


def html_page(links: list[tuple[str, str]]) -> str:
    """Build a PEP 503 page from ``(href, extra attributes)`` pairs."""
    anchors = "\n".join(
        f'<a href="{html.escape(href)}"{attrs}>{html.escape(_basename(href))}</a><br/>'
        for href, attrs in links
    )
    return f"<!DOCTYPE html>\n<html><body>\n{anchors}\n</body></html>\n"


def _basename(href: str) -> str:
    return href.split("#", 1)[0].rsplit("/", 1)[-1]


def _handler(index: FakeIndex) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reply = index.answer(self.path, dict(self.headers.items()))
            if self.path in index.delays:
                time.sleep(index.delays[self.path])
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            declared = len(reply.body) if reply.declared is None else reply.declared
            self.send_header("Content-Length", str(declared))
            self.end_headers()
            self.wfile.write(reply.body)
            if reply.declared is not None:
                self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextlib.contextmanager
def serve(index: FakeIndex) -> Iterator[str]:
    """Serve ``index`` on 127.0.0.1 in a thread; yield the URL of its simple API."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(index))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    index.root = f"http://{host!s}:{port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield f"{index.root}/simple"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
