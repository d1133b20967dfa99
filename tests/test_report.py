"""``sapper report``: aggregation, JSON, text and CLI over small synthetic result stores.

The stores are built here from the result-store DDL (not by ``sapper scan``), with rows made
from real ``check_files`` results on small fixture projects, so the numbers are what the
rules really say about those projects. The expected numbers are recomputed in plain Python
from the same rows (:class:`Oracle`), never copied from the report's own output.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers import DATA, check

from sapper.cli import main
from sapper.model import TargetResult
from sapper.render.json import result_dict
from sapper.render.text import Style
from sapper.report import StoreError, open_store, summarize
from sapper.report.json import SCHEMA_VERSION, pypi_url, report_dict
from sapper.report.summary import CLASSES, key_versions
from sapper.report.text import human, percent, render_text
from sapper.versions import catalogue, contains

REPORT_DATA = DATA / "report"

DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE sdists (
  key TEXT PRIMARY KEY,
  project TEXT, version TEXT, filename TEXT, sha256 TEXT,
  upload_time TIMESTAMP, size BIGINT, downloads BIGINT,
  has_wheel BOOLEAN, has_pure_wheel BOOLEAN,
  backend TEXT, outcome TEXT, outcome_enforced TEXT,
  fails VARCHAR[], fails_enforced VARCHAR[],
  result JSON, error_type TEXT, error_message TEXT,
  seconds DOUBLE, scanned_at TIMESTAMP
);
CREATE TABLE findings (
  key TEXT, code TEXT, slug TEXT, status TEXT, path TEXT, line INTEGER,
  fails VARCHAR[], fails_enforced VARCHAR[], warns VARCHAR[], due_date TEXT
);
"""
SDIST_COLUMNS = [
    "key",
    "project",
    "version",
    "filename",
    "sha256",
    "upload_time",
    "size",
    "downloads",
    "has_wheel",
    "has_pure_wheel",
    "backend",
    "outcome",
    "outcome_enforced",
    "fails",
    "fails_enforced",
    "result",
    "error_type",
    "error_message",
    "seconds",
    "scanned_at",
]
FINDING_COLUMNS = [
    "key",
    "code",
    "slug",
    "status",
    "path",
    "line",
    "fails",
    "fails_enforced",
    "warns",
    "due_date",
]

META = {
    "schema_version": "1",
    "sapper_version": "0.1.0",
    "newest_setuptools": catalogue().newest,
    "top_list_date": "2026-11-30",
    "created_at": "2026-12-01 09:00:00",
    "last_run_at": "2026-12-01 10:30:00",
    "engine": "local",
}

# -- fixture projects: the files, and what the rules say about them ---------------------------

DASHED_CFG = {"setup.cfg": "[metadata]\nname = x\ndescription-file = README.md\n"}
UPPER_CFG = {"setup.cfg": "[metadata]\nName = x\n"}
PKG_RESOURCES = {"setup.py": "import pkg_resources\nfrom setuptools import setup\nsetup()\n"}
USE_2TO3 = {"setup.py": "from setuptools import setup\nsetup(name='x', use_2to3=True)\n"}
COMMAND_TEST = {
    "setup.py": "from setuptools.command.test import test\nfrom setuptools import setup\nsetup()\n"
}
LATIN1_CFG: dict[str, str | bytes] = {"setup.cfg": b"[metadata]\nname = x\nauthor = J\xf6rg\n"}
INTERPOLATION = {"setup.cfg": "[metadata]\nname = x\nversion = %(missing)s\n"}
HATCH = {
    "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'
    'build-backend = "hatchling.build"\n',
    "setup.cfg": "[metadata]\nhome-page = x\n",
}
CLEAN = {"setup.cfg": "[metadata]\nname = x\n"}
#: PP004: a license table, deprecated with a due date still ahead (a pending deprecation)
LICENSE_TABLE = {
    "pyproject.toml": '[project]\nname = "x"\nversion = "1"\nlicense = {text = "MIT"}\n'
}


