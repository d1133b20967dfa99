"""Every before/after row of the setup.cfg table in docs/fix.md is what ``sapper fix`` does."""

from __future__ import annotations

import re

import pytest
from helpers import DATA, TODAY, project

from sapper.fix import fix_files

DOC = DATA.parent.parent / "docs" / "fix.md"


def _rows() -> list[tuple[str, str, str, str]]:
    text = DOC.read_text()
    section = text.split("## setup.cfg: before and after", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows.append((cells[0].strip("`"), cells[1], cells[2], cells[3]))
    return rows


ROWS = _rows()


def _text(cell: str) -> str:
    return cell.replace("<br>", "\n") + "\n"


def test_the_table_is_found() -> None:
    assert len(ROWS) > 30


@pytest.mark.parametrize(("before", "after", "with_", "edit"), ROWS)
def test_doc_row(before: str, after: str, with_: str, edit: str) -> None:
    files: dict[str, str] = {"setup.cfg": _text(before)}
    for name in ("README.rst", "README.md", "A.md", "B.md", "LICENSE"):
        if re.search(rf"(^|, ){re.escape(name)}(,|$)", with_):
            files[name] = "text\n"
    keywords = re.findall(r"setup\.py passing (\w+)", with_)
    if keywords:
        files["setup.py"] = "from setuptools import setup\nsetup({})\n".format(
            ", ".join(f"{k}=X" for k in keywords)
        )
    if "pbr" in with_:
        files["setup.py"] = "from setuptools import setup\nsetup(pbr=True)\n"
    result = fix_files(project(files), unsafe_fixes="--unsafe-fixes" in with_, today=TODAY)
    new = result.files.get("setup.cfg", files["setup.cfg"].encode()).decode()
    if after == "unchanged":
        expected = files["setup.cfg"]
    elif after == "empty file":
        expected = ""
    else:
        expected = _text(after.strip("`"))
    assert new == expected
    statuses = {"fixed": "applied", "unsafe": "unsafe", "not fixed": "skipped"}
    if edit.startswith("none"):
        assert result.edits == ()
    else:
        code, _, rest = edit.partition(" ")
        status = next(v for k, v in statuses.items() if rest.startswith(k))
        assert result.edits
        assert {(e.code, e.status) for e in result.edits} == {(code, status)}
