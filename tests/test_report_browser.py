"""The HTML report in a real browser: headless Chromium driven over the DevTools protocol.

Chromium runs with ``--remote-debugging-pipe`` (the protocol over file descriptors 3 and 4,
so no port, no websocket library): the test loads the page from a file, collects every
console message, exception and log entry, and reads the rendered DOM. The page must show
its content, run its script (it logs :data:`READY_MARKER`) and log nothing at warning level
or above, which includes any network request the page's Content-Security-Policy blocks.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped when it is absent, unless
``SAPPER_REQUIRE_CHROMIUM`` is set (CI), where its absence fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_report import build_rows, write_duckdb

from sapper.cli import main
from sapper.report.html import READY_MARKER

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
TIMEOUT = 60.0


@pytest.fixture(scope="module")
def chromium() -> str:
    if CHROMIUM is None:
        reason = (
            "chromium is not installed (apt-get install -y chromium); the HTML report's "
            "browser test needs it"
        )
        if os.environ.get("SAPPER_REQUIRE_CHROMIUM"):
            pytest.fail(reason + " and SAPPER_REQUIRE_CHROMIUM is set")
        pytest.skip(reason)
    return CHROMIUM


@dataclass
class Page:
    """What the browser saw while loading one page."""

    console: list[tuple[str, str]] = field(default_factory=list)  # (type, text)
    exceptions: list[str] = field(default_factory=list)
    log: list[tuple[str, str]] = field(default_factory=list)  # (level, text)
    values: dict[str, Any] = field(default_factory=dict)

    def problems(self) -> list[str]:
        bad = [f"console.{t}: {x}" for t, x in self.console if t in ("error", "warning", "assert")]
        bad += [f"exception: {x}" for x in self.exceptions]
        bad += [f"log {lvl}: {x}" for lvl, x in self.log if lvl in ("error", "warning")]
        return bad


class DevTools:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``."""

    def __init__(self, exe: str, profile: Path) -> None:
        self._to_read, self._to_chrome = os.pipe()
        self._from_chrome, self._from_write = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4; bash, unlike dash,
        # redirects from descriptors above 9.
        script = f'exec "$0" "$@" 3<&{self._to_read} 4>&{self._from_write}'
        self.proc = subprocess.Popen(
            [
                "bash",
                "-c",
                script,
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            pass_fds=(self._to_read, self._from_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(self._to_read)
        os.close(self._from_write)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> Any:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._next()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._next()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def _next(self) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_chrome], [], [], max(left, 0))
            if not ready:
                msg = f"chromium sent nothing for {TIMEOUT:.0f} s"
                raise TimeoutError(msg)
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                msg = f"chromium closed the DevTools pipe (exit code {self.proc.poll()})"
                raise RuntimeError(msg)
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


@pytest.fixture
def devtools(chromium: str, tmp_path: Path) -> Iterator[DevTools]:
    client = DevTools(chromium, tmp_path / "profile")
    try:
        yield client
    finally:
        client.close()


#: Evaluated in the page after load: what a reader sees, as one JSON-able object.
PROBE = """
(() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  return {
    ready: document.documentElement.getAttribute("data-ready"),
    text: document.body.innerText,
    title: document.title,
    charts: q("svg.chart").map((svg) => ({
      role: svg.getAttribute("role"),
      label: (svg.getAttribute("aria-labelledby") || "").split(" ")
        .map((id) => (document.getElementById(id) || {}).textContent || "").join(" | "),
      shapes: svg.querySelectorAll("rect, circle, polyline").length,
      width: svg.getBoundingClientRect().width,
    })),
    tables: q("table.sortable").length,
    sortButtons: q("table.sortable th button").length,
    links: q("#at-risk a").map((a) => a.href),
    data: JSON.parse(document.getElementById("sapper-report-data").textContent),
  };
})()
"""


def load(devtools: DevTools, url: str, expression: str = PROBE) -> Page:
    target = devtools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = devtools.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    for domain in ("Runtime", "Log", "Page"):
        devtools.send(f"{domain}.enable", session=session)
    devtools.send("Page.navigate", {"url": url}, session=session)
    devtools.wait_for("Page.loadEventFired")
    result = devtools.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
    )
    page = Page(values=result.get("result", {}).get("value") or {})
    # a no-op round trip, so that events the load produced have arrived
    devtools.send("Runtime.evaluate", {"expression": "0"}, session=session)
    for event in devtools.events:
        params = event.get("params", {})
        if event.get("method") == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            page.console.append((params["type"], text))
        elif event.get("method") == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            page.exceptions.append(
                str(details.get("exception", {}).get("description") or details.get("text"))
            )
        elif event.get("method") == "Log.entryAdded":
            page.log.append((params["entry"]["level"], params["entry"]["text"]))
    devtools.events.clear()
    return page