#: The rules the fixtures exercise; rules added later do not change these stores.
RULES = ("PP004", "SC001", "SC002", "SC003", "SC006", "SP001", "SP002", "SP003")


@dataclass(frozen=True)
class Sample:
    project: str | None
    version: str | None
    uploaded: str | None
    downloads: int | None
    has_wheel: bool | None
    has_pure_wheel: bool | None
    files: dict[str, str | bytes] | None = None
    error: tuple[str, str] | None = None
    key: str | None = None


SAMPLES = (
    Sample("stringcase", "1.2.0", "2017-08-06", 900_000, False, False, DASHED_CFG),
    Sample("oldimport", "4.1", "2019-05-01", 2_000_000, True, False, PKG_RESOURCES),
    Sample("twotothree", "0.9", "2014-03-01", 1_000, False, False, USE_2TO3),
    Sample("tester", "1.5", "2020-02-02", 50_000, False, False, COMMAND_TEST),
    Sample("clean", "3.0", "2024-01-10", 10_000_000, True, True, CLEAN),
    # an old release of `clean` that is affected; its newest release builds
    Sample("Clean", "2.0", "2020-06-01", 10_000_000, False, False, DASHED_CFG),
    Sample("Upper_Case", "1.0", "2021-04-04", 300_000, True, True, UPPER_CFG),
    Sample("latin1", "0.3", "2016-01-01", None, None, None, LATIN1_CFG),
    Sample("interp", "2.2", "2022-09-09", 7_000, True, False, INTERPOLATION),
    Sample("hatchy", "1.0", "2023-03-03", 40_000, True, True, HATCH),
    Sample("upper-case", "0.9", "2020-01-01", 300_000, False, False, UPPER_CFG),
    Sample("licensed", "2.0", "2025-06-01", 20_000, True, False, LICENSE_TABLE),
    Sample("gone", "1.0", None, 5_000, None, None, error=("fetch", "404 from the index")),
    Sample(
        None,
        None,
        None,
        None,
        None,
        None,
        error=("archive", "truncated gzip"),
        key="path:/corpus/bad-1.0.tar.gz",
    ),
)


@dataclass
class Built:
    """Rows of one synthetic store, as plain values."""

    sdists: list[dict[str, Any]] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)


def _union(specs: list[tuple[str, ...]]) -> list[str]:
    return sorted({s for group in specs for s in group})


def _row(sample: Sample, result: TargetResult | None, enforced: TargetResult | None) -> Built:
    built = Built()
    name = f"{sample.project}-{sample.version}"
    key = sample.key or (
        f"req:{name}" if sample.error else hashlib.sha256(name.encode()).hexdigest()
    )
    row: dict[str, Any] = dict.fromkeys(SDIST_COLUMNS)
    row.update(
        key=key,
        project=sample.project,
        version=sample.version,
        upload_time=f"{sample.uploaded} 12:00:00" if sample.uploaded else None,
        downloads=sample.downloads,
        has_wheel=sample.has_wheel,
        has_pure_wheel=sample.has_pure_wheel,
        scanned_at="2026-12-01 10:00:00",
        seconds=0.01,
    )
    if sample.error:
        row.update(error_type=sample.error[0], error_message=sample.error[1])
    if result is not None and enforced is not None:
        assert result.verdict is not None
        assert enforced.verdict is not None
        row.update(
            filename=f"{name}.tar.gz",
            sha256=key,
            size=1234,
            backend=result.backend,
            outcome=result.verdict.outcome,
            outcome_enforced=enforced.verdict.outcome,
            fails=_union([f.fails for f in result.findings]),
            fails_enforced=_union([f.fails_enforced for f in result.findings]),
            result=json.dumps(result_dict(result)),
        )
        for f in result.findings:
            built.findings.append(
                {
                    "key": key,
                    "code": f.code,
                    "slug": f.slug,
                    "status": f.status,
                    "path": f.path,
                    "line": f.line,
                    "fails": list(f.fails),
                    "fails_enforced": list(f.fails_enforced),
                    "warns": list(f.warns),
                    "due_date": f.due_date,
                }
            )
    built.sdists.append(row)
    return built


