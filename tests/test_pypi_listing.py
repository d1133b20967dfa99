"""The per-release file list (``ProjectListing.files``) and the project-page cache."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from fake_index import FakeIndex, serve, sha256
from packaging.tags import Tag

from sapper._exceptions import FetchError
from sapper.pypi import Index, ProjectListing, ReleaseFile


def _add(index: FakeIndex, project: str, filename: str, **extra: object) -> None:
    path, data = index.add_file(filename, b"x" + filename.encode())
    entry: dict[str, object] = {
        "filename": filename,
        "url": path,
        "hashes": {"sha256": sha256(data)},
        "size": len(data),
        "upload-time": "2024-05-01T10:00:00Z",
    }
    entry.update(extra)
    index.json_projects.setdefault(project, []).append(entry)


@pytest.fixture
def fake() -> FakeIndex:
    index = FakeIndex()
    _add(index, "beta", "beta-1.0.tar.gz", **{"requires-python": ">=3.8"})
    _add(index, "beta", "beta-1.0-py2.py3-none-any.whl")
    _add(index, "beta", "beta-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    _add(index, "beta", "beta-1.0.0.win32.exe")
    _add(index, "beta", "beta-1.1-cp311-cp311-win_amd64.whl", yanked="broken wheel")
    _add(index, "beta", "beta-1.2.tar.gz")
    _add(index, "beta", "beta-1.2-py3-none-any.whl")
    _add(index, "beta", "beta-1.3-bad.whl")  # not a valid wheel name
    _add(index, "beta", "other-1.0-py3-none-any.whl")  # another project's wheel
    _add(index, "gamma", "gamma-1.0.tar.gz")
    index.page_headers["gamma"] = {"ETag": '"v1"', "Cache-Control": "max-age=0"}
    _add(index, "delta", "delta-1.0.tar.gz")
    index.page_headers["delta"] = {"Last-Modified": "Wed, 01 May 2024 10:00:00 GMT"}
    return index


def _index(url: str, tmp_path: Path, **kwargs: object) -> Index:
    return Index(url, cache_dir=tmp_path / "cache", **kwargs)  # type: ignore[arg-type]


def test_files_of_a_release(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        listing = _index(url, tmp_path).listing("Beta")
    files = listing.files("1.0.0")  # matched as PEP 440 versions compare
    assert [(f.kind, f.filename) for f in files] == [
        ("sdist", "beta-1.0.tar.gz"),
        ("wheel", "beta-1.0-py2.py3-none-any.whl"),
        ("wheel", "beta-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
    ]
    sdist, pure, binary = files
    assert sdist.requires_python == ">=3.8"
    assert sdist.tags == frozenset()
    assert not sdist.is_pure
    assert pure.tags == {Tag("py2", "none", "any"), Tag("py3", "none", "any")}
    assert pure.is_pure
    assert binary.tags == {
        Tag("cp312", "cp312", "manylinux_2_17_x86_64"),
        Tag("cp312", "cp312", "manylinux2014_x86_64"),
    }
    assert not binary.is_pure
    data = fake.files["/files/beta-1.0-py2.py3-none-any.whl"]
    assert pure == ReleaseFile(
        name="beta",
        version="1.0",
        kind="wheel",
        filename="beta-1.0-py2.py3-none-any.whl",
        url=f"{url.rsplit('/', 1)[0]}/files/beta-1.0-py2.py3-none-any.whl",
        sha256=sha256(data),
        upload_time="2024-05-01T10:00:00Z",
        size=len(data),
        yanked=False,
        yanked_reason=None,
        requires_python=None,
        tags=pure.tags,
    )
    assert [f.filename for f in listing.files("1.1")] == ["beta-1.1-cp311-cp311-win_amd64.whl"]
    assert listing.files("1.1")[0].yanked
    assert listing.files("1.1")[0].yanked_reason == "broken wheel"
    assert listing.files("9.9") == ()


def test_every_file(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        listing = _index(url, tmp_path).listing("beta")
    assert [(f.kind, f.filename) for f in listing.files()] == [
        ("sdist", "beta-1.0.tar.gz"),
        ("wheel", "beta-1.0-py2.py3-none-any.whl"),
        ("wheel", "beta-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
        ("other", "beta-1.0.0.win32.exe"),
        ("wheel", "beta-1.1-cp311-cp311-win_amd64.whl"),
        ("sdist", "beta-1.2.tar.gz"),
        ("wheel", "beta-1.2-py3-none-any.whl"),
    ]
    assert listing.wheel_versions == {"1.0", "1.1", "1.2"}
    assert listing.pure_wheel_versions == {"1.0", "1.2"}
    assert listing.versions == {"1.0", "1.1", "1.2"}
    assert [f.filename for f in listing.sdists] == ["beta-1.0.tar.gz", "beta-1.2.tar.gz"]
    # picklable (the audit and the scan hand listings to worker processes)
    again = pickle.loads(pickle.dumps(listing))
    assert isinstance(again, ProjectListing)
    assert again == listing
    assert again.files("1.2") == listing.files("1.2")


def test_download_a_wheel(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        index = _index(url, tmp_path)
        (wheel,) = [f for f in index.files("beta", "1.2") if f.kind == "wheel"]
        got = index.download(wheel)
    assert got.data == fake.files["/files/beta-1.2-py3-none-any.whl"]
    assert got.file.filename == wheel.filename
    assert got.path is not None
    assert got.path.relative_to(tmp_path / "cache").parts[0] == "wheels"


def _page_requests(fake: FakeIndex, project: str) -> list[dict[str, str]]:
    return [r.headers for r in fake.requests if r.path == f"/simple/{project}/"]


def test_fresh_page_is_not_asked_again(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        _index(url, tmp_path).resolve("beta")
        # another Index (another run) with the same cache: the page is fresh (600 s)
        assert _index(url, tmp_path).resolve("beta").filename == "beta-1.2.tar.gz"
        assert len(_page_requests(fake, "beta")) == 1
        # page_max_age=0: asked again (the fake index gives no validators: a full GET)
        _index(url, tmp_path, page_max_age=0).resolve("beta")
    requests = _page_requests(fake, "beta")
    assert len(requests) == 2
    assert "If-None-Match" not in requests[1]


@pytest.mark.parametrize(
    ("project", "header", "value"),
    [
        pytest.param("gamma", "If-None-Match", '"v1"', id="etag, max-age=0"),
        pytest.param("delta", "If-Modified-Since", "Wed, 01 May 2024 10:00:00 GMT", id="date"),
    ],
)
def test_stale_page_is_revalidated(
    fake: FakeIndex, tmp_path: Path, project: str, header: str, value: str
) -> None:
    with serve(fake) as url:
        first = _index(url, tmp_path, page_max_age=0).resolve(project)
        second = _index(url, tmp_path, page_max_age=0).resolve(project)
        # the index changes the page: a new validator, a new release
        _add(fake, project, f"{project}-2.0.tar.gz")
        fake.page_headers[project] = {"ETag": '"v2"'}
        third = _index(url, tmp_path, page_max_age=0).resolve(project)
    assert first == second
    assert third.filename == f"{project}-2.0.tar.gz"
    requests = _page_requests(fake, project)
    assert len(requests) == 3
    assert header not in requests[0]
    assert requests[1][header] == value  # answered 304: the cached body was used
    assert requests[2][header] == value  # answered 200 with the new page


def test_max_age_zero_from_the_index_wins(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        _index(url, tmp_path).resolve("gamma")
        _index(url, tmp_path).resolve("gamma")
    assert len(_page_requests(fake, "gamma")) == 2


def test_damaged_page_cache_is_refetched(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        _index(url, tmp_path).resolve("beta")
        pages = tmp_path / "cache" / "pages"
        for body in pages.rglob("*.body"):
            body.write_bytes(b"{not json")
        # the summary still answers what resolution needs; the body is checked when read
        listing = _index(url, tmp_path).listing("beta")
        assert [f.filename for f in listing.sdists] == ["beta-1.0.tar.gz", "beta-1.2.tar.gz"]
        with pytest.raises(FetchError, match="cached page of 'beta' changed or vanished"):
            listing.files()
        for summary in pages.rglob("*.summary"):
            summary.unlink()
        assert _index(url, tmp_path).resolve("beta").filename == "beta-1.2.tar.gz"
    assert len(_page_requests(fake, "beta")) == 2


def test_stale_page_and_no_network(fake: FakeIndex, tmp_path: Path) -> None:
    with serve(fake) as url:
        _index(url, tmp_path).resolve("beta")
    offline = _index(url, tmp_path, retries=0, page_max_age=0)
    with pytest.raises(FetchError, match=r"^could not fetch the page of 'beta'"):
        offline.resolve("beta")


def test_a_rerun_reads_the_summary_not_the_page(
    fake: FakeIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sapper.pypi import _pages

    parsed: list[str] = []
    real = _pages._parse_json

    def counting(body: bytes, page_url: str, *, where: str) -> object:
        parsed.append(where)
        return real(body, page_url, where=where)

    monkeypatch.setattr(_pages, "_parse_json", counting)
    with serve(fake) as url:
        first = _index(url, tmp_path).listing("beta")
        assert len(parsed) == 1
        again = _index(url, tmp_path).listing("beta")  # fresh page: its summary is read
        assert len(parsed) == 1
        assert again == first
        assert again.sdists == first.sdists
        assert (again.wheel_versions, again.pure_wheel_versions) == (
            first.wheel_versions,
            first.pure_wheel_versions,
        )
        # the full file list is parsed from the cached body when asked for
        assert again.files("1.0") == first.files("1.0")
        assert len(parsed) == 2
        # a summary made from another body is not used
        summary = next((tmp_path / "cache" / "pages").rglob("*.summary"))
        summary.write_bytes(b"0" * 64 + b"\n" + summary.read_bytes().partition(b"\n")[2])
        assert _index(url, tmp_path).listing("beta") == first
        assert len(parsed) == 3
        # nor a damaged one
        summary.write_bytes(summary.read_bytes().partition(b"\n")[0] + b"\n{broken")
        assert _index(url, tmp_path).listing("beta") == first
        assert len(parsed) == 4
    assert len(_page_requests(fake, "beta")) == 1
