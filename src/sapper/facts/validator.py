"""The validator each setuptools release runs on pyproject.toml: its own, from its wheel.

Since 61.0.0 setuptools validates ``[project]`` and ``[tool.setuptools]`` with code it
vendors from validate-pyproject and generates from JSON schemas
(``setuptools/config/_validate_pyproject/``). Rather than re-implement hundreds of schema
constraints that change from release to release, sapper runs that very code:

* :func:`fetch` downloads the release's pure-Python wheel through :class:`sapper.pypi.Index`
  (sha256-checked, kept in the content-addressed download cache), reads the package's
  ``.py`` files from the zip in memory (nothing is installed) and stores them under
  ``validators/<digest>.json`` in the cache, ``<digest>`` being the sha256 of the sources:
  releases whose vendored validator is identical share one entry.
* ``src/sapper/data/validators.json`` (``scripts/gen_validators.py``, from the real wheels)
  says which digest each release ships, so that a check knows which releases share a
  validator without any download.
* :func:`available` gives the validator of a release from the cache alone (``sapper check``
  never goes to the network for it; ``sapper cache warm`` fills the cache);
  :meth:`Validator.validate` runs it on the subset of pyproject.toml setuptools validates
  and returns the validator's own message and the dotted name of the offending key.

The validator is generated, self-contained code (``fastjsonschema`` output, format checks,
error formatting): executing it executes none of the project's code. It is loaded as a
private package (``_sapper_vp_<digest>``) from the cached sources, with setuptools' own
settings: trove classifiers are not downloaded (``_disable_download``) and the optional
``trove_classifiers`` package is hidden, as in a build environment that holds only
setuptools.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..pypi import Index

__all__ = [
    "PACKAGES",
    "Rejection",
    "Validator",
    "available",
    "digest_of",
    "eras",
    "fetch",
    "release_digest",
    "sources_from_wheel",
    "validation_subset",
    "warm",
]

#: Where a setuptools wheel keeps its vendored validator (61.0.0-61.1.1 kept it under
#: ``setuptools/_vendor/``).
PACKAGES = ("setuptools/config/_validate_pyproject/", "setuptools/_vendor/_validate_pyproject/")

#: Where, under the cache directory, the extracted validators are kept.
FOLDER = "validators"


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a validator rejected pyproject.toml, in its own words."""

    #: ``ValidationError.summary`` (what setuptools prints after "configuration error: ").
    summary: str
    #: The offending key, dotted (``project.authors[0]``, ``tool.setuptools.cmdclass``).
    name: str
    #: The JSON-schema rule that failed (``required``, ``additionalProperties``...).
    rule: str | None

    @property
    def keys(self) -> tuple[str, ...]:
        """The offending key as a path of TOML keys (indices dropped)."""
        import re

        return tuple(k for k in re.sub(r"\[[^\]]*\]", "", self.name).split(".") if k)


def sources_from_wheel(data: bytes) -> dict[str, str]:
    """The ``.py`` files of the vendored validator in a setuptools wheel, by file name.

    Read from the zip in memory. Empty when the wheel vendors none (setuptools < 61)."""
    import io
    import zipfile

    out: dict[str, str] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            for package in PACKAGES:
                rest = name[len(package) :]
                if name.startswith(package) and name.endswith(".py") and "/" not in rest:
                    out[rest] = archive.read(name).decode("utf-8")
    return out


def digest_of(sources: Mapping[str, str]) -> str:
    """The sha256 that names a validator: over its file names and contents, in order."""
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + sources[name].encode("utf-8") + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def eras() -> dict[str, str]:
    """Release -> digest of its validator, as read from the real wheels
    (``src/sapper/data/validators.json``)."""
    from .._data import read_text

    doc = json.loads(read_text("validators.json"))
    return {v: era["digest"] for era in doc["eras"] for v in era["versions"]}