def build_rows(samples: tuple[Sample, ...] = SAMPLES, select: tuple[str, ...] = RULES) -> Built:
    out = Built()
    for sample in samples:
        result = enforced = None
        if sample.files is not None:
            result = check(sample.files, select=select)
            enforced = check(sample.files, select=select, enforce_deprecations=True)
        built = _row(sample, result, enforced)
        out.sdists += built.sdists
        out.findings += built.findings
    return out


def write_duckdb(path: Path, built: Built, meta: dict[str, str] | None = META) -> Path:
    import duckdb

    con = duckdb.connect(str(path))
    con.execute(DDL)
    if meta:
        con.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
    if built.sdists:
        con.executemany(
            f"INSERT INTO sdists VALUES ({', '.join('?' * len(SDIST_COLUMNS))})",
            [[r[c] for c in SDIST_COLUMNS] for r in built.sdists],
        )
    if built.findings:
        con.executemany(
            f"INSERT INTO findings VALUES ({', '.join('?' * len(FINDING_COLUMNS))})",
            [[r[c] for c in FINDING_COLUMNS] for r in built.findings],
        )
    con.close()
    return path


def write_parquet(directory: Path, built: Built, parts: int = 2) -> Path:
    """The same rows as Parquet partitions (split in ``parts``) plus meta.json."""
    import duckdb

    db = directory.parent / f"{directory.name}-staging.duckdb"
    write_duckdb(db, built)
    con = duckdb.connect(str(db))
    for table in ("sdists", "findings"):
        (directory / table).mkdir(parents=True)
        for i in range(parts):
            con.execute(
                f"COPY (SELECT * FROM {table} WHERE hash(key) % {parts} = {i}) "
                f"TO '{directory / table / f'part-{i}.parquet'}' (FORMAT parquet)"
            )
    con.close()
    db.unlink()
    (directory / "meta.json").write_text(json.dumps(META))
    return directory


@pytest.fixture(scope="module")
def built() -> Built:
    return build_rows()


