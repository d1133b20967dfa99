"""Golden tests of ``sapper migrate`` over real-world-shaped projects.

Each ``tests/data/migrate/CASE/before`` tree is migrated; the files written must equal
``CASE/after`` (a file listed in ``CASE/after/DELETED`` must be gone), the pyproject.toml
must pass the real validate-pyproject, a second plan must change nothing, and the wheel
built with real setuptools after the migration must carry the same METADATA fields (the
``Dynamic`` markers may only shrink), entry points and files as the one built before.
``SAPPER_UPDATE_GOLDEN=1`` rewrites the ``after`` files (review the diff).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from sapper.migrate import migration_diff, plan_migration, write_migration

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DATA = Path(__file__).parent / "data" / "migrate"
CASES = sorted(p.name for p in DATA.iterdir() if (p / "before").is_dir())
UPDATE = os.environ.get("SAPPER_UPDATE_GOLDEN") == "1"


def _tree(case: str, tmp_path: Path) -> Path:
    dest = tmp_path / case
    shutil.copytree(DATA / case / "before", dest)
    return dest


@pytest.mark.parametrize("case", CASES)
def test_golden_files(case: str, tmp_path: Path) -> None:
    root = _tree(case, tmp_path)
    migration = plan_migration(root)
    assert not migration.refusals, migration.refusals
    assert migration.changes
    after = DATA / case / "after"
    if UPDATE:
        shutil.rmtree(after, ignore_errors=True)
        after.mkdir()
        deleted = []
        for change in migration.changes:
            if change.after is None:
                deleted.append(change.path)
            else:
                (after / change.path).write_text(change.after, encoding="utf-8")
        if deleted:
            (after / "DELETED").write_text("".join(f"{p}\n" for p in deleted))
    deleted = set()
    if (after / "DELETED").exists():
        deleted = set((after / "DELETED").read_text().split())
    expected = {p.name for p in after.iterdir() if p.name != "DELETED"}
    assert {c.path for c in migration.changes} == expected | deleted
    for change in migration.changes:
        if change.path in deleted:
            assert change.after is None
        else:
            assert change.after == (after / change.path).read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_valid_and_idempotent(case: str, tmp_path: Path) -> None:
    from validate_pyproject import api

    root = _tree(case, tmp_path)
    write_migration(plan_migration(root))
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    api.Validator()(data)  # raises on an invalid pyproject.toml
    again = plan_migration(root)
    assert again.changes == ()
    assert not again.refusals


@pytest.mark.parametrize("case", CASES)
def test_diff_applies(case: str, tmp_path: Path) -> None:
    """``git apply`` of the diff gives the same tree as the write."""
    import subprocess

    applied = _tree(case, tmp_path / "a")
    written = _tree(case, tmp_path / "w")
    diff = migration_diff(plan_migration(applied))
    subprocess.run(
        ["git", "apply", "-p1", "-"], input=diff, text=True, cwd=applied, check=True
    )
    write_migration(plan_migration(written))
    for path in sorted(p.relative_to(written) for p in written.rglob("*") if p.is_file()):
        assert (applied / path).read_bytes() == (written / path).read_bytes(), path
    assert sorted(p.relative_to(applied) for p in applied.rglob("*") if p.is_file()) == sorted(
        p.relative_to(written) for p in written.rglob("*") if p.is_file()
    )


@pytest.mark.oracle
@pytest.mark.parametrize("case", CASES)
def test_same_wheel(case: str, tmp_path: Path) -> None:
    from tests.migrate_support import build_wheel, wheel_summary

    before_tree = _tree(case, tmp_path / "before")
    after_tree = _tree(case, tmp_path / "after")
    write_migration(plan_migration(after_tree))
    before = wheel_summary(build_wheel(before_tree, tmp_path / "wb"))
    after = wheel_summary(build_wheel(after_tree, tmp_path / "wa"))
    for key in ("description", "entry_points", "files"):
        assert after[key] == before[key], key
    fields_before = [f for f in before["fields"] if f[0] != "Dynamic"]  # type: ignore[attr-defined]
    fields_after = [f for f in after["fields"] if f[0] != "Dynamic"]  # type: ignore[attr-defined]
    assert fields_after == fields_before
    dynamic_before = {f for f in before["fields"] if f[0] == "Dynamic"}  # type: ignore[attr-defined]
    dynamic_after = {f for f in after["fields"] if f[0] == "Dynamic"}  # type: ignore[attr-defined]
    assert dynamic_after <= dynamic_before
