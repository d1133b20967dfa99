"""What a build hook tells us besides its return value: warnings, the exception, signatures.

Inside the sandbox, a ``sitecustomize`` module (:data:`SITECUSTOMIZE`, put first on
``PYTHONPATH``) wraps ``warnings._showwarnmsg``, which the interpreter calls for every warning
that passes the filters, whether or not ``warnings.catch_warnings(record=True)`` is active
(pyproject-hooks records warnings that way and keeps only their text). It appends one JSON
line per warning, and one for the uncaught exception, to the file named by
``SAPPER_BUILD_EVENTS``. For a ``SetuptoolsWarning`` it also reads the due date and the
"see" URL from the frame of ``SetuptoolsWarning.emit``: setuptools prints the due date only
while it lies in the future, so an overdue deprecation's text no longer carries it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SITECUSTOMIZE", "BuildWarning", "HookEvents", "read_events", "signature"]

#: Source of the ``sitecustomize`` module injected into every sandboxed hook process.
SITECUSTOMIZE = r'''
"""sapper: record warnings and the uncaught exception of a build hook (see sapper.build)."""
import os as _os
import sys as _sys
import warnings as _warnings

_EVENTS = _os.environ.get("SAPPER_BUILD_EVENTS")


def _sapper_write(record):
    import json
    try:
        with open(_EVENTS, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(record, default=str)[:65536] + "\n")
    except Exception:
        pass


def _sapper_setuptools_fields(record):
    frame = _sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "emit" and code.co_filename.replace("\\", "/").endswith(
            "setuptools/warnings.py"
        ):
            local = frame.f_locals
            due = local.get("due")
            if due is not None and hasattr(due, "isoformat"):
                record["due_date"] = due.isoformat()
            url = local.get("see_url") or local.get("docs_url")
            if url:
                record["url"] = str(url)
            return
        frame = frame.f_back


if _EVENTS:
    _sapper_original = _warnings._showwarnmsg

    def _showwarnmsg(msg):
        try:
            category = msg.category
            record = {
                "event": "warning",
                "category": getattr(category, "__module__", "") + "." + category.__qualname__,
                "message": str(msg.message),
                "filename": str(msg.filename),
                "lineno": msg.lineno,
            }
            _sapper_setuptools_fields(record)
            _sapper_write(record)
        except Exception:
            pass
        return _sapper_original(msg)

    _warnings._showwarnmsg = _showwarnmsg
    _warnings.simplefilter("default")

    _sapper_excepthook = _sys.excepthook

    def _excepthook(kind, value, tb):
        _sapper_write(
            {
                "event": "exception",
                "type": getattr(kind, "__module__", "") + "." + kind.__qualname__,
                "message": str(value),
            }
        )
        return _sapper_excepthook(kind, value, tb)

    _sys.excepthook = _excepthook
'''


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildWarning:
    """One warning a backend emitted during a hook.

    For setuptools' own warnings (``SetuptoolsDeprecationWarning`` and the other
    ``SetuptoolsWarning`` subclasses) ``summary`` is the first paragraph of the message,
    ``due_date`` (``YYYY-MM-DD``) the day the deprecation becomes an error, ``url`` the
    page its "See ... for details." line names. Otherwise ``summary`` is the first line.
    """

    category: str
    message: str
    filename: str = ""
    lineno: int | None = None
    summary: str = ""
    due_date: str | None = None
    url: str | None = None

    @property
    def is_setuptools_deprecation(self) -> bool:
        return self.category.rsplit(".", 1)[-1] == "SetuptoolsDeprecationWarning"


@dataclass(frozen=True, slots=True, kw_only=True)
class HookEvents:
    warnings: tuple[BuildWarning, ...] = ()
    #: ``module.QualName`` and message of the uncaught exception, when there was one.
    exception_type: str | None = None
    exception_message: str | None = None


_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
_DUE_RE = re.compile(r"\bBy (\d{4})-([A-Z][a-z]{2})-(\d{2}), you need to update")
_SEE_RE = re.compile(r"\bSee (\S+) for details\.")


def parse_setuptools_message(message: str) -> tuple[str, str | None, str | None]:
    """(summary, due date, URL) from the text ``SetuptoolsWarning._format`` builds:
    ``summary``, a line ``!!``, an indented box of asterisks with the details, "By
    YYYY-Mon-DD, ..." while the date is ahead, and "See URL for details."."""
    head, sep, _ = message.partition("\n!!\n")
    summary = (head if sep else message.split("\n\n", 1)[0]).strip()
    due = None
    if (m := _DUE_RE.search(message)) and m.group(2) in _MONTHS:
        due = f"{m.group(1)}-{_MONTHS[m.group(2)]:02d}-{m.group(3)}"
    url = m.group(1) if (m := _SEE_RE.search(message)) else None
    return summary, due, url


