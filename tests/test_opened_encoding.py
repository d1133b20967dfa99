"""Text read from a file in setup.py is decoded as the call says: ``encoding`` and
``errors`` (graphene 3.4.3 reads its README with ``codecs.open(..., encoding="ascii",
errors="replace")``, so its long description is not the file's UTF-8 text)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sapper.facts._exprs import UNKNOWN, resolve
from sapper.migrate import plan_migration

TEXT = "caf\u00e9 \U0001f4ac\r\nend\n"
FILES = {"README.md": TEXT.encode("utf-8"), "latin.txt": "caf\u00e9\n".encode("latin-1")}

CASES = [
    ("open-default", 'open("README.md").read()', TEXT.replace("\r\n", "\n")),
    ("open-utf8", 'open("README.md", encoding="utf-8").read()', TEXT.replace("\r\n", "\n")),
    ("open-positional", 'open("README.md", "r", -1, "utf-8").read()', TEXT.replace("\r\n", "\n")),
    (
        "codecs-ascii-replace",
        'codecs.open("README.md", "r", encoding="ascii", errors="replace").read()',
        TEXT.encode("utf-8").decode("ascii", "replace").replace("\r\n", "\n"),
    ),
    (
        "codecs-positional",
        'codecs.open("README.md", "r", "ascii", "ignore").read()',
        "caf \nend\n",
    ),
    ("ascii-strict-fails", 'open("README.md", encoding="ascii").read()', UNKNOWN),
    ("latin-1", 'io.open("latin.txt", encoding="latin-1").read()', "caf\u00e9\n"),
    ("latin-1-as-utf8", 'open("latin.txt").read()', UNKNOWN),
    ("not-a-text-codec", 'open("README.md", encoding="hex").read()', UNKNOWN),
    ("computed-encoding", 'open("README.md", encoding=ENC()).read()', UNKNOWN),
    ("kwargs", 'open("README.md", **OPTS).read()', UNKNOWN),
    (
        "path-open",
        'Path("README.md").open(encoding="ascii", errors="replace").read()',
        TEXT.encode("utf-8").decode("ascii", "replace").replace("\r\n", "\n"),
    ),
]


@pytest.mark.parametrize(("expr", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_text_is_decoded_as_the_call_says(expr: str, expected: object) -> None:
    node = ast.parse(expr, mode="eval").body
    assert resolve(node, {}, FILES) == expected


def test_a_readme_read_with_replacement_stays_in_setup_py(tmp_path: Path) -> None:
    """Moved to ``readme``, setuptools would read the file as UTF-8 and the wheel's
    description would gain the characters the project's own read replaces."""
    (tmp_path / "README.md").write_bytes(TEXT.encode("utf-8"))
    (tmp_path / "probe.py").write_text("")
    (tmp_path / "setup.py").write_text(
        "import codecs\nfrom setuptools import setup\n"
        "setup(name='probe', version='1.0', py_modules=['probe'],\n"
        "      long_description=codecs.open('README.md', 'r', encoding='ascii',"
        " errors='replace').read(),\n"
        "      long_description_content_type='text/markdown')\n"
    )
    migration = plan_migration(tmp_path)
    assert not migration.refusals
    written = next(c.after for c in migration.changes if c.path == "pyproject.toml")
    assert written is not None
    assert "readme" in written  # listed as dynamic, not as a file
    assert 'file = "README.md"' not in written and "README.md" not in written
    setup_py = next(c.after for c in migration.changes if c.path == "setup.py")
    assert setup_py is not None and "long_description=codecs.open" in setup_py
