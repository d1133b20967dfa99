"""sapper.facts.validator: a release's own pyproject.toml validator, read from its wheel.

The fetch/cache/load machinery is tested here on wheels made in the test, whose tiny
``_validate_pyproject`` package is written here (not setuptools' code) and mimics the
interface setuptools' generated one has (``validate``, ``ValidationError`` with ``summary``
and ``name``, ``FORMAT_FUNCTIONS``). What the real validators say is proven against real
setuptools in tests/oracle/test_validator_oracle.py.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest
from fake_index import FakeIndex, serve, sha256

from sapper._exceptions import FetchError
from sapper.facts import validator
from sapper.pypi import Index

INIT = """
from .formats import FORMAT_FUNCTIONS
from .errors import ValidationError

def validate(data):
    project = data.get("project") or {}
    if "name" not in project:
        raise ValidationError("`project` must contain ['name'] properties", name="data.project")
    if not FORMAT_FUNCTIONS["trove-classifier"]("x"):
        raise ValidationError("classifier checked", name="data.project.classifiers")
    if project.get("name") == "trove":
        raise ValidationError(TROVE, name="data.project.name")
    return True

try:
    import trove_classifiers
    TROVE = "trove_classifiers importable"
except ImportError:
    TROVE = "trove_classifiers hidden"
"""
ERRORS = """
class ValidationError(ValueError):
    def __init__(self, summary, name):
        super().__init__(summary)
        self.summary = summary
        self.name = "`" + name + "`"
        self.rule = "required"
"""
FORMATS = """
class _Trove:
    allow = False
    def _disable_download(self):
        self.allow = True
    def __call__(self, value):
        return self.allow