def release_digest(version: str, cache_dir: Path | None = None) -> str | None:
    """The digest of the validator ``version`` ships: from the data file, else from what
    :func:`fetch` recorded in the cache; None when neither knows."""
    known = eras().get(version)
    if known is not None or cache_dir is None:
        return known
    try:
        text = (cache_dir / FOLDER / "releases" / version).read_text().strip()
    except OSError:
        return None
    return text or None


def _entry(cache_dir: Path, digest: str) -> Path:
    return cache_dir / FOLDER / f"{digest}.json"


def _read_sources(cache_dir: Path, digest: str) -> dict[str, str] | None:
    try:
        doc = json.loads(_entry(cache_dir, digest).read_bytes())
    except (OSError, ValueError):
        return None
    sources = doc.get("sources") if isinstance(doc, dict) else None
    if not isinstance(sources, dict) or digest_of(sources) != digest:
        return None  # damaged or foreign: as if absent
    return {str(k): str(v) for k, v in sources.items()}


def available(version: str, cache_dir: Path | None) -> Validator | None:
    """The validator of setuptools ``version`` from the cache alone, or None (not cached,
    or a release without one)."""
    if cache_dir is None:
        return None
    digest = release_digest(version, cache_dir)
    if digest is None:
        return None
    return _validator(cache_dir, digest)


_LOCK = threading.Lock()
_LOADED: dict[str, Validator | None] = {}


def _validator(cache_dir: Path, digest: str) -> Validator | None:
    with _LOCK:
        if digest in _LOADED and _LOADED[digest] is not None:
            return _LOADED[digest]
    sources = _read_sources(cache_dir, digest)
    if sources is None:
        return None
    found = Validator(digest, sources)
    with _LOCK:
        _LOADED[digest] = found
    return found


def fetch(version: str, index: Index) -> Validator | None:
    """Download setuptools ``version``'s wheel (or take it from the download cache), store
    its validator in the cache, and return it; None for a release that vendors none.

    Raises :class:`sapper.FetchError` when the index or the wheel cannot be had."""
    from .._exceptions import FetchError
    from ..pypi._cache import write_atomic

    cache_dir = index.cache_dir
    digest = release_digest(version, cache_dir)
    if digest is not None and cache_dir is not None:
        found = _validator(cache_dir, digest)
        if found is not None:
            return found
    wheels = [
        f
        for f in index.files("setuptools", version)
        if f.kind == "wheel" and f.filename.endswith("-py3-none-any.whl")
    ]
    if not wheels:
        msg = (
            f"setuptools {version}: the index lists no pure-Python wheel to read its validator from"
        )
        raise FetchError(msg)
    sources = sources_from_wheel(index.download(wheels[0]).data)
    if not sources:
        return None
    digest = digest_of(sources)
    if cache_dir is not None:
        doc = {"digest": digest, "first_seen_in": version, "sources": sources}
        text = json.dumps(doc, sort_keys=True).encode()
        write_atomic(_entry(cache_dir, digest), text, cache_dir=cache_dir)
        pointer = cache_dir / FOLDER / "releases" / version
        write_atomic(pointer, digest.encode() + b"\n", cache_dir=cache_dir)
    found = Validator(digest, sources)
    with _LOCK:
        _LOADED[digest] = found
    return found


