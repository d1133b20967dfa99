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

import dataclasses
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._fallbacks import (
    OtherFix,
    _names_a_removal,
    _older_for,
    fix_other_requirement,
    nearest_release,
)

if TYPE_CHECKING:
    from ..build import Builder
    from ..pypi import Index
    from . import AuditReport, PackageAudit
    from .inputs import FileRef

__all__ = [
    "OtherFix",
    "WheelhouseItem",
    "WheelhouseResult",
    "build_wheelhouse",
    "fix_other_requirement",
    "missing_requirements",
    "nearest_release",
]

Action = Literal["built", "downloaded", "skipped", "failed"]

#: Builds of one sdist with an older setuptools after a removal error (:func:`_older_for`).
_MAX_RETRIES = 2


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
    #: The build failed with sapper's newest good setuptools, with an error that names no
    #: setuptools removal, and with today's release too: no setuptools cap helps.
    unfixable: bool = False
    #: For a build that failed: the nearest newer release of the package that installs
    #: here (a wheel for the target, or an sdist whose build was run).
    suggestion: str | None = None
    #: Build constraints on requirements other than setuptools that the build needed
    #: (``Cython<3.0.0``), each found by bisecting real builds.
    build_constraints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class WheelhouseResult:
    directory: str
    items: tuple[WheelhouseItem, ...]
    #: True: the set installed offline from the directory; False: it did not; None: not tried.
    verified: bool | None = None
    #: The installer's last lines when verification failed.
    verify_log: str = ""
    #: The requirements pip could not satisfy from the directory (``markupsafe>=0.23``).
    missing: tuple[str, ...] = ()
    #: For each of them: why it is not in the directory, and what to do.
    advice: tuple[str, ...] = ()

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


def _build_one(
    p: PackageAudit,
    out: Path,
    builder: Builder,
    index: Index,
    files_of: Callable[[str], list[FileRef]] | None = None,
) -> WheelhouseItem:
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
        unfixable = False
        constraints: tuple[str, ...] = ()
        if result.outcome == "fail" and not _names_a_removal(result):
            # Another build requirement (Cython 3, a new setuptools-scm...) may be the cause:
            # bisect its releases with real builds.
            found = fix_other_requirement(
                archive,
                result,
                override=override,
                builder=builder,
                index=index,
                files_of=files_of,
            )
            if found is not None:
                constraints = (found.constraint,)
                pins = [*override, f"{found.name}=={found.newest_good}"]
                result = builder.build(archive, mode="wheel", override=pins, keep=out)
                tried.append(found.why)
        if (
            result.outcome == "fail"
            and not constraints
            and pinned is not None
            and not _names_a_removal(result)
        ):
            # Not a setuptools removal: the releases above the newest good one fail for the
            # reasons the static rules found; if today's release fails too, no cap helps.
            today = v.today if v is not None else None
            if today is not None and today != pinned:
                good_result, good_pinned = result, pinned
                result = builder.build(
                    archive, mode="wheel", override=[f"setuptools=={today}"], keep=out
                )
                tried.append(f"{pinned} ({good_result.signature})")
                pinned = today
                unfixable = result.outcome == "fail"
                if unfixable:
                    tried = [
                        f"with setuptools {good_pinned}, sapper's newest good release, it "
                        f"fails in {good_result.hook}: {good_result.signature}; with today's "
                        f"{today}: {result.signature}"
                    ]
    after = f", after {'; '.join(tried)} failed" if tried else ""
    if result.outcome == "ok" and result.artifact and constraints:
        return WheelhouseItem(
            name=p.name,
            version=p.version,
            action="built",
            wheel=result.artifact,
            setuptools=pinned,
            reason=(
                f"built with setuptools {pinned} and the build constraint "
                f"{', '.join(constraints)} ({tried[-1]})"
                if pinned
                else f"built under the build constraint {', '.join(constraints)} ({tried[-1]})"
            ),
            build_constraints=constraints,
        )
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
    reason = f"build failed{with_what} in {result.hook or 'prepare'}: {why}{after}"
    suggestion = None
    if unfixable:
        reason = f"no setuptools builds it: {tried[0]}"
    if result.outcome == "fail" and files_of is not None:
        suggestion = nearest_release(p, builder, index, files_of)
    return WheelhouseItem(
        name=p.name,
        version=p.version,
        action="failed",
        setuptools=pinned,
        reason=reason,
        unfixable=unfixable,
        suggestion=suggestion,
    )


