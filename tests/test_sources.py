"""Tests of sapper.inputs.sources: reading projects from directories and hostile sdist archives."""

from __future__ import annotations

import io
import os
import random
import struct
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from archive_factory import (
    Entry,
    compress,
    corrupt_zip_sizes,
    dir_,
    file,
    gzip_zero_bomb,
    hardlink,
    make_tar,
    make_zip,
    special,
    symlink,
)

from sapper._exceptions import ArchiveError, TargetError, UsageError
from sapper.inputs import _inflate, sources
from sapper.inputs.sources import (
    DEFAULT_LIMITS,
    Limits,
    ProjectFiles,
    default_wanted,
    is_sdist_filename,
    read_directory,
    read_sdist,
)

MiB = 1024 * 1024
LABEL = "pkg-1.0.tar.gz"

# Every test here runs with the lean tar reader over each inflater, and with tarfile's reader
# (the reference): the hostile-archive checks must hold whichever reads the archive.
READERS = ["lean/isal", "lean/zlib-ng", "lean/zlib", "tarfile/zlib"]


@pytest.fixture(autouse=True, params=READERS)
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    tar_reader, inflater = request.param.split("/")
    monkeypatch.setattr(sources, "_tar_reader", tar_reader)
    previous = _inflate.inflater_name()
    _inflate.set_inflater(inflater)
    yield request.param
    _inflate.set_inflater(previous)


PROJECT = [
    dir_("pkg-1.0"),
    file("pkg-1.0/PKG-INFO", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"),
    file("pkg-1.0/setup.cfg", "[metadata]\nname = pkg\n"),
    file("pkg-1.0/setup.py", "from setuptools import setup\nsetup()\n"),
    dir_("pkg-1.0/src"),
    dir_("pkg-1.0/src/pkg"),
    file("pkg-1.0/src/pkg/__init__.py", "__version__ = '1.0'\n"),
    file("pkg-1.0/src/pkg/data.bin", b"\x00\x01\x02"),
    file("pkg-1.0/a/b/c/d/deep.py", "deep = True\n"),
    file("pkg-1.0/README.md", "# pkg\n"),
]
WANTED = {
    "PKG-INFO": b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
    "setup.cfg": b"[metadata]\nname = pkg\n",
    "setup.py": b"from setuptools import setup\nsetup()\n",
    "src/pkg/__init__.py": b"__version__ = '1.0'\n",
    "README.md": b"# pkg\n",
}
NAMES = (
    "PKG-INFO",
    "README.md",
    "a/b/c/d/deep.py",
    "setup.cfg",
    "setup.py",
    "src/pkg/__init__.py",
    "src/pkg/data.bin",
)


def build(kind: str, entries: list[Entry]) -> bytes:
    if kind == "zip":
        return make_zip(entries)
    if kind == "zip-stored":
        return make_zip(entries, compression=zipfile.ZIP_STORED)
    if kind == "ustar":
        return make_tar(entries, "gz", tar_format=tarfile.USTAR_FORMAT)
    return make_tar(entries, kind)


def flip(data: bytes, index: int) -> bytes:
    changed = bytearray(data)
    changed[index] ^= 0xFF
    return bytes(changed)


def read_error(data: bytes, *, limits: Limits = DEFAULT_LIMITS) -> str:
    with pytest.raises(ArchiveError) as info:
        read_sdist(data, label=LABEL, limits=limits)
    message = str(info.value)
    assert message.startswith(f"{LABEL}: "), message
    return message


# --------------------------------------------------------------------------- happy paths

ALL_KINDS = ["gz", "bz2", "xz", "", "ustar", "zip", "zip-stored"]
KIND_IDS = ["tar.gz", "tar.bz2", "tar.xz", "tar", "ustar.tar.gz", "zip", "zip-stored"]


@pytest.mark.parametrize("kind", ALL_KINDS, ids=KIND_IDS)
def test_read_sdist_strips_the_root(kind: str) -> None:
    project = read_sdist(build(kind, PROJECT), label=LABEL)
    assert project.label == LABEL
    assert project.root == "pkg-1.0"
    assert dict(project.files) == WANTED
    assert project.names == NAMES
    assert "setup.cfg" in project
    assert "src/pkg/data.bin" not in project  # listed, but not wanted
    assert project.read_text("setup.cfg") == "[metadata]\nname = pkg\n"
    assert project.read_text("missing.cfg") is None


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
def test_read_sdist_from_a_path(tmp_path: Path, kind: str) -> None:
    # the format comes from the content: the name lies
    path = tmp_path / "pkg-1.0.misnamed"
    path.write_bytes(build(kind, PROJECT))
    project = read_sdist(path)
    assert project.label == "pkg-1.0.misnamed"
    assert dict(project.files) == WANTED
    assert read_sdist(str(path), label="x").label == "x"


def test_read_sdist_default_label_for_bytes() -> None:
    assert read_sdist(build("gz", PROJECT)).label == "<sdist>"


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([file("setup.py", "x"), file("pkg/__init__.py", "y")], id="file-first"),
        pytest.param([file("pkg/__init__.py", "y"), file("setup.py", "x")], id="file-last"),
        pytest.param([file("a/setup.py", "x"), file("b/__init__.py", "y")], id="two-dirs"),
    ],
)
def test_read_sdist_without_a_single_root(kind: str, entries: list[Entry]) -> None:
    project = read_sdist(build(kind, entries), label=LABEL)
    assert project.root == ""
    assert project.names == tuple(sorted(entry.name for entry in entries))
    assert set(project.files) == {entry.name for entry in entries}