def validation_subset(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """What ``pyprojecttoml.read_configuration`` hands the validator: ``[project]`` and
    ``[tool.setuptools]`` (with ``include-package-data`` defaulted to true), or None when
    neither is there (setuptools then ignores pyproject.toml)."""
    project = data.get("project", {})
    tool = data.get("tool", {})
    setuptools = tool.get("setuptools", {}) if isinstance(tool, dict) else {}
    if not (project or setuptools):
        return None
    if isinstance(setuptools, dict):
        setuptools = {**setuptools}
        setuptools.setdefault("include-package-data", True)
    return {"project": project, "tool": {"setuptools": setuptools}}


class Validator:
    """One vendored validator, loaded on first use."""

    def __init__(self, digest: str, sources: Mapping[str, str]) -> None:
        self.digest = digest
        self._sources = dict(sources)
        self._module: ModuleType | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Validator({self.digest[:12]})"

    def _load(self) -> ModuleType:
        with self._lock:
            if self._module is None:
                self._module = _load_package(self.digest, self._sources)
            return self._module

    def validate(self, subset: Mapping[str, Any]) -> Rejection | None:
        """Run the validator on ``subset`` (see :func:`validation_subset`): None when it
        passes, else the :class:`Rejection` it raised."""
        import copy

        module = self._load()
        error_class = module.ValidationError
        try:
            module.validate(copy.deepcopy(dict(subset)))
        except error_class as exc:
            name = str(getattr(exc, "name", "") or "").strip("`")
            name = name.removeprefix("data.").removeprefix("data")
            summary = str(getattr(exc, "summary", "") or exc)
            return Rejection(summary=summary, name=name, rule=getattr(exc, "rule", None))
        return None


def _load_package(digest: str, sources: Mapping[str, str]) -> ModuleType:
    """Execute the cached sources as the package ``_sapper_vp_<digest>``."""
    import importlib.abc
    import importlib.util

    package = f"_sapper_vp_{digest[:16]}"
    if package in sys.modules:
        return sys.modules[package]

    class _Loader(importlib.abc.Loader):
        def __init__(self, filename: str) -> None:
            self.filename = filename

        def create_module(self, spec: Any) -> None:
            return None

        def exec_module(self, module: ModuleType) -> None:
            code = compile(sources[self.filename], f"<{package}/{self.filename}>", "exec")
            exec(code, module.__dict__)

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
            if fullname == package:
                return importlib.util.spec_from_loader(
                    fullname, _Loader("__init__.py"), is_package=True
                )
            prefix = package + "."
            if fullname.startswith(prefix) and f"{fullname[len(prefix) :]}.py" in sources:
                return importlib.util.spec_from_loader(
                    fullname, _Loader(f"{fullname[len(prefix) :]}.py")
                )
            return None

    finder = _Finder()
    hidden = sys.modules.get("trove_classifiers", _ABSENT)
    sys.meta_path.insert(0, finder)
    # a build environment holds setuptools alone: no trove_classifiers to check against
    sys.modules["trove_classifiers"] = None  # type: ignore[assignment]
    try:
        module = importlib.import_module(package)
    finally:
        sys.meta_path.remove(finder)
        if hidden is _ABSENT:
            sys.modules.pop("trove_classifiers", None)
        else:
            sys.modules["trove_classifiers"] = hidden  # type: ignore[assignment]
    trove = module.FORMAT_FUNCTIONS.get("trove-classifier")
    if hasattr(trove, "_disable_download"):
        trove._disable_download()  # what pyprojecttoml.validate does
    return module


_ABSENT = object()


@dataclass(frozen=True, slots=True)
class Warmed:
    """One validator :func:`warm` made available."""

    digest: str
    #: The releases that ship it (among those asked for).
    releases: tuple[str, ...]
    #: Whether it was already in the cache.
    cached: bool


def warm(index: Index, releases: list[str]) -> list[Warmed]:
    """Put the validator of every release of ``releases`` in the cache (one wheel per
    distinct validator) and say which were there already.

    Raises :class:`sapper.FetchError` when a wheel cannot be had."""
    from packaging.version import Version

    cache_dir = index.cache_dir
    groups: dict[str, list[str]] = {}
    unknown: list[str] = []
    for version in sorted(releases, key=Version):
        digest = release_digest(version, cache_dir)
        if digest is None:
            unknown.append(version)
        else:
            groups.setdefault(digest, []).append(version)
    out: list[Warmed] = []
    for digest, members in groups.items():
        cached = cache_dir is not None and _validator(cache_dir, digest) is not None
        if not cached:
            fetch(members[0], index)
        out.append(Warmed(digest, tuple(members), cached))
    for version in unknown:  # a release newer than the data file: read its wheel
        found = fetch(version, index)
        if found is not None:
            out.append(Warmed(found.digest, (version,), False))
    return out