def build_wheelhouse(
    report: AuditReport,
    out: Path,
    *,
    builder: Builder,
    index: Index,
    complete: bool = True,
    verify: bool = True,
    requirements: Path | None = None,
    files_of: Callable[[str], list[FileRef]] | None = None,
    on_item: Callable[[int, int, str], None] | None = None,
    reuse: Sequence[WheelhouseItem] = (),
    also: AuditReport | None = None,
) -> WheelhouseResult:
    """Fill ``out`` with wheels for ``report``'s distributions (see the module docstring).

    ``requirements``: the requirements file the report audited; verification then installs
    it as the user will (``pip install --no-index --find-links OUT -r FILE``), with the
    audited releases as constraints. ``files_of`` lists a project's files on the index (a
    :class:`sapper.audit.resolve.IndexFiles`): with it, an sdist that no setuptools builds
    gets the nearest newer release that installs here as a suggestion. ``reuse``: items of
    an earlier pass over the same directory; a distribution built there (its wheel still in
    ``out``) is not built again. ``also``: the audit of what the local projects of the
    input need to be built offline (:func:`local_build_requirements`), put in ``out`` too.
    """
    out.mkdir(parents=True, exist_ok=True)
    items: list[WheelhouseItem] = []
    packages = [*report.packages, *(also.packages if also is not None else ())]
    seen = {(p.name.lower(), p.version) for p in report.packages}
    packages[len(report.packages) :] = [
        p for p in packages[len(report.packages) :] if (p.name.lower(), p.version) not in seen
    ]
    total = len(packages)
    for i, p in enumerate(packages):
        if on_item is not None:
            on_item(i, total, p.name)
        earlier = next(
            (
                i
                for i in reuse
                if (i.name, i.version) == (p.name, p.version)
                and i.action == "built"
                and i.wheel
                and (out / i.wheel).exists()
            ),
            None,
        )
        if p.source == "sdist" and earlier is not None:
            items.append(earlier)
        elif p.source == "sdist":
            items.append(_build_one(p, out, builder, index, files_of))
        elif p.source == "wheel" and i >= len(report.packages):
            item = _fetch_wheel(p, out, index)
            why = "a local project of the input is built with it (the offline install builds it)"
            items.append(dataclasses.replace(item, reason=why) if item.wheel else item)
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
    missing: tuple[str, ...] = ()
    if verify:
        wanted = [
            f"{i.name}=={i.version}"
            for i in items
            if i.action in ("built", "downloaded") and i.version
        ]
        if wanted or requirements is not None:
            verified, log = verify_offline(out, wanted, requirements=requirements)
            if not verified:
                missing = missing_requirements(log)
    return WheelhouseResult(
        directory=str(out),
        items=tuple(items),
        verified=verified,
        verify_log=log,
        missing=missing,
        advice=_advice(missing, items, report, out),
    )


#: What pip builds a local project with when its pyproject.toml names no backend.
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0",)


def local_build_requirements(report: AuditReport) -> tuple[str, ...]:
    """The build requirements of the local projects a requirements file names (``-e .``,
    ``./pkg``; pip's report of the closure lists them with their paths): an offline
    install builds them, so their backends' wheels must be in the directory. Read from
    each project's ``pyproject.toml`` ``[build-system] requires``, or what pip assumes
    without one (``setuptools>=40.8.0``). Requirements a backend adds when asked
    (``setup_requires``) are not known without running it: the offline check finds them."""
    from urllib.parse import unquote, urlsplit

    from .._toml import TOMLDecodeError, loads

    closure = report.closure
    items = (closure.report or {}).get("install") if closure is not None else None
    found: list[str] = []
    for item in items if isinstance(items, list) else ():
        info = item.get("download_info") if isinstance(item, dict) else None
        if not isinstance(info, dict) or "dir_info" not in info:
            continue
        url = info.get("url")
        if not isinstance(url, str) or not url.startswith("file:"):
            continue
        project = Path(unquote(urlsplit(url).path))
        requires: list[str] = list(DEFAULT_BUILD_REQUIRES)
        try:
            text = (project / "pyproject.toml").read_text(encoding="utf-8")
            table = loads(text).get("build-system")
        except (OSError, UnicodeDecodeError, TOMLDecodeError):
            table = None
        if isinstance(table, dict) and isinstance(table.get("requires"), list):
            requires = [r for r in table["requires"] if isinstance(r, str)]
        found += requires
    return tuple(dict.fromkeys(found))


