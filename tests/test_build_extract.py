"""The build's unpack of a tar sdist with sapper's lean reader (sapper.inputs._extract):
the same tree as tarfile's ``data`` filter, and hostile members refused or never made."""

from __future__ import annotations

import io
import stat
import tarfile
from pathlib import Path

import pytest
from archive_factory import (
    compress,
    dir_,
    file,
    gzip_zero_bomb,
    hardlink,
    make_tar,
    special,
    symlink,
)

from sapper._exceptions import BuildError
from sapper.build import unpack_sdist
from sapper.inputs._extract import _untar_tarfile, extract_tar


def _tree(root: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        info = path.lstat()
        if stat.S_ISDIR(info.st_mode):
            out[rel + "/"] = "dir"
        elif stat.S_ISREG(info.st_mode):
            out[rel] = (stat.S_IMODE(info.st_mode), int(info.st_mtime), path.read_bytes())
        else:
            out[rel] = f"other {stat.S_IFMT(info.st_mode):o}"
    return out


def _archive(tmp_path: Path, data: bytes, name: str = "pkg-1.0.tar.gz") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _custom_tar(members: list[tuple[tarfile.TarInfo, bytes]], fmt: int) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data else None)
    return out.getvalue()


def _info(name: str, data: bytes = b"", *, mode: int = 0o644, mtime: float = 1_700_000_000):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    info.mtime = mtime  # type: ignore[assignment]
    return info, data


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT])
@pytest.mark.parametrize("compression", ["gz", "bz2", "xz", ""])
def test_same_tree_as_tarfile_data_filter(tmp_path, fmt, compression):
    long_dir = "pkg-1.0/" + "d" * 120
    members = [
        _info("pkg-1.0/setup.py", b"print('hi')\n", mode=0o644),
        _info("pkg-1.0/configure", b"#!/bin/sh\n", mode=0o4777),  # set-id, world-writable
        _info("pkg-1.0/odd", b"x", mode=0o071),  # group/other execute, owner nothing
        _info("pkg-1.0/sub/deep/file.txt", b"deep", mtime=1_600_000_000.7),
        _info(f"{long_dir}/name.txt" if fmt != tarfile.USTAR_FORMAT else "pkg-1.0/n.txt", b"n"),
        _info("pkg-1.0/empty", b""),
        _info("pkg-1.0/setup.py", b"print('again')\n"),  # the later one wins
    ]
    data = compress(_custom_tar(members, fmt), compression)
    archive = _archive(tmp_path, data, "pkg-1.0.tar" + (f".{compression}" if compression else ""))
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    root = unpack_sdist(archive, ours)
    theirs.mkdir()
    _untar_tarfile(archive, theirs)
    assert root == ours / "pkg-1.0"
    assert _tree(ours) == _tree(theirs)
    got = _tree(ours)
    assert got["pkg-1.0/configure"][0] == 0o755  # type: ignore[index]
    assert got["pkg-1.0/odd"][0] == 0o640  # type: ignore[index]
    assert got["pkg-1.0/setup.py"][2] == b"print('again')\n"  # type: ignore[index]


def test_pax_mtime_overrides_the_header(tmp_path):
    # the header's field is 0 when the time does not fit it; the pax record has the time
    info, data = _info("pkg-1.0/old.py", b"x", mtime=-1.0)
    raw = _custom_tar([(info, data)], tarfile.PAX_FORMAT)
    archive = _archive(tmp_path, compress(raw, "gz"))
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    unpack_sdist(archive, ours)
    theirs.mkdir()
    _untar_tarfile(archive, theirs)
    assert _tree(ours) == _tree(theirs)
    assert int((ours / "pkg-1.0" / "old.py").stat().st_mtime) == -1


@pytest.mark.parametrize(
    "name",
    ["/etc/evil", "pkg-1.0/../../evil", "../evil", "C:/evil", "C:\\evil", "pkg-1.0\\..\\evil"],
)
def test_names_outside_are_refused(tmp_path, name):
    data = make_tar([file("pkg-1.0/setup.py", "x"), file(name, "evil")])
    archive = _archive(tmp_path, data)
    with pytest.raises(BuildError, match="outside the build directory"):
        unpack_sdist(archive, tmp_path / "out")
    assert not (tmp_path / "evil").exists()
    assert not (tmp_path / "out" / "evil").exists()


@pytest.mark.parametrize(
    "entries",
    [
        # a link pointing out, then a file written through it
        [symlink("pkg-1.0/link", "/tmp"), file("pkg-1.0/link/escaped", "x")],
        [symlink("pkg-1.0/link", "../.."), file("pkg-1.0/link/escaped", "x")],
        [hardlink("pkg-1.0/hard", "/etc/passwd")],
        [hardlink("pkg-1.0/hard", "../outside")],
        # inside, then out through the first link
        [symlink("pkg-1.0/in", "."), symlink("pkg-1.0/in/out", "../../..")],
    ],
    ids=["symlink-abs", "symlink-up", "hardlink-abs", "hardlink-up", "symlink-chain"],
)
@pytest.mark.parametrize("reader", ["lean", "tarfile"])
def test_links_pointing_outside_refuse_the_archive(tmp_path, entries, reader):
    """pip (tarfile's data filter) refuses such an archive; so does the build's unpack,
    and nothing is written outside the directory."""
    data = make_tar([file("pkg-1.0/setup.py", "x"), *entries])
    archive = _archive(tmp_path, data)
    out = tmp_path / "out"
    with pytest.raises(BuildError, match=r"outside|cannot unpack"):
        if reader == "lean":
            unpack_sdist(archive, out)
        else:
            out.mkdir()
            _untar_tarfile(archive, out)
    assert not (Path("/tmp") / "escaped").exists()
    assert not (tmp_path / "escaped").exists()
    for path in out.rglob("*"):
        assert _inside_real(out, path), path


