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

import json
import sys
import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from types import CodeType, ModuleType

    from ..pypi import Index

__all__ = [
    "PACKAGES",
    "UNAVAILABLE",
    "Rejection",
    "Validator",
    "available",
    "digest_of",
    "eras",
    "fetch",
    "judge",
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


# NamedTuples, not frozen dataclasses, like the other facts: cheaper to build at start-up.
class Rejection(NamedTuple):
    """Why a validator rejected pyproject.toml, in its own words."""

    #: ``ValidationError.summary`` (what setuptools prints after "configuration error: ").
    summary: str
    #: The offending key, dotted (``project.authors[0]``, ``tool.setuptools.cmdclass``).
    name: str
    #: The JSON-schema rule that failed (``required``, ``additionalProperties``...).
    rule: str | None
    #: The class of an exception that is not the validator's ``ValidationError`` (the extra
    #: validations of 62.6.0-65.4.1 raise theirs past setuptools' handler), else None.
    raised: str | None = None

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
    import hashlib

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
_IMPORT_LOCK = threading.Lock()
_LOADED: dict[str, Validator | None] = {}


def _compiled_path(cache_dir: Path, digest: str) -> Path:
    return cache_dir / FOLDER / f"{digest}.{sys.implementation.cache_tag}.bin"


def _compile(digest: str, sources: Mapping[str, str]) -> dict[str, CodeType]:
    package = _package_name(digest)
    return {
        name: compile(text, f"<{package}/{name}>", "exec", dont_inherit=True)
        for name, text in sources.items()
    }


def _read_compiled(cache_dir: Path, digest: str) -> dict[str, CodeType] | None:
    """The code objects compiled from a validator's sources by this Python, as written
    by :func:`_write_compiled` (the header names the interpreter's magic and the digest)."""
    import importlib.util
    import marshal

    header = importlib.util.MAGIC_NUMBER + bytes.fromhex(digest)
    try:
        data = _compiled_path(cache_dir, digest).read_bytes()
    except OSError:
        return None
    if not data.startswith(header):
        return None
    try:
        codes = marshal.loads(data[len(header) :])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(codes, dict) or "__init__.py" not in codes:
        return None
    return codes


def _write_compiled(cache_dir: Path, digest: str, codes: Mapping[str, CodeType]) -> None:
    """Keep the compiled validator next to its sources: loading it then costs no compile
    (the generated module is several hundred kilobytes of source). Best effort."""
    import contextlib
    import importlib.util
    import marshal

    from .._exceptions import FetchError
    from ..pypi._cache import write_atomic

    header = importlib.util.MAGIC_NUMBER + bytes.fromhex(digest)
    with contextlib.suppress(FetchError):  # a read-only cache: compile again next time
        write_atomic(
            _compiled_path(cache_dir, digest),
            header + marshal.dumps(dict(codes)),
            cache_dir=cache_dir,
        )


def _validator(cache_dir: Path, digest: str) -> Validator | None:
    with _LOCK:
        if digest in _LOADED and _LOADED[digest] is not None:
            return _LOADED[digest]
    codes = _read_compiled(cache_dir, digest)
    if codes is None:
        sources = _read_sources(cache_dir, digest)
        if sources is None:
            return None
        codes = _compile(digest, sources)
        _write_compiled(cache_dir, digest, codes)
    found = Validator(digest, codes)
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
    codes = _compile(digest, sources)
    if cache_dir is not None:
        _write_compiled(cache_dir, digest, codes)
    found = Validator(digest, codes)
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

    def __init__(self, digest: str, codes: Mapping[str, CodeType]) -> None:
        self.digest = digest
        self._codes = dict(codes)
        self._module: ModuleType | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Validator({self.digest[:12]})"

    def _load(self) -> ModuleType:
        # one load at a time in the process: it changes sys.meta_path and sys.modules
        with _IMPORT_LOCK, self._lock:
            if self._module is None:
                self._module = _load_package(self.digest, self._codes)
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
        except ValueError as exc:
            # not setuptools' ValidationError: it escapes pyprojecttoml.validate as raised
            name = str(getattr(exc, "name", "") or "").strip("`")
            name = name.removeprefix("data.").removeprefix("data")
            rule = getattr(exc, "rule", None)
            return Rejection(str(exc), name, rule, type(exc).__name__)
        return None


def _package_name(digest: str) -> str:
    return f"_sapper_vp_{digest[:16]}"


def _load_package(digest: str, codes: Mapping[str, CodeType]) -> ModuleType:
    """Execute the validator's code as the package ``_sapper_vp_<digest>``."""
    import importlib.abc
    import importlib.util

    package = _package_name(digest)
    if package in sys.modules:
        return sys.modules[package]

    class _Loader(importlib.abc.Loader):
        def __init__(self, filename: str) -> None:
            self.filename = filename

        def create_module(self, spec: Any) -> None:
            return None

        def exec_module(self, module: ModuleType) -> None:
            exec(codes[self.filename], module.__dict__)

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
            if fullname == package:
                return importlib.util.spec_from_loader(
                    fullname, _Loader("__init__.py"), is_package=True
                )
            prefix = package + "."
            if fullname.startswith(prefix) and f"{fullname[len(prefix) :]}.py" in codes:
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


class Warmed(NamedTuple):
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


#: ``judge``'s answer for a validator that is not in the cache.
UNAVAILABLE = "unavailable"


#: Changes when the form of the kept answers changes (old answers are then not read).
_RESULTS_FORM = "2"


def _subset_key(subset: Mapping[str, Any]) -> str:
    import hashlib

    text = _RESULTS_FORM + json.dumps(subset, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def judge(
    subset: Mapping[str, Any], digests: list[str], cache_dir: Path
) -> dict[str, Rejection | str | None]:
    """What each validator of ``digests`` says of ``subset``: a :class:`Rejection`, None
    (accepted) or :data:`UNAVAILABLE` (not cached).

    The answers are kept in the cache too (``validators/results/``, keyed by the subset's
    content), so that checking an unchanged pyproject.toml again loads no validator."""
    if not (cache_dir / FOLDER).is_dir():  # nothing was ever warmed here
        return dict.fromkeys(digests, UNAVAILABLE)
    key = _subset_key(subset)
    path = cache_dir / FOLDER / "results" / key[:2] / f"{key}.json"
    try:
        known = json.loads(path.read_bytes())
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    out: dict[str, Rejection | str | None] = {}
    fresh = False
    for digest in digests:
        raw = known.get(digest, _ABSENT)
        if raw is None:
            out[digest] = None
            continue
        if isinstance(raw, list) and len(raw) == len(Rejection._fields):
            out[digest] = Rejection(*raw)
            continue
        # not known yet, or kept in another form: ask the validator
        found = _validator(cache_dir, digest)
        if found is None:
            out[digest] = UNAVAILABLE
            continue
        answer = found.validate(subset)
        out[digest] = answer
        known[digest] = None if answer is None else list(answer)
        fresh = True
    if fresh:
        import contextlib

        from .._exceptions import FetchError
        from ..pypi._cache import write_atomic

        with contextlib.suppress(FetchError):  # a read-only cache: judge again next time
            write_atomic(path, json.dumps(known, sort_keys=True).encode(), cache_dir=cache_dir)
    return out
