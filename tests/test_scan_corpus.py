"""What `sapper scan` reads: sources, list files, the top list, version policies."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_index import FakeIndex, serve, sha256

from sapper._exceptions import FetchError, UsageError
from sapper.pypi import Index
from sapper.scan.corpus import Item, VersionPolicy, expand, parse_versions, resolve, top_list


def _add(index: FakeIndex, project: str, filename: str, when: str, **extra: object) -> None:
    path, data = index.add_file(filename)
    entry: dict[str, object] = {
        "filename": filename,
        "url": path,
        "hashes": {"sha256": sha256(data)},
        "size": len(data),
        "upload-time": when,
    }
    entry.update(extra)
    index.json_projects.setdefault(project, []).append(entry)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    fake = FakeIndex()
    # omega: releases over three years, a yanked one, a pre-release, wheels for some
    _add(fake, "omega", "omega-1.0.tar.gz", "2018-03-01T00:00:00Z")
    _add(fake, "omega", "omega-1.1.tar.gz", "2018-11-01T00:00:00Z")
    _add(fake, "omega", "omega-1.1.zip", "2018-11-01T00:00:00Z")
    _add(fake, "omega", "omega-2.0.tar.gz", "2019-06-01T00:00:00Z")
    _add(fake, "omega", "omega-2.0-cp312-cp312-manylinux_2_17_x86_64.whl", "2019-06-01T00:00:00Z")
    _add(fake, "omega", "omega-2.1.tar.gz", "2019-12-31T23:00:00Z", yanked=True)
    _add(fake, "omega", "omega-3.0.tar.gz", "2021-01-05T00:00:00Z")
    _add(fake, "omega", "omega-3.0-py3-none-any.whl", "2021-01-05T00:00:00Z")
    _add(fake, "omega", "omega-4.0rc1.tar.gz", "2022-01-05T00:00:00Z")
    # beta: only pre-releases for years (as black until 2022), then finals
    _add(fake, "beta", "beta-18.3a0.tar.gz", "2018-03-01T00:00:00Z")
    _add(fake, "beta", "beta-19.3b0.tar.gz", "2019-03-01T00:00:00Z")
    _add(fake, "beta", "beta-22.1.0.tar.gz", "2022-01-29T00:00:00Z")
    _add(fake, "beta", "beta-22.3.0rc1.tar.gz", "2022-03-01T00:00:00Z")
    with serve(fake) as url:
        yield Index(url, cache_dir=tmp_path_factory.mktemp("cache"), retries=0)


@pytest.mark.parametrize(
    ("policy", "versions"),
    [
        ("newest", ["3.0"]),
        ("all", ["1.0", "1.1", "2.0", "3.0"]),
        ("before:2019-01-01", ["1.1"]),
        ("before:2018-01-01", []),
        ("newest-per-year", ["1.1", "2.0", "3.0"]),
    ],
)
def test_policies_choose_releases(index: Index, policy: str, versions: list[str]) -> None:
    if not versions:
        with pytest.raises(FetchError, match=r"no release with an sdist matches --versions"):
            resolve(index, "omega", parse_versions(policy))
        return
    jobs = resolve(index, "omega", parse_versions(policy))
    assert [j.version for j in jobs] == versions


@pytest.mark.parametrize(
    ("requirement", "policy", "versions"),
    [
        # pip chose among the releases there were then: only pre-releases before 2022
        ("beta", "before:2020-01-01", ["19.3b0"]),
        ("beta", "before:2019-01-01", ["18.3a0"]),
        ("beta", "before:2022-02-01", ["22.1.0"]),
        ("beta", "before:2023-01-01", ["22.1.0"]),  # a final release hides a later rc
        ("beta", "newest-per-year", ["18.3a0", "19.3b0", "22.1.0"]),
        ("beta", "newest", ["22.1.0"]),
        ("beta", "all", ["22.1.0"]),
        ("beta<20", "newest", ["19.3b0"]),  # nothing final matches: the pre-releases do
        ("beta>=22.3.0rc1", "before:2023-01-01", ["22.3.0rc1"]),  # named: allowed
    ],
)
def test_pre_releases_as_pip_chose_them_then(
    index: Index, requirement: str, policy: str, versions: list[str]
) -> None:
    jobs = resolve(index, requirement, parse_versions(policy))
    assert [j.version for j in jobs] == versions


def test_a_job_carries_what_the_index_says(index: Index) -> None:
    by_version = {j.version: j for j in resolve(index, "omega", parse_versions("all"))}
    assert by_version["1.1"].filename == "omega-1.1.tar.gz"  # preferred over the .zip
    assert (by_version["2.0"].has_wheel, by_version["2.0"].has_pure_wheel) == (True, False)
    assert (by_version["3.0"].has_wheel, by_version["3.0"].has_pure_wheel) == (True, True)
    assert (by_version["1.0"].has_wheel, by_version["1.0"].has_pure_wheel) == (False, False)
    job = by_version["3.0"]
    assert job.upload_time == "2021-01-05T00:00:00Z"
    assert job.sha256 is not None and len(job.sha256) == 64
    assert job.size is not None and job.target == "omega"


@pytest.mark.parametrize(
    ("requirement", "versions"),
    [
        ("omega==2.1", ["2.1"]),  # an exact pin takes a yanked release
        ("omega<3", ["2.0"]),
        ("omega>=4.0rc1", ["4.0rc1"]),  # a specifier naming a pre-release allows it
    ],
)
def test_requirements_narrow_the_releases(
    index: Index, requirement: str, versions: list[str]
) -> None:
    assert [j.version for j in resolve(index, requirement, parse_versions("newest"))] == versions


@pytest.mark.parametrize(
    ("requirement", "message"),
    [
        ("nosuch", "no project named 'nosuch'"),
        ("omega==9.9", "no release of 'omega' matches"),
        ("omega @ https://example.org/o.tar.gz", "does not fetch URL requirements"),
    ],
)
def test_resolution_failures_say_why(index: Index, requirement: str, message: str) -> None:
    with pytest.raises(FetchError, match=message):
        resolve(index, requirement, parse_versions("newest"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("newest", VersionPolicy(kind="newest")),
        ("all", VersionPolicy(kind="all")),
        ("newest-per-year", VersionPolicy(kind="newest-per-year")),
        ("before:2020-01-01", VersionPolicy(kind="before", before=dt.date(2020, 1, 1))),
    ],
)
def test_parse_versions(text: str, expected: VersionPolicy) -> None:
    assert parse_versions(text) == expected


@pytest.mark.parametrize("text", ["oldest", "before:2020-13-01", "before:", ""])
def test_parse_versions_refuses_nonsense(text: str) -> None:
    with pytest.raises(UsageError, match="--versions"):
        parse_versions(text)


def test_expand_reads_directories_lists_and_requirements(tmp_path: Path) -> None:
    sdists = tmp_path / "sdists"
    (sdists / "sub").mkdir(parents=True)
    for name in ("b-1.0.tar.gz", "a-1.0.zip", "sub/c-2.0.tar.bz2", "notes.txt"):
        (sdists / name).write_bytes(b"x")
    listing = tmp_path / "list.txt"
    listing.write_text(
        "# a comment\n\nsdists/a-1.0.zip\nrequests==2.32.3  # pinned\n-r other.txt\nflask\n"
    )
    items = list(expand([str(sdists), str(listing), "stringcase", "flask"]))
    assert items == [
        Item(kind="path", text=str(sdists / "a-1.0.zip")),
        Item(kind="path", text=str(sdists / "b-1.0.tar.gz")),
        Item(kind="path", text=str(sdists / "sub" / "c-2.0.tar.bz2")),
        Item(kind="requirement", text="requests==2.32.3"),
        Item(kind="requirement", text="flask"),
        Item(kind="requirement", text="stringcase"),
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [("missing-1.0.tar.gz\n", r"list\.txt:1: 'missing-1\.0\.tar\.gz' is neither")],
)
def test_a_bad_list_line_is_a_usage_error(tmp_path: Path, content: str, message: str) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(content)
    with pytest.raises(UsageError, match=message):
        list(expand([str(listing)]))


def test_top_adds_the_most_downloaded_projects() -> None:
    top = top_list()
    items = list(expand([], top=3))
    assert [i.text for i in items] == [name for name, _ in top.rows[:3]]
    counts = [count for _, count in top.rows]
    assert counts == sorted(counts, reverse=True)
    dt.date.fromisoformat(top.date)
    name, count = top.rows[10]
    assert top.downloads(name.upper().replace("-", "_")) == count
    assert top.downloads("surely-not-a-top-project-xyz") is None


def test_top_wants_a_positive_count() -> None:
    with pytest.raises(UsageError, match="--top 0"):
        list(expand([], top=0))


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            ["z-1.0.tar.gz", "z-1.5.zip", "z-1.5.tar.gz", "z-2.0.tar.gz!", "z-2.1rc1.tar.gz"],
            "z-1.5.tar.gz",
            id="newest final not yanked, preferred file",
        ),
        pytest.param(
            ["z-1.0a1.tar.gz", "z-1.0b2.tar.gz!", "z-0.9.dev1.zip"],
            "z-1.0a1.tar.gz",
            id="only pre-releases",
        ),
        pytest.param(
            ["z-1.0.tar.gz", "z-1.0.post1.tar.gz", "z-2004d.tar.gz"],
            "z-1.0.post1.tar.gz",
            id="post release; legacy versions never chosen",
        ),
        pytest.param(
            ["z-10.0.tar.gz", "z-9.0.tar.gz", "z-1!0.1.tar.gz"],
            "z-1!0.1.tar.gz",
            id="epochs and numeric order",
        ),
    ],
)
def test_bare_name_fast_path_agrees_with_the_specifier_path(
    tmp_path: Path, files: list[str], expected: str
) -> None:
    fake = FakeIndex()
    for name in files:
        _add(fake, "z", name.rstrip("!"), "2020-01-01T00:00:00Z", yanked=name.endswith("!"))
    with serve(fake) as url:
        index = Index(url, cache_dir=tmp_path / "cache")
        newest = parse_versions("newest")
        (fast,) = resolve(index, "z", newest)
        (general,) = resolve(index, "z>=0", newest)  # goes through the specifier's filter
    assert fast.filename == general.filename == expected


def test_an_exact_pin_reads_the_page_once(tmp_path: Path) -> None:
    """A legacy version pinned with === goes through Index.resolve after the listing: the
    page parsed for the listing is reused, not fetched again."""
    fake = FakeIndex()
    _add(fake, "leg", "leg-2004d.tar.gz", "2004-01-01T00:00:00Z")
    _add(fake, "leg", "leg-1.0.tar.gz", "2005-01-01T00:00:00Z")
    with serve(fake) as url:
        index = Index(url, cache_dir=None)
        (job,) = resolve(index, "leg===2004d", parse_versions("newest"))
    assert job.filename == "leg-2004d.tar.gz"
    assert fake.paths_requested().count("/simple/leg/") == 1


def test_top_list_names_are_normalised_as_packaging_does() -> None:
    from packaging.utils import canonicalize_name

    from sapper.scan.corpus import _canonical, top_list

    names = [name for name, _ in top_list().rows] + ["Foo__Bar", "a.-_b", "ZOPE.Interface"]
    assert [_canonical(n) for n in names] == [canonicalize_name(n) for n in names]
    assert top_list().downloads("ZOPE_interface") == top_list().downloads("zope.interface")
