"""The values the index hands out: files, downloads, and a project's listing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from packaging.tags import Tag

    from ._pages import Page

__all__ = ["Download", "FileKind", "ProjectListing", "ReleaseFile", "SdistFile"]

#: What a file of a release is: a source distribution, a wheel, or anything else the index
#: lists (eggs, Windows installers...).
FileKind = Literal["sdist", "wheel", "other"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SdistFile:
    """One source distribution file as the index lists it."""

    #: Project name as the index spells it (the canonical form for HTML indexes).
    name: str
    #: Release version as the filename spells it (may be a legacy, non-PEP 440 string).
    version: str
    filename: str
    #: Absolute download URL, without the ``#sha256=`` fragment.
    url: str
    #: Lower-case hex sha256 the index publishes; empty when it publishes none.
    sha256: str
    upload_time: str | None
    size: int | None
    yanked: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseFile:
    """Any file of a release as the index lists it: an sdist, a wheel (with its tags), or
    another kind of file."""

    #: Project name as the index spells it.
    name: str
    #: Release version: as the filename spells it for sdists (may be a legacy string), as
    #: the wheel filename spells it for wheels, empty for files of another kind.
    version: str
    kind: FileKind
    filename: str
    #: Absolute download URL, without the ``#sha256=`` fragment.
    url: str
    #: Lower-case hex sha256 the index publishes; empty when it publishes none.
    sha256: str
    upload_time: str | None
    size: int | None
    yanked: bool
    #: Why the file was yanked, when the index says (PEP 592).
    yanked_reason: str | None
    #: The file's ``Requires-Python`` as the index publishes it (PEP 503 / PEP 691).
    requires_python: str | None
    #: The tags a wheel is compatible with (``packaging.tags.Tag``, compressed tag sets
    #: expanded); empty for sdists and other files.
    tags: frozenset[Tag]

    @property
    def is_pure(self) -> bool:
        """A wheel for any platform and ABI (a ``*-none-any`` tag)."""
        return any(t.abi == "none" and t.platform == "any" for t in self.tags)

    def as_sdist(self) -> SdistFile:
        """This file as an :class:`SdistFile` (what :meth:`Index.download` takes)."""
        return SdistFile(
            name=self.name,
            version=self.version,
            filename=self.filename,
            url=self.url,
            sha256=self.sha256,
            upload_time=self.upload_time,
            size=self.size,
            yanked=self.yanked,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Download:
    """A downloaded file whose bytes match the sha256 the index published.

    With a cache, the file was streamed to disk while hashed and is not held in memory:
    :attr:`data` reads it from :attr:`path` when asked (a caller that can read a stream
    should open the path instead). Without a cache, the bytes are held in :attr:`body`.
    """

    file: SdistFile
    #: Where the archive sits in the cache (``None`` when the index has no cache).
    path: Path | None
    from_cache: bool
    #: Its size in bytes.
    size: int
    #: Its bytes, when there is no cache (``path`` is None); None otherwise.
    body: bytes | None = field(default=None, repr=False)

    @property
    def data(self) -> bytes:
        """The file's bytes (read from the cache, whole, when it is there)."""
        if self.body is not None:
            return self.body
        assert self.path is not None
        return self.path.read_bytes()


class ProjectListing:
    """Every file of a project as the index lists it, turned into objects on demand.

    The page is parsed once into light records; :class:`SdistFile` and
    :class:`ReleaseFile` objects are only made for what is asked for (reading the ten
    thousand files of a big project's page costs little when one release is wanted).
    Immutable; safe to share between threads and to pickle.
    """

    __slots__ = ("_page", "name")

    #: Project name as the index spells it.
    name: str

    def __init__(self, page: Page) -> None:
        self._page = page
        self.name = page.display_name()

    def __repr__(self) -> str:
        return f"ProjectListing({self.name!r}, {self._page.file_count()} files)"

    def __getstate__(self) -> Page:
        return self._page

    def __setstate__(self, page: Page) -> None:
        self.__init__(page)  # type: ignore[misc]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProjectListing) and other._page == self._page

    def __hash__(self) -> int:
        return hash(self._page)

    @property
    def page_url(self) -> str:
        return self._page.url

    @property
    def sdists(self) -> tuple[SdistFile, ...]:
        """Every sdist of every release, in the order of the page."""
        return self._page.sdists()

    def sdists_by_version(self) -> dict[str, list[int]]:
        """The positions of the sdists of each release, by version as the filename spells it.

        Turn a position into a file with :meth:`sdist_at`; only those are built.
        """
        return self._page.sdist_positions()

    def sdist_order(self) -> tuple[str, ...]:
        """The keys of :meth:`sdists_by_version` that are PEP 440 versions, oldest first."""
        return self._page.sdist_order()

    def sdist_at(self, position: int) -> SdistFile:
        return self._page.sdist_at(position)

    def sdist_meta(self, position: int) -> tuple[str, str, str | None, bool]:
        """``(filename, sha256, upload_time, yanked)`` of an sdist, without building it."""
        return self._page.sdist_meta(position)

    @property
    def wheel_versions(self) -> frozenset[str]:
        """Versions (as the wheel filenames spell them, PEP 440-normalised) with a wheel."""
        return self._page.wheel_versions()[0]

    @property
    def pure_wheel_versions(self) -> frozenset[str]:
        """Versions that have a pure-Python (``*-none-any``) wheel."""
        return self._page.wheel_versions()[1]

    @property
    def versions(self) -> frozenset[str]:
        """Every version any file on the page belongs to (and the PEP 700 ``versions``)."""
        return self._page.all_versions()

    def files(self, version: str | None = None) -> tuple[ReleaseFile, ...]:
        """Every file the index lists for ``version`` (all files when None), in page order.

        ``version`` is matched as PEP 440 versions compare (``1.0`` finds ``1.0.0`` files);
        a legacy version only by its exact text. Wheels carry their tags.
        """
        return self._page.release_files(version)
