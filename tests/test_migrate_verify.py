"""sapper.migrate.verify: wheel pairs for every kind of difference and every normalisation,
and real sandboxed builds of a tiny project before and after a hand-made migration."""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from sapper import ArchiveError
from sapper.migrate.verify import (
    Verification,
    WheelDifference,
    changed_contents,
    compare_wheels,
    newest_setuptools,
    verify_migration,
)


@dataclass(frozen=True)
class W:
    """What goes into a test wheel (``demo`` 1.0 by default)."""

    metadata: tuple[str, ...] = (
        "Metadata-Version: 2.4",
        "Name: demo",
        "Version: 1.0",
        "Summary: A demo",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Operating System :: OS Independent",
        "Requires-Dist: attrs>=20",
        'Requires-Dist: pytest; extra == "test"',
        "Provides-Extra: test",
    )
    body: str = "The long description.\n"
    entry_points: str | None = (
        "[console_scripts]\ndemo = demo.cli:main\n\n[demo.plugins]\na = demo.a\n"
    )
    top_level: str | None = "demo\n"
    files: dict[str, bytes] = field(
        default_factory=lambda: {
            "demo/__init__.py": b"X = 1\n",
            "demo/cli.py": b"def main(): pass\n",
        }
    )
    dist_extra: dict[str, bytes] = field(default_factory=dict)
    wheel: str = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    dist_info: str = "demo-1.0.dist-info"


def _wheel_file(*tags: str, generator: str = "test") -> str:
    lines = ["Wheel-Version: 1.0", f"Generator: {generator}", "Root-Is-Purelib: true"]
    return "\n".join([*lines, *(f"Tag: {t}" for t in tags)]) + "\n"


def _eps(scripts: str = "demo = demo.cli:main") -> str:
    return f"[console_scripts]\n{scripts}\n\n[demo.plugins]\na = demo.a\n"


def build(directory: Path, spec: W, label: str) -> Path:
    """The wheel ``spec`` describes, written as ``directory/label/...whl``."""
    dist = spec.dist_info
    members: dict[str, bytes] = dict(spec.files)
    members[f"{dist}/METADATA"] = ("\n".join(spec.metadata) + "\n\n" + spec.body).encode()
    members[f"{dist}/WHEEL"] = spec.wheel.encode()
    if spec.entry_points is not None:
        members[f"{dist}/entry_points.txt"] = spec.entry_points.encode()
    if spec.top_level is not None:
        members[f"{dist}/top_level.txt"] = spec.top_level.encode()
    for name, data in spec.dist_extra.items():
        members[f"{dist}/{name}"] = data
    record = "".join(
        f"{path},sha256={hashlib.sha256(data).hexdigest()},{len(data)}\n"
        for path, data in members.items()
    )
    out = directory / label
    out.mkdir(parents=True, exist_ok=True)
    path = out / "demo-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)
        zf.writestr(f"{dist}/RECORD", record + f"{dist}/RECORD,,\n")
    return path


def diff(tmp_path: Path, before: W, after: W) -> tuple[WheelDifference, ...]:
    return compare_wheels(build(tmp_path, before, "before"), build(tmp_path, after, "after"))


BASE = W()


def _meta(*replacements: tuple[str, str | None], add: tuple[str, ...] = ()) -> tuple[str, ...]:
    """BASE's METADATA with lines replaced (None: dropped) and lines added."""
    swap = dict(replacements)
    out = [swap.get(line, line) for line in BASE.metadata]
    return (*(line for line in out if line is not None), *add)