def test_read_sdist_root_guess_is_revised_late() -> None:
    # the first members suggest the root "pkg-1.0", the last one disproves it, and a member
    # only wanted under its full path must still be read
    entries = [*PROJECT, file("stray.txt", "stray")]
    project = read_sdist(
        build("gz", entries),
        label=LABEL,
        wanted=lambda path: path.startswith("pkg-1.0/") or path == "stray.txt",
    )
    assert project.root == ""
    assert "pkg-1.0/src/pkg/data.bin" in project
    assert project.files["stray.txt"] == b"stray"


def test_read_sdist_dot_slash_names() -> None:
    entries = [dir_("."), dir_("./pkg-1.0"), file("./pkg-1.0/setup.py", "x")]
    project = read_sdist(make_tar(entries, "gz", tar_format=tarfile.GNU_FORMAT), label=LABEL)
    assert project.root == "pkg-1.0"
    assert dict(project.files) == {"setup.py": b"x"}


def test_read_sdist_zip_backslash_names() -> None:
    entries = [file("pkg-1.0\\setup.py", "x"), file("pkg-1.0\\src\\pkg\\__init__.py", "y")]
    project = read_sdist(make_zip(entries), label=LABEL)
    assert project.root == "pkg-1.0"
    assert project.names == ("setup.py", "src/pkg/__init__.py")


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
def test_read_sdist_resolves_links_inside_the_root(kind: str) -> None:
    entries = [
        file("pkg-1.0/docs/README.md", "# docs"),
        symlink("pkg-1.0/README.md", "docs/README.md"),
        dir_("pkg-1.0/sub"),
        symlink("pkg-1.0/sub/up", ".."),
        symlink("pkg-1.0/sub/readme.txt", "up/docs/README.md"),
        symlink("pkg-1.0/dangling.txt", "nowhere.txt"),
        symlink("pkg-1.0/loop1.txt", "loop2.txt"),
        symlink("pkg-1.0/loop2.txt", "loop1.txt"),
    ]
    if kind != "zip":
        entries.append(hardlink("pkg-1.0/hard.md", "pkg-1.0/docs/README.md"))
    project = read_sdist(build(kind, entries), label=LABEL)
    assert project.files["README.md"] == b"# docs"
    assert project.files["sub/readme.txt"] == b"# docs"
    assert "dangling.txt" not in project.names
    assert "loop1.txt" not in project.names
    if kind != "zip":
        assert project.files["hard.md"] == b"# docs"


def test_read_sdist_later_member_replaces_earlier() -> None:
    entries = [file("pkg-1.0/setup.py", "old"), file("pkg-1.0/setup.py", "new")]
    project = read_sdist(make_tar(entries), label=LABEL)
    assert project.files == {"setup.py": b"new"}
    assert project.names == ("setup.py",)


def test_read_sdist_empty_tar_archive() -> None:
    project = read_sdist(make_tar([]), label=LABEL)
    assert project.names == ()
    assert project.root == ""


