from __future__ import annotations

import hashlib
import os
import pickle
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fake_index import FakeIndex, Reply, html_page, make_sdist, serve, sha256

from sapper._exceptions import FetchError
from sapper.pypi import (
    DEFAULT_INDEX_URL,
    Download,
    Index,
    SdistFile,
    default_cache_dir,
    looks_like_requirement,
)

WRONG_SHA = "0" * 64


def _entry(path: str, data: bytes, **extra: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "filename": path.rsplit("/", 1)[-1],
        "url": path,
        "hashes": {"sha256": sha256(data)},
        "size": len(data),
        "upload-time": "2024-01-01T00:00:00.000000Z",
    }
    entry.update(extra)
    return entry


def build_index() -> FakeIndex:
    index = FakeIndex()

    def add(project: str, filename: str, **extra: object) -> dict[str, object]:
        path, data = index.add_file(filename)
        entry = _entry(path, data, **extra)
        index.json_projects.setdefault(project, []).append(entry)
        return entry

    # alpha: several versions, two sdists for 1.0, a yanked release, a wheel-only release,
    # a pre-release, and a file of another project that the page happens to list.
    add("alpha", "alpha-0.9.tar.gz")
    add("alpha", "alpha-1.0.zip")
    add("alpha", "alpha-1.0.tar.gz")
    add("alpha", "alpha-1.1.zip")
    add("alpha", "alpha-1.2.tar.gz", yanked="broken build")
    add("alpha", "alpha-1.3-py3-none-any.whl")
    add("alpha", "alpha-2.0b1.tar.gz")
    add("alpha", "alphabet-9.0.tar.gz")
    # a relative URL, resolved against the page URL
    index.json_projects["alpha"][0]["url"] = "../../files/alpha-0.9.tar.gz"

    # legacy names and versions
    add("legacy-thing", "legacy-thing-2004d.tar.gz")
    add("legacy-thing", "legacy_thing-0.5.tar.gz")
    add("legacy-thing", "Legacy.Thing-0.6.zip")
    add("legacy-thing", "legacy-thing-0.4.tar.bz2")
    add("only-legacy", "only-legacy-r9.tar.gz")
    add("only-legacy", "only-legacy-r10.tar.gz")
    add("dash-name", "dash-name-1.0.zip")
    add("dash-name", "dash-name-1.0-beta.tar.gz")
    add("pre-only", "pre-only-1.0a1.tar.gz")
    add("pre-only", "pre-only-1.0a2.tar.gz")
    add("wheels-only", "wheels_only-1.0-py3-none-any.whl")
    index.json_projects["empty"] = []

    # a file whose sha256 on the index is wrong
    add("badhash", "badhash-1.0.tar.gz", hashes={"sha256": WRONG_SHA})

    # an index that speaks a future major version of the JSON API
    index.raw_json["future"] = {"meta": {"api-version": "2.0"}, "files": []}

    # an HTML-only project (PEP 503): relative and absolute hrefs, a yanked file, no sha256
    for filename in ("htmlproj-1.0.tar.gz", "htmlproj-1.1.tar.gz", "htmlproj-0.9.zip"):
        index.add_file(filename)
    h10 = sha256(index.files["/files/htmlproj-1.0.tar.gz"])
    h11 = sha256(index.files["/files/htmlproj-1.1.tar.gz"])
    index.html_projects["htmlproj"] = html_page(
        [
            (f"../../files/htmlproj-1.0.tar.gz#sha256={h10}", ' data-requires-python="&gt;=3.8"'),
            (f"/files/htmlproj-1.1.tar.gz#sha256={h11}", ' data-yanked=""'),
            ("/files/htmlproj-0.9.zip#md5=0123456789abcdef", ""),
        ]
    )

    # flaky projects: their page answers errors first
    for project in ("flaky", "throttled", "slowdown"):
        add(project, f"{project}-1.0.tar.gz")
    index.scripted["/simple/flaky/"] = [Reply(503), Reply(503)]
    index.scripted["/simple/throttled/"] = [Reply(429, headers={"Retry-After": "7"})]
    index.scripted["/simple/slowdown/"] = [Reply(429, headers={"Retry-After": "3600"})]
    index.fixed["/simple/down/"] = Reply(503)
    index.fixed["/simple/private/"] = Reply(403)
    return index


@pytest.fixture
def fake() -> FakeIndex:
    return build_index()


