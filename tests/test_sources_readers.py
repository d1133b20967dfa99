"""The lean tar reader against tarfile's, each inflater against the other, and limit boundaries.

``tarfile`` is the reference: over the benchmark corpus of real sdists and over a hostile
corpus (damaged, hostile and randomly mutated archives), the lean reader must give the same
project (root, member list and contents) or reject the archive too; the inflaters must give
the same messages.
"""

from __future__ import annotations

import io
import os
import random
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from archive_factory import compress, dir_, file, make_tar, make_zip, symlink
from test_sources import ALL_KINDS, DAMAGED, LABEL, PROJECT, build

from sapper._exceptions import ArchiveError
from sapper.inputs import _inflate, _tar, sources
from sapper.inputs.sources import Limits, read_sdist

MiB = 1024 * 1024
BENCHMARKS = Path(__file__).parent.parent / "benchmarks"

Outcome = tuple[str, tuple[str, ...], dict[str, bytes]] | str


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    previous = _inflate.inflater_name()
    yield
    sources._tar_reader = "lean"
    _inflate.set_inflater(previous)


def outcome(data: bytes | Path, reader: str, inflater: str = "zlib") -> Outcome:
    """The project read from ``data`` (root, names, files), or the error message."""
    sources._tar_reader = reader
    _inflate.set_inflater(inflater)
    try:
        project = read_sdist(data, label=LABEL)
    except ArchiveError as exc:
        return str(exc)
    return project.root, project.names, dict(project.files)


def agree(reference: Outcome, lean: Outcome) -> bool:
    """The same project, or a rejection by both."""
    if isinstance(reference, str):
        return isinstance(lean, str)
    return reference == lean


# --------------------------------------------------------------------------- corpora


def _corpus() -> list[Path]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from corpus import cached_paths
    finally:
        sys.path.remove(str(BENCHMARKS))
    try:
        return list(cached_paths())
    except (OSError, SystemExit):  # pragma: no cover  # no cache on this machine
        return []


def test_benchmark_corpus_reads_alike() -> None:
    paths = _corpus()
    if len(paths) < 10:
        pytest.skip("the benchmark corpus is not in the cache (python benchmarks/corpus.py)")
    for path in paths:
        reference = outcome(path, "tarfile")
        assert agree(reference, outcome(path, "lean", "isal")), path
        assert agree(reference, outcome(path, "lean", "zlib-ng")), path
        assert not isinstance(reference, str) or reference == outcome(path, "lean", "zlib")


def _mutations(rounds: int) -> Iterator[bytes]:
    for kind in ALL_KINDS:
        rnd = random.Random(f"readers-{kind}")
        original = build(kind, [*PROJECT, symlink("pkg-1.0/link.md", "README.md")])
        yield original
        for _ in range(rounds):
            data = bytearray(original)
            for _ in range(rnd.randint(1, 3)):
                at = rnd.randrange(len(data))
                if rnd.random() < 0.7:
                    data[at] = rnd.randrange(256)
                else:
                    del data[at : at + rnd.randint(1, 40)]
            yield bytes(data)


HOSTILE = [
    *(param.values[0] for param in DAMAGED),
    make_tar([file("pkg/../evil.py", "x")]),
    make_tar([symlink("pkg/link", "/etc/passwd")]),
    make_tar([file("pkg/a.py", "x"), file("/abs.py", "y")]),
    compress(bytes(1024), "gz"),
    compress(build("", PROJECT)[:-1024], "gz"),  # no end-of-archive marker
    compress(build("", PROJECT)[:1600], "gz"),  # truncated in a member's data
]


@pytest.mark.parametrize("data", [*HOSTILE, *_mutations(40)])
def test_hostile_corpus_reads_alike(data: bytes) -> None:
    reference = outcome(data, "tarfile")
    lean = outcome(data, "lean", "isal")
    assert agree(reference, lean), (reference, lean)
    # whichever inflater ran, the same words
    assert outcome(data, "lean", "zlib-ng") == lean
    assert outcome(data, "lean", "zlib") == lean
    assert outcome(data, "tarfile", "isal") == reference


# --------------------------------------------------------------------------- tar formats


def _tar_of(infos: list[tuple[tarfile.TarInfo, bytes]], tar_format: int) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tar_format) as archive:
        for info, data in infos:
            info.size = len(data) if info.isreg() else 0
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


