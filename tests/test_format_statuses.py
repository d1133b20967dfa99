"""Every finding status renders in every ``sapper check`` format (a status missing from a
format's level table used to crash ``--format sarif`` and ``--format github``)."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import jsonschema
import pytest
from helpers import DATA

from sapper.cli import main
from sapper.model import Status

SCHEMA = json.loads((DATA / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
FORMATS = ("text", "concise", "json", "sarif", "github")


@pytest.mark.parametrize("status", typing.get_args(Status))
def test_every_status_has_a_level(status: str) -> None:
    from sapper.render import github, sarif

    assert sarif._LEVEL[status] in ("error", "warning", "note")
    assert github._LEVEL[status] in ("error", "warning", "notice")


@pytest.mark.parametrize("fmt", FORMATS)
def test_requires_newer_renders(capsys, tmp_path: Path, fmt: str) -> None:
    """A PEP 639 license string with ``setuptools>=61``: PP002, status ``requires-newer``
    at the newest setuptools (it fails only before 77.0.1)."""
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "x"\nversion = "1"\nlicense = "MIT"\n'
    )
    code = main(["check", str(tmp_path), "--format", fmt, "--setuptools", "84.2.1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "PP002" in out
    if fmt == "sarif":
        log = json.loads(out)
        jsonschema.validate(log, SCHEMA)
        (result,) = log["runs"][0]["results"]
        assert (result["level"], result["properties"]["status"]) == ("note", "requires-newer")
    if fmt == "github":
        assert out.startswith("::notice ")