@pytest.fixture(scope="module")
def db(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_duckdb(tmp_path_factory.mktemp("report") / "scan.duckdb", built)


@pytest.fixture(scope="module")
def parquet_dir(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_parquet(tmp_path_factory.mktemp("report") / "scan", built)


@pytest.fixture(scope="module")
def report(db: Path) -> dict[str, Any]:
    store = open_store(db)
    try:
        return report_dict(summarize(store, top=20))
    finally:
        store.close()


# -- the oracle: the same numbers, recomputed naively in Python ------------------------------


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class Oracle:
    def __init__(self, built: Built) -> None:
        self.sdists = built.sdists
        self.findings = built.findings
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in self.sdists:
            groups.setdefault(_norm(r["project"]) if r["project"] else r["key"], []).append(r)
        #: each project's newest sdist, and the project's downloads
        self.newest: dict[str, dict[str, Any]] = {}
        self.project_downloads: dict[str, int] = {}
        for pkey, rows in groups.items():
            rows.sort(key=lambda r: (r["upload_time"] is not None, r["upload_time"] or ""))
            self.newest[pkey] = rows[-1]
            self.project_downloads[pkey] = max((r["downloads"] or 0) for r in rows)

    @staticmethod
    def cls(r: dict[str, Any]) -> str:
        if r["outcome"] is None:
            return "error"
        if r["outcome"] == "builds" and r["outcome_enforced"] == "fails":
            return "overdue"
        return str(r["outcome"])

    def count(self, pred: Any) -> dict[str, int]:
        projects = [p for p, r in self.newest.items() if pred(r)]
        return {
            "sdists": sum(1 for r in self.sdists if pred(r)),
            "projects": len(projects),
            "downloads": sum(self.project_downloads[p] for p in projects),
        }

    def has(self, r: dict[str, Any], code: str, statuses: tuple[str, ...]) -> bool:
        return any(
            f["key"] == r["key"] and f["code"] == code and f["status"] in statuses
            for f in self.findings
        )


STATUSES = ("removed", "overdue", "deprecated", "requires-newer")


def _counts(obj: dict[str, Any]) -> dict[str, int]:
    return {k: obj[k] for k in ("sdists", "projects", "downloads")}


# -- tests -------------------------------------------------------------------------------


def test_fixture_covers_every_class_and_status(built: Built) -> None:
    """The synthetic store exercises what the report distinguishes (else tests prove little)."""
    assert {Oracle.cls(r) for r in built.sdists} == set(CLASSES)
    assert {f["status"] for f in built.findings} == set(STATUSES)


def test_totals(report: dict[str, Any], built: Built) -> None:
    oracle = Oracle(built)
    totals = report["totals"]
    assert totals["sdists"] == len(built.sdists)
    assert totals["projects"] == len(oracle.newest)
    assert totals["downloads"] == sum(oracle.project_downloads.values())
    for cls in CLASSES:
        expected = oracle.count(lambda r, c=cls: Oracle.cls(r) == c)
        assert _counts(totals["classes"][cls]) == expected, cls
    assert totals["errors"] == {"archive": 1, "fetch": 1}


def test_store_facts(report: dict[str, Any], db: Path) -> None:
    store = report["store"]
    assert store["path"] == str(db)
    assert store["kind"] == "duckdb"
    assert store["newest_setuptools"] == catalogue().newest
    assert store["top_list_date"] == META["top_list_date"]
    assert store["last_run_at"] == META["last_run_at"]


def test_per_rule_and_status(report: dict[str, Any], built: Built) -> None:
    oracle = Oracle(built)
    codes = sorted({f["code"] for f in built.findings})
    rows = {(r["code"], r["status"]): r for r in report["rules"]}
    assert sorted({c for c, _ in rows}) == codes
    for code in codes:
        assert _counts(rows[(code, None)]["count"]) == oracle.count(
            lambda r, c=code: oracle.has(r, c, STATUSES)
        )
        for status in STATUSES:
            expected = oracle.count(lambda r, c=code, s=status: oracle.has(r, c, (s,)))
            if expected["sdists"]:
                assert _counts(rows[(code, status)]["count"]) == expected, (code, status)
            else:
                assert (code, status) not in rows


def test_rule_rows_name_the_rule(report: dict[str, Any]) -> None:
    sc001 = next(r for r in report["rules"] if r["code"] == "SC001" and r["status"] is None)
    assert sc001["slug"] == "setupcfg-dash-separated-key"
    assert sc001["summary"].startswith("Dash-separated key")


def test_newest_sdist_decides_a_projects_downloads(report: dict[str, Any]) -> None:
    """`Clean 2.0` has SC001 but `clean 3.0`, the newest, builds: 10M downloads don't break."""
    sc001 = next(r for r in report["rules"] if r["code"] == "SC001" and r["status"] is None)
    assert sc001["count"]["sdists"] == 2  # stringcase 1.2.0 and Clean 2.0
    assert sc001["count"]["projects"] == 1
    assert sc001["count"]["downloads"] == 900_000


def test_what_if(report: dict[str, Any], built: Built) -> None:
    oracle = Oracle(built)
    pending = {(f["code"], f["status"]) for f in built.findings} & {
        (f["code"], s) for f in built.findings for s in ("overdue", "deprecated")
    }
    expected = {}
    for code, status in pending:
        count = oracle.count(
            lambda r, c=code, s=status: r["outcome"] == "builds" and oracle.has(r, c, (s,))
        )
        if count["sdists"]:
            expected[(code, status)] = count
    got = {(w["code"], w["status"]): _counts(w["count"]) for w in report["what_if"]}
    assert got == expected
    assert ("SC001", "overdue") in got
    assert ("PP004", "deprecated") in got  # due 2027-02-18: pending
    # setuptools.command.test fails in 72.0.0 only: a forward constraint, not a time bomb
    assert not any(code == "SP001" for code, _ in got)
    assert [w["status"] for w in report["what_if"]] == sorted(
        (w["status"] for w in report["what_if"]), key=lambda s: s != "overdue"
    )


def test_what_if_examples_by_downloads(report: dict[str, Any]) -> None:
    sc002 = next(w for w in report["what_if"] if w["code"] == "SC002")
    # Upper_Case and upper-case are one project; its newest sdist is Upper_Case 1.0
    assert sc002["examples"] == [
        {
            "project": "Upper_Case",
            "version": "1.0",
            "url": "https://pypi.org/project/Upper_Case/1.0/",
            "downloads": 300_000,
        }
    ]
    assert sc002["count"]["sdists"] == 2
    assert sc002["count"]["projects"] == 1


def test_versions_are_the_key_versions(report: dict[str, Any]) -> None:
    assert [v["version"] for v in report["versions"]] == list(key_versions(catalogue()))


@pytest.mark.parametrize("version", key_versions(catalogue()))
def test_versions(report: dict[str, Any], built: Built, version: str) -> None:
    oracle = Oracle(built)
    (row,) = [v for v in report["versions"] if v["version"] == version]
    assert _counts(row["fails"]) == oracle.count(lambda r: contains(r["fails"] or [], version))
    assert _counts(row["fails_enforced"]) == oracle.count(
        lambda r: contains((r["fails"] or []) + (r["fails_enforced"] or []), version)
    )


def test_key_versions() -> None:
    cat = catalogue()
    versions = key_versions(cat)
    assert "78.0.1" in versions
    assert versions[-1] == cat.newest
    majors = [cat.parsed(v).major for v in versions if v != "78.0.1"]
    assert majors == sorted(set(majors))
    assert len(majors) == len({cat.parsed(v).major for v in cat.universe})


def test_years(report: dict[str, Any], built: Built) -> None:
    by_year: dict[int | None, dict[str, int]] = {}
    for r in built.sdists:
        year = int(r["upload_time"][:4]) if r["upload_time"] else None
        counts = by_year.setdefault(year, dict.fromkeys(CLASSES, 0))
        counts[Oracle.cls(r)] += 1
    got = {y["year"]: y["classes"] for y in report["years"]}
    assert got == by_year
    assert [y["year"] for y in report["years"]][-1] is None  # unknown upload time last
    for y in report["years"]:
        assert y["sdists"] == sum(y["classes"].values())


def test_at_risk(report: dict[str, Any], built: Built) -> None:
    oracle = Oracle(built)
    weight = {False: 1.0, True: 0.5, None: 0.5}
    expected = []
    for pkey, r in oracle.newest.items():
        if Oracle.cls(r) in ("fails", "overdue") and r["has_pure_wheel"] is not True:
            expected.append(
                (oracle.project_downloads[pkey] * weight[r["has_wheel"]], r["project"] or r["key"])
            )
    expected.sort(key=lambda x: (-x[0], x[1]))
    got = report["at_risk"]
    assert got["total"] == len(expected)
    assert [(a["score"], a["project"]) for a in got["projects"]] == expected
    first = got["projects"][0]
    assert first["url"] == f"https://pypi.org/project/{first['project']}/{first['version']}/"
    stringcase = next(a for a in got["projects"] if a["project"] == "stringcase")
    assert stringcase["exposure"] == "no wheel"
    assert stringcase["codes"] == ["SC001"]
    assert stringcase["class"] == "overdue"


def test_at_risk_top_limits_the_list(db: Path) -> None:
    store = open_store(db)
    try:
        summary = summarize(store, top=2)
    finally:
        store.close()
    assert len(summary.at_risk) == 2
    assert summary.at_risk_total > 2


def test_parquet_store_gives_the_same_report(report: dict[str, Any], parquet_dir: Path) -> None:
    store = open_store(parquet_dir)
    try:
        other = report_dict(summarize(store, top=20))
    finally:
        store.close()
    assert other["store"]["kind"] == "parquet"
    for key in ("totals", "rules", "years", "what_if", "versions", "at_risk"):
        assert other[key] == report[key], key


def test_empty_store(tmp_path: Path) -> None:
    path = write_duckdb(tmp_path / "empty.duckdb", Built(), meta=None)
    store = open_store(path)
    try:
        summary = summarize(store)
    finally:
        store.close()
    doc = report_dict(summary)
    assert doc["totals"]["sdists"] == 0
    assert doc["totals"]["classes"]["fails"]["sdists_share"] is None
    assert doc["rules"] == doc["what_if"] == doc["at_risk"]["projects"] == []
    assert render_text(summary, Style(color=False)).startswith("sapper report: ")


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (None, "?"),
        (0, "0"),
        (999, "999"),
        (1_000, "1.0K"),
        (2_500_000, "2.5M"),
        (3 * 10**9, "3.0B"),
    ],
)
def test_human(n: int | None, text: str) -> None:
    assert human(n) == text