FORMAT_FUNCTIONS = {"trove-classifier": _Trove()}
"""
SOURCES = {"__init__.py": INIT, "errors.py": ERRORS, "formats.py": FORMATS}


def make_wheel(sources: dict[str, str], prefix: str = validator.PACKAGES[0]) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as zf:
        for name, text in sources.items():
            zf.writestr(prefix + name, text)
        zf.writestr("setuptools/__init__.py", "")
        zf.writestr(prefix + "NOTICE", "not python")
        zf.writestr(prefix + "sub/ignored.py", "x = 1")
    return raw.getvalue()


def fake_setuptools(versions: dict[str, bytes]) -> FakeIndex:
    fake = FakeIndex()
    entries = []
    for version, wheel in versions.items():
        filename = f"setuptools-{version}-py3-none-any.whl"
        path, data = fake.add_file(filename, wheel)
        entries.append({"filename": filename, "url": path, "hashes": {"sha256": sha256(data)}})
    fake.json_projects["setuptools"] = entries
    return fake


def test_sources_are_read_from_either_vendoring_place() -> None:
    for prefix in validator.PACKAGES:
        assert validator.sources_from_wheel(make_wheel(SOURCES, prefix)) == SOURCES
    assert validator.sources_from_wheel(make_wheel({}, "other/")) == {}


def test_digest_names_the_content_not_the_order() -> None:
    reordered = dict(reversed(list(SOURCES.items())))
    assert validator.digest_of(reordered) == validator.digest_of(SOURCES)
    assert validator.digest_of({**SOURCES, "errors.py": ERRORS + "\n"}) != validator.digest_of(
        SOURCES
    )


@pytest.mark.parametrize(
    ("doc", "subset"),
    [
        ({}, None),
        ({"project": {}}, None),
        ({"tool": {"black": {}}}, None),
        (
            {"project": {"name": "a"}, "tool": {"black": {"x": 1}}},
            {"project": {"name": "a"}, "tool": {"setuptools": {"include-package-data": True}}},
        ),
        (
            {"tool": {"setuptools": {"include-package-data": False}}},
            {"project": {}, "tool": {"setuptools": {"include-package-data": False}}},
        ),
    ],
)
def test_validation_subset_is_what_read_configuration_validates(
    doc: dict[str, object], subset: dict[str, object] | None
) -> None:
    assert validator.validation_subset(doc) == subset


def test_fetch_caches_one_entry_per_distinct_validator(tmp_path: Path) -> None:
    same = make_wheel(SOURCES)
    other = make_wheel({**SOURCES, "errors.py": ERRORS + "# changed\n"})
    fake = fake_setuptools({"90.0.0": same, "90.0.1": same, "91.0.0": other})
    with serve(fake) as url:
        index = Index(url, cache_dir=tmp_path)
        first = validator.fetch("90.0.0", index)
        second = validator.fetch("90.0.1", index)
        third = validator.fetch("91.0.0", index)
    assert first is not None and second is not None and third is not None
    assert first.digest == second.digest != third.digest
    entries = sorted(p.name for p in (tmp_path / validator.FOLDER).glob("*.json"))
    assert entries == sorted({f"{first.digest}.json", f"{third.digest}.json"})
    # offline afterwards: from the cache alone, whatever the process memo holds
    validator._LOADED.clear()
    again = validator.available("90.0.1", tmp_path)
    assert again is not None and again.digest == first.digest


def test_a_damaged_entry_is_not_used(tmp_path: Path) -> None:
    fake = fake_setuptools({"90.0.0": make_wheel(SOURCES)})
    with serve(fake) as url:
        found = validator.fetch("90.0.0", Index(url, cache_dir=tmp_path))
    assert found is not None
    entry = tmp_path / validator.FOLDER / f"{found.digest}.json"
    doc = json.loads(entry.read_text())
    doc["sources"]["__init__.py"] += "\nraise SystemExit('tampered')\n"
    entry.write_text(json.dumps(doc))
    validator._LOADED.clear()
    # the compiled copy written beside it is still good ...
    assert validator.available("90.0.0", tmp_path) is not None
    # ... without it the tampered sources are refused
    for compiled in (tmp_path / validator.FOLDER).glob("*.bin"):
        compiled.write_bytes(compiled.read_bytes()[:20] + b"garbage")
    validator._LOADED.clear()
    assert validator.available("90.0.0", tmp_path) is None


def test_answers_are_kept_per_subset(tmp_path: Path) -> None:
    fake = fake_setuptools({"94.0.0": make_wheel({**SOURCES, "errors.py": ERRORS + "#94\n"})})
    with serve(fake) as url:
        found = validator.fetch("94.0.0", Index(url, cache_dir=tmp_path))
    assert found is not None
    bad = {"project": {"version": "1"}}
    first = validator.judge(bad, [found.digest, "0" * 64], tmp_path)
    assert first[found.digest] == found.validate(bad)
    assert first["0" * 64] == validator.UNAVAILABLE
    # the second time no validator is loaded: the answer comes from the results cache
    validator._LOADED.clear()
    (tmp_path / validator.FOLDER / f"{found.digest}.json").unlink()
    for compiled in (tmp_path / validator.FOLDER).glob("*.bin"):
        compiled.unlink()
    assert validator.judge(bad, [found.digest], tmp_path) == {found.digest: first[found.digest]}
    assert validator.judge({"project": {"name": "a"}}, [found.digest], tmp_path) == {
        found.digest: validator.UNAVAILABLE
    }


def test_an_answer_kept_in_another_form_is_asked_again(tmp_path: Path) -> None:
    fake = fake_setuptools({"95.0.0": make_wheel({**SOURCES, "errors.py": ERRORS + "#95\n"})})
    with serve(fake) as url:
        found = validator.fetch("95.0.0", Index(url, cache_dir=tmp_path))
    assert found is not None
    bad = {"project": {"version": "1"}}
    validator.judge(bad, [found.digest], tmp_path)
    (kept,) = (tmp_path / validator.FOLDER / "results").rglob("*.json")
    kept.write_text(json.dumps({found.digest: ["summary", "name", "rule"]}))  # an older form
    assert validator.judge(bad, [found.digest], tmp_path) == {found.digest: found.validate(bad)}


def test_nothing_cached_means_no_validator(tmp_path: Path) -> None:
    assert validator.available("90.0.0", tmp_path) is None
    assert validator.available("90.0.0", None) is None


def test_a_release_without_a_wheel_is_a_fetch_error(tmp_path: Path) -> None:
    fake = FakeIndex()
    fake.json_projects["setuptools"] = []
    with serve(fake) as url, pytest.raises(FetchError, match="no pure-Python wheel"):
        validator.fetch("90.0.0", Index(url, cache_dir=tmp_path))


def test_validate_returns_the_validators_words_and_key(tmp_path: Path) -> None:
    fake = fake_setuptools({"92.0.0": make_wheel({**SOURCES, "errors.py": ERRORS + "#92\n"})})
    with serve(fake) as url:
        found = validator.fetch("92.0.0", Index(url, cache_dir=tmp_path))
    assert found is not None
    rejection = found.validate({"project": {"version": "1"}, "tool": {"setuptools": {}}})
    assert rejection == validator.Rejection(
        summary="`project` must contain ['name'] properties", name="project", rule="required"
    )
    assert rejection.keys == ("project",)
    # trove classifiers are not downloaded (setuptools' _disable_download) ...
    assert found.validate({"project": {"name": "a"}}) is None
    # ... and the optional trove_classifiers package is hidden, as in a build environment
    sys.modules.setdefault("trove_classifiers", type(sys)("trove_classifiers"))
    try:
        hidden = found.validate({"project": {"name": "trove"}})
    finally:
        sys.modules.pop("trove_classifiers", None)
    assert hidden is not None and hidden.summary == "trove_classifiers hidden"


def test_rejection_keys_drop_indices() -> None:
    r = validator.Rejection(summary="", name="project.authors[0].foo", rule=None)
    assert r.keys == ("project", "authors", "foo")
    old = validator.Rejection(summary="", name="project.authors[{data__authors_x}]", rule=None)
    assert old.keys == ("project", "authors")


def test_warm_fetches_one_wheel_per_validator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = make_wheel({**SOURCES, "errors.py": ERRORS + "#warm\n"})
    fake = fake_setuptools({"93.0.0": wheel, "93.0.1": wheel})
    digest = validator.digest_of(validator.sources_from_wheel(wheel))
    monkeypatch.setattr(validator, "eras", lambda: {"93.0.0": digest, "93.0.1": digest})
    with serve(fake) as url:
        index = Index(url, cache_dir=tmp_path)
        done = validator.warm(index, ["93.0.1", "93.0.0"])
        wheels = [p for p in fake.paths_requested() if p.endswith(".whl")]
        again = validator.warm(index, ["93.0.0"])
    assert [(w.digest, w.releases, w.cached) for w in done] == [
        (digest, ("93.0.0", "93.0.1"), False)
    ]
    assert wheels == ["/files/setuptools-93.0.0-py3-none-any.whl"]
    assert [w.cached for w in again] == [True]


def test_the_data_file_knows_every_release_from_61() -> None:
    from sapper.versions import catalogue

    eras = validator.eras()
    missing = [v for v in catalogue().between("61.0.0") if v not in eras]
    assert missing == []
    assert "60.10.0" not in eras


def test_cache_warm_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sapper.cli import main

    wheel = make_wheel({**SOURCES, "errors.py": ERRORS + "#cli\n"})
    digest = validator.digest_of(validator.sources_from_wheel(wheel))
    monkeypatch.setattr(validator, "eras", lambda: {"61.0.0": digest})
    fake = fake_setuptools({"61.0.0": wheel})
    with serve(fake) as url:
        argv = ["cache", "warm", "--cache-dir", str(tmp_path), "--index-url", url]
        assert main([*argv, "--setuptools", "61.0.0"]) == 0
        first = capsys.readouterr().out
        assert main([*argv, "--setuptools", "61.0.0"]) == 0
        second = capsys.readouterr().out
        assert main([*argv, "--setuptools", "not-a-version"]) == 2
    assert f"{digest[:12]}  downloaded  setuptools 61.0.0" in first
    assert "1 downloaded" in first
    assert f"{digest[:12]}  cached" in second
    assert "0 downloaded" in second
    assert (tmp_path / validator.FOLDER / f"{digest}.json").exists()
