"""Tests written to kill surviving mutants of the ``core`` group (issue 14): sources' limits,
member names and the messages that tell the user which limit to raise, and the fix editors.

Each test checks behaviour a user sees (what a real extraction of the archive gives, what a
message says); see docs/testing.md, "Scores measured on 2026-12-04 (session 6): core".
"""

from __future__ import annotations

import io
import itertools
import tarfile

import pytest
from archive_factory import compress, file, make_tar, make_zip, symlink
from helpers import TODAY, project

from sapper._exceptions import ArchiveError
from sapper.fix import fix_files
from sapper.inputs.sources import Limits, read_sdist

LABEL = "pkg-1.0.tar.gz"
BOMB = "refusing to read a likely decompression bomb"


# --------------------------------------------------------------------------- member names


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_doubled_slashes_name_the_same_member(kind: str) -> None:
    # tar and unzip extract "pkg-1.0//setup.py" to pkg-1.0/setup.py: it is the setup.py
    entries = [file("pkg-1.0//setup.py", "from setuptools import setup\n")]
    data = make_zip(entries) if kind == "zip" else make_tar(entries)
    project = read_sdist(data, label=LABEL)
    assert project.root == "pkg-1.0"
    assert project.names == ("setup.py",)
    assert project.files["setup.py"] == b"from setuptools import setup\n"


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_trailing_space_is_part_of_the_name(kind: str) -> None:
    # "setup.py " extracts to a file named "setup.py ", which no build runs
    entries = [file("pkg-1.0/setup.py ", "x"), file("pkg-1.0/setup.cfg\t", "y")]
    data = make_zip(entries) if kind == "zip" else make_tar(entries)
    project = read_sdist(data, label=LABEL)
    assert project.names == ("setup.cfg\t", "setup.py ")
    assert "setup.py" not in project
    assert "setup.cfg" not in project


def test_nul_in_a_name_is_named_in_the_message() -> None:
    info = tarfile.TarInfo("pkg/setup.py")
    info.pax_headers = {"path": "pkg/setup.py\0evil"}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(info, io.BytesIO(b""))
    with pytest.raises(ArchiveError) as caught:
        read_sdist(out.getvalue(), label=LABEL)
    assert str(caught.value) == (
        f"{LABEL}: member 'pkg/setup.py\\x00evil' has a NUL character in its name; "
        "refusing to read a hostile archive"
    )


# --------------------------------------------------------------------------- limits


def test_decompressed_total_message_names_the_limit_to_raise() -> None:
    # the headers claim nothing, but the stream carries more than the limit (a pax header)
    info = tarfile.TarInfo("pkg/setup.py")
    info.pax_headers = {"comment": "x" * 6000}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(info, io.BytesIO(b""))
    with pytest.raises(ArchiveError) as caught:
        read_sdist(compress(out.getvalue(), "gz"), label=LABEL, limits=Limits(max_total_size=5000))
    message = str(caught.value)
    assert message.startswith(f"{LABEL}: decompresses to more than 4.883 KiB")
    assert message.endswith(f"; {BOMB} (raise `max_total_size` if it is genuine)")


# --------------------------------------------------------------------------- fix: setup.cfg


def _fix_cfg(cfg: str, **other: str) -> str:
    result = fix_files(project({"setup.cfg": cfg, **other}), today=TODAY)
    return result.files["setup.cfg"].decode()


def test_fix_keeps_a_blank_first_line() -> None:
    assert _fix_cfg("\n[metadata]\nauthor-email = a@b\n") == "\n[metadata]\nauthor_email = a@b\n"


def test_fix_writes_new_lines_with_the_files_old_mac_endings() -> None:
    # configparser reads setup.cfg with universal newlines: "\r" alone ends a line, and the
    # line the fix writes must end the same way
    before = "[metadata]\rlicense = file: LICENSE\rauthor-email = a@b\r"
    after = "[metadata]\rlicense_files = LICENSE\rauthor_email = a@b\r"
    assert _fix_cfg(before, LICENSE="MIT") == after


