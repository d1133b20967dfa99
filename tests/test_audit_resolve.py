"""Which release and which file an installer takes, and whether it builds from source."""

from __future__ import annotations

from pathlib import Path

import pytest

from sapper.audit.inputs import Entry, FileRef, FormatControl, InputSet
from sapper.audit.resolve import (
    IndexFiles,
    compatible_wheel,
    resolve_entry,
    target_environment,
)
from tests.fake_index import FakeIndex, make_sdist, serve, sha256

LINUX_312 = target_environment("3.12", ["manylinux_2_28_x86_64"])
MAC_311 = target_environment("3.11", ["macosx_14_0_arm64"])
WIN_39 = target_environment("3.9", ["win_amd64"])

SDIST = FileRef(filename="pkg-1.0.tar.gz", url="https://x/pkg-1.0.tar.gz", sha256="0" * 64)
PURE = FileRef(filename="pkg-1.0-py3-none-any.whl")
PY2_ONLY = FileRef(filename="pkg-1.0-py2-none-any.whl")
LINUX_CP312 = FileRef(filename="pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
LINUX_NEW_GLIBC = FileRef(filename="pkg-1.0-cp312-cp312-manylinux_2_34_x86_64.whl")
MAC_CP311 = FileRef(filename="pkg-1.0-cp311-cp311-macosx_11_0_arm64.whl")
ABI3 = FileRef(filename="pkg-1.0-cp39-abi3-manylinux_2_17_x86_64.whl")
ABI3_MAC = FileRef(filename="pkg-1.0-cp39-abi3-macosx_10_12_universal2.whl")
WIN = FileRef(filename="pkg-1.0-cp39-cp39-win_amd64.whl")
OLD_PY = FileRef(filename="pkg-1.0-py3-none-any.whl", requires_python=">=3.13")

# (files of the release, target, the wheel an installer takes or None = built from sdist)
WHEEL_CASES = [
    ([PURE, SDIST], LINUX_312, PURE),
    ([PURE, SDIST], WIN_39, PURE),
    ([PY2_ONLY, SDIST], LINUX_312, None),
    ([LINUX_CP312, SDIST], LINUX_312, LINUX_CP312),
    ([LINUX_CP312, SDIST], MAC_311, None),  # a platform wheel for another platform
    ([LINUX_NEW_GLIBC, SDIST], LINUX_312, None),  # needs glibc 2.34, target has 2.28
    ([MAC_CP311, SDIST], MAC_311, MAC_CP311),
    ([MAC_CP311, SDIST], target_environment("3.12", ["macosx_14_0_arm64"]), None),
    ([ABI3, SDIST], LINUX_312, ABI3),  # abi3: one wheel for every CPython >= 3.9
    ([ABI3, SDIST], target_environment("3.8", ["manylinux_2_28_x86_64"]), None),
    ([ABI3_MAC, SDIST], MAC_311, ABI3_MAC),
    ([WIN, SDIST], WIN_39, WIN),
    ([WIN, SDIST], LINUX_312, None),
    ([SDIST], LINUX_312, None),  # no wheel at all
    ([OLD_PY, SDIST], LINUX_312, None),  # Requires-Python rules the wheel out
    ([LINUX_CP312, PURE, SDIST], LINUX_312, LINUX_CP312),  # the more specific tag wins
]


@pytest.mark.parametrize(("files", "target", "wheel"), WHEEL_CASES)
def test_wheel_selection(files: list[FileRef], target: object, wheel: FileRef | None) -> None:
    from sapper.audit.resolve import Target

    assert isinstance(target, Target)
    assert compatible_wheel(files, target) == wheel
    entry = Entry(name="pkg", version="1.0", specifier="==1.0", files=tuple(files))
    inputs = InputSet(path="pylock.toml", format="pylock", entries=(entry,))
    resolution = resolve_entry(entry, inputs, target)
    assert resolution.source == ("sdist" if wheel is None else "wheel")
    assert resolution.wheel == wheel


@pytest.mark.parametrize(
    ("control", "files", "source"),
    [
        (FormatControl(no_binary=frozenset({"pkg"})), [PURE, SDIST], "sdist"),
        (FormatControl(no_binary=frozenset({":all:"})), [PURE, SDIST], "sdist"),
        (FormatControl(only_binary=frozenset({":all:"})), [SDIST], "unavailable"),
        (FormatControl(only_binary=frozenset({"pkg"})), [PURE, SDIST], "wheel"),
        (FormatControl(no_binary=frozenset({"other"})), [PURE, SDIST], "wheel"),
        (FormatControl(no_binary=frozenset({":all:"})), [PURE], "unavailable"),
    ],
)
def test_only_and_no_binary(control: FormatControl, files: list[FileRef], source: str) -> None:
    entry = Entry(name="pkg", version="1.0", files=tuple(files))
    inputs = InputSet(path="x", format="pylock", entries=(entry,), format_control=control)
    assert resolve_entry(entry, inputs, LINUX_312).source == source


def test_target_defaults_to_the_running_interpreter() -> None:
    import sys

    from packaging.tags import sys_tags

    target = target_environment()
    assert target.native
    assert target.python == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert target.tags[0] == next(iter(sys_tags()))


def test_platform_markers_follow_the_given_platform() -> None:
    assert WIN_39.markers["sys_platform"] == "win32"
    assert MAC_311.markers["sys_platform"] == "darwin"
    assert LINUX_312.markers["python_version"] == "3.12"
    entry = Entry(name="pywin32", specifier="==306", marker='sys_platform == "win32"')
    inputs = InputSet(path="r.txt", format="requirements", entries=(entry,))
    assert resolve_entry(entry, inputs, LINUX_312, files_of=lambda _: []).source == "skipped"


def _page(index: FakeIndex, name: str, files: dict[str, dict[str, object]]) -> None:
    entries = []
    for filename, extra in files.items():
        data = make_sdist(name, filename.rsplit("-", 1)[-1].removesuffix(".tar.gz"))
        path, _ = index.add_file(filename, data)
        entries.append(
            {"filename": filename, "url": path, "hashes": {"sha256": sha256(data)}, **extra}
        )
    index.json_projects[name] = entries


@pytest.mark.parametrize(
    ("specifier", "pre", "version", "source"),
    [
        ("", False, "2.0", "sdist"),  # 3.0 is yanked, 4.0b1 a pre-release, 3.5 needs 3.13
        ("==3.0", False, "3.0", "sdist"),  # an exact pin takes a yanked release
        ("<2", False, "1.0", "wheel"),
        ("", True, "4.0b1", "sdist"),
        (">=4.0b1", False, "4.0b1", "sdist"),  # the specifier names a pre-release
    ],
)
def test_index_resolution_as_pip(specifier: str, pre: bool, version: str, source: str) -> None:
    index = FakeIndex()
    _page(
        index,
        "demo",
        {
            "demo-1.0.tar.gz": {},
            "demo-2.0.tar.gz": {},
            "demo-3.0.tar.gz": {"yanked": "broken"},
            "demo-3.5.tar.gz": {"requires-python": ">=3.13"},
            "demo-4.0b1.tar.gz": {},
        },
    )
    wheel = b"not really a wheel"
    path, _ = index.add_file("demo-1.0-py3-none-any.whl", wheel)
    index.json_projects["demo"].append(
        {"filename": "demo-1.0-py3-none-any.whl", "url": path, "hashes": {"sha256": sha256(wheel)}}
    )
    entry = Entry(name="demo", specifier=specifier)
    inputs = InputSet(path="r.txt", format="requirements", entries=(entry,), pre=pre)
    with serve(index) as url:
        files_of = IndexFiles([url], cache_dir=None)
        resolution = resolve_entry(entry, inputs, LINUX_312, files_of=files_of)
    assert (resolution.version, resolution.source) == (version, source)
    assert ("as pip would choose" in resolution.how) == ("==" not in specifier)


def test_constraints_narrow_the_choice(tmp_path: Path) -> None:
    for version in ("1.0", "2.0"):
        (tmp_path / f"demo-{version}.tar.gz").write_bytes(make_sdist("demo", version))
    entry = Entry(name="demo")
    constraint = Entry(name="demo", specifier="<2")
    inputs = InputSet(
        path="r.txt",
        format="requirements",
        entries=(entry,),
        constraints=(constraint,),
        find_links=(str(tmp_path),),
    )
    files_of = IndexFiles([], [str(tmp_path)])
    resolution = resolve_entry(entry, inputs, LINUX_312, files_of=files_of)
    assert resolution.version == "1.0"
    assert resolution.sdist is not None and resolution.sdist.url is not None
    assert resolution.sdist.url.startswith("file://")


def test_hashes_restrict_the_files_as_pip_does(tmp_path: Path) -> None:
    import hashlib

    sdist = make_sdist("demo", "1.0")
    (tmp_path / "demo-1.0.tar.gz").write_bytes(sdist)
    wheel = b"a wheel"
    (tmp_path / "demo-1.0-py3-none-any.whl").write_bytes(wheel)
    files_of = IndexFiles([], [str(tmp_path)])

    def source(hashes: tuple[str, ...]) -> str:
        entry = Entry(name="demo", specifier="==1.0", version="1.0", hashes=hashes)
        inputs = InputSet(path="r.txt", format="requirements", entries=(entry,))
        return resolve_entry(entry, inputs, LINUX_312, files_of=files_of).source

    assert source(()) == "wheel"
    # Only the sdist's hash is listed: pip rejects the wheel and builds the sdist.
    assert source((f"sha256:{hashlib.sha256(sdist).hexdigest()}",)) == "sdist"
    assert source((f"sha256:{hashlib.sha256(wheel).hexdigest()}",)) == "wheel"