LONG = "pkg-1.0/" + "/".join(["d" * 60] * 2) + "/setup.py"
LONG_LINK = "pkg-1.0/" + "t" * 150 + ".py"
FORMATS = [
    pytest.param(
        _tar_of(
            [(_member(LONG), b"print(1)\n"), (_member(LONG_LINK), b"x = 1\n")], tarfile.GNU_FORMAT
        ),
        id="gnu-longname",
    ),
    pytest.param(
        _tar_of(
            [
                (_member(LONG_LINK), b"x = 1\n"),
                (_member("pkg-1.0/l.py", tarfile.SYMTYPE, LONG_LINK.split("/")[1]), b""),
            ],
            tarfile.GNU_FORMAT,
        ),
        id="gnu-longlink",
    ),
    pytest.param(
        _tar_of(
            [(_member(LONG), b"print(1)\n"), (_member("pkg-1.0/é.py"), b"e = 1\n")],
            tarfile.PAX_FORMAT,
        ),
        id="pax-long-and-unicode-names",
    ),
    pytest.param(
        _tar_of(
            [(_member("pkg-1.0/" + "u" * 90 + "/setup.cfg"), b"[metadata]\n")], tarfile.USTAR_FORMAT
        ),
        id="ustar-prefix",
    ),
]


def _v7_tar() -> bytes:
    blocks = []
    for name, data in (("pkg-1.0/", b""), ("pkg-1.0/setup.py", b"setup()\n")):
        info = tarfile.TarInfo(name)
        info.type = tarfile.AREGTYPE
        info.size = len(data)
        blocks += [info.tobuf(format=tarfile.USTAR_FORMAT), data.ljust(512 * bool(data), b"\0")]
    return b"".join([*blocks, bytes(1024)])


def _global_pax_tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(
        fileobj=out, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"comment": "abc"}
    ) as archive:
        info = tarfile.TarInfo("pkg-1.0/setup.py")
        info.size = 3
        archive.addfile(info, io.BytesIO(b"x=1"))
    return out.getvalue()


def _patched(data: bytes, start: int, field: bytes) -> bytes:
    """Rewrite a field of the first header, and its checksum."""
    block = bytearray(data[:512])
    block[start : start + len(field)] = field
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block) + data[512:]


_PLAIN = build("", PROJECT)
FORMATS += [
    pytest.param(_v7_tar(), id="v7-directory-with-slash"),
    pytest.param(_global_pax_tar(), id="pax-global-header"),
    pytest.param(_patched(_PLAIN, 100, b"   755 \0"), id="space-padded-number"),
    pytest.param(_patched(_PLAIN, 100, b"07x5\0\0\0\0"), id="invalid-number"),
    pytest.param(_patched(_PLAIN, 100, b"0 755\0\0\0"), id="inner-space-number"),
    pytest.param(_patched(_PLAIN, 108, b"\x80" + bytes(6) + b"\x01"), id="base-256-number"),
    pytest.param(_patched(_PLAIN, 148, b"zzzzzzzz"), id="invalid-checksum-field"),
]


@pytest.mark.parametrize("data", FORMATS)
@pytest.mark.parametrize("compression", ["", "gz"])
def test_tar_formats_read_alike(data: bytes, compression: str) -> None:
    data = compress(data, compression)
    reference = outcome(data, "tarfile")
    lean = outcome(data, "lean", "zlib-ng")
    assert agree(reference, lean), (reference, lean)
    if not isinstance(reference, str):
        assert reference[1], "the format test reads nothing"


def test_sparse_members_are_left_to_tarfile(monkeypatch: pytest.MonkeyPatch) -> None:
    info = tarfile.TarInfo("pkg-1.0/setup.py")
    info.type = tarfile.GNUTYPE_SPARSE
    info.size = 0
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    data = header + bytes(1024)
    with pytest.raises(_tar.Unsupported):
        list(_tar.members(_tar.Stream(iter([data]), lambda done, total: None)))
    from sapper.inputs import _tarfile_reader

    calls: list[str] = []
    real = _tarfile_reader.scan_tar

    def spy(*args: Any) -> None:
        calls.append("tarfile")
        real(*args)

    monkeypatch.setattr(_tarfile_reader, "scan_tar", spy)
    sources._tar_reader = "lean"
    project = read_sdist(data, label=LABEL)
    assert calls == ["tarfile"]
    assert project.names == ("setup.py",)


# --------------------------------------------------------------------------- limit boundaries


def _bomb_then_noise(zeros: int, noise: int) -> list[tuple[str, bytes]]:
    return [("pkg/a-zeros.bin", bytes(zeros)), ("pkg/b-noise.bin", os.urandom(noise))]