# every kind of difference: (id, after, what, before-side text, after-side text)
DIFFERENCES = [
    (
        "summary-changed",
        replace(BASE, metadata=_meta(("Summary: A demo", "Summary: Another"))),
        "METADATA Summary",
        "A demo",
        "Another",
    ),
    (
        "classifier-dropped",
        replace(BASE, metadata=_meta(("Classifier: Operating System :: OS Independent", None))),
        "METADATA Classifier",
        "Operating System :: OS Independent",
        "(absent)",
    ),
    (
        "requirement-added",
        replace(BASE, metadata=_meta(add=("Requires-Dist: six",))),
        "METADATA Requires-Dist",
        "(absent)",
        "six",
    ),
    (
        "extra-lost",
        replace(
            BASE,
            metadata=_meta(("Provides-Extra: test", None)),
        ),
        "METADATA Provides-Extra",
        "test",
        "(absent)",
    ),
    (
        "home-page-to-project-url",
        replace(
            BASE,
            metadata=_meta(add=("Project-URL: Homepage, https://example.org",)),
        ),
        "METADATA Project-URL",
        "(absent)",
        "Homepage, https://example.org",
    ),
    (
        "duplicate-value",  # multisets: a value twice is not the same as once
        replace(BASE, metadata=_meta(add=("Classifier: Programming Language :: Python :: 3",))),
        "METADATA Classifier",
        "(absent)",
        "Programming Language :: Python :: 3",
    ),
    (
        "metadata-version",
        replace(BASE, metadata=_meta(("Metadata-Version: 2.4", "Metadata-Version: 2.1"))),
        "METADATA Metadata-Version",
        "2.4",
        "2.1",
    ),
    (
        "content-type-added",
        replace(BASE, metadata=_meta(add=("Description-Content-Type: text/markdown",))),
        "METADATA Description-Content-Type",
        "(absent)",
        "text/markdown",
    ),
    (
        "license-expression-added",
        replace(BASE, metadata=_meta(add=("License-Expression: MIT",))),
        "METADATA License-Expression",
        "(absent)",
        "MIT",
    ),
    (
        "body",
        replace(BASE, body="The long description, changed.\n"),
        "METADATA description (body)",
        "The long description.\n",
        "The long description, changed.\n",
    ),
    (
        "body-lost",
        replace(BASE, body=""),
        "METADATA description (body)",
        "The long description.\n",
        "(absent)",
    ),
    (
        "script-lost",
        replace(BASE, entry_points="[demo.plugins]\na = demo.a\n"),
        "entry_points [console_scripts]",
        "demo = demo.cli:main",
        "(absent)",
    ),
    (
        "entry-point-target",
        replace(
            BASE,
            entry_points=_eps("demo = demo.cli:run"),
        ),
        "entry_points [console_scripts]",
        "demo = demo.cli:main",
        "demo = demo.cli:run",
    ),
    (
        "entry-point-extras",
        replace(
            BASE,
            entry_points=_eps("demo = demo.cli:main [x]"),
        ),
        "entry_points [console_scripts]",
        "demo = demo.cli:main",
        "demo = demo.cli:main [x]",
    ),
    (
        "file-lost",
        replace(BASE, files={"demo/__init__.py": b"X = 1\n"}),
        "files",
        "demo/cli.py",
        "(none)",
    ),
    (
        "package-data-added",
        replace(BASE, files={**BASE.files, "demo/data.json": b"{}"}),
        "files",
        "(none)",
        "demo/data.json",
    ),
    (
        "content",
        replace(BASE, files={**BASE.files, "demo/__init__.py": b"X = 2\n"}),
        "content of demo/__init__.py",
        hashlib.sha256(b"X = 1\n").hexdigest(),
        hashlib.sha256(b"X = 2\n").hexdigest(),
    ),
    (
        "license-file-added",
        replace(BASE, dist_extra={"licenses/LICENSE": b"MIT\n"}),
        "files in .dist-info",
        "(none)",
        "licenses/LICENSE",
    ),
    (
        "dist-info-name",
        replace(
            BASE,
            dist_info="Demo-1.0.dist-info",
        ),
        "dist-info directory",
        "demo-1.0.dist-info",
        "Demo-1.0.dist-info",
    ),
    ("top-level", replace(BASE, top_level="demo\ntests\n"), "top_level.txt", "(none)", "tests"),
    (
        "purelib",
        replace(BASE, wheel="Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n"),
        "WHEEL Root-Is-Purelib",
        "true",
        "false",
    ),
    (
        "tag",
        replace(
            BASE,
            wheel=_wheel_file("py2-none-any", "py3-none-any"),
        ),
        "WHEEL Tag",
        "(absent)",
        "py2-none-any",
    ),
]


@pytest.mark.parametrize(
    ("after", "what", "before_text", "after_text"),
    [case[1:] for case in DIFFERENCES],
    ids=[case[0] for case in DIFFERENCES],
)
def test_each_difference_is_reported(tmp_path, after, what, before_text, after_text):
    differences = diff(tmp_path, BASE, after)
    assert [d.what for d in differences] == [what]
    assert differences[0] == WheelDifference(what, before_text, after_text)
    # and the other way round, sides swapped
    back = diff(tmp_path / "back", after, BASE)
    assert [(d.what, d.before, d.after) for d in back] == [(what, after_text, before_text)]