def audit_build_requirements(requires: Sequence[str], **options: Any) -> AuditReport:
    """The audit of ``requires`` (:func:`local_build_requirements`) as a requirements file:
    :func:`sapper.audit.audit` with ``options``, its closure resolved by pip."""
    from . import audit

    with tempfile.TemporaryDirectory(prefix="sapper-build-requires-") as tmp:
        file = Path(tmp) / "build-requirements.txt"
        file.write_text("".join(f"{r}\n" for r in requires), encoding="utf-8")
        return audit(file, **options)


def _advice(
    missing: Sequence[str], items: Sequence[WheelhouseItem], report: AuditReport, out: Path
) -> tuple[str, ...]:
    """Advice for each requirement pip missed, then for each failed item pip did not reach
    (it stops at the first distribution it cannot find)."""
    from packaging.utils import canonicalize_name

    if not missing:
        return ()
    named = {canonicalize_name(re.split(r"[<>=!~;\[ ]", m, maxsplit=1)[0]) for m in missing}
    later = [
        f"{i.name}=={i.version}"
        for i in items
        if i.action == "failed" and canonicalize_name(i.name) not in named
    ]
    return tuple(advise(m, items, report, out) for m in (*missing, *later))


_MISSING = re.compile(
    r"(?:No matching distribution found for|Could not find a version that satisfies the "
    r"requirement)\s+(?P<req>[^\s(]+(?:\s*[<>=!~]=?\s*[^\s(]+)*)"
)


def missing_requirements(log: str) -> tuple[str, ...]:
    """The requirements pip's output says it found no distribution for, in order."""
    return tuple(dict.fromkeys(m.group("req").strip() for m in _MISSING.finditer(log)))


def advise(
    requirement: str, items: Sequence[WheelhouseItem], report: AuditReport, out: Path
) -> str:
    """Why ``requirement`` is not in the wheelhouse ``out``, and what to do."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        name = canonicalize_name(Requirement(requirement).name)
    except InvalidRequirement:
        name = canonicalize_name(requirement)
    item = next((i for i in items if canonicalize_name(i.name) == name), None)
    if item is not None and item.action == "failed":
        fix = (
            f"pin {item.name}=={item.suggestion} in the requirements ({item.suggestion} "
            "builds here), then run sapper wheelhouse again"
            if item.suggestion
            else "build it where its build works and copy the wheel into the directory"
        )
        return f"{requirement}: {item.name} {item.version} could not be built: {item.reason}; {fix}"
    if item is not None and item.action == "skipped":
        return f"{requirement}: {item.name} was not put in the directory ({item.reason})"
    if item is not None:
        return (
            f"{requirement}: the directory has {item.name} {item.version}, which does not "
            "satisfy it; pin a release that does in the requirements"
        )
    closure = report.closure
    why = (
        f"pip could not resolve the dependencies ({closure.error})"
        if closure is not None and closure.error
        else "the input does not list it (a lock or report that omits a dependency)"
    )
    return (
        f"{requirement}: not in the audit, so not in the directory: {why}; add it with "
        f"`pip download --only-binary :all: --no-deps -d {out} '{requirement}'` (or "
        f"`pip wheel --no-deps -w {out} '{requirement}'` when it has no wheel), or list it "
        "in the requirements and run sapper wheelhouse again"
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


def verify_offline(
    directory: Path, pins: list[str], *, requirements: Path | None = None
) -> tuple[bool, str]:
    """Install ``pins`` (or, with ``requirements``, that file under ``pins`` as
    constraints) into a fresh virtual environment with pip, offline from ``directory``;
    return whether it worked and pip's last lines."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    with tempfile.TemporaryDirectory(prefix="sapper-verify-") as tmp:
        venv = Path(tmp) / "env"
        wanted: list[str] = list(pins)
        if requirements is not None:
            constraints = Path(tmp) / "constraints.txt"
            constraints.write_text("".join(f"{p}\n" for p in pins), encoding="utf-8")
            wanted = ["-r", str(requirements), "-c", str(constraints)]
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
                *wanted,
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=900,
        )
    text = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, "\n".join(text[-12:])