@pytest.fixture
def url(fake: FakeIndex) -> Iterator[str]:
    with serve(fake) as index_url:
        yield index_url


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def index(url: str, tmp_path: Path, sleeps: Sleeps) -> Index:
    return Index(url, cache_dir=tmp_path / "cache", sleep=sleeps)


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file())


# -- resolve -----------------------------------------------------------------------------

RESOLVE_CASES = [
    pytest.param("alpha", "alpha-1.1.zip", id="newest final non-yanked with an sdist"),
    pytest.param("Alpha", "alpha-1.1.zip", id="name not canonical"),
    pytest.param("alpha==1.0", "alpha-1.0.tar.gz", id="tar.gz preferred over zip"),
    pytest.param("alpha==1.0.0", "alpha-1.0.tar.gz", id="version equality"),
    pytest.param("alpha===1.0", "alpha-1.0.tar.gz", id="arbitrary equality"),
    pytest.param("alpha<1.1", "alpha-1.0.tar.gz", id="range"),
    pytest.param("alpha~=1.0", "alpha-1.1.zip", id="compatible release skips yanked"),
    pytest.param("alpha==1.*", "alpha-1.1.zip", id="wildcard is not a pin"),
    pytest.param("alpha==1.2", "alpha-1.2.tar.gz", id="yanked chosen for an exact pin"),
    pytest.param("alpha>=1.2", "alpha-2.0b1.tar.gz", id="pre-release when nothing else"),
    pytest.param("alpha>=2.0b1", "alpha-2.0b1.tar.gz", id="specifier names a pre-release"),
    pytest.param(
        "alpha[extra] >=0.9, <1.0.1 ; python_version > '3'",
        "alpha-1.0.tar.gz",
        id="extras and markers ignored",
    ),
    pytest.param("alpha==0.9", "alpha-0.9.tar.gz", id="relative url"),
    pytest.param("legacy-thing", "Legacy.Thing-0.6.zip", id="legacy spelling of the name"),
    pytest.param("legacy_thing===2004d", "legacy-thing-2004d.tar.gz", id="legacy version"),
    pytest.param("legacy-thing<0.6", "legacy_thing-0.5.tar.gz", id="legacy after valid"),
    pytest.param("legacy-thing==0.4", "legacy-thing-0.4.tar.bz2", id="tar.bz2"),
    pytest.param("only-legacy", "only-legacy-r10.tar.gz", id="only legacy versions"),
    pytest.param("dash-name", "dash-name-1.0.zip", id="dash in name"),
    pytest.param("dash-name==1.0b0", "dash-name-1.0-beta.tar.gz", id="dash in version"),
    pytest.param("pre-only", "pre-only-1.0a2.tar.gz", id="only pre-releases"),
    pytest.param("htmlproj", "htmlproj-1.0.tar.gz", id="html page"),
    pytest.param("htmlproj==1.1", "htmlproj-1.1.tar.gz", id="html yanked pin"),
]


@pytest.mark.parametrize(("requirement", "filename"), RESOLVE_CASES)
def test_resolve(index: Index, requirement: str, filename: str) -> None:
    chosen = index.resolve(requirement)
    assert chosen.filename == filename
    assert chosen.url == f"{index.index_url.rsplit('/', 1)[0]}/files/{filename}"


RESOLVE_ERRORS = [
    pytest.param(
        "alpha==9.9",
        "alpha==9.9: no release of 'alpha' matches '==9.9' (newest is 1.3); "
        "check the version or drop the pin",
        id="no such version",
    ),
    pytest.param(
        "alpha>5",
        "alpha>5: no release of 'alpha' matches '>5' (newest is 1.3); check the version range",
        id="empty range",
    ),
    pytest.param(
        "alpha==1.3",
        "no sdist for alpha 1.3 on {url} (only wheels); sapper reads source distributions",
        id="wheel-only pin",
    ),
    pytest.param(
        "alpha>1.2,<2",
        "no sdist for alpha 1.3 on {url} (only wheels); sapper reads source distributions",
        id="range matching a wheel-only release",
    ),
    pytest.param(
        "alpha>=1.2,<1.3",
        "alpha>=1.2,<1.3: every matching sdist is yanked (1.2); "
        "pin one with '==1.2' to use it anyway",
        id="only yanked matches",
    ),
    pytest.param(
        "wheels-only",
        "no sdist for wheels-only 1.0 on {url} (only wheels); sapper reads source distributions",
        id="project without sdists",
    ),
    pytest.param(
        "empty", "no files for 'empty' on {url}; the project has no releases there", id="empty"
    ),
    pytest.param(
        "nope",
        "no project named 'nope' on {url}; check the spelling, or the index URL",
        id="404",
    ),
    pytest.param(
        "alpha @ https://example.com/alpha-1.0.tar.gz",
        "alpha @ https://example.com/alpha-1.0.tar.gz: sapper does not fetch URL requirements; "
        "download the file and pass its path instead",
        id="url requirement",
    ),
    pytest.param(
        "future",
        "{url}/future/ speaks version 2.0 of the simple API; sapper understands version 1 only",
        id="future api",
    ),
    pytest.param(
        "private",
        "{url}/private/ answered HTTP 403 Forbidden; "
        "check the index URL and its credentials (user:password@ in the URL)",
        id="403",
    ),
]