# same installed result: (id, before, after)
SAME = [
    ("identical", BASE, BASE),
    (
        "order-of-fields",
        BASE,
        replace(BASE, metadata=(*BASE.metadata[:4], *reversed(BASE.metadata[4:]))),
    ),
    (
        "dynamic-ignored",  # normalisation 1
        replace(BASE, metadata=_meta(add=("Dynamic: classifier", "Dynamic: requires-dist"))),
        BASE,
    ),
    (
        "license-to-expression",  # normalisation 2
        replace(BASE, metadata=_meta(add=("License: MIT",))),
        replace(BASE, metadata=_meta(add=("License-Expression: MIT",))),
    ),
    (
        "license-to-expression-canonical",  # normalisation 2, canonical forms
        replace(BASE, metadata=_meta(add=("License: apache-2.0 or mit",))),
        replace(BASE, metadata=_meta(add=("License-Expression: Apache-2.0 OR MIT",))),
    ),
    (
        "requires-python-spelling",  # normalisation 3
        replace(BASE, metadata=_meta(add=("Requires-Python: >= 3.10",))),
        replace(BASE, metadata=_meta(add=("Requires-Python: >=3.10",))),
    ),
    (
        "requires-python-order",  # normalisation 3
        replace(BASE, metadata=_meta(add=("Requires-Python: >=3.8, <4",))),
        replace(BASE, metadata=_meta(add=("Requires-Python: <4,>=3.8",))),
    ),
    (
        "entry-point-whitespace",  # normalisation 4
        replace(
            BASE,
            entry_points="[console_scripts]\ndemo=demo.cli : main\n\n[demo.plugins]\na =  demo.a\n",
        ),
        BASE,
    ),
    (
        "entry-point-order",
        BASE,
        replace(
            BASE,
            entry_points="[demo.plugins]\na = demo.a\n[console_scripts]\ndemo = demo.cli:main\n",
        ),
    ),
    (
        "tag-order",
        replace(
            BASE,
            wheel=_wheel_file("py2-none-any", "py3-none-any"),
        ),
        replace(
            BASE,
            wheel=_wheel_file("py3-none-any", "py2-none-any"),
        ),
    ),
    (
        "generator-ignored",
        BASE,
        replace(
            BASE,
            wheel=_wheel_file("py3-none-any", generator="setuptools (84.2.1)"),
        ),
    ),
]


@pytest.mark.parametrize(
    ("before", "after"), [case[1:] for case in SAME], ids=[case[0] for case in SAME]
)
def test_same_installed_result(tmp_path, before, after):
    assert diff(tmp_path, before, after) == ()


# near misses of the normalisations: (id, before, after, what)
NOT_SAME = [
    (
        "license-other-expression",
        replace(BASE, metadata=_meta(add=("License: MIT",))),
        replace(BASE, metadata=_meta(add=("License-Expression: BSD-3-Clause",))),
        ["METADATA License", "METADATA License-Expression"],
    ),
    (
        "license-not-an-expression",
        replace(BASE, metadata=_meta(add=("License: MIT License",))),
        replace(BASE, metadata=_meta(add=("License-Expression: MIT",))),
        ["METADATA License", "METADATA License-Expression"],
    ),
    (
        "license-kept-and-expression-added",
        replace(BASE, metadata=_meta(add=("License: MIT",))),
        replace(BASE, metadata=_meta(add=("License: MIT", "License-Expression: MIT"))),
        ["METADATA License-Expression"],
    ),
    (
        "expression-to-license",  # only in the direction a migration goes
        replace(BASE, metadata=_meta(add=("License-Expression: MIT",))),
        replace(BASE, metadata=_meta(add=("License: MIT",))),
        ["METADATA License", "METADATA License-Expression"],
    ),
    (
        "requires-python-other",
        replace(BASE, metadata=_meta(add=("Requires-Python: >= 3.10",))),
        replace(BASE, metadata=_meta(add=("Requires-Python: >=3.9",))),
        ["METADATA Requires-Python"],
    ),
    (
        "requires-python-unparsable",  # compared as written
        replace(BASE, metadata=_meta(add=("Requires-Python: >= 3.10 or so",))),
        replace(BASE, metadata=_meta(add=("Requires-Python: >=3.10 or so",))),
        ["METADATA Requires-Python"],
    ),
    (
        "entry-point-name-space",
        BASE,
        replace(
            BASE,
            entry_points=_eps("de mo = demo.cli:main"),
        ),
        ["entry_points [console_scripts]"],
    ),
]


