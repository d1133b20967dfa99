"""sapper.migrate.corpus and ``sapper scan --migrate``: small sdists served by the fake
index, sorted into the outcomes the measurement counts, and one proven with real builds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from archive_factory import file, make_tar, make_zip
from fake_index import FakeIndex, Reply, serve, sha256

from sapper.cli import main
from sapper.migrate.corpus import CorpusEntry, CorpusReport, classify_tree, migrate_corpus
from sapper.migrate.verify import Verification, WheelDifference
from sapper.pypi import Index

PLAIN_CFG = """\
[metadata]
name = {name}
version = 1.0
description = A plain project

[options]
py_modules = {module}
"""
SETUP_PY = "from setuptools import setup\n\nsetup()\n"

#: name -> the files of its sdist (besides PKG-INFO)
PROJECTS: dict[str, dict[str, str]] = {
    # a setuptools project without [project]: the planner migrates it
    "plain": {
        "setup.cfg": PLAIN_CFG.format(name="plain", module="plain"),
        "setup.py": SETUP_PY,
        "plain.py": "X = 1\n",
    },
    # the name comes from the environment: no [project] can say it
    "opaque": {
        "setup.py": "import os\nfrom setuptools import setup\n\n"
        "setup(name=os.environ['NAME'], version='1.0', py_modules=['opaque'])\n",
        "opaque.py": "",
    },
    "modern": {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\n'
        'build-backend = "setuptools.build_meta"\n\n[project]\nname = "modern"\n'
        'version = "1.0"\n',
    },
    "flitted": {
        "pyproject.toml": '[build-system]\nrequires = ["flit_core"]\n'
        'build-backend = "flit_core.buildapi"\n\n[project]\nname = "flitted"\n',
    },
    "bare": {"README": "nothing to build with\n"},
    "badtoml": {"pyproject.toml": "[build-system\n", "setup.py": SETUP_PY},
}


def sdist_bytes(name: str, files: dict[str, str], *, zipped: bool = False) -> bytes:
    root = f"{name}-1.0"
    pkg_info = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
    make = make_zip if zipped else make_tar
    return make(
        [file(f"{root}/PKG-INFO", pkg_info), *(file(f"{root}/{p}", t) for p, t in files.items())]
    )


@pytest.fixture
def index() -> Iterator[tuple[FakeIndex, str]]:
    fake = FakeIndex()
    for name, files in [*PROJECTS.items(), ("gone", {})]:
        filename = f"{name}-1.0.tar.gz"
        data = sdist_bytes(name, files)
        path, _ = fake.add_file(filename, data)
        fake.json_projects[name] = [
            {"filename": filename, "url": path, "hashes": {"sha256": sha256(data)}}
        ]
    zipped = sdist_bytes(
        "zipped",
        {**PROJECTS["plain"], "setup.cfg": PLAIN_CFG.format(name="zipped", module="plain")},
        zipped=True,
    )
    fake.add_file("zipped-1.0.zip", zipped)
    fake.json_projects["zipped"] = [
        {
            "filename": "zipped-1.0.zip",
            "url": "/files/zipped-1.0.zip",
            "hashes": {"sha256": sha256(zipped)},
        }
    ]
    fake.add_file("broken-1.0.tar.gz", b"not an archive")
    fake.json_projects["broken"] = [
        {
            "filename": "broken-1.0.tar.gz",
            "url": "/files/broken-1.0.tar.gz",
            "hashes": {"sha256": sha256(b"not an archive")},
        }
    ]
    fake.fixed["/files/gone-1.0.tar.gz"] = Reply(404, b"no")
    with serve(fake) as url:
        yield fake, url


EXPECTED = {
    "plain": "migrated",
    "opaque": "refused",
    "modern": "has-project",
    "flitted": "not-setuptools",
    "bare": "not-setuptools",
    "badtoml": "unreadable",
    "broken": "unreadable",
    "gone": "fetch-error",
}


def test_each_sdist_gets_its_outcome_statically(index, tmp_path):
    _, url = index
    seen: list[int] = []
    report = migrate_corpus(
        list(EXPECTED),
        index=Index(url, cache_dir=tmp_path / "cache"),
        verify_sample=0,
        on_entry=lambda entry, so_far: seen.append(len(so_far.entries)),
    )
    assert report.complete
    assert seen == list(range(1, len(EXPECTED) + 1))
    assert {e.target: e.outcome for e in report.entries} == EXPECTED
    by_target = {e.target: e for e in report.entries}
    plain = by_target["plain"]
    assert (plain.project, plain.version, plain.filename) == ("plain", "1.0", "plain-1.0.tar.gz")
    assert "pyproject.toml" in plain.changed
    assert plain.verification is None  # static only
    opaque = by_target["opaque"]
    assert opaque.refusals
    assert all(r.reason for r in opaque.refusals)
    assert "gone-1.0.tar.gz" in by_target["gone"].detail
    assert by_target["flitted"].detail == "build backend flit_core.buildapi"
    assert report.measured() == 2
    assert report.verifications() == {"not-verified": 1}
    assert sum(report.refusal_codes().values()) >= 1
    data = report.as_json()
    assert data["outcomes"]["migrated"] == 1
    assert data["entries"][1]["refusals"][0]["code"] == opaque.refusals[0].code


@pytest.mark.parametrize("cached", [True, False])
def test_zip_sdists_with_and_without_a_cache(index, tmp_path, cached):
    _, url = index
    cache = tmp_path / "cache" if cached else None
    report = migrate_corpus(["zipped", "plain"], index=Index(url, cache_dir=cache), verify_sample=0)
    assert [(e.filename, e.outcome) for e in report.entries] == [
        ("zipped-1.0.zip", "migrated"),
        ("plain-1.0.tar.gz", "migrated"),
    ]


def test_cli_uses_sappers_download_cache(index, tmp_path, monkeypatch, capsys):
    _, url = index
    monkeypatch.setenv("SAPPER_CACHE_DIR", str(tmp_path / "default-cache"))
    assert main(["scan", "--migrate", "zipped", "--index-url", url, "--verify-sample", "0"]) == 0
    assert "  migrated:      1 (100.0%)\n" in capsys.readouterr().out
    assert list((tmp_path / "default-cache" / "sdists").rglob("zipped-1.0.zip"))


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"setup.py": SETUP_PY}, (None, "")),
        ({"setup.cfg": PLAIN_CFG.format(name="a", module="a")}, (None, "")),
        (
            {"pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n', "setup.py": ""},
            (None, ""),
        ),
        (
            {
                "pyproject.toml": '[build-system]\nbuild-backend = "setuptools.build_meta"\n'
                'requires = ["setuptools"]\n'
            },
            (None, ""),
        ),
        (
            {"pyproject.toml": '[project]\nname = "a"\n', "setup.py": ""},
            ("has-project", "pyproject.toml has a [project] table"),
        ),
        (
            {"pyproject.toml": '[build-system]\nbuild-backend = "hatchling.build"\n'},
            ("not-setuptools", "build backend hatchling.build"),
        ),
        (
            {"pyproject.toml": "[tool.black]\n"},
            ("not-setuptools", "no build backend declared, no setup.py and no setup.cfg"),
        ),
    ],
)
def test_classify_tree(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert classify_tree(tmp_path) == expected


def _entry(name: str, status: str | None, *differences: WheelDifference) -> CorpusEntry:
    verification = None
    if status is not None:
        reason = {
            "equivalent": "built with setuptools 84.2.1 before and after",
            "different": "built with setuptools 84.2.1, the wheels differ",
            "unverified": "the tree before the migration does not build a wheel with "
            f"setuptools 84.2.1 ({name})",
        }[status]
        verification = Verification(status, differences, reason)  # type: ignore[arg-type]
    return CorpusEntry(
        target=name,
        outcome="migrated",
        project=name,
        version="1.0",
        changed=("pyproject.toml",),
        verification=verification,
    )


def test_text_report_names_every_different_migration():
    from sapper.cli._migrate_corpus import render_text

    lost = WheelDifference("entry_points [console_scripts]", "b = b:main", "(absent)")
    report = CorpusReport(
        entries=(
            _entry("a", "equivalent"),
            _entry("b", "different", lost),
            _entry("c", "unverified"),
            _entry("d", "unverified"),
            _entry("e", None),
            CorpusEntry(target="f", outcome="error", detail="KeyError: 'x'"),
            CorpusEntry(target="g", outcome="has-project"),
        ),
        complete=False,
    )
    text = render_text(report)
    assert text.startswith("7 sdists (incomplete)\n")
    assert "setuptools projects without [project]: 6\n" in text
    assert "  migrated:      5 (83.3%)\n" in text
    assert "    equivalent wheel: 1\n    different wheel:  1\n    unverified:       2\n" in text
    assert "    not verified:     1 (outside --verify-sample)\n" in text
    assert "      2  the tree before the migration does not build\n" in text
    assert "      1  KeyError\n" in text
    assert text.endswith(
        "different wheels (each one a bug of sapper migrate):\n"
        "  b 1.0:\n"
        "    entry_points [console_scripts]: before 'b = b:main', after '(absent)'\n"
    )
    assert report.as_json()["unverified"] == {"the tree before the migration does not build": 2}


def test_cli_scan_migrate_writes_text_and_json(index, tmp_path, capsys):
    _, url = index
    out = tmp_path / "report.json"
    argv = [
        "scan",
        "--migrate",
        *EXPECTED,
        "--index-url",
        url,
        "--cache-dir",
        str(tmp_path / "cache"),
        "--verify-sample",
        "0",
        "--migrate-json",
        str(out),
        "--progress",
        "always",
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("8 sdists\n")
    assert "setuptools projects without [project]: 2\n" in captured.out
    assert "[1] plain 1.0: migrated\n" in captured.err
    assert "[4] flitted 1.0: not-setuptools: build backend flit_core.buildapi\n" in captured.err
    data = json.loads(out.read_text())
    assert data["complete"] is True
    assert data["outcomes"] == {
        "fetch-error": 1,
        "has-project": 1,
        "migrated": 1,
        "not-setuptools": 2,
        "refused": 1,
        "unreadable": 2,
    }
    assert main(["scan", "--migrate", "plain", "--versions", "all"]) == 2
    assert "--migrate takes the newest sdist" in capsys.readouterr().err


# --------------------------------------------------------------------------- real builds


@pytest.fixture(scope="module")
def sandboxed():
    from canary_support import require_sandbox

    require_sandbox()


def test_a_migrated_sdist_is_proven_equivalent(sandboxed, tmp_path):
    from canary_support import builder

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("plain", "opaque"):
        (corpus / f"{name}-1.0.tar.gz").write_bytes(sdist_bytes(name, PROJECTS[name]))
    report = migrate_corpus([str(corpus)], builder=builder(timeout=240))
    assert [(e.project, e.outcome) for e in report.entries] == [
        ("opaque", "refused"),
        ("plain", "migrated"),
    ]
    verification = report.entries[1].verification
    assert verification is not None
    assert verification.status == "equivalent", verification
    assert report.verifications() == {"equivalent": 1}


def test_json_keys_are_documented():
    from test_json_docs import _compare, _maps, documented, key_paths

    from sapper.migrate import Refusal

    lost = WheelDifference("entry_points [console_scripts]", "b = b:main", "(absent)")
    report = CorpusReport(
        entries=(
            replace(_entry("a", "equivalent"), notes=("setup.py kept: ext_modules",)),
            _entry("b", "different", lost),
            _entry("c", "unverified"),
            CorpusEntry(target="f", outcome="error", detail="KeyError: 'x'"),
            CorpusEntry(
                target="g",
                outcome="refused",
                refusals=(Refusal("setup-py-opaque", "setup() is computed", "setup.py", 3),),
            ),
        ),
    )
    data = json.loads(json.dumps(report.as_json()))
    doc = documented("`sapper scan --migrate --migrate-json`: the migration measurement")
    _compare(doc, key_paths(data, "", _maps(doc)))
    assert data["schema"] == "sapper.migrate-corpus/1"