#: The errors a second try cannot change (the canary leaves them off its retry list).
PERMANENT = {
    "no such version",
    "empty range",
    "wheel-only pin",
    "range matching a wheel-only release",
    "only yanked matches",
    "project without sdists",
    "empty",
    "404",
    "url requirement",
}


@pytest.mark.parametrize(("requirement", "message"), RESOLVE_ERRORS)
def test_resolve_errors(
    index: Index, requirement: str, message: str, request: pytest.FixtureRequest
) -> None:
    with pytest.raises(FetchError) as excinfo:
        index.resolve(requirement)
    assert str(excinfo.value) == message.format(url=index.index_url)
    case = request.node.callspec.id
    assert excinfo.value.permanent is (case in PERMANENT)
    # the flag survives the trip from a worker process
    assert pickle.loads(pickle.dumps(excinfo.value)).permanent is (case in PERMANENT)
    # and so does what the error chains (tblib, which Dask installs, pickles the chain too;
    # urllib's HTTPError cannot be unpickled)
    chain = excinfo.value.__cause__ or excinfo.value.__context__
    while chain is not None:
        pickle.loads(pickle.dumps(chain))
        chain = chain.__cause__ or chain.__context__


def test_invalid_requirement(index: Index) -> None:
    with pytest.raises(FetchError, match=r"^'alpha==' is not a valid requirement \(.*\); "):
        index.resolve("alpha==")


def test_sdists_lists_every_sdist(index: Index, fake: FakeIndex) -> None:
    files = index.sdists("ALPHA")
    assert [f.filename for f in files] == [
        "alpha-0.9.tar.gz",
        "alpha-1.0.zip",
        "alpha-1.0.tar.gz",
        "alpha-1.1.zip",
        "alpha-1.2.tar.gz",
        "alpha-2.0b1.tar.gz",
    ]
    yanked = files[4]
    data = fake.files["/files/alpha-1.2.tar.gz"]
    assert yanked == SdistFile(
        name="alpha",
        version="1.2",
        filename="alpha-1.2.tar.gz",
        url=f"{index.index_url.rsplit('/', 1)[0]}/files/alpha-1.2.tar.gz",
        sha256=sha256(data),
        upload_time="2024-01-01T00:00:00.000000Z",
        size=len(data),
        yanked=True,
    )


def test_sdists_from_html(index: Index) -> None:
    files = {f.filename: f for f in index.sdists("htmlproj")}
    assert sorted(files) == ["htmlproj-0.9.zip", "htmlproj-1.0.tar.gz", "htmlproj-1.1.tar.gz"]
    assert files["htmlproj-1.1.tar.gz"].yanked
    assert not files["htmlproj-1.0.tar.gz"].yanked
    assert files["htmlproj-0.9.zip"].sha256 == ""
    assert files["htmlproj-1.0.tar.gz"].upload_time is None
    assert files["htmlproj-1.0.tar.gz"].name == "htmlproj"


def test_legacy_version_kept_as_string(index: Index) -> None:
    versions = sorted(f.version for f in index.sdists("legacy-thing"))
    assert versions == ["0.4", "0.5", "0.6", "2004d"]
    assert index.resolve("dash-name==1.0b0").version == "1.0-beta"


