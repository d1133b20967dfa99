"""Audits of real files written by pip, uv and Poetry, against PyPI.

The emitted build constraints are tried with the real installers in
test_audit_emit_real.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.network


@pytest.mark.parametrize(
    "filename", ["pip-report.json", "pylock.toml", "uv.lock", "poetry.lock", "requirements.txt"]
)
def test_real_inputs_against_pypi(filename: str, tmp_path: Path) -> None:
    from sapper.audit import audit

    data = Path(__file__).parent / "data" / "audit" / filename
    report = audit(
        data, python="3.11", platforms=["manylinux_2_28_x86_64"], cache_dir=tmp_path / "cache"
    )
    by_name = {p.name.lower(): p for p in report.packages}
    stringcase = by_name["stringcase"]
    assert stringcase.source == "sdist"  # no wheel was ever published
    assert stringcase.verdict is not None
    assert stringcase.verdict.outcome == "builds"
    assert "SC001" in {f.code for f in stringcase.verdict.findings}  # overdue, not yet removed
    crypto = by_name["cryptography"]
    if filename in ("pip-report.json", "pylock.toml"):
        # pip wrote only the wheel it chose on the machine that made the file, which needs
        # glibc 2.34; a glibc 2.28 target cannot install it (and the file has no sdist).
        assert crypto.source == "unavailable"
        assert "no file the target can install" in crypto.how
    else:
        assert crypto.source == "wheel"
        assert crypto.wheel is not None and "-abi3-manylinux_2_28_x86_64" in crypto.wheel
    assert by_name["six"].source == "wheel"
    # poetry.lock lists file names only: the sdist's URL comes from the index.
    assert stringcase.sdist_url is not None and stringcase.sdist_url.startswith("https://")