@pytest.mark.parametrize(
    ("part", "whole", "text"),
    [(1, 0, "-"), (0, 5, "0.0%"), (1, 4, "25.0%"), (1, 10_000, "<0.1%"), (4, 4, "100.0%")],
)
def test_percent(part: int, whole: int, text: str) -> None:
    assert percent(part, whole) == text


@pytest.mark.parametrize(
    ("project", "version", "url"),
    [
        ("requests", "2.32.3", "https://pypi.org/project/requests/2.32.3/"),
        ("zope.interface", None, "https://pypi.org/project/zope.interface/"),
        ("odd/name", "1+local", "https://pypi.org/project/odd%2Fname/1%2Blocal/"),
    ],
)
def test_pypi_url(project: str, version: str | None, url: str) -> None:
    assert pypi_url(project, version) == url


# -- the store -----------------------------------------------------------------------------


def test_missing_store_is_a_usage_error(capsys, tmp_path: Path) -> None:
    code = main(["report", str(tmp_path / "nothing.duckdb")])
    _, err = capsys.readouterr()
    assert code == 2
    assert "sapper scan" in err
    assert "nothing.duckdb" in err


def test_default_store_missing(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["report"])
    _, err = capsys.readouterr()
    assert code == 2
    assert ".sapper/scan.duckdb" in err