def _warning(record: dict[str, object]) -> BuildWarning:
    category = str(record.get("category") or "builtins.UserWarning")
    message = str(record.get("message") or "")
    lineno = record.get("lineno")
    name = category.rsplit(".", 1)[-1]
    if name.startswith("Setuptools") or "\n!!\n" in message:
        summary, due, url = parse_setuptools_message(message)
    else:
        summary, due, url = message.strip().split("\n", 1)[0], None, None
    recorded_due = record.get("due_date")
    recorded_url = record.get("url")
    return BuildWarning(
        category=category,
        message=message,
        filename=str(record.get("filename") or ""),
        lineno=lineno if isinstance(lineno, int) else None,
        summary=summary[:500],
        due_date=str(recorded_due) if recorded_due else due,
        url=str(recorded_url) if recorded_url else url,
    )


def read_events(path: Path) -> HookEvents:
    """The events the sandboxed hook wrote to ``path`` (missing file: none)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return HookEvents()
    found: list[BuildWarning] = []
    seen: set[tuple[str, str, str, int | None]] = set()
    exc_type = exc_message = None
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("event") == "warning":
            warning = _warning(record)
            key = (warning.category, warning.message, warning.filename, warning.lineno)
            if key not in seen:
                seen.add(key)
                found.append(warning)
        elif record.get("event") == "exception":
            exc_type = str(record.get("type") or "")
            exc_message = str(record.get("message") or "")
    return HookEvents(warnings=tuple(found), exception_type=exc_type, exception_message=exc_message)


def merge_warnings(*groups: Iterable[BuildWarning]) -> tuple[BuildWarning, ...]:
    """The warnings of several hooks, each (category, message, place) once, in order."""
    out: dict[tuple[str, str, str, int | None], BuildWarning] = {}
    for group in groups:
        for w in group:
            out.setdefault((w.category, w.message, w.filename, w.lineno), w)
    return tuple(out.values())


# --------------------------------------------------------------------------- signatures

_KEEP_NAMES = frozenset({"ModuleNotFoundError", "ImportError"})
_PATH_RE = re.compile(r"(?:[A-Za-z]:)?(?:/[\w.@+~-]+){2,}/?|(?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)+")
_QUOTED_RE = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)")
_VERSION_RE = re.compile(r"\bv?\d+(?:\.\d+)+(?:[-.]?(?:a|b|rc|post|dev)\d*)*\b")
_HEX_RE = re.compile(r"\b(?:0x)?[0-9a-f]{8,}\b", re.IGNORECASE)
_NUMBER_RE = re.compile(r"\b\d+\b")
_SPACE_RE = re.compile(r"\s+")


def signature(error_type: str | None, message: str | None) -> str:
    """A normalized signature of a failure, to group failures by root cause.

    ``type: first line of the message`` with paths, quoted names, versions, long hex
    strings and numbers masked (``<path>``, ``'<name>'``, ``<version>``, ``<hex>``,
    ``<n>``), so that ``Invalid dash-separated key 'description-file'`` and ``... key
    'home-page'`` share one signature. For ``ModuleNotFoundError``/``ImportError`` the
    module name is kept: which module went missing *is* the cause.
    """
    kind = (error_type or "error").rsplit(".", 1)[-1]
    text = next((line.strip() for line in (message or "").splitlines() if line.strip()), "")
    text = _PATH_RE.sub("<path>", text)
    if kind not in _KEEP_NAMES:
        text = _QUOTED_RE.sub("'<name>'", text)
    text = _VERSION_RE.sub("<version>", text)
    text = _HEX_RE.sub("<hex>", text)
    text = _NUMBER_RE.sub("<n>", text)
    text = _SPACE_RE.sub(" ", text).strip()[:200]
    return f"{kind}: {text}" if text else kind