@pytest.mark.parametrize("kind", ["gz", "zip"])
def test_ratio_is_measured_against_the_bytes_consumed(kind: str) -> None:
    # 4 MiB of zeros first, then 4 MiB of noise: the archive as a whole expands about 2:1,
    # but the zeros alone expand about 1000:1, and reading must stop there
    entries = [file(name, data) for name, data in _bomb_then_noise(4 * MiB, 4 * MiB)]
    data = (
        make_tar(entries, "gz")
        if kind == "gz"
        else make_zip(
            [
                file(name.replace(".bin", ".txt"), content)
                for name, content in _bomb_then_noise(4 * MiB, 4 * MiB)
            ]
        )
    )
    assert len(data) > 4 * MiB  # the whole archive: under 250:1 by far
    with pytest.raises(ArchiveError, match="a ratio over 250:1") as info:
        read_sdist(data, label=LABEL)
    assert "zeros" in str(info.value)
    # the same archive within a ratio limit the zeros respect reads
    assert read_sdist(data, label=LABEL, limits=Limits(max_ratio=5000)).names


@pytest.mark.parametrize("size", [4095, 4096])
def test_zip_member_at_the_size_limit_reads(size: int) -> None:
    limits = Limits(max_member_size=4096)
    project = read_sdist(make_zip([file("pkg/setup.py", "x" * size)]), label=LABEL, limits=limits)
    assert len(project.files["setup.py"]) == size


def _understate(data: bytes, name: str, size: int) -> bytes:
    """Make both the local header and the central directory claim ``size`` for ``name``."""
    from archive_factory import corrupt_zip_sizes

    patched = bytearray(corrupt_zip_sizes(data, name, file_size=size))
    at = patched.index(b"PK\x03\x04")
    patched[at + 22 : at + 26] = size.to_bytes(4, "little")
    return bytes(patched)


def test_zip_member_longer_than_it_claims_is_refused() -> None:
    # the member claims exactly the limit but holds one byte more: never read past the claim
    limits = Limits(max_member_size=4096)
    data = _understate(
        make_zip([file("pkg/setup.py", "x" * 4097)], compression=zipfile.ZIP_STORED),
        "pkg/setup.py",
        4096,
    )
    with pytest.raises(ArchiveError, match=r"damaged zip archive in member 'pkg/setup\.py'"):
        read_sdist(data, label=LABEL, limits=limits)


def test_tar_actual_total_limit_at_the_boundary() -> None:
    data = make_tar([dir_("pkg"), file("pkg/a.bin", os.urandom(20_000))], "gz")
    total = len(build("", [dir_("pkg"), file("pkg/a.bin", bytes(20_000))]))
    read_sdist(data, label=LABEL, limits=Limits(max_total_size=total))
    with pytest.raises(ArchiveError, match=r"decompresses to more than"):
        read_sdist(data, label=LABEL, limits=Limits(max_total_size=total - 1))


# --------------------------------------------------------------------------- the inflaters

GZ = compress(b"hello " * 1000, "gz")
# a member whose last inflate call is capped by the output chunk, then another member
BIG = compress(b"hello " * 300_000, "gz")


def _crc_flipped(data: bytes) -> bytes:
    changed = bytearray(data)
    changed[-6] ^= 0xFF  # in the CRC-32 of the trailer
    return bytes(changed)


INFLATE_CASES = [
    pytest.param(GZ + GZ, b"hello " * 2000, id="two-members"),
    pytest.param(BIG + bytes(3) + BIG, b"hello " * 600_000, id="two-large-members"),
    pytest.param(GZ[:3] + b"\xe0" + GZ[4:], "unknown header flags set", id="reserved-flags"),
    pytest.param(GZ[:3] + b"\x02" + GZ[4:], "header crc mismatch", id="header-crc"),
    pytest.param(GZ + bytes(700), b"hello " * 1000, id="zero-padding"),
    pytest.param(GZ + b"garbage", "Not a gzipped file (b'ga')", id="trailing-garbage"),
    pytest.param(GZ[:5], "Compressed file ended", id="truncated-header"),
    pytest.param(GZ[:-3], "Compressed file ended", id="truncated-trailer"),
    pytest.param(GZ[:2] + b"\x07" + GZ[3:], "Unknown compression method", id="method"),
    pytest.param(_crc_flipped(GZ), "CRC check failed", id="crc"),
    pytest.param(GZ[:12] + b"\xff" * 8 + GZ[20:], "invalid", id="corrupt-deflate"),
    pytest.param(GZ[:-8] + b"\x55" * 4 + GZ[-4:], "CRC check failed", id="crc-replaced"),
    pytest.param(GZ[:-4] + b"\x00" * 4, "Incorrect length of data produced", id="length"),
]


