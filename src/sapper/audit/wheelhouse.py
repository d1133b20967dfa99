"""``sapper wheelhouse``: wheels for a whole input, the sdists built with a setuptools that
works, so that ``pip install --no-index --find-links DIR`` installs the set offline.

For each sdist an installer would build, :func:`build_wheelhouse` builds a wheel through the
sandboxed runner of :mod:`sapper.build` (bubblewrap, no network, caps), pinning setuptools to
the newest release sapper found good for it (``override``); sdists built by another backend
are built with what they declare. With ``complete`` (the default), the wheels an installer
would take for everything else are downloaded into the directory too (sha256-checked).
``verify`` then installs the pinned set into a fresh virtual environment with pip,
``--no-index --find-links DIR``, and records whether that worked.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..build import Builder
    from ..pypi import Index
    from . import AuditReport, PackageAudit
    from .verdicts import BuildVerdict

__all__ = ["WheelhouseItem", "WheelhouseResult", "build_wheelhouse"]

Action = Literal["built", "downloaded", "skipped", "failed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelhouseItem:
    name: str
    version: str | None
    action: Action
    #: The wheel's file name in the directory.
    wheel: str | None = None
    #: The setuptools release the wheel was built with (built items).
    setuptools: str | None = None
    #: Why: what was built with what, or why nothing could be.
    reason: str = ""
    #: The build error made the wheelhouse go below the static verdict's newest good
    #: release: the audit's constraint for this package is too loose.
    beyond_static: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelhouseResult:
    directory: str
    items: tuple[WheelhouseItem, ...]
    #: True: the set installed offline from the directory; False: it did not; None: not tried.
    verified: bool | None = None
    #: The installer's last lines when verification failed.
    verify_log: str = ""

    @property
    def failed(self) -> tuple[WheelhouseItem, ...]:
        return tuple(i for i in self.items if i.action == "failed")


def _download(p: PackageAudit, url: str, sha256: str, filename: str, index: Index) -> bytes:
    from ..pypi import SdistFile

    file = SdistFile(
        name=p.name,
        version=p.version or "",
        filename=filename,
        url=url,
        sha256=sha256,
        upload_time=None,
        size=None,
        yanked=False,
    )
    return index.download(file).data


def _build_one(p: PackageAudit, out: Path, builder: Builder, index: Index) -> WheelhouseItem:
    from .._exceptions import SapperError

    v = p.verdict
    if p.sdist is None or p.sdist_url is None or not p.sdist_sha256:
        return WheelhouseItem(
            name=p.name,
            version=p.version,
            action="failed",
            reason="no downloadable sdist with a sha256",
        )
    override: list[str] = []
    pinned = None
    if v is not None and v.outcome in ("builds", "fails"):
        if v.newest_good is None:
            return WheelhouseItem(
                name=p.name,
                version=p.version,
                action="failed",
                reason=f"no setuptools release builds it ({v.reason}; {', '.join(v.because)})",
            )
        pinned = v.newest_good
        override = [f"setuptools=={pinned}"]
    try:
        data = _download(p, p.sdist_url, p.sdist_sha256, p.sdist, index)
    except SapperError as exc:
        return WheelhouseItem(
            name=p.name, version=p.version, action="failed", reason=f"download failed: {exc}"
        )
    tried: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sapper-wheelhouse-") as tmp:
        archive = Path(tmp) / p.sdist
        archive.write_bytes(data)
        while True:
            result = builder.build(archive, mode="wheel", override=override, keep=out)
            if result.outcome == "ok" or pinned is None or len(tried) >= _MAX_RETRIES:
                break
            older = _older_for(result.signature or result.message or "", pinned, v)
            if older is None:
                break
            tried.append(f"{pinned} ({result.signature})")
            pinned, override = older, [f"setuptools=={older}"]
    after = f", after {'; '.join(tried)} failed" if tried else ""
    if result.outcome == "ok" and result.artifact:
        how = (
            f"built with setuptools {pinned} ("
            + (
                "a removal sapper's static rules missed" + after
                if tried
                else "sapper's newest good release"
            )
            + ")"
            if pinned
            else f"built with its own build requirements ({', '.join(result.requires)})"
        )
        return WheelhouseItem(
            name=p.name,
            version=p.version,
            action="built",
            wheel=result.artifact,
            setuptools=pinned,
            reason=how,
            beyond_static=bool(tried),
        )
    why = result.signature or result.message or result.outcome
    if result.outcome == "spurious":
        why = f"the sandbox ended it ({result.spurious_reason}): {why}"
    with_what = f" with setuptools {pinned}" if pinned else ""
    return WheelhouseItem(
        name=p.name,
        version=p.version,
        action="failed",
        setuptools=pinned,
        reason=f"build failed{with_what} in {result.hook or 'prepare'}: {why}{after}",
    )


#: Build errors that name a setuptools removal, and the release that made it: when a build
#: with sapper's newest good release still fails with one of these (a use the static rules
#: cannot see, such as a keyword passed through ``setup(**kwargs)``), the wheelhouse tries
#: once more with the newest admissible release before that one.
_REMOVALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"use_2to3 is invalid"), "58.0.0"),  # 58.0.0/58.0.1 built it unconverted
    (re.compile(r"No module named '?pkg_resources"), "82.0.0"),
    (re.compile(r"No module named '?setuptools\.extern"), "71.0.0"),
    (re.compile(r"invalid command 'test'|No module named '?setuptools\.command\.test"), "72.0.0"),
    (re.compile(r"cannot import name '?Feature"), "46.0.0"),
)
_MAX_RETRIES = 2


def _older_for(message: str, pinned: str, verdict: BuildVerdict | None) -> str | None:
    """The release to try after ``pinned`` failed with ``message``, or None."""
    from packaging.specifiers import SpecifierSet

    from ..versions import catalogue
    from .verdicts import admissible

    cat = catalogue()
    for pattern, removed_in in _REMOVALS:
        if not pattern.search(message):
            continue
        limit = cat.parsed(removed_in)
        if cat.parsed(pinned) < limit:
            return None  # the release that failed predates the removal: not its cause
        requires = SpecifierSet(verdict.requires) if verdict and verdict.requires else None
        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        older = [v for v in admissible(cat, requires, python) if cat.parsed(v) < limit]
        return older[-1] if older else None
    return None


def build_wheelhouse(
    report: AuditReport,
    out: Path,
    *,
    builder: Builder,
    index: Index,
    complete: bool = True,
    verify: bool = True,
    on_item: Callable[[int, int, str], None] | None = None,
) -> WheelhouseResult:
    """Fill ``out`` with wheels for ``report``'s distributions (see the module docstring)."""
    out.mkdir(parents=True, exist_ok=True)
    items: list[WheelhouseItem] = []
    total = len(report.packages)
    for i, p in enumerate(report.packages):
        if on_item is not None:
            on_item(i, total, p.name)
        if p.source == "sdist":
            items.append(_build_one(p, out, builder, index))
        elif p.source == "wheel" and complete:
            items.append(_fetch_wheel(p, out, index))
        elif p.source == "wheel":
            items.append(
                WheelhouseItem(
                    name=p.name,
                    version=p.version,
                    action="skipped",
                    reason="has a wheel; --no-complete",
                )
            )
        else:
            items.append(
                WheelhouseItem(name=p.name, version=p.version, action="skipped", reason=p.how)
            )
    verified, log = None, ""
    if verify:
        wanted = [
            f"{i.name}=={i.version}"
            for i in items
            if i.action in ("built", "downloaded") and i.version
        ]
        if wanted:
            verified, log = verify_offline(out, wanted)
    return WheelhouseResult(
        directory=str(out), items=tuple(items), verified=verified, verify_log=log
    )