@pytest.fixture(scope="module")
def report_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The HTML page and the JSON report of the synthetic store, both through the CLI."""
    import io

    root = tmp_path_factory.mktemp("browser")
    db = write_duckdb(root / "scan.duckdb", build_rows())
    page = root / "report.html"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["report", str(db), "--format", "json", "--html", str(page)]) == 0
    return page, json.loads(out.getvalue())


def test_harness_sees_console_errors_and_blocked_requests(
    devtools: DevTools, tmp_path: Path
) -> None:
    """The checks below can fail: a page that errs, or reaches for the network, is caught."""
    bad = tmp_path / "bad.html"
    csp = "default-src 'none'; script-src 'unsafe-inline'"
    bad.write_text(
        f'<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
        f'content="{csp}"></head><body><img src="https://example.org/x.png" alt="x">'
        '<script>console.error("deliberate"); undefinedFunction();</script></body></html>'
    )
    page = load(devtools, bad.as_uri(), "({})")
    problems = "\n".join(page.problems())
    assert "deliberate" in problems
    assert "undefinedFunction" in problems
    assert "example.org" in problems


def test_page_renders_without_console_errors(
    devtools: DevTools, report_files: tuple[Path, dict[str, Any]]
) -> None:
    page_path, doc = report_files
    page = load(devtools, page_path.as_uri())
    assert page.problems() == []
    assert any(t == "info" and READY_MARKER in x for t, x in page.console), page.console
    v = page.values
    assert v["ready"] == "2"  # the script ran to its end (the schema version)
    assert v["data"] == doc  # the embedded JSON is the --format json report
    text = v["text"]
    for heading in (
        "sapper report",
        "Totals",
        "Findings per rule",
        "What breaks if a deprecation becomes an error",
        "Breakage over setuptools versions",
        "By upload year",
        "Projects most at risk",
    ):
        assert heading in text
    assert f"setuptools {doc['store']['newest_setuptools']} evaluated" in text
    assert f"{doc['totals']['sdists']}\nsdists scanned" in text
    for rule in doc["rules"]:
        assert rule["code"] in text
    for project in doc["at_risk"]["projects"]:
        assert f"{project['project']} {project['version']}" in text
    assert v["links"] == [p["url"] for p in doc["at_risk"]["projects"]]
    assert v["tables"] >= 6
    assert v["sortButtons"] > 20


def test_charts_are_labelled_and_drawn(
    devtools: DevTools, report_files: tuple[Path, dict[str, Any]]
) -> None:
    page = load(devtools, report_files[0].as_uri())
    charts = page.values["charts"]
    assert len(charts) >= 5
    for chart in charts:
        assert chart["role"] == "img"
        title, desc = chart["label"].split(" | ")
        assert title
        assert desc
        assert chart["shapes"] > 0
        assert chart["width"] > 100


SORT = """
(() => {
  const table = document.getElementById("t-at-risk");
  const th = table.tHead.rows[0].cells[1];
  th.querySelector("button").click();
  const first = Array.from(table.tBodies[0].rows).map((r) => r.cells[1].getAttribute("data-sort"));
  th.querySelector("button").click();
  const second = Array.from(table.tBodies[0].rows).map((r) => r.cells[1].getAttribute("data-sort"));
  return {first: first.map(Number), second: second.map(Number), sort: th.getAttribute("aria-sort")};
})()
"""


def test_tables_sort(devtools: DevTools, report_files: tuple[Path, dict[str, Any]]) -> None:
    page = load(devtools, report_files[0].as_uri(), SORT)
    v = page.values
    assert v["first"] == sorted(v["first"])
    assert v["second"] == sorted(v["second"], reverse=True)
    assert v["first"] != v["second"]
    assert v["sort"] == "descending"
    assert page.problems() == []