def test_fix_reads_a_value_to_its_last_character() -> None:
    # the file named is LICENSE.UNIX, which is in the project
    after = _fix_cfg("[metadata]\nlicense = file: LICENSE.UNIX\n", **{"LICENSE.UNIX": "x"})
    assert after == "[metadata]\nlicense_files = LICENSE.UNIX\n"


def test_fix_keeps_comment_lines_inside_a_moved_value() -> None:
    # configparser skips full-line "#" and ";" comments inside a value: they are not part of
    # requires-dist, and stay where they are when it moves
    before = (
        "[metadata]\nname = x\nrequires-dist =\n    foo\n    # pinned below\n"
        "    ; and this\n    bar\n\n[options]\nzip_safe = false\n"
    )
    after = (
        "[metadata]\nname = x\n    # pinned below\n    ; and this\n\n"
        "[options]\nzip_safe = false\ninstall_requires =\n    foo\n    bar\n"
    )
    result = fix_files(project({"setup.cfg": before}), today=TODAY, unsafe_fixes=True)
    assert result.files["setup.cfg"].decode() == after


# --------------------------------------------------------------------------- limit boundaries
# Each limit is "more than": an archive exactly at a limit reads, one unit more is refused.


def _three_files(kind: str, size: int = 1) -> bytes:
    entries = [file(f"pkg/{name}.txt", "x" * size) for name in "abc"]
    return make_zip(entries) if kind == "zip" else make_tar(entries)


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_member_count_at_the_limit_reads(kind: str) -> None:
    data = _three_files(kind)
    assert read_sdist(data, label=LABEL, limits=Limits(max_members=3)).names == (
        "a.txt",
        "b.txt",
        "c.txt",
    )
    with pytest.raises(ArchiveError, match="has more than 2 members"):
        read_sdist(data, label=LABEL, limits=Limits(max_members=2))


def test_wanted_tar_member_at_the_size_limit_reads() -> None:
    data = make_tar([file("pkg/setup.py", "x" * 4096)])
    project = read_sdist(data, label=LABEL, limits=Limits(max_member_size=4096))
    assert len(project.files["setup.py"]) == 4096
    with pytest.raises(ArchiveError, match=r"claims 4 KiB, more than the 3\.999 KiB limit"):
        read_sdist(data, label=LABEL, limits=Limits(max_member_size=4095))


def test_zip_claims_at_the_total_limit_read() -> None:
    data = _three_files("zip", 1000)
    project = read_sdist(data, label=LABEL, limits=Limits(max_total_size=3000))
    assert sorted(project.files) == ["a.txt", "b.txt", "c.txt"]
    with pytest.raises(ArchiveError, match=r"its members claim 2\.93 KiB in all"):
        read_sdist(data, label=LABEL, limits=Limits(max_total_size=2999))


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_archive_at_the_size_limit_reads(kind: str) -> None:
    data = _three_files(kind)
    assert read_sdist(data, label=LABEL, limits=Limits(max_archive_size=len(data))).names
    with pytest.raises(ArchiveError, match="the archive is larger than"):
        read_sdist(data, label=LABEL, limits=Limits(max_archive_size=len(data) - 1))


def _chain(links: int) -> bytes:
    """l00.py -> l01.py -> ... -> real.py: resolving l00.py follows ``links`` symlinks."""
    names = [f"l{i:02}.py" for i in range(links)] + ["real.py"]
    entries = [file("pkg/real.py", "x = 1\n")]
    entries += [symlink(f"pkg/{a}", b) for a, b in itertools.pairwise(names)]
    return make_tar(entries)


def test_symlink_chains_resolve_as_far_as_linux_follows_them() -> None:
    # Linux follows at most 40 symbolic links in one path lookup (ELOOP past that)
    project = read_sdist(_chain(40), label=LABEL)
    assert project.files["l00.py"] == b"x = 1\n"
    project = read_sdist(_chain(41), label=LABEL)
    assert "l00.py" not in project.names
    assert project.files["l01.py"] == b"x = 1\n"


def test_fix_indents_added_values_like_the_first_value_line() -> None:
    # the first continuation line (a requirement named X) sets the indentation: a tab
    before = "[options]\ninstall_requires =\n\tX\n\n[metadata]\nname = x\nrequires-dist = foo\n"
    after = "[options]\ninstall_requires =\n\tX\n\tfoo\n\n[metadata]\nname = x\n"
    result = fix_files(project({"setup.cfg": before}), today=TODAY, unsafe_fixes=True)
    assert result.files["setup.cfg"].decode() == after