def _fetch_wheel(p: PackageAudit, out: Path, index: Index) -> WheelhouseItem:
    from .._exceptions import SapperError

    if p.wheel is None or p.wheel_url is None or not p.wheel_sha256:
        return WheelhouseItem(
            name=p.name,
            version=p.version,
            action="failed",
            reason="the input gives no URL and sha256 for its wheel",
        )
    target = out / p.wheel
    if not target.exists():
        try:
            data = _download(p, p.wheel_url, p.wheel_sha256, p.wheel, index)
        except SapperError as exc:
            return WheelhouseItem(
                name=p.name, version=p.version, action="failed", reason=f"download failed: {exc}"
            )
        target.write_bytes(data)
    return WheelhouseItem(
        name=p.name,
        version=p.version,
        action="downloaded",
        wheel=p.wheel,
        reason="the wheel an installer takes for the target",
    )


def verify_offline(directory: Path, requirements: list[str]) -> tuple[bool, str]:
    """Install ``requirements`` into a fresh virtual environment with pip, offline from
    ``directory``; return whether it worked and pip's last lines."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    with tempfile.TemporaryDirectory(prefix="sapper-verify-") as tmp:
        venv = Path(tmp) / "env"
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(venv)],
            check=True,
            capture_output=True,
        )
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(venv / "bin" / "python"),
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--no-index",
                "--only-binary",
                ":all:",
                "--find-links",
                str(directory),
                *requirements,
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=900,
        )
    text = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, "\n".join(text[-8:])