def test_read_sdist_wanted_is_called_with_relative_paths() -> None:
    seen: list[str] = []

    def wanted(path: str) -> bool:
        seen.append(path)
        return False

    project = read_sdist(build("gz", PROJECT), label=LABEL, wanted=wanted)
    assert sorted(seen) == list(NAMES)
    assert project.files == {}


# --------------------------------------------------------------------------- hostile archives

HOSTILE_NAMES = [
    pytest.param("../x", "has a '..' component", id="dotdot"),
    pytest.param("/etc/passwd", "has an absolute path", id="absolute"),
    pytest.param("pkg/../../x", "has a '..' component", id="dotdot-inside"),
    pytest.param("pkg/..", "has a '..' component", id="dotdot-last"),
]


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
@pytest.mark.parametrize(("name", "problem"), HOSTILE_NAMES)
def test_hostile_member_names(kind: str, name: str, problem: str) -> None:
    message = read_error(build(kind, [file("pkg/setup.py", "x"), file(name, "evil")]))
    assert f"member {name!r} {problem}; refusing to read a hostile archive" in message


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        pytest.param("C:\\x", "an absolute path", id="drive"),
        pytest.param("C:x", "an absolute path", id="drive-relative"),
        pytest.param("\\\\server\\share\\x", "an absolute path", id="unc"),
        pytest.param("\\etc\\passwd", "an absolute path", id="backslash-root"),
        pytest.param("pkg\\..\\..\\x", "a '..' component", id="backslash-dotdot"),
    ],
)
def test_hostile_zip_names_with_backslashes(name: str, problem: str) -> None:
    message = read_error(make_zip([file("pkg/setup.py", "x"), file(name, "evil")]))
    assert f"member {name!r} has {problem}; refusing to read a hostile archive" in message


def test_hostile_zip_name_with_nul() -> None:
    # zipfile cuts names at NUL, so write a placeholder and patch it in
    data = make_zip([file("pkg/setup.pyXevil", "x")]).replace(b"setup.pyXevil", b"setup.py\0evil")
    assert "has a NUL character" in read_error(data)


def test_hostile_tar_name_with_nul() -> None:
    # a pax "path" record carries the name; tarfile keeps a NUL in it
    info = tarfile.TarInfo("pkg/setup.py")
    info.pax_headers = {"path": "pkg/setup.py\0evil"}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(info, io.BytesIO(b""))
    data = out.getvalue()
    assert "has a NUL character" in read_error(data)


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
@pytest.mark.parametrize(
    ("link", "target", "problem"),
    [
        pytest.param("pkg/link", "/etc/passwd", "absolute path", id="absolute"),
        pytest.param("pkg/link", "C:\\Windows", "absolute path", id="drive"),
        pytest.param("pkg/link", "../../etc/passwd", "outside", id="dotdot"),
        pytest.param("pkg/link", "..", "outside", id="to-archive-top"),
        pytest.param("pkg/a/link", "../../../x", "outside", id="deep-dotdot"),
    ],
)
def test_symlink_escaping(kind: str, link: str, target: str, problem: str) -> None:
    entries = [file("pkg/setup.py", "x"), symlink(link, target)]
    message = read_error(build(kind, entries))
    assert f"member {link!r} is a link" in message
    assert problem in message


def test_symlink_escaping_through_another_symlink() -> None:
    # lexically "pkg/sub/up/../.." is "pkg", but "sub/up" is a link to "pkg" itself
    entries = [
        file("pkg/setup.py", "x"),
        symlink("pkg/sub/up", ".."),
        symlink("pkg/escape", "sub/up/../../etc/passwd"),
    ]
    message = read_error(make_tar(entries))
    assert "member 'pkg/escape' is a link that points outside" in message


@pytest.mark.parametrize(
    "target",
    [
        pytest.param("/etc/passwd", id="absolute"),
        pytest.param("../etc/passwd", id="dotdot"),
        pytest.param("pkg/../../etc/passwd", id="dotdot-inside"),
        pytest.param("other/file", id="outside-root"),
    ],
)
def test_hardlink_escaping(target: str) -> None:
    entries = [file("pkg/setup.py", "x"), hardlink("pkg/link", target)]
    message = read_error(make_tar(entries))
    assert "member 'pkg/link' is a link to" in message


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
@pytest.mark.parametrize("special_kind", ["fifo", "chr"])
def test_special_files(kind: str, special_kind: str) -> None:
    entries = [file("pkg/setup.py", "x"), special("pkg/dev", special_kind)]
    message = read_error(build(kind, entries))
    assert "member 'pkg/dev' is a" in message
    assert "refusing to read a hostile archive" in message