def test_fix_comments_out_every_value_line() -> None:
    # an ignored key's lines all become comments at the key's indentation, whatever
    # indentation (tabs) or text ("X") its value lines have
    before = "[metadata]\n  foo-bar = a\n\t\t\tb\n    X\nname = x\n"
    after = (
        "[metadata]\n  # sapper fix: setuptools ignores foo-bar (SC001)\n  # foo-bar = a\n"
        "  # b\n  #   X\nname = x\n"
    )
    assert _fix_cfg(before) == after


def test_fix_drops_an_emptied_section_on_the_first_line() -> None:
    before = "[bdist_wheel]\nuniversal = 1\n\n[metadata]\nname = x\n"
    assert _fix_cfg(before) == "[metadata]\nname = x\n"


def test_fix_keeps_a_section_whose_first_line_is_a_comment() -> None:
    before = "[metadata]\nname = x\n\n[bdist_wheel]\n# py2 wheels\nuniversal = 1\n"
    assert _fix_cfg(before) == "[metadata]\nname = x\n\n[bdist_wheel]\n# py2 wheels\n"


def test_fix_merges_two_requires_dist_keys_without_repeating_a_requirement() -> None:
    before = (
        "[metadata]\nname = x\nrequires-dist = bar\nRequires_Dist =\n    bar\n    baz\n\n"
        "[options]\ninstall_requires =\n    foo\n"
    )
    after = "[metadata]\nname = x\n\n[options]\ninstall_requires =\n    foo\n    bar\n    baz\n"
    result = fix_files(project({"setup.cfg": before}), today=TODAY, unsafe_fixes=True)
    assert result.files["setup.cfg"].decode() == after
    assert "merged (1 already there)" in result.edits[1].message


def test_fix_adds_extras_under_one_new_section_header() -> None:
    before = "[metadata]\nname = x\nprovides-extra = a, b\n"
    after = "[metadata]\nname = x\n\n[options.extras_require]\na =\nb =\n"
    result = fix_files(project({"setup.cfg": before}), today=TODAY, unsafe_fixes=True)
    assert result.files["setup.cfg"].decode() == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "[metadata]\nname = x\nrequires-dist = bar\n\n[options]\ninstall_requires =\n    foo",
            "[metadata]\nname = x\n\n[options]\ninstall_requires =\n    foo\n    bar\n",
            id="no-final-newline",
        ),
        pytest.param(
            "[metadata]\rname = x\rrequires-dist = bar\r\r[options]\rinstall_requires =\r    foo\r",
            "[metadata]\rname = x\r\r[options]\rinstall_requires =\r    foo\r    bar\r",
            id="lone-cr",
        ),
    ],
)
def test_fix_appends_values_after_the_last_line(before: str, after: str) -> None:
    result = fix_files(project({"setup.cfg": before}), today=TODAY, unsafe_fixes=True)
    assert result.files["setup.cfg"].decode() == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "[options]\nzip_safe = false\n\n[metadata]\nname = x\nrequires-python = >=3.8\n",
            "[options]\nzip_safe = false\npython_requires = >=3.8\n\n[metadata]\nname = x\n",
            id="options-on-the-first-line",
        ),
        pytest.param(
            "[metadata]\nname = x\nrequires-python = >=3.8\n\n[options]\n",
            "[metadata]\nname = x\n\n[options]\npython_requires = >=3.8\n",
            id="empty-options",
        ),
        pytest.param(
            "[metadata]\nname = x\nrequires-python = >=3.8\npython-requires = >=3.8\n",
            "[metadata]\nname = x\n\n[options]\npython_requires = >=3.8\n",
            id="both-spellings",
        ),
    ],
)
def test_fix_adds_an_option_to_its_section(before: str, after: str) -> None:
    result = fix_files(project({"setup.cfg": before}), today=TODAY, unsafe_fixes=True)
    assert result.files["setup.cfg"].decode() == after
