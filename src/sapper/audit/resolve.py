"""Which release of each distribution gets installed, and whether it is built from source.

For a target environment (:class:`Target`: a Python version and platform tags, by default
the running interpreter's, from :mod:`packaging.tags`), :func:`resolve_entry` picks

* for locks and pip reports, the release they pin, among the files they list;
* for requirements, the newest release that matches the specifier (and any ``-c``
  constraint) and has a file the target can install, as pip does without
  ``--prefer-binary``: yanked releases only for an exact ``==`` pin, pre-releases only when
  the specifier names one, ``--pre`` is given, or nothing else matches, and only files
  whose ``Requires-Python`` admits the target.

An installer builds from source exactly when the chosen release has no wheel whose tags
the target supports (or ``--no-binary`` rules wheels out).

A requirements file names the top of a tree: :func:`sapper.audit.closure.resolve_closure`
has pip's own resolver resolve the whole tree. Locks and pip reports are taken as they are.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from packaging.markers import InvalidMarker, Marker, default_environment
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms, platform_tags
from packaging.utils import (
    InvalidWheelFilename,
    canonicalize_name,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from .._exceptions import FetchError, UsageError
from ..inputs._files import SDIST_SUFFIXES
from .inputs import Entry, FileRef, FormatControl, InputSet

if TYPE_CHECKING:
    from ..pypi import Index

__all__ = [
    "Resolution",
    "Target",
    "compatible_wheel",
    "index_files",
    "resolve_entry",
    "target_environment",
]

Source = Literal["wheel", "sdist", "skipped", "unavailable"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """The environment packages are installed into."""

    #: ``X.Y``
    python: str
    #: Supported tags, most preferred first.
    tags: tuple[Tag, ...]
    #: Environment-marker values (PEP 508) of the target.
    markers: Mapping[str, str]
    #: Platform tags (``manylinux_2_17_x86_64``, ...), most preferred first.
    platforms: tuple[str, ...]
    #: Whether this is the running interpreter (no --python/--platform).
    native: bool = True

    def supports(self, filename: str) -> bool:
        """Whether a wheel file has a tag this target supports."""
        try:
            _, _, _, tags = parse_wheel_filename(filename)
        except InvalidWheelFilename:
            return False
        return not tags.isdisjoint(self._tagset)

    @property
    def _tagset(self) -> frozenset[Tag]:
        return _TAGSETS.setdefault(self.tags, frozenset(self.tags))

    def describe(self) -> str:
        # packaging lists `linux_x86_64` first; the newest manylinux tag says more
        plat = next(
            (p for p in self.platforms if p.startswith(("manylinux_", "musllinux_"))),
            self.platforms[0] if self.platforms else "any",
        )
        return f"CPython {self.python} on {plat}" + ("" if self.native else " (given)")


_TAGSETS: dict[tuple[Tag, ...], frozenset[Tag]] = {}

_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


def _expand_platform(tag: str) -> list[str]:
    """A platform tag and the older ones an installer also accepts on it.

    ``manylinux_2_28_x86_64`` also accepts every ``manylinux_2_N`` below 28 and the legacy
    aliases; ``macosx_11_0_arm64`` the older macOS versions of that architecture;
    ``musllinux_1_2_x86_64`` ``musllinux_1_0``/``_1_1``. Anything else stands as given.
    """

    tag = tag.replace("-", "_").replace(".", "_")
    for legacy, (major, minor) in _LEGACY_MANYLINUX.items():
        if tag.startswith(legacy + "_"):
            tag = f"manylinux_{major}_{minor}_{tag[len(legacy) + 1 :]}"
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
    if m:
        major, minor, arch = int(m.group(1)), int(m.group(2)), m.group(3)
        out = []
        for glibc in range(minor, -1, -1):
            out.append(f"manylinux_{major}_{glibc}_{arch}")
            for legacy, version in _LEGACY_MANYLINUX.items():
                if version == (major, glibc):
                    out.append(f"{legacy}_{arch}")
        return out
    m = re.fullmatch(r"musllinux_(\d+)_(\d+)_(\w+)", tag)
    if m:
        major, minor, arch = int(m.group(1)), int(m.group(2)), m.group(3)
        return [f"musllinux_{major}_{v}_{arch}" for v in range(minor, -1, -1)]
    m = re.fullmatch(r"macosx_(\d+)_(\d+)_(\w+)", tag)
    if m:
        return list(mac_platforms((int(m.group(1)), int(m.group(2))), m.group(3)))
    return [tag]


def _platform_markers(platform_tag: str) -> dict[str, str]:
    if platform_tag.startswith(("manylinux", "musllinux", "linux")):
        arch = platform_tag.rsplit("_", 1)[-1]
        for known in ("x86_64", "aarch64", "ppc64le", "s390x", "i686", "armv7l"):
            if platform_tag.endswith(known):
                arch = known
        return {
            "sys_platform": "linux",
            "platform_system": "Linux",
            "os_name": "posix",
            "platform_machine": arch,
        }
    if platform_tag.startswith("macosx"):
        arch = "arm64" if platform_tag.endswith("arm64") else "x86_64"
        return {
            "sys_platform": "darwin",
            "platform_system": "Darwin",
            "os_name": "posix",
            "platform_machine": arch,
        }
    if platform_tag.startswith("win"):
        arch = {"win32": "x86", "win_amd64": "AMD64", "win_arm64": "ARM64"}.get(platform_tag, "")
        return {
            "sys_platform": "win32",
            "platform_system": "Windows",
            "os_name": "nt",
            "platform_machine": arch,
        }
    return {}


def target_environment(python: str | None = None, platforms: Sequence[str] = ()) -> Target:
    """The target: the running interpreter, or CPython ``python`` on ``platforms``."""
    from packaging.tags import sys_tags

    env: dict[str, str] = {k: str(v) for k, v in default_environment().items()}
    if python is None and not platforms:
        tags = tuple(sys_tags())
        return Target(
            python=f"{sys.version_info.major}.{sys.version_info.minor}",
            tags=tags,
            markers=env,
            platforms=tuple(dict.fromkeys(t.platform for t in tags if t.platform != "any")),
        )
    if python is not None:
        try:
            major, minor = (int(p) for p in python.split("."))
        except ValueError:
            msg = f"--python {python!r}: give a version such as 3.12"
            raise UsageError(msg) from None
    else:
        major, minor = sys.version_info.major, sys.version_info.minor
    plats = (
        [p for tag in platforms for p in _expand_platform(tag)]
        if platforms
        else list(platform_tags())
    )
    version = (major, minor)
    tags = (
        *cpython_tags(version, platforms=plats),
        *compatible_tags(version, f"cp{major}{minor}", plats),
    )
    env["python_version"] = f"{major}.{minor}"
    env["python_full_version"] = f"{major}.{minor}.0"
    env["implementation_name"] = "cpython"
    env["platform_python_implementation"] = "CPython"
    if platforms:
        env.update(_platform_markers(plats[0]))
    return Target(
        python=f"{major}.{minor}",
        tags=tuple(dict.fromkeys(tags)),
        markers=env,
        platforms=tuple(dict.fromkeys(plats)),
        native=False,
    )


def marker_applies(marker: str | None, target: Target) -> bool:
    if not marker:
        return True
    try:
        return Marker(marker).evaluate(dict(target.markers))
    except InvalidMarker:
        return True  # unknown: audit it rather than hide it


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolution:
    """The release an installer takes for one entry, and how it installs it."""

    name: str
    version: str | None
    #: ``wheel``: a compatible wheel; ``sdist``: built from source; ``skipped``: not an
    #: index release (editable, path, VCS, marker false); ``unavailable``: no file the
    #: target can install.
    source: Source
    wheel: FileRef | None = None
    sdist: FileRef | None = None
    #: How the version was chosen, or why the entry is skipped or unavailable.
    how: str = ""


def compatible_wheel(files: Iterable[FileRef], target: Target) -> FileRef | None:
    """The wheel among ``files`` an installer prefers for ``target`` (best tag first)."""
    rank = {tag: i for i, tag in enumerate(target.tags)}
    best: tuple[int, FileRef] | None = None
    for f in files:
        if not f.is_wheel or not _python_ok(f.requires_python, target):
            continue
        try:
            _, _, _, tags = parse_wheel_filename(f.filename)
        except InvalidWheelFilename:
            continue
        score = min((rank[t] for t in tags if t in rank), default=None)
        if score is not None and (best is None or score < best[0]):
            best = (score, f)
    return best[1] if best else None


def _python_ok(requires_python: str | None, target: Target) -> bool:
    if not requires_python:
        return True
    try:
        spec = SpecifierSet(requires_python)
    except InvalidSpecifier:
        return True  # pip ignores an invalid Requires-Python
    return spec.contains(
        target.markers.get("python_full_version", target.python + ".0"), prereleases=True
    )


def _sdists(files: Iterable[FileRef]) -> list[FileRef]:
    from ..inputs.sources import is_sdist_filename

    return [f for f in files if not f.is_wheel and is_sdist_filename(f.filename)]


def _choose_from(
    name: str, files: Sequence[FileRef], target: Target, control: FormatControl
) -> tuple[Source, FileRef | None, FileRef | None, str]:
    wheels_ok, sdists_ok = control.allows_wheels(name), control.allows_sdists(name)
    wheel = compatible_wheel(files, target) if wheels_ok else None
    sdists = [f for f in _sdists(files) if _python_ok(f.requires_python, target)]
    sdist = _preferred_sdist(sdists) if sdists else None
    if wheel is not None:
        return "wheel", wheel, sdist, ""
    if sdist is not None and sdists_ok:
        why = (
            "--no-binary"
            if not wheels_ok and any(f.is_wheel for f in files)
            else (
                "no wheel for the target" if any(f.is_wheel for f in files) else "no wheels at all"
            )
        )
        return "sdist", None, sdist, why
    if sdist is not None:
        return "unavailable", None, sdist, "only an sdist, and --only-binary forbids building it"
    return "unavailable", None, None, "no file the target can install"


def _preferred_sdist(sdists: Sequence[FileRef]) -> FileRef:
    order = (".tar.gz", ".zip", ".tgz", ".tar.bz2", ".tar.xz")

    def rank(f: FileRef) -> int:
        low = f.filename.lower()
        return next((i for i, s in enumerate(order) if low.endswith(s)), len(order))

    return min(sdists, key=rank)


def resolve_entry(
    entry: Entry,
    inputs: InputSet,
    target: Target,
    *,
    files_of: Callable[[str], list[FileRef]] | None = None,
) -> Resolution:
    """Decide the release and the file an installer takes for ``entry``."""
    name = entry.name
    if entry.kind != "registry":
        how = {
            "editable": "editable install; built from the local tree, not audited",
            "path": "a local path; built from it, not audited",
            "url": "a direct URL; not audited",
            "vcs": "a VCS checkout; built from it, not audited",
            "virtual": "the project itself (virtual); nothing to install",
        }[entry.kind]
        return Resolution(name=name, version=entry.version, source="skipped", how=how)
    if not marker_applies(entry.marker, target):
        return Resolution(
            name=name,
            version=entry.version,
            source="skipped",
            how=f"marker {entry.marker!r} is false for the target",
        )
    control = inputs.format_control
    if entry.files is not None:
        if not entry.files and files_of is not None and entry.version:
            files: Sequence[FileRef] = [
                f for f in files_of(name) if _file_version(f, name) == _norm(entry.version)
            ]
        else:
            files = entry.files
        if (
            inputs.format == "poetry.lock"
            and files_of is not None
            and any(f.url is None for f in files)
        ):
            files = _with_urls(files, files_of(name))
        source, wheel, sdist, why = _choose_from(name, files, target, control)
        how = f"pinned by {inputs.format}"
        if inputs.format == "pip-report":
            how = "chosen by pip (report)"
        return Resolution(
            name=name,
            version=entry.version,
            source=source,
            wheel=wheel,
            sdist=sdist,
            how=how + (f"; {why}" if why else ""),
        )
    if files_of is None:
        msg = f"{entry.origin}: {name} needs an index to resolve; none given"
        raise UsageError(msg)
    return _resolve_from_index(entry, inputs, target, files_of(name), control)


def _hash_allowed(files: list[FileRef], hashes: Sequence[str]) -> list[FileRef]:
    """With ``--hash`` options, pip keeps only the files whose hash is listed (all of them
    when none matches, so that the hash error is reported at download)."""
    allowed = {h.partition(":")[2].lower() for h in hashes if h.lower().startswith("sha256:")}
    if not allowed:
        return files
    matching = [f for f in files if f.sha256 and f.sha256.lower() in allowed]
    return matching or files


def _with_urls(files: Sequence[FileRef], listed: Sequence[FileRef]) -> list[FileRef]:
    by_name = {f.filename: f for f in listed}
    out = []
    for f in files:
        known = by_name.get(f.filename)
        if known is not None and f.url is None:
            out.append(
                FileRef(
                    filename=f.filename,
                    url=known.url,
                    sha256=f.sha256 or known.sha256,
                    requires_python=f.requires_python or known.requires_python,
                )
            )
        else:
            out.append(f)
    return out


def _norm(version: str) -> str:
    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def _file_version(f: FileRef, name: str) -> str | None:
    if f.is_wheel:
        try:
            return str(parse_wheel_filename(f.filename)[1])
        except InvalidWheelFilename:
            return None
    got = _sdist_version(f.filename, canonicalize_name(name))
    return _norm(got) if got else None


def _sdist_version(filename: str, canonical: str) -> str | None:
    """The version part of an sdist file name of project ``canonical``: the stem is cut at
    the first dash where what comes before is the project's name (``foo-bar-1.0.zip``,
    legacy ``Foo_Bar-1.0-beta.tar.gz``)."""
    lower = filename.lower()
    suffix = next((x for x in SDIST_SUFFIXES if lower.endswith(x)), None)
    if suffix is None:
        return None
    stem = filename[: -len(suffix)]
    for i, char in enumerate(stem):
        if char == "-" and canonicalize_name(stem[:i]) == canonical:
            return stem[i + 1 :] or None
    return None


def _resolve_from_index(
    entry: Entry,
    inputs: InputSet,
    target: Target,
    files: Sequence[FileRef],
    control: FormatControl,
) -> Resolution:
    name = entry.name
    try:
        spec = SpecifierSet(entry.specifier)
        for c in inputs.constraints:
            if c.key == entry.key and c.kind == "registry" and marker_applies(c.marker, target):
                spec &= SpecifierSet(c.specifier)
    except InvalidSpecifier as exc:  # pragma: no cover - Requirement parsed it already
        msg = f"{entry.origin}: {exc}"
        raise UsageError(msg) from None
    pinned = any(s.operator in ("==", "===") for s in spec)
    by_version: dict[Version, list[FileRef]] = {}
    for f in files:
        v = _file_version(f, name)
        if v is None:
            continue
        try:
            parsed = Version(v)
        except InvalidVersion:
            continue
        by_version.setdefault(parsed, []).append(f)
    candidates = [v for v in by_version if spec.contains(v, prereleases=True)]
    allow_pre = inputs.pre or bool(spec.prereleases)
    finals = [v for v in candidates if not v.is_prerelease]
    if not allow_pre and finals:
        candidates = finals
    described = f"{name}{spec}" if str(spec) else name
    where = "the index" if not inputs.find_links else "the index and --find-links"
    for version in sorted(candidates, reverse=True):
        group = by_version[version]
        if not pinned:
            group = [f for f in group if not f.yanked]
        group = _hash_allowed(
            [f for f in group if _python_ok(f.requires_python, target)], entry.hashes
        )
        if not group:
            continue
        source, wheel, sdist, why = _choose_from(name, group, target, control)
        if source == "unavailable":
            continue
        how = (
            f"pinned with =={version}"
            if pinned
            else f"newest release matching {described!r} on {where}, as pip would choose"
        )
        return Resolution(
            name=name,
            version=str(version),
            source=source,
            wheel=wheel,
            sdist=sdist,
            how=how + (f"; {why}" if why else ""),
        )
    return Resolution(
        name=name,
        version=entry.version,
        source="unavailable",
        how=f"no release matching {described!r} has a file {target.describe()} can install",
    )


class IndexFiles:
    """Lists every file of a project on an index (PEP 691 JSON or PEP 503 HTML) and in
    ``--find-links`` directories, with ``Requires-Python`` and yanked flags, memoised."""

    def __init__(
        self,
        index_urls: Sequence[str],
        find_links: Sequence[str] = (),
        *,
        cache_dir: Path | None = None,
    ) -> None:
        from ..pypi import Index

        self.indexes = [Index(url, cache_dir=cache_dir) for url in index_urls if url]
        self.find_links = [p for p in find_links if p]
        self._memo: dict[str, list[FileRef]] = {}

    def __call__(self, name: str) -> list[FileRef]:
        key = canonicalize_name(name)
        if key not in self._memo:
            files: list[FileRef] = []
            errors = []
            for index in self.indexes:
                try:
                    files.extend(index_files(index, key))
                except FetchError as exc:
                    errors.append(exc)
            for location in self.find_links:
                files.extend(_find_links_files(location, key))
            if not files and errors:
                raise errors[0]
            self._memo[key] = files
        return self._memo[key]


def index_files(index: Index, project: str) -> list[FileRef]:
    """Every file ``index`` lists for ``project``, with Requires-Python and yanked flags."""
    return [
        FileRef(
            filename=f.filename,
            url=f.url,
            sha256=f.sha256 or None,
            requires_python=f.requires_python,
            yanked=f.yanked,
            size=f.size,
            upload_time=f.upload_time,
        )
        for f in index.files(project)
        if f.kind in ("sdist", "wheel")
    ]


def _find_links_files(location: str, project: str) -> list[FileRef]:
    import hashlib

    path = Path(location.removeprefix("file://"))
    if not path.is_dir():
        return []
    out = []
    for file in sorted(path.iterdir()):
        if not file.is_file():
            continue
        probe = FileRef(filename=file.name)
        if _file_version(probe, project) is None:
            continue
        if probe.is_wheel and canonicalize_name(parse_wheel_filename(file.name)[0]) != project:
            continue
        out.append(
            FileRef(
                filename=file.name,
                url=file.resolve().as_uri(),
                sha256=hashlib.sha256(file.read_bytes()).hexdigest(),
            )
        )
    return out
