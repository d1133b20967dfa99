"""Every rule that cites an entry of the changes table, proved at that entry's bounds.

The cases are derived from ``sapper.changes``: for each entry with a failing range (or a
due date) and an expected error, each rule the entry names whose documented example fails
exactly where the entry says is built with the real setuptools releases on both sides of
every bound (the last release that builds and the first that fails, the last that fails and
the first that builds again). sapper's verdict must match the real outcome, and a real
failure must be the exception type and message the table records. One pytest case per
(rule, entry, version), so that ``pytest -n auto`` spreads the venv builds.
"""

from __future__ import annotations

import datetime as _dt
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sapper.changes import CHANGES, Change
from sapper.check import Options, check_files, check_target
from sapper.inputs.sources import ProjectFiles
from sapper.render.explain import example_files
from sapper.rules import Rule, get_rule
from sapper.versions import catalogue

from .harness import metadata_outcome

# PP001/PP007 judged by each release's own validator (warmed once, tests/conftest.py)
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.network,
    pytest.mark.usefixtures("real_validators"),
]


def _releases() -> list[str]:
    cat = catalogue()
    return sorted(
        (v for v in cat.universe if not (r := cat.release(v)) or not r.yanked), key=cat.parsed
    )


def _edges(spans: tuple[tuple[str | None, str | None], ...]) -> list[str]:
    """The releases on both sides of every bound of ``spans``."""
    cat = catalogue()
    releases = _releases()
    out: list[str] = []
    for lo, hi in spans:
        for bound in (lo, hi):
            if bound is None:
                continue
            after = [v for v in releases if cat.parsed(v) >= cat.parsed(bound)]
            before = [v for v in releases if cat.parsed(v) < cat.parsed(bound)]
            out += before[-1:] + after[:1]
    return sorted(set(out), key=cat.parsed)


def _example_finding(rule: Rule, *, enforce: bool) -> tuple[str, ...] | None:
    files = example_files(rule)
    project = ProjectFiles(label="example", root="", files=files, names=tuple(sorted(files)))
    result = check_files(project, target="example", kind="directory")
    hits = [f for f in result.findings if f.code == rule.code]
    if not hits:
        return None
    return hits[0].fails_enforced if enforce else hits[0].fails


def _cases() -> list[tuple[str, str, str, bool]]:
    cat = catalogue()
    today = _dt.datetime.now(tz=_dt.timezone.utc).date().isoformat()
    cases = []
    for change in CHANGES:
        if change.error is None:
            continue
        enforce = not change.fails
        want = change.enforced(cat, today) if enforce else change.failing(cat)
        spans = change.warns if enforce else change.fails
        for code in dict.fromkeys(re.findall(r"\b[A-Z]{2}[0-9]{3}\b", change.covered)):
            rule = get_rule(code)
            assert rule is not None
            got = _example_finding(rule, enforce=enforce)
            if got is None or set(cat.to_specifiers(want)) != set(got):
                continue  # the example shows another facet of the rule
            cases += [(code, change.id, v, enforce) for v in _edges(spans)]
    return cases


CASES = _cases()


#: Entries about a build requirement's own releases (a plugin pinned by version: no rule
#: example can pin it), proved instead by the real wheel builds of
#: ``test_requires_oracle.py`` with that plugin release.
PLUGIN_ENTRIES = {
    "ST80": ("pbr", "3.1.1"),
    "ST81": ("pbr", "5.4.5"),
    "ST83": ("setuptools-scm", "10.3.4"),
}


def test_every_cited_entry_has_boundary_cases() -> None:
    """The derivation cannot silently lose an entry: each entry with an expected error is
    proved through at least one rule example, or by real builds with the plugin release it
    is about."""
    from .test_requires_oracle import _SCM_10, REMOVED_API

    built = {(plugin, release) for plugin, release, _ in REMOVED_API}
    built |= {tuple(pin.split("==")) for pin in _SCM_10}  # type: ignore[misc]
    assert set(PLUGIN_ENTRIES.values()) <= built
    proved = {change_id for _, change_id, _, _ in CASES} | set(PLUGIN_ENTRIES)
    expected = {c.id for c in CHANGES if c.error is not None}
    assert proved == expected, f"no rule example proves {sorted(expected - proved)}"


def _change(ident: str) -> Change:
    return next(c for c in CHANGES if c.id == ident)


@pytest.mark.parametrize(
    ("code", "change_id", "version", "enforce"),
    CASES,
    ids=[f"{c}-{s}-{v}{'-enforced' if e else ''}" for c, s, v, e in CASES],
)
def test_rule_at_boundary(
    tmp_path: Path, code: str, change_id: str, version: str, enforce: bool
) -> None:
    rule = get_rule(code)
    assert rule is not None
    for name, data in example_files(rule).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    try:
        real = metadata_outcome(version, tmp_path, enforce=enforce)
    except subprocess.CalledProcessError:
        pytest.skip(f"setuptools {version} does not import on Python {sys.version_info[:2]}")
    result = check_target(str(tmp_path), Options(setuptools=version, enforce_deprecations=enforce))
    assert result.verdict is not None
    assert result.verdict.outcome == ("fails" if real else "builds"), (
        f"setuptools {version}: {real or 'builds'}; sapper: {result.verdict.outcome}"
    )
    change = _change(change_id)
    cat = catalogue()
    inside = version in (
        change.enforced(cat, _dt.date.today().isoformat()) if enforce else change.failing(cat)
    )
    # Outside the entry's range the example may still fail for another rule's reason (a
    # license string before 77.0.1 next to PP003's classifier): only the outcome is compared.
    assert (code in result.verdict.because) == inside, result.verdict.because
    if not inside:
        return
    assert real is not None
    assert change.error is not None
    kind, _, message = real.partition(": ")
    assert re.fullmatch(change.error.type, kind), f"{change_id}: real error {real!r}"
    assert re.search(change.error.message, message), f"{change_id}: real error {real!r}"
