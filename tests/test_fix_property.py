"""Properties of ``sapper fix`` on small fixture projects (``tests/data/fix/projects``).

Without setuptools: the fix is idempotent, keeps every comment line, and leaves no finding
for the rules it fixed. With real setuptools (oracle marker): the fixed project builds its
metadata with the newest setuptools, also under ``SETUPTOOLS_ENFORCE_DEPRECATION=1`` for the
setup.cfg deprecations, and its core metadata equals what the original produced with the
newest setuptools that builds it. The one intended difference is a ``description-file``
turned into ``long_description = file:``: the fixed project gains the long description.

``scripts/fix_property.py`` runs the same study over real sdists from PyPI.
"""

from __future__ import annotations

import shutil
from email.parser import HeaderParser
from pathlib import Path

import pytest
from helpers import DATA, TODAY, check

from sapper.fix import fix_files
from sapper.inputs.sources import read_directory

PROJECTS = DATA / "fix" / "projects"
NAMES = sorted(p.name for p in PROJECTS.iterdir())
FIXED_RULES = ("SC001", "SC002", "SP001", "SP002")
NEWEST = "84.2.1"
#: The newest setuptools that builds each original (pkg_resources is gone in 82).
ORIGINAL_BUILT_BY = {
    "dash-keys": NEWEST,
    "ignored-keys": NEWEST,
    "pbr-style-requires": NEWEST,
    "setup-py-legacy": "81.0.0",
}
FIELDS = (
    "Name", "Version", "Summary", "Author", "Author-email", "Home-page", "Requires-Dist",
    "Provides-Extra", "Requires-Python", "Classifier", "Keywords", "License", "License-File",
    "Description", "Description-Content-Type",
)  # fmt: skip


def _fixed(name: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    files = read_directory(PROJECTS / name)
    result = fix_files(files, today=TODAY)
    return dict(files.files), dict(result.files)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_properties(name: str) -> None:
    original, changed = _fixed(name)
    assert changed, "every fixture has something to fix"
    fixed = {**original, **changed}
    assert not check(fixed, select=FIXED_RULES).findings
    for path, content in changed.items():
        before = original[path].decode().splitlines()
        after = content.decode().splitlines()
        comments = [ln.strip() for ln in before if ln.strip().startswith(("#", ";"))]
        assert all(any(c in a for a in after) for c in comments)
    files = read_directory(PROJECTS / name)
    again = fix_files(
        type(files)(label=files.label, root=files.root, files=fixed, names=files.names),
        today=TODAY,
    )
    assert not again.changed


def _metadata(text: str) -> dict[str, object]:
    msg = HeaderParser().parsestr(text)
    out: dict[str, object] = {}
    for field in FIELDS:
        if field == "Description":
            body = msg.get_payload()
            out[field] = str(msg.get("Description") or body or "").strip()
        else:
            out[field] = sorted(str(v) for v in msg.get_all(field) or [])
    return out


@pytest.mark.oracle
@pytest.mark.network
@pytest.mark.parametrize("name", NAMES)
def test_fixed_builds_same_metadata(name: str, tmp_path: Path) -> None:
    from oracle.harness import metadata_text

    original, changed = _fixed(name)
    before_dir, after_dir = tmp_path / "before", tmp_path / "after"
    shutil.copytree(PROJECTS / name, before_dir)
    shutil.copytree(PROJECTS / name, after_dir)
    for path, content in changed.items():
        (after_dir / path).write_bytes(content)

    before, error = metadata_text(ORIGINAL_BUILT_BY[name], before_dir)
    assert before is not None, error
    after, error = metadata_text(NEWEST, after_dir)
    assert after is not None, error
    # The original fails there (the fixtures only hold what the fix repairs); the fix does not.
    _, error = metadata_text(NEWEST, before_dir, enforce=True)
    assert error is not None
    _, error = metadata_text(NEWEST, after_dir, enforce=True)
    assert error is None, error

    meta_before, meta_after = _metadata(before), _metadata(after)
    if b"description-file" in original.get("setup.cfg", b""):
        readme = (PROJECTS / name / "README.md").read_text().strip()
        assert meta_before["Description"] == ""
        assert meta_after["Description"] == readme
        assert meta_after["Description-Content-Type"] == ["text/markdown"]
        for field in ("Description", "Description-Content-Type"):
            del meta_before[field], meta_after[field]
    assert meta_after == meta_before