def test_block_device_in_tar() -> None:
    message = read_error(make_tar([file("pkg/setup.py", "x"), special("pkg/disk", "blk")]))
    assert "member 'pkg/disk' is a device file" in message


# --------------------------------------------------------------------------- bombs and limits

SMALL = Limits(max_member_size=4096, max_total_size=64 * 1024, max_members=10)


def test_gzip_bomb_with_default_limits() -> None:
    # 300 MiB of zeros in a member nobody wants: skipped, but decompressed, so the ratio trips
    message = read_error(gzip_zero_bomb("pkg-1.0/data.bin", 300 * MiB))
    assert "a ratio over 250:1" in message
    assert "in member 'pkg-1.0/data.bin'" in message
    assert "decompression bomb" in message


@pytest.mark.parametrize("kind", ["bz2", "xz"])
def test_compressed_bomb(kind: str) -> None:
    data = make_tar([file("pkg/data.bin", bytes(3 * MiB))], kind)
    assert "a ratio over 250:1" in read_error(data)


def test_zip_bomb_in_a_wanted_member() -> None:
    data = make_zip([file("pkg/big.txt", bytes(3 * MiB))])
    assert "a ratio over 250:1" in read_error(data)


def test_zip_bomb_in_an_unwanted_member_is_never_decompressed() -> None:
    project = read_sdist(make_zip([file("pkg/big.bin", bytes(3 * MiB))]), label=LABEL)
    assert project.names == ("big.bin",)


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
def test_total_size_limit(kind: str) -> None:
    entries = [file(f"pkg/data{i}.bin", os.urandom(30_000)) for i in range(3)]
    message = read_error(build(kind, entries), limits=SMALL)
    assert "claim" in message
    assert "max_total_size" in message


def test_actual_decompressed_total_limit() -> None:
    # headers within the limits, but the stream carries more (here: the pax header)
    limits = Limits(max_total_size=5000)
    info = tarfile.TarInfo("pkg/setup.py")
    info.pax_headers = {"comment": "x" * 6000}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(info, io.BytesIO(b""))
    message = read_error(compress(out.getvalue(), "gz"), limits=limits)
    assert "decompresses to more than" in message


def test_huge_pax_header_is_not_loaded() -> None:
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = 2 * MiB
    data = compress(info.tobuf(format=tarfile.USTAR_FORMAT) + bytes(2 * MiB + 1024), "xz")
    message = read_error(data)
    assert "metadata header" in message


@pytest.mark.parametrize("kind", ["gz", "zip"], ids=["tar.gz", "zip"])
def test_member_count_limit(kind: str) -> None:
    entries = [file(f"pkg/f{i}.bin", "x") for i in range(11)]
    assert "more than 10 members" in read_error(build(kind, entries), limits=SMALL)


def test_archive_size_limit(tmp_path: Path) -> None:
    limits = Limits(max_archive_size=100)
    data = build("gz", PROJECT)
    assert "larger than 100 bytes" in read_error(data, limits=limits)
    path = tmp_path / LABEL
    path.write_bytes(data)
    with pytest.raises(ArchiveError, match="larger than 100 bytes"):
        read_sdist(path, limits=limits)


def test_claimed_huge_tar_member() -> None:
    # the header claims 10 GiB for a wanted member; the data is not even there
    data = make_tar([file("pkg/setup.py", b"x", size=10 * 1024 * MiB)], "gz")
    message = read_error(data, limits=Limits(max_total_size=20 * 1024 * MiB))
    assert "member 'pkg/setup.py' claims 10 GiB, more than the 64 MiB limit" in message


def test_claimed_huge_tar_total() -> None:
    data = make_tar([file("pkg/data.bin", b"x", size=2 * 1024 * MiB)], "gz")
    message = read_error(data)
    assert "its members claim more than 1 GiB in all" in message


def test_wanted_member_over_the_size_limit() -> None:
    entries = [file("pkg/setup.py", "x" * 5000)]
    for kind in ("gz", "zip"):
        message = read_error(build(kind, entries), limits=SMALL)
        assert "member 'pkg/setup.py' claims" in message
    # unwanted members may be larger
    project = read_sdist(build("gz", [file("pkg/x.bin", "x" * 5000)]), limits=SMALL)
    assert project.names == ("x.bin",)