def test_foreign_duckdb_file(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE things (x INTEGER)")
    con.close()
    with pytest.raises(StoreError, match="no `sdists` table"):
        open_store(path)


def test_newer_schema_version(tmp_path: Path) -> None:
    path = write_duckdb(tmp_path / "new.duckdb", Built(), meta={**META, "schema_version": "2"})
    with pytest.raises(StoreError, match="schema version 2"):
        open_store(path)


def test_store_error_exit_code(capsys, tmp_path: Path) -> None:
    path = write_duckdb(tmp_path / "new.duckdb", Built(), meta={**META, "schema_version": "9"})
    code = main(["report", str(path), "--no-html"])
    _, err = capsys.readouterr()
    assert code == 3
    assert "schema version 9" in err


# -- the command line ----------------------------------------------------------------------


def test_cli_json_matches_the_api(capsys, db: Path, report: dict[str, Any]) -> None:
    code = main(["report", str(db), "--format", "json", "--top", "20"])
    out, err = capsys.readouterr()
    assert code == 0
    doc = json.loads(out)
    assert doc["version"] == SCHEMA_VERSION == 2
    assert doc["kind"] == "sapper-report"
    assert doc == report
    assert err == ""  # no HTML page unless asked for with --format json
    assert not (db.parent / "report.html").exists()


def test_cli_text_writes_html_next_to_the_store(capsys, built: Built, tmp_path: Path) -> None:
    db = write_duckdb(tmp_path / "scan.duckdb", built)
    code = main(["report", str(db), "--color", "never"])
    out, err = capsys.readouterr()
    assert code == 0
    page = tmp_path / "report.html"
    assert f"HTML report: {page}" in err
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert "\x1b[" not in out
    assert "What breaks if a deprecation becomes an error" in out


def test_cli_html_path_and_no_html(capsys, db: Path, tmp_path: Path) -> None:
    page = tmp_path / "out" / "page.html"
    assert main(["report", str(db), "--html", str(page), "--format", "json"]) == 0
    assert page.is_file()
    capsys.readouterr()
    assert main(["report", str(db), "--html", str(page), "--no-html"]) == 2
    assert "contradict" in capsys.readouterr().err


@pytest.mark.parametrize("top", ["0", "-3", "many"])
def test_cli_top_must_be_positive(capsys, db: Path, top: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report", str(db), "--top", top])
    assert exc.value.code == 2
    assert "--top" in capsys.readouterr().err


@pytest.mark.parametrize(
    "case",
    [
        ({}, "always", True),
        ({"FORCE_COLOR": "1"}, "never", False),
        ({"FORCE_COLOR": "1"}, "auto", True),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, "auto", False),
        ({}, "auto", False),  # captured stdout is not a terminal
    ],
)
def test_cli_colour(
    capsys, db: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[dict[str, str], str, bool]
) -> None:
    env, flag, coloured = case
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert main(["report", str(db), "--no-html", "--color", flag]) == 0
    out = capsys.readouterr().out
    assert ("\x1b[" in out) is coloured


# -- the terminal summary ------------------------------------------------------------------


def test_text_golden(db: Path) -> None:
    """The whole terminal summary, reviewed by eye (SAPPER_UPDATE_GOLDEN=1 rewrites it)."""
    import os

    store = open_store(db)
    try:
        text = render_text(summarize(store), Style(color=False))
    finally:
        store.close()
    text = text.replace(str(db), "scan.duckdb")
    golden = REPORT_DATA / "summary.txt"
    if os.environ.get("SAPPER_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()


def test_text_columns_align(db: Path) -> None:
    store = open_store(db)
    try:
        text = render_text(summarize(store), Style(color=False))
    finally:
        store.close()
    block = text.split("\n\n")[1].splitlines()  # the outcome table
    header, *rows = [x for x in block if not x.startswith(("  projects and", "  from sdist"))]
    ends = [m.end() for m in re.finditer(r"\S+", header)][1:6]
    for row in rows:
        for end in ends:
            assert row[end - 1] != " ", (row, end)  # right-aligned numbers end under headers


def test_text_colour_marks_failures(db: Path) -> None:
    store = open_store(db)
    try:
        text = render_text(summarize(store), Style(color=True))
    finally:
        store.close()
    fails_line = next(line for line in text.splitlines() if "fails " in line and "%" in line)
    assert fails_line.startswith("\x1b[1;31m")


# -- Parquet stores, HTML safety, chart scales ----------------------------------------------


def test_parquet_rescan_counts_the_newest_row(built: Built, tmp_path: Path) -> None:
    """A key written again by a later run counts once, with the later run's findings."""
    import duckdb

    store = write_parquet(tmp_path / "scan", built)
    stringcase = next(r for r in built.sdists if r["project"] == "stringcase")
    fixed = check({"setup.cfg": "[metadata]\nname = stringcase\n"}, select=RULES)
    again = _row(
        Sample("stringcase", "1.2.0", "2017-08-06", 900_000, False, False, CLEAN),
        fixed,
        fixed,
    ).sdists[0]
    again.update(key=stringcase["key"], scanned_at="2026-12-02 08:00:00")
    staging = tmp_path / "again.duckdb"
    write_duckdb(staging, Built(sdists=[again]), meta=None)
    con = duckdb.connect(str(staging))
    con.execute(f"COPY sdists TO '{store / 'sdists' / 'part-9.parquet'}' (FORMAT parquet)")
    con.execute(f"COPY findings TO '{store / 'findings' / 'part-9.parquet'}' (FORMAT parquet)")
    con.close()
    opened = open_store(store)
    try:
        doc = report_dict(summarize(opened))
    finally:
        opened.close()
    assert doc["totals"]["sdists"] == len(built.sdists)
    sc001 = next(r for r in doc["rules"] if r["code"] == "SC001" and r["status"] is None)
    assert sc001["count"]["sdists"] == 1  # only Clean 2.0 is left
    assert "stringcase" not in [a["project"] for a in doc["at_risk"]["projects"]]


def test_parquet_store_writes_its_page_inside(capsys, parquet_dir: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "copy"
    shutil.copytree(parquet_dir, store)
    assert main(["report", str(store), "--color", "never"]) == 0
    assert f"HTML report: {store / 'report.html'}" in capsys.readouterr().err
    assert (store / "report.html").is_file()


def test_parquet_dir_without_partitions(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreError, match=r"no sdists/part-\*\.parquet"):
        open_store(tmp_path / "empty")


HOSTILE = '</script><img src=x onerror="alert(1)">&'


def test_html_escapes_names(tmp_path: Path) -> None:
    from sapper.report.html import render_html

    sample = Sample(HOSTILE, "1.0", "2020-01-01", 10, False, False, DASHED_CFG)
    path = write_duckdb(tmp_path / "scan.duckdb", build_rows((sample,)))
    store = open_store(path)
    try:
        summary = summarize(store)
    finally:
        store.close()
    page = render_html(summary)
    assert HOSTILE not in page
    assert page.count("</script>") == 2  # the JSON data and the script, nothing else
    assert "&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;" in page
    data = page.split('id="sapper-report-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data) == report_dict(summary)  # escaped, yet the same document


@pytest.mark.parametrize(
    ("peak", "ticks"),
    [
        (0, (0.0, 1.0)),
        (1, (0.0, 0.5, 1.0)),
        (3, (0.0, 1.0, 2.0, 3.0)),
        (9, (0, 5, 10)),
        (1234, (0, 500, 1000, 1500)),
        (0.068, (0.0, 0.02, 0.04, 0.06, 0.08)),
    ],
)
def test_nice_ticks(peak: float, ticks: tuple[float, ...]) -> None:
    from sapper.report.svg import nice_ticks

    assert nice_ticks(peak) == ticks


def test_svg_escapes_and_labels() -> None:
    from sapper.report.svg import Series, hbars

    svg = hbars(
        ident="c",
        title="T <1>",
        desc="D & d",
        labels=["<b>"],
        series=[Series(name="s", css="s-fails", values=(2.0,))],
        scale=4.0,
        fmt=str,
    )
    assert 'role="img"' in svg
    assert 'aria-labelledby="c-t c-d"' in svg
    assert '<title id="c-t">T &lt;1&gt;</title>' in svg
    assert '<desc id="c-d">D &amp; d</desc>' in svg
    assert "<b>" not in svg
    assert 'width="210"' in svg  # half of the 420-wide bar area


def test_cli_default_store_is_the_scanners() -> None:
    from sapper.cli import report as _cli_report
    from sapper.report import DEFAULT_STORE

    assert _cli_report.DEFAULT_STORE == DEFAULT_STORE


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("plain", "plain"),
        ("`project.license` as a table", "<code>project.license</code> as a table"),
        ("`a<b` and `c`", "<code>a&lt;b</code> and <code>c</code>"),
        ("an unpaired ` tick", "an unpaired ` tick"),
    ],
)
def test_inline_code_in_summaries(text: str, html: str) -> None:
    from sapper.report.html import _inline

    assert _inline(text) == html


def test_store_locked_by_a_running_scan(capsys, built: Built, tmp_path: Path) -> None:
    import subprocess
    import sys

    db = write_duckdb(tmp_path / "scan.duckdb", built)
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
            "sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "ready\n"
        code = main(["report", str(db), "--no-html"])
    finally:
        writer.communicate("")
    err = capsys.readouterr().err
    assert code == 3
    assert "still writing it" in err