@pytest.mark.parametrize(
    ("before", "after", "whats"),
    [case[1:] for case in NOT_SAME],
    ids=[case[0] for case in NOT_SAME],
)
def test_normalisations_go_no_further(tmp_path, before, after, whats):
    assert [d.what for d in diff(tmp_path, before, after)] == whats


def test_many_changed_files_are_capped(tmp_path):
    files = {f"demo/m{i:02}.py": b"A\n" for i in range(30)}
    before = replace(BASE, files=files)
    after = replace(BASE, files=dict.fromkeys(files, b"B\n"))
    differences = diff(tmp_path, before, after)
    assert len(differences) == 21
    assert differences[-1].what == "content of 10 more files"
    lost = diff(tmp_path / "lost", before, replace(BASE, files={}))
    assert lost[0].what == "files"
    assert lost[0].before.endswith("... and 10 more")


def test_names_only_skips_contents_and_nothing_else(tmp_path):
    after = replace(
        BASE, files={"demo/__init__.py": b"X = 2\n", "demo/cli.py": b"changed\n", "new.py": b""}
    )
    before_path, after_path = build(tmp_path, BASE, "b"), build(tmp_path, after, "a")
    assert changed_contents(before_path, after_path) == {"demo/__init__.py", "demo/cli.py"}
    differences = compare_wheels(before_path, after_path, names_only={"demo/__init__.py"})
    assert [d.what for d in differences] == ["files", "content of demo/cli.py"]


def test_not_a_wheel(tmp_path):
    bad = tmp_path / "bad.whl"
    bad.write_bytes(b"not a zip")
    good = build(tmp_path, BASE, "good")
    with pytest.raises(ArchiveError, match="cannot read the wheel"):
        compare_wheels(bad, good)
    empty = tmp_path / "empty.whl"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("demo/__init__.py", "")
    with pytest.raises(ArchiveError, match=r"not a wheel \(expected one top-level .dist-info"):
        compare_wheels(good, empty)


# --------------------------------------------------------------------------- setuptools


@pytest.mark.parametrize(
    ("pyproject", "expected"),
    [
        (None, "84.2.1"),
        ('[build-system]\nrequires = ["setuptools>=61"]\n', "84.2.1"),
        ('[build-system]\nrequires = ["setuptools>=61,<70", "wheel"]\n', "69.5.1"),
        ('[build-system]\nrequires = ["setuptools==77.0.3"]\n', "77.0.3"),
        ('[build-system]\nrequires = ["setuptools>=999"]\n', None),
    ],
)
def test_newest_setuptools(tmp_path, pyproject, expected, monkeypatch):
    from sapper.versions import catalogue

    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    if expected == "84.2.1":
        expected = catalogue().newest
    assert newest_setuptools(tmp_path, python="3.11.7") == expected


# --------------------------------------------------------------------------- real builds

SETUP_PY = """\
from setuptools import setup

setup(
    name="tinymig",
    version="1.0",
    description="A tiny project",
    author="Ann",
    license="MIT",
    classifiers=["Programming Language :: Python :: 3"],
    packages=["tinymig"],
    install_requires=["attrs>=20"],
    extras_require={"test": ["pytest"]},
    entry_points={"console_scripts": ["tinymig = tinymig:main"]},
)
"""

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "tinymig"
version = "1.0"
description = "A tiny project"
authors = [{name = "Ann"}]
license = "MIT"
classifiers = ["Programming Language :: Python :: 3"]
dependencies = ["attrs>=20"]
%(extras)s
[project.scripts]
tinymig = "tinymig:main"