def test_claimed_huge_zip_member() -> None:
    data = corrupt_zip_sizes(
        make_zip([file("pkg/setup.py", "x"), file("pkg/b.bin", "y")]),
        "pkg/setup.py",
        file_size=100 * MiB,
    )
    assert "member 'pkg/setup.py' claims 100 MiB" in read_error(data)


def test_claimed_huge_zip_total() -> None:
    data = corrupt_zip_sizes(make_zip([file("pkg/a.bin", "x")]), "pkg/a.bin", file_size=2**32 - 1)
    assert "its members claim 4 GiB in all" in read_error(data)


def test_zip_central_directory_understating_a_size() -> None:
    data = corrupt_zip_sizes(
        make_zip([file("pkg/setup.py", "x" * 100)]), "pkg/setup.py", file_size=10
    )
    assert "damaged zip archive in member 'pkg/setup.py'" in read_error(data)


def test_limits_must_be_positive() -> None:
    with pytest.raises(UsageError, match="`max_ratio` must be positive"):
        Limits(max_ratio=0)


# --------------------------------------------------------------------------- damaged archives


def _zip_data_offset(data: bytes, name: str) -> int:
    at = data.index(b"PK\x03\x04")
    while True:
        name_length: int
        extra_length: int
        name_length, extra_length = struct.unpack_from("<HH", data, at + 26)
        if data[at + 30 : at + 30 + name_length] == name.encode():
            return at + 30 + name_length + extra_length
        compressed: int = struct.unpack_from("<I", data, at + 18)[0]
        at += 30 + name_length + extra_length + compressed


def _gz_data() -> bytes:
    return build("gz", PROJECT)


def _tar_data() -> bytes:
    return build("", PROJECT)


def _bad_crc_zip(compression: int) -> bytes:
    data = make_zip([file("pkg/setup.py", "print('hello')\n" * 50)], compression=compression)
    return flip(data, _zip_data_offset(data, "pkg/setup.py") + 5)


