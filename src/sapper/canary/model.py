"""The canary's data: backends, one side's result, one target's row, and the classes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from .._exceptions import UsageError

__all__ = [
    "CLASSES",
    "Backend",
    "CanaryClass",
    "SideResult",
    "TargetRow",
    "classify",
    "parse_backend",
    "parse_env",
]

#: The row schema of ``--export`` and the store (docs/canary.md).
ROW_SCHEMA = "sapper.canary/1"

CanaryClass = Literal[
    "regressed", "fixed", "pass", "fail", "spurious", "prepare-fail", "error", "not-setuptools"
]
#: In the order reports show them.
CLASSES: tuple[CanaryClass, ...] = (
    "regressed",
    "fixed",
    "fail",
    "pass",
    "spurious",
    "prepare-fail",
    "error",
    "not-setuptools",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Backend:
    """One side of a canary: which setuptools, and extra environment variables."""

    #: As given: ``setuptools==78.0.1``, a wheel path, or a source tree.
    spec: str
    #: The requirement installed in every build environment of this side.
    requirement: str
    #: The setuptools version (for sapper's static verdict), when known.
    version: str | None
    env: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.env)
        return f"{self.spec} {extra}".strip()


def parse_env(values: list[str] | tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE`` strings as pairs.

    :raises UsageError: for one without ``=``.
    """
    out: list[tuple[str, str]] = []
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            msg = f"{text!r}: write the variable as KEY=VALUE"
            raise UsageError(msg)
        out.append((key.strip(), value))
    return tuple(out)


def parse_backend(
    spec: str, *, env: tuple[tuple[str, str], ...] = (), cache_dir: Path | None = None
) -> Backend:
    """A backend from ``setuptools==X`` (or ``X``), a setuptools wheel, or a source tree (a
    setuptools checkout, built into a wheel once with ``build``).

    :raises UsageError: for anything else.
    """
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    text = spec.strip()
    path = Path(text).expanduser()
    if path.is_file() and path.name.endswith(".whl"):
        version = path.name.split("-")[1] if path.name.count("-") >= 2 else None
        return Backend(
            spec=text,
            requirement=f"setuptools @ {path.resolve().as_uri()}",
            version=version,
            env=env,
        )
    if path.is_dir():
        wheel = _build_tree(path, cache_dir)
        return Backend(
            spec=text,
            requirement=f"setuptools @ {wheel.as_uri()}",
            version=wheel.name.split("-")[1],
            env=env,
        )
    try:
        Version(text)
    except InvalidVersion:
        pass
    else:
        text = f"setuptools=={text}"
    try:
        req = Requirement(text)
    except InvalidRequirement:
        req = None
    if req is None or req.name.lower() != "setuptools" or req.url:
        msg = (
            f"backend {spec!r}: give setuptools==VERSION, the path of a setuptools wheel, or "
            "a setuptools source tree"
        )
        raise UsageError(msg)
    pins = [s.version for s in req.specifier if s.operator in ("==", "===")]
    return Backend(spec=text, requirement=str(req), version=pins[0] if pins else None, env=env)


def _build_tree(tree: Path, cache_dir: Path | None) -> Path:
    """Build a setuptools source tree into a wheel once (keyed by its files' sizes and
    times) with ``python -m build --wheel``."""
    import subprocess
    import sys

    from .._exceptions import BuildError

    if cache_dir is None:
        from ..pypi import default_cache_dir

        cache_dir = default_cache_dir()
    digest = hashlib.sha256(str(tree.resolve()).encode())
    for item in sorted(tree.rglob("*")):
        if ".git" in item.parts or "__pycache__" in item.parts or not item.is_file():
            continue
        stat = item.stat()
        digest.update(f"{item}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    out = cache_dir / "build" / "backends" / digest.hexdigest()[:24]
    wheels = sorted(out.glob("setuptools-*.whl"))
    if wheels:
        return wheels[0]
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        check=False,
    )
    wheels = sorted(out.glob("setuptools-*.whl"))
    if done.returncode != 0 or not wheels:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        msg = f"{tree}: could not build a setuptools wheel from it with `build`: {tail}"
        raise BuildError(msg)
    return wheels[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class SideResult:
    """One side's build of one target, as stored and exported."""

    backend: str
    outcome: str
    error_type: str | None = None
    signature: str | None = None
    message: str | None = None
    spurious_reason: str | None = None
    hook: str = ""
    seconds: float = 0.0
    attempts: int = 1
    log_tail: str = ""
    warnings: tuple[dict[str, Any], ...] = ()
    #: sapper's static verdict for this side's setuptools: fails, builds or unknown.
    static: str = "unknown"
    static_codes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetRow:
    """One target of a canary run: both sides and its class."""

    key: str
    target: str
    project: str | None
    version: str | None
    cls: CanaryClass
    baseline: SideResult | None = None
    candidate: SideResult | None = None
    downloads: int | None = None
    uses_setuptools: bool | None = None
    error: str | None = None
    #: A prepare-fail that no rerun changes (the project has no sdist on the index, only
    #: yanked ones, or no release at all): left out of the retry list.
    permanent: bool = False

    def export(self) -> dict[str, Any]:
        """The documented export row (docs/canary.md, schema ``sapper.canary/1``)."""

        def side(s: SideResult | None) -> dict[str, Any] | None:
            if s is None:
                return None
            return {
                "backend": s.backend,
                "outcome": s.outcome,
                "error_type": s.error_type,
                "signature": s.signature,
                "message": s.message,
                "spurious_reason": s.spurious_reason,
                "hook": s.hook,
                "seconds": s.seconds,
                "attempts": s.attempts,
                "warnings": [
                    {k: w.get(k) for k in ("category", "summary", "due_date", "url")}
                    for w in s.warnings
                ],
            }

        codes = sorted(
            {
                *(self.baseline.static_codes if self.baseline else ()),
                *(self.candidate.static_codes if self.candidate else ()),
            }
        )
        return {
            "schema": ROW_SCHEMA,
            "target": self.target,
            "project": {"name": self.project, "version": self.version},
            "downloads": self.downloads,
            "class": self.cls,
            "error": self.error,
            "permanent": self.permanent,
            "baseline": side(self.baseline),
            "candidate": side(self.candidate),
            "static": {
                "baseline": self.baseline.static if self.baseline else None,
                "candidate": self.candidate.static if self.candidate else None,
                "codes": codes,
            },
        }


def side_json(side: SideResult | None) -> str | None:
    return None if side is None else json.dumps(asdict(side))


def side_from_json(text: str | None) -> SideResult | None:
    if not text:
        return None
    data = json.loads(text)
    data["warnings"] = tuple(data.get("warnings") or ())
    data["static_codes"] = tuple(data.get("static_codes") or ())
    return SideResult(**data)


def classify(
    baseline: SideResult, candidate: SideResult, *, uses_setuptools: bool | None, all_backends: bool
) -> CanaryClass:
    """crater's classes from the two outcomes (ok, fail, spurious, prepare-fail)."""
    if uses_setuptools is False and not all_backends:
        return "not-setuptools"
    outcomes = (baseline.outcome, candidate.outcome)
    if "prepare-fail" in outcomes:
        return "prepare-fail"
    if "spurious" in outcomes:
        return "spurious"
    if outcomes == ("ok", "ok"):
        return "pass"
    if outcomes == ("ok", "fail"):
        return "regressed"
    if outcomes == ("fail", "ok"):
        return "fixed"
    return "fail"