@pytest.mark.parametrize(("data", "expected"), INFLATE_CASES)
@pytest.mark.parametrize("inflater", ["isal", "zlib-ng", "zlib"])
def test_gzip_chunks(data: bytes, expected: bytes | str, inflater: str) -> None:
    _inflate.set_inflater(inflater)
    if isinstance(expected, bytes):
        counter = _inflate.Counter()
        assert b"".join(_inflate.gzip_chunks(data, counter)) == expected
        assert counter.consumed == len(data)
        return
    with pytest.raises(_inflate.InflateError, match=re.escape(expected)) as raised:
        b"".join(_inflate.gzip_chunks(data))
    _inflate.set_inflater("zlib")  # the reference: the same class and words
    with pytest.raises(type(raised.value), match=f"^{re.escape(str(raised.value))}$"):
        b"".join(_inflate.gzip_chunks(data))


def test_fast_inflater_failing_alone_hands_over_to_zlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should ISA-L fail where zlib does not, zlib takes over without repeating a byte."""
    from isal import isal_zlib

    real = isal_zlib.decompressobj

    class Failing:
        def __init__(self, wbits: int) -> None:
            self.inner = real(wbits=wbits)
            self.calls = 0

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            self.calls += 1
            if self.calls == 2:
                raise isal_zlib.error("Error -1 Invalid deflate block found")
            return self.inner.decompress(data, max_length)

    monkeypatch.setattr(isal_zlib, "decompressobj", Failing)
    _inflate.set_inflater("isal")
    assert b"".join(_inflate.gzip_chunks(BIG + GZ)) == b"hello " * 301_000


def test_gzip_chunks_count_what_they_consume() -> None:
    counter = _inflate.Counter()
    for _ in _inflate.gzip_chunks(GZ + GZ, counter):
        assert 0 < counter.consumed <= 2 * len(GZ)
    assert counter.consumed == 2 * len(GZ)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Error -3 while decompressing data: invalid block type", "invalid block type"),
        ("Error -3 while decompressing data: incorrect data check", "CRC check failed"),
        ("Error -1 Invalid deflate block found", "invalid deflate data"),  # not zlib's words
    ],
)
def test_inflater_messages_are_sappers(text: str, expected: str) -> None:
    assert _inflate.reason(text) == expected


def test_unknown_inflater() -> None:
    with pytest.raises(ValueError, match="unknown inflater 'brotli'"):
        _inflate.set_inflater("brotli")


# --------------------------------------------------------------------------- files as streams


@pytest.mark.parametrize("data", [*HOSTILE, *FORMATS, *_mutations(8)])
def test_a_file_reads_as_its_bytes(data: bytes, tmp_path: Path) -> None:
    """An sdist file is read a slice at a time (never whole): the same project, or the same
    words, as from its bytes in memory, with both readers."""
    path = tmp_path / "archive"
    path.write_bytes(data)
    for reader in ("lean", "tarfile"):
        assert outcome(path, reader) == outcome(data, reader)
    assert outcome(path, "lean", "isal") == outcome(data, "lean", "isal")


@pytest.mark.parametrize(("data", "expected"), INFLATE_CASES)
@pytest.mark.parametrize("inflater", ["isal", "zlib"])
def test_gzip_chunks_from_a_file(
    data: bytes, expected: bytes | str, inflater: str, tmp_path: Path
) -> None:
    path = tmp_path / "stream.gz"
    path.write_bytes(data)
    _inflate.set_inflater(inflater)
    with path.open("rb") as stream:
        view = _inflate.FileBytes(stream, len(data))
        if isinstance(expected, bytes):
            counter = _inflate.Counter()
            assert b"".join(_inflate.gzip_chunks(view, counter)) == expected
            assert counter.consumed == len(data)
            return
        with pytest.raises(_inflate.InflateError) as raised:
            b"".join(_inflate.gzip_chunks(view))
    with pytest.raises(type(raised.value), match=f"^{re.escape(str(raised.value))}$"):
        b"".join(_inflate.gzip_chunks(data))


class _Spy:
    """A file, with the size of every read recorded in ``sizes``."""

    def __init__(self, inner: Any, sizes: list[int]) -> None:
        self.inner = inner
        self.sizes = sizes

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __enter__(self) -> _Spy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.close()

    def read(self, size: int = -1) -> bytes:
        chunk: bytes = self.inner.read(size)
        self.sizes.append(len(chunk))
        return chunk


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_a_file_is_never_read_whole(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No read of the archive file asks for more than a slice, whatever its size."""
    noise = random.Random(7).randbytes(3 * MiB)
    data = build(kind, [*PROJECT, file("pkg-1.0/data.bin", noise)])
    path = tmp_path / "big"
    path.write_bytes(data)
    sizes: list[int] = []
    real_open = Path.open
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: _Spy(real_open(self, *a, **k), sizes))
    project = read_sdist(path, label=LABEL)
    monkeypatch.undo()
    assert project.names == read_sdist(data, label=LABEL).names
    assert sizes
    assert max(sizes) <= MiB