def test_headers_sent(index: Index, fake: FakeIndex) -> None:
    index.resolve("alpha")
    (request,) = fake.requests
    assert request.headers["Accept"].startswith("application/vnd.pypi.simple.v1+json")
    assert re.fullmatch(r"sapper/\S+ \(\+https://\S+\)", request.headers["User-Agent"])


# -- download and cache ------------------------------------------------------------------


def test_fetch_downloads_and_caches(index: Index, fake: FakeIndex, tmp_path: Path) -> None:
    download = index.fetch("alpha==1.0")
    data = fake.files["/files/alpha-1.0.tar.gz"]
    digest = sha256(data)
    assert download == Download(
        file=download.file,
        path=tmp_path / "cache" / "sdists" / digest[:2] / digest / "alpha-1.0.tar.gz",
        from_cache=False,
        size=len(data),
    )
    # streamed to the cache, not held: the bytes are read from the file when asked
    assert download.body is None
    assert download.path is not None
    assert download.path.read_bytes() == download.data == data
    assert not [p for p in files_under(tmp_path) if p.name.endswith(".part")]


def test_download_cut_midway_is_retried_from_the_start(
    index: Index, fake: FakeIndex, sleeps: Sleeps, tmp_path: Path
) -> None:
    data = fake.files["/files/alpha-1.0.tar.gz"]
    # the first answer stops halfway through the body it announced
    fake.scripted["/files/alpha-1.0.tar.gz"] = [
        Reply(200, data[: len(data) // 2], declared=len(data))
    ]
    download = index.fetch("alpha==1.0")
    assert len(sleeps) == 1
    assert download.path is not None
    assert download.path.read_bytes() == data
    assert download.size == len(data)
    assert not [p for p in files_under(tmp_path) if p.name.endswith(".part")]


def test_unwritable_cache_is_not_retried_as_a_network_error(
    url: str, fake: FakeIndex, sleeps: Sleeps, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    index = Index(url, cache_dir=cache, sleep=sleeps)
    file = index.resolve("alpha==1.0")
    (cache / "sdists").write_text("not a folder")
    with pytest.raises(FetchError, match=r"^could not write a download to the cache in "):
        index.download(file)
    assert sleeps == []
    assert fake.paths_requested().count("/files/alpha-1.0.tar.gz") == 0


def test_cache_hit_makes_no_request(index: Index, fake: FakeIndex) -> None:
    file = index.resolve("alpha==1.1")
    first = index.download(file)
    requests = len(fake.requests)
    second = index.download(file)
    assert len(fake.requests) == requests
    assert (first.from_cache, second.from_cache) == (False, True)
    assert second.data == first.data
    assert second.path == first.path


def test_damaged_cache_entry_is_replaced(index: Index, fake: FakeIndex) -> None:
    file = index.resolve("alpha==1.1")
    path = index.download(file).path
    assert path is not None
    path.write_bytes(b"garbage")
    again = index.download(file)
    assert not again.from_cache
    assert path.read_bytes() == fake.files["/files/alpha-1.1.zip"]


def test_sha_mismatch_leaves_nothing(index: Index, tmp_path: Path) -> None:
    file = index.resolve("badhash")
    with pytest.raises(FetchError) as excinfo:
        index.download(file)
    actual = sha256(make_sdist("badhash", "1.0"))
    assert str(excinfo.value) == (
        f"badhash-1.0.tar.gz: sha256 mismatch (index says {WRONG_SHA}, downloaded {actual}); "
        "the download was discarded"
    )
    # the project page is cached (pages/), the archive is not
    assert [p for p in files_under(tmp_path) if "pages" not in p.parts] == []


def test_no_cache_writes_nothing(
    url: str, fake: FakeIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAPPER_CACHE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    index = Index(url, cache_dir=None)
    assert index.cache_dir is None
    first = index.fetch("alpha==1.0")
    second = index.fetch("alpha==1.0")
    assert (first.path, first.from_cache, second.from_cache) == (None, False, False)
    assert first.body == first.data == fake.files["/files/alpha-1.0.tar.gz"]
    assert list(tmp_path.iterdir()) == []
    # the parsed page is kept in memory only, for the life of the Index
    assert fake.paths_requested().count("/simple/alpha/") == 1
    assert fake.paths_requested().count("/files/alpha-1.0.tar.gz") == 2


def test_offline_fetch_of_exact_pin(tmp_path: Path, sleeps: Sleeps) -> None:
    fake = build_index()
    cache = tmp_path / "cache"
    with serve(fake) as url:
        online = Index(url, cache_dir=cache, sleep=sleeps).fetch("alpha==1.0")
    assert not online.from_cache
    offline = Index(url, cache_dir=cache, sleep=sleeps, retries=0, page_max_age=0)
    again = offline.fetch("alpha == 1.0")
    assert again.from_cache
    assert again.data == online.data
    assert again.file == online.file
    # Ranges and bare names need the page, which must be revalidated once it is stale.
    with pytest.raises(FetchError, match=r"^could not fetch the page of 'alpha' from .* after 1 "):
        offline.fetch("alpha>=1")
    # While it is fresh (PyPI says max-age=600; here the default), no request is needed.
    fresh = Index(url, cache_dir=cache, sleep=sleeps, retries=0)
    assert fresh.resolve("alpha>=1").filename == "alpha-1.1.zip"


def test_resolution_cache_is_per_index(tmp_path: Path) -> None:
    fake = build_index()
    cache = tmp_path / "cache"
    with serve(fake) as url:
        Index(url, cache_dir=cache).fetch("alpha==1.0")
    other = Index("http://127.0.0.1:9/simple", cache_dir=cache, retries=0)
    with pytest.raises(FetchError, match="could not fetch"):
        other.fetch("alpha==1.0")


def test_missing_sha256_is_refused(index: Index) -> None:
    file = index.resolve("htmlproj==0.9")
    with pytest.raises(FetchError) as excinfo:
        index.download(file)
    assert str(excinfo.value) == (
        f"htmlproj-0.9.zip: the index gives no sha256 for it ({file.url}); "
        "sapper only downloads archives it can verify"
    )


def test_html_download_via_relative_url(index: Index) -> None:
    download = index.fetch("htmlproj")
    assert hashlib.sha256(download.data).hexdigest() == download.file.sha256


def test_suspicious_filename_is_refused(index: Index, tmp_path: Path) -> None:
    file = SdistFile(
        name="evil",
        version="1.0",
        filename="../evil-1.0.tar.gz",
        url=f"{index.index_url}/../files/alpha-1.0.tar.gz",
        sha256="a" * 64,
        upload_time=None,
        size=None,
        yanked=False,
    )
    with pytest.raises(FetchError, match=re.escape("suspicious filename '../evil-1.0.tar.gz'")):
        index.download(file)
    assert files_under(tmp_path) == []


def test_download_size_limit(url: str, tmp_path: Path) -> None:
    index = Index(url, cache_dir=tmp_path, max_size=100)
    file = Index(url, cache_dir=None).resolve("alpha==1.0")
    with pytest.raises(FetchError) as excinfo:
        index.download(file)
    assert str(excinfo.value) == (
        "alpha-1.0.tar.gz is larger than the 100 byte download limit; "
        "sapper does not read archives that large"
    )


def test_thread_pool(index: Index) -> None:
    pins = ["alpha==0.9", "alpha==1.0", "alpha==1.1", "legacy-thing==0.5", "pre-only"] * 4
    with ThreadPoolExecutor(max_workers=8) as pool:
        downloads = list(pool.map(index.fetch, pins))
    assert [d.file.filename for d in downloads[:5]] == [
        "alpha-0.9.tar.gz",
        "alpha-1.0.tar.gz",
        "alpha-1.1.zip",
        "legacy_thing-0.5.tar.gz",
        "pre-only-1.0a2.tar.gz",
    ]
    assert all(hashlib.sha256(d.data).hexdigest() == d.file.sha256 for d in downloads)


# -- HTTP retries ------------------------------------------------------------------------


def test_retries_on_503(index: Index, fake: FakeIndex, sleeps: Sleeps) -> None:
    assert index.resolve("flaky").filename == "flaky-1.0.tar.gz"
    assert sleeps == [0.5, 1.0]
    assert fake.paths_requested() == ["/simple/flaky/"] * 3


@pytest.mark.parametrize(("project", "delay"), [("throttled", 7.0), ("slowdown", 60.0)])
def test_retry_after(index: Index, sleeps: Sleeps, project: str, delay: float) -> None:
    assert index.resolve(project).version == "1.0"
    assert sleeps == [delay]


def test_gives_up_after_retries(index: Index, fake: FakeIndex, sleeps: Sleeps) -> None:
    with pytest.raises(FetchError) as excinfo:
        index.resolve("down")
    assert str(excinfo.value) == (
        f"{index.index_url}/down/ answered HTTP 503 Service Unavailable 4 times; "
        "the index is overloaded or down, try again later"
    )
    assert sleeps == [0.5, 1.0, 2.0]
    assert len(fake.requests) == 4


def test_connection_errors_are_retried(sleeps: Sleeps) -> None:
    index = Index("http://127.0.0.1:9/simple", cache_dir=None, retries=2, sleep=sleeps)
    with pytest.raises(FetchError) as excinfo:
        index.resolve("alpha")
    message = str(excinfo.value)
    assert message.startswith(
        "could not fetch the page of 'alpha' from http://127.0.0.1:9/simple/alpha/ "
        "after 3 attempts: "
    )
    assert message.endswith("; check the network connection and the index URL, or try again later")
    assert sleeps == [0.5, 1.0]


def test_credentials_are_sent_and_hidden(fake: FakeIndex, url: str) -> None:
    authed = url.replace("http://", "http://user:s3cret@")
    index = Index(authed, cache_dir=None)
    assert index.index_url == url
    index.fetch("alpha==1.0")
    assert {r.headers.get("Authorization") for r in fake.requests} == {"Basic dXNlcjpzM2NyZXQ="}
    with pytest.raises(FetchError) as excinfo:
        Index(authed.replace("http", "ftp", 1))
    assert "s3cret" not in str(excinfo.value)


def test_bad_index_url() -> None:
    with pytest.raises(FetchError) as excinfo:
        Index("pypi.org/simple", cache_dir=None)
    assert str(excinfo.value) == (
        "index URL 'pypi.org/simple' is not an http(s) URL; give one like 'https://pypi.org/simple'"
    )


# -- helpers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("stringcase", True),
        ("stringcase==1.2.0", True),
        ("requests>=2", True),
        ("zope.interface", True),
        ("Foo_Bar[extra]>=1; python_version>'3'", True),
        ("foo @ https://example.com/foo-1.0.tar.gz", True),
        ("stringcase-1.2.0.tar.gz", False),
        ("stringcase-1.2.0.zip", False),
        ("dist/stringcase", False),
        (f"some{os.sep}dir", False),
        (".", False),
        ("./project", False),
        ("", False),
        ("==1.0", False),
    ],
)
def test_looks_like_requirement(text: str, expected: bool) -> None:
    assert looks_like_requirement(text) is expected


def test_existing_path_is_not_a_requirement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stringcase").mkdir()
    assert not looks_like_requirement("stringcase")


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SAPPER_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    assert Index().cache_dir == tmp_path / "c"
    assert Index().index_url == DEFAULT_INDEX_URL
    monkeypatch.delenv("SAPPER_CACHE_DIR")
    assert default_cache_dir().name == "sapper"


# -- the real PyPI -----------------------------------------------------------------------


@pytest.mark.network
def test_real_pypi(tmp_path: Path) -> None:
    index = Index(DEFAULT_INDEX_URL, cache_dir=tmp_path)
    file = index.resolve("stringcase==1.2.0")
    assert file.filename == "stringcase-1.2.0.tar.gz"
    assert re.fullmatch(r"[0-9a-f]{64}", file.sha256)
    download = index.download(file)
    assert hashlib.sha256(download.data).hexdigest() == file.sha256


def test_canary_marks_what_no_rerun_changes(url: str, tmp_path: Path) -> None:
    """A project with only wheels is a prepare-fail of the canary that stays off its retry
    list; an index that cannot be reached is one worth retrying."""
    from sapper.canary.engine import CanaryOptions, _resolve
    from sapper.canary.model import parse_backend

    def rows(index_url: str) -> dict[str, bool]:
        options = CanaryOptions(
            baseline=parse_backend("77.0.3"),
            candidate=parse_backend("78.0.1"),
            index_url=index_url,
            cache_dir=tmp_path / "cache",
        )
        found = list(_resolve(["wheels-only", "nope", "alpha==1.0"], None, options))
        return {getattr(r, "target", ""): r.permanent for r in found if hasattr(r, "permanent")}

    assert rows(url) == {"wheels-only": True, "nope": True}
    assert rows("http://127.0.0.1:9/simple") == {
        "wheels-only": False,
        "nope": False,
        "alpha==1.0": False,
    }