DAMAGED = [
    pytest.param(b"", "the file is empty", id="empty"),
    pytest.param(random.Random(0).randbytes(4000), "not an sdist archive", id="random-bytes"),
    pytest.param(b"ab", "not an sdist archive", id="two-bytes"),
    pytest.param(_gz_data()[:200], "is truncated", id="truncated-gzip"),
    pytest.param(_gz_data()[:-4], "is truncated", id="gzip-without-trailer"),
    pytest.param(build("bz2", PROJECT)[:200], "is truncated", id="truncated-bzip2"),
    pytest.param(build("xz", PROJECT)[:200], "is truncated", id="truncated-xz"),
    pytest.param(_tar_data()[:2000], "damaged tar archive", id="truncated-tar"),
    pytest.param(_tar_data()[:700], "truncated header", id="truncated-tar-header"),
    pytest.param(
        compress(_gz_data(), "gz"),
        "the gzip stream holds gzip data, not a tar archive",
        id="gzip-in-gzip",
    ),
    pytest.param(compress(make_zip(PROJECT), "xz"), "the xz stream holds zip data", id="zip-in-xz"),
    pytest.param(compress(b"hello", "gz"), "damaged gzip-compressed tar", id="gzip-of-text"),
    pytest.param(compress(b"", "bz2"), "(empty file)", id="bzip2-of-nothing"),
    pytest.param(flip(_tar_data(), 10), "offset 0: bad checksum", id="tar-bad-checksum"),
    pytest.param(
        flip(_tar_data(), _tar_data().index(b"pkg-1.0/setup.cfg") + 2),
        "bad checksum",
        id="tar-bad-checksum-later",
    ),
    pytest.param(flip(_gz_data(), len(_gz_data()) // 2), "gzip", id="gzip-corrupt-data"),
    pytest.param(_gz_data() + b"garbage", "Not a gzipped file", id="gzip-trailing-garbage"),
    pytest.param(b"\x1f\x8b\x09" + _gz_data()[3:], "Unknown compression method", id="gzip-method"),
    pytest.param(_bad_crc_zip(zipfile.ZIP_STORED), "Bad CRC-32", id="zip-bad-crc-stored"),
    pytest.param(_bad_crc_zip(zipfile.ZIP_DEFLATED), "damaged zip", id="zip-bad-crc-deflated"),
    pytest.param(b"PK\x03\x04" + bytes(300), "File is not a zip file", id="zip-not-a-zip"),
    pytest.param(make_zip(PROJECT)[:-30], "damaged zip", id="zip-truncated"),
    pytest.param(b"\x28\xb5\x2f\xfd" + bytes(100), "is a zstd archive", id="zstd"),
    pytest.param(b"Rar!\x1a\x07\x00" + bytes(100), "is a RAR archive", id="rar"),
]


@pytest.mark.parametrize(("data", "expected"), DAMAGED)
def test_damaged_archives(data: bytes, expected: str) -> None:
    assert expected in read_error(data)


@pytest.mark.parametrize("kind", ALL_KINDS, ids=KIND_IDS)
def test_mutated_archives_raise_only_archive_errors(kind: str) -> None:
    # whatever the damage, the only exception is ArchiveError (or the archive still reads)
    rnd = random.Random(kind)
    original = build(kind, [*PROJECT, symlink("pkg-1.0/link.md", "README.md")])
    for _ in range(60):
        data = bytearray(original)
        for _ in range(rnd.randint(1, 3)):
            at = rnd.randrange(len(data))
            if rnd.random() < 0.7:
                data[at] = rnd.randrange(256)
            else:
                del data[at : at + rnd.randint(1, 40)]
        try:
            read_sdist(bytes(data), label=LABEL)
        except ArchiveError as exc:
            assert str(exc).startswith(f"{LABEL}: ")


def test_negative_pax_size() -> None:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        info = tarfile.TarInfo("pkg/setup.py")
        info.pax_headers = {"size": "-5"}
        info.size = 7
        archive.addfile(info, io.BytesIO(b"x=1\n#\n\n"))
    assert "member 'pkg/setup.py' has a negative size" in read_error(out.getvalue())


def test_gzip_trailing_zeros_are_padding() -> None:
    assert read_sdist(_gz_data() + bytes(100)).names == NAMES


def test_encrypted_zip_member() -> None:
    data = bytearray(make_zip([file("pkg/setup.py", "x")]))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature)
        data[at + offset] |= 0x1
    assert "is encrypted" in read_error(bytes(data))


def test_missing_sdist_file(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="no such file") as info:
        read_sdist(tmp_path / "missing-1.0.tar.gz")
    assert not isinstance(info.value, ArchiveError)
    with pytest.raises(TargetError, match="cannot read the file"):
        read_sdist(tmp_path)


# --------------------------------------------------------------------------- nothing on disk


def test_nothing_is_written_to_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        msg = "sapper.inputs.sources must not extract or write anything"
        raise AssertionError(msg)

    for owner, name in [
        (tarfile.TarFile, "extract"),
        (tarfile.TarFile, "extractall"),
        (zipfile.ZipFile, "extract"),
        (zipfile.ZipFile, "extractall"),
        (tempfile, "mkstemp"),
        (tempfile, "mkdtemp"),
        (tempfile, "TemporaryFile"),
        (tempfile, "NamedTemporaryFile"),
        (tempfile, "SpooledTemporaryFile"),
    ]:
        monkeypatch.setattr(owner, name, forbidden)
    empty = tmp_path / "empty"
    empty.mkdir()
    archive = tmp_path / LABEL
    archive.write_bytes(build("gz", PROJECT))
    monkeypatch.chdir(empty)
    monkeypatch.setenv("TMPDIR", str(empty))
    monkeypatch.setattr(tempfile, "tempdir", None)
    entries = [*PROJECT, symlink("pkg-1.0/link.md", "README.md")]
    for kind in ALL_KINDS:
        assert read_sdist(build(kind, entries)).names
    assert read_sdist(archive).names == NAMES
    for param in DAMAGED:
        data = param.values[0]
        assert isinstance(data, bytes)
        with pytest.raises(ArchiveError):
            read_sdist(data)
    assert list(empty.iterdir()) == []


# --------------------------------------------------------------------------- directories


def make_tree(root: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


def test_read_directory(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            "setup.cfg": "[metadata]\n",
            "setup.py": "setup()\n",
            "src/pkg/__init__.py": "",
            "src/pkg/data.bin": "bin",
            "a/b/c/d/deep.py": "",
            "build": "a file named build is kept",
            "docs/dist": "so is one named dist",
            ".git/config": "",
            "sub/.tox/x.py": "",
            ".venv/lib/site.py": "",
            "venv/x.py": "",
            "node_modules/x.md": "",
            "src/pkg/__pycache__/x.py": "",
            "build2/x.py": "",
            "src/build/x.py": "",
            "dist/pkg-1.0.tar.gz": "",
            "src/pkg.egg-info/PKG-INFO": "",
            ".hg/x": "",
            ".svn/x": "",
            ".nox/x": "",
        },
    )
    project = read_directory(tmp_path)
    assert project.label == str(tmp_path)
    assert project.root == str(tmp_path)
    assert project.names == (
        "a/b/c/d/deep.py",
        "build",
        "build2/x.py",
        "docs/dist",
        "setup.cfg",
        "setup.py",
        "src/pkg/__init__.py",
        "src/pkg/data.bin",
    )
    assert dict(project.files) == {
        "build2/x.py": b"",
        "setup.cfg": b"[metadata]\n",
        "setup.py": b"setup()\n",
        "src/pkg/__init__.py": b"",
    }


def test_read_directory_size_limit(tmp_path: Path) -> None:
    make_tree(tmp_path, {"setup.py": "x" * 5000, "setup.cfg": "small"})
    project = read_directory(tmp_path, limits=SMALL)
    assert project.names == ("setup.cfg", "setup.py")
    assert "setup.py" not in project
    assert project.read_text("setup.cfg") == "small"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_read_directory_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make_tree(outside, {"secret.txt": "secret", "dir/x.py": "x"})
    tree = tmp_path / "tree"
    make_tree(tree, {"setup.py": "setup()", "docs/README.md": "# docs"})
    (tree / "escape.txt").symlink_to(outside / "secret.txt")
    (tree / "escape-dir").symlink_to(outside / "dir", target_is_directory=True)
    (tree / "README.md").symlink_to("docs/README.md")
    (tree / "docs/again").symlink_to("..", target_is_directory=True)  # a loop
    (tree / "alias").symlink_to("docs", target_is_directory=True)
    (tree / "dangling.py").symlink_to("missing.py")
    project = read_directory(tree)
    assert project.names == (
        "README.md",
        "alias/README.md",
        "docs/README.md",
        "setup.py",
    )
    assert project.files["README.md"] == b"# docs"
    assert project.files["alias/README.md"] == b"# docs"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_read_directory_ignores_fifos(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "setup.py").write_text("")
    assert read_directory(tmp_path).names == ("setup.py",)


def test_read_directory_missing(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="no such directory"):
        read_directory(tmp_path / "missing")


def test_read_directory_not_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "pkg-1.0.tar.gz"
    path.write_bytes(b"")
    with pytest.raises(TargetError, match="not a directory"):
        read_directory(path)


# --------------------------------------------------------------------------- small helpers


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("setup.cfg", True),
        ("setup.py", True),
        ("pyproject.toml", True),
        ("PKG-INFO", True),
        ("MANIFEST.in", True),
        ("sub/PKG-INFO", False),
        ("sub/MANIFEST.in", False),
        ("requirements.txt", True),
        ("docs/index.rst", True),
        ("README.MD", True),
        ("src/pkg/sub/mod.py", True),
        ("a/b/c/d/mod.py", False),
        ("src/pkg/data.bin", False),
        ("src/pkg.py/data", False),
        ("LICENSE", False),
        ("pkg.egg-info/SOURCES.txt", True),
    ],
)
def test_default_wanted(path: str, expected: bool) -> None:
    assert default_wanted(path) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pkg-1.0.tar.gz", True),
        ("pkg-1.0.TGZ", True),
        ("pkg-1.0.tar.bz2", True),
        ("pkg-1.0.tbz2", True),
        ("pkg-1.0.tar.xz", True),
        ("pkg-1.0.txz", True),
        ("pkg-1.0.tar", True),
        ("pkg-1.0.ZIP", True),
        ("pkg-1.0-py3-none-any.whl", False),
        ("pkg-1.0.tar.zst", False),
        ("pkg-1.0.gz", False),
    ],
)
def test_is_sdist_filename(name: str, expected: bool) -> None:
    assert is_sdist_filename(name) is expected


def test_project_files_is_frozen() -> None:
    project = ProjectFiles(label="x", root="", files={}, names=())
    with pytest.raises(AttributeError):
        project.label = "y"  # type: ignore[misc]