[tool.setuptools]
packages = ["tinymig"]
"""


def _tree(root: Path, name: str, files: dict[str, str]) -> Path:
    tree = root / name / "tinymig-1.0"
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    return tree


PACKAGE = {"tinymig/__init__.py": "def main():\n    pass\n"}


@pytest.fixture(scope="module")
def sandboxed():
    from canary_support import require_sandbox

    require_sandbox()


@pytest.fixture
def real_builder():
    from canary_support import builder

    return builder(timeout=240)


def test_real_migration_is_equivalent_and_a_lost_extra_is_not(sandboxed, real_builder, tmp_path):
    before = _tree(tmp_path, "before", {**PACKAGE, "setup.py": SETUP_PY})
    extras = '[project.optional-dependencies]\ntest = ["pytest"]\n'
    after = _tree(tmp_path, "after", {**PACKAGE, "pyproject.toml": PYPROJECT % {"extras": extras}})
    result = verify_migration(before, after, builder=real_builder)
    assert result.status == "equivalent", result
    assert result.differences == ()
    # the extra forgotten: METADATA differs in Provides-Extra and Requires-Dist
    lost = _tree(tmp_path, "lost", {**PACKAGE, "pyproject.toml": PYPROJECT % {"extras": ""}})
    result = verify_migration(before, lost, builder=real_builder)
    assert result.status == "different"
    assert [d.what for d in result.differences] == [
        "METADATA Provides-Extra",
        "METADATA Requires-Dist",
    ]
    assert result.differences[1] == WheelDifference(
        "METADATA Requires-Dist", 'pytest; extra == "test"', "(absent)"
    )


def test_real_unverified_and_broken(sandboxed, real_builder, tmp_path):
    extras = '[project.optional-dependencies]\ntest = ["pytest"]\n'
    after = _tree(tmp_path, "after", {**PACKAGE, "pyproject.toml": PYPROJECT % {"extras": extras}})
    failing = _tree(tmp_path, "failing", {**PACKAGE, "setup.py": "raise SystemExit('no')\n"})
    result = verify_migration(failing, after, builder=real_builder)
    assert result.status == "unverified"
    assert "the tree before the migration does not build" in result.reason
    before = _tree(tmp_path, "before", {**PACKAGE, "setup.py": SETUP_PY})
    broken = _tree(
        tmp_path,
        "broken",
        {**PACKAGE, "pyproject.toml": (PYPROJECT % {"extras": extras}).replace("tinymig:main", "")},
    )
    result = verify_migration(before, broken, builder=real_builder)
    assert result.status == "different"
    assert result.differences[0].what == "build"


STAMP_SETUP = """\
import os
from setuptools import setup
from setuptools.command.build_py import build_py


class Stamp(build_py):
    def run(self):
        super().run()
        with open(os.path.join(self.build_lib, "tinymig", "stamp.py"), "w") as f:
            f.write(f"STAMP = {os.urandom(8).hex()!r}\\n")


setup(cmdclass={"build_py": Stamp}%(rest)s)
"""


def test_real_unstable_content_is_compared_by_name_only(sandboxed, real_builder, tmp_path):
    rest = ', name="tinymig", version="1.0", packages=["tinymig"]'
    before = _tree(tmp_path, "before", {**PACKAGE, "setup.py": STAMP_SETUP % {"rest": rest}})
    pyproject = (
        '[build-system]\nrequires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    pyproject += '\n[project]\nname = "tinymig"\nversion = "1.0"\n'
    pyproject += '\n[tool.setuptools]\npackages = ["tinymig"]\n'
    files = {"setup.py": STAMP_SETUP % {"rest": ""}, "pyproject.toml": pyproject}
    after = _tree(tmp_path, "after", {**PACKAGE, **files})
    result = verify_migration(before, after, builder=real_builder)
    assert result.status == "equivalent", result
    assert "1 file(s) differ between two builds of the unchanged tree too" in result.reason
    assert "(tinymig/stamp.py)" in result.reason
    # a stable file that the migration changes is still a difference
    changed = _tree(
        tmp_path, "changed", {**files, "tinymig/__init__.py": "def main():\n    return 1\n"}
    )
    result = verify_migration(before, changed, builder=real_builder)
    assert result.status == "different"
    assert [d.what for d in result.differences] == ["content of tinymig/__init__.py"]


def test_no_sandbox_is_unverified(tmp_path, monkeypatch):
    from sapper._exceptions import SandboxError
    from sapper.build import Builder

    def refuse(self: Builder) -> None:
        raise SandboxError("bwrap: setting up uid map: Permission denied")

    monkeypatch.setattr(Builder, "check", refuse)
    result = verify_migration(tmp_path, tmp_path, builder=Builder(cache_dir=tmp_path))
    assert result == Verification(
        "unverified",
        (),
        "no build sandbox, so no proof: bwrap: setting up uid map: Permission denied",
    )


def test_top_level_lost_is_a_file_and_a_name(tmp_path):
    differences = diff(tmp_path, BASE, replace(BASE, top_level=None))
    assert differences == (
        WheelDifference("files in .dist-info", "top_level.txt", "(none)"),
        WheelDifference("top_level.txt", "demo", "(absent)"),
    )