def _inside_real(root: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


@pytest.mark.parametrize("reader", ["lean", "tarfile"])
def test_links_inside_are_made_as_pip_makes_them(tmp_path, reader):
    data = make_tar(
        [
            file("pkg-1.0/setup.py", "x"),
            file("pkg-1.0/docs/README.md", "readme"),
            symlink("pkg-1.0/README.md", "docs/README.md"),  # pyproject's readme, say
            symlink("pkg-1.0/docs/up", "../setup.py"),
            hardlink("pkg-1.0/copy.py", "pkg-1.0/setup.py"),
            symlink("pkg-1.0/dangling", "missing.txt"),
        ]
    )
    archive = _archive(tmp_path, data)
    out = tmp_path / "out"
    if reader == "lean":
        unpack_sdist(archive, out)
    else:
        out.mkdir()
        _untar_tarfile(archive, out)
    root = out / "pkg-1.0"
    assert (root / "README.md").is_symlink()
    assert (root / "README.md").read_text() == "readme"
    assert (root / "docs" / "up").read_text() == "x"
    assert (root / "copy.py").read_text() == "x"
    assert (root / "dangling").is_symlink()


@pytest.mark.parametrize(
    "entries",
    [
        [special("pkg-1.0/dev", "chr"), special("pkg-1.0/blk", "blk")],
        [special("pkg-1.0/fifo", "fifo")],
    ],
    ids=["devices", "fifo"],
)
def test_devices_and_fifos_are_never_made(tmp_path, entries):
    data = make_tar([file("pkg-1.0/setup.py", "x"), *entries])
    archive = _archive(tmp_path, data)
    out = tmp_path / "out"
    root = unpack_sdist(archive, out)
    for path in out.rglob("*"):
        info = path.lstat()
        assert stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode), path
    assert (root / "setup.py").read_text() == "x"


def test_file_replacing_a_planted_link_is_not_followed(tmp_path):
    # the extraction directory already holds a link (not from the archive): never followed
    outside = tmp_path / "outside"
    outside.write_text("keep")
    out = tmp_path / "out"
    (out / "pkg-1.0").mkdir(parents=True)
    (out / "pkg-1.0" / "setup.py").symlink_to(outside)
    data = make_tar([file("pkg-1.0/setup.py", "new")])
    extract_tar(data, "gzip", out, label="pkg", max_members=10, max_unpacked=1 << 20)
    assert outside.read_text() == "keep"
    assert not (out / "pkg-1.0" / "setup.py").is_symlink()
    assert (out / "pkg-1.0" / "setup.py").read_text() == "new"


def test_too_many_members(tmp_path):
    data = make_tar([dir_("pkg-1.0"), *(file(f"pkg-1.0/f{i}", "") for i in range(20))])
    with pytest.raises(BuildError, match="more than 10 members"):
        extract_tar(data, "gzip", tmp_path, label="pkg", max_members=10, max_unpacked=1 << 20)
    extract_tar(data, "gzip", tmp_path / "ok", label="pkg", max_members=21, max_unpacked=1 << 20)


def test_too_large(tmp_path):
    data = make_tar([file("pkg-1.0/big", b"x" * 5000)])
    with pytest.raises(BuildError, match="unpacks to more than 4096 bytes"):
        extract_tar(data, "gzip", tmp_path, label="pkg", max_members=10, max_unpacked=4096)


def test_claimed_size_larger_than_the_data(tmp_path):
    data = make_tar([file("pkg-1.0/setup.py", "x", size=10_000)])
    with pytest.raises(BuildError, match="cannot unpack"):
        unpack_sdist(_archive(tmp_path, data), tmp_path / "out")


def test_compression_bomb(tmp_path):
    bomb = gzip_zero_bomb("pkg-1.0/zeros", 64 * 1024 * 1024)
    with pytest.raises(BuildError, match="likely decompression bomb"):
        unpack_sdist(_archive(tmp_path, bomb), tmp_path / "out")
    assert not (tmp_path / "out" / "pkg-1.0" / "zeros").exists() or (
        (tmp_path / "out" / "pkg-1.0" / "zeros").stat().st_size < 64 * 1024 * 1024
    )


def test_damaged_archive(tmp_path):
    data = make_tar([file("pkg-1.0/setup.py", "x" * 3000)])
    with pytest.raises(BuildError, match="cannot unpack"):
        unpack_sdist(_archive(tmp_path, data[: len(data) // 2]), tmp_path / "out")


def test_sparse_members_go_to_tarfile(tmp_path):
    info, data = _info("pkg-1.0/setup.py", b"x")
    raw = bytearray(_custom_tar([(info, data)], tarfile.GNU_FORMAT))
    raw[156:157] = b"S"  # a GNU sparse member, which the lean reader leaves to tarfile
    raw[148:156] = b"        "
    raw[148:155] = f"{sum(raw[:512]):06o}\x00".encode()
    archive = _archive(tmp_path, compress(bytes(raw), "gz"))
    root = unpack_sdist(archive, tmp_path / "out")
    assert root == tmp_path / "out" / "pkg-1.0"
    assert [path.name for path in root.iterdir()] == ["setup.py"]
