"""The closure: a requirements file that lists only the top of a tree is resolved by pip's
own resolver (in the sandbox, offline against a local index directory), so that the sdist
it depends on is judged although no line names it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sapper.audit import audit, report_json
from sapper.audit.closure import failing_sdist
from tests.audit_fixtures import clean_env, make_sdist
from tests.canary_support import BUILD_CACHE, require_sandbox
from tests.closure_fixtures import local_project, tree_index, wheel, wheel_wheel

DATA = Path(__file__).parent / "data" / "closure"

pytestmark = pytest.mark.network  # the resolver's pip comes from PyPI once, then the cache


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ((DATA / "pip-26.3-metadata-failed.txt").read_text(), ("bomb", "1.0")),
        (
            "Collecting markupsafe==1.0\n  Downloading MarkupSafe-1.0.tar.gz (14 kB)\n"
            "  Preparing metadata (setup.py): finished with status 'error'\n"
            "  error: subprocess-exited-with-error\n",
            ("MarkupSafe", "1.0"),
        ),
        (
            "  Using cached zope.interface-4.7.2.zip (12 kB)\n"
            "  error: subprocess-exited-with-error\n",
            ("zope.interface", "4.7.2"),
        ),
        # a resolution error is not a build error: nothing to cap
        ("ERROR: No matching distribution found for nosuch\n", None),
        ("Processing ./x/top-1.0-py3-none-any.whl\n  error: subprocess-exited-with-error\n", None),
    ],
)
def test_the_failing_sdist_is_read_from_pip_output(
    output: str, expected: tuple[str, str] | None
) -> None:
    assert failing_sdist(output) == expected


def test_a_dependency_no_line_names_is_judged(tmp_path: Path) -> None:
    require_sandbox()
    links = tree_index(tmp_path / "links")
    req = tmp_path / "requirements.txt"
    req.write_text("top\n")

    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)

    by_name = {p.name: p for p in report.packages}
    assert sorted(by_name) == ["bomb", "top"]
    assert by_name["top"].origin == f"{req}:1"
    assert by_name["top"].source == "wheel"
    bomb = by_name["bomb"]
    assert bomb.origin == "required by top 1.0"
    assert bomb.source == "sdist"
    assert bomb.how.startswith("chosen by pip's resolver")
    assert bomb.verdict is not None and bomb.verdict.constraint == "setuptools<82.0.0"
    assert report.closure is not None
    # pip could only prepare bomb's metadata under the cap: the first round failed
    assert report.closure.build_constraints == ("setuptools<82.0.0",)
    assert report.closure.pip.startswith("pip ")
    doc = report_json(report)
    assert doc["input"]["format"] == "requirements"
    assert doc["closure"]["resolved"] is True
    assert doc["summary"] == {"packages": 2, "built_from_source": 1, "failing": 1}


def test_the_closure_is_what_real_pip_installs(tmp_path: Path) -> None:
    """The same tree under the emitted cap, installed by real pip from the index directory:
    exactly the distributions the audit lists."""
    require_sandbox()
    links = tree_index(tmp_path / "links")
    wheel(links, "leaf", "2.0")
    wheel(links, "leaf", "3.0")
    wheel(links, "mid", "1.0", ["leaf<3"])
    shutil.copy(wheel_wheel(), links)  # the pip of this venv may be older than 24
    req = tmp_path / "requirements.txt"
    req.write_text("top\nmid\n")
    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)
    audited = sorted((p.name, p.version) for p in report.packages)
    assert audited == [("bomb", "1.0"), ("leaf", "2.0"), ("mid", "1.0"), ("top", "1.0")]

    constraints = tmp_path / "c.txt"
    constraints.write_text("setuptools<82.0.0\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--report",
            str(tmp_path / "r.json"),
            "--no-index",
            "--find-links",
            str(links),
            "-r",
            str(req),
            # pip >= 25.3 takes build constraints as an option and no longer lets
            # PIP_CONSTRAINT reach build environments; older pips only have the variable
            *(["--build-constraint", str(constraints)] if _pip_has_build_constraint() else []),
        ],
        env=clean_env(PIP_CONSTRAINT=str(constraints)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    installed = json.loads((tmp_path / "r.json").read_text())["install"]
    real = sorted((i["metadata"]["name"], i["metadata"]["version"]) for i in installed)
    assert real == audited


def _pip_has_build_constraint() -> bool:
    """Whether the pip of this interpreter offers ``--build-constraint`` (read from its help)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    return "--build-constraint" in done.stdout


def test_another_target_audits_the_listed_lines_and_says_why(tmp_path: Path) -> None:
    links = tree_index(tmp_path / "links")
    req = tmp_path / "requirements.txt"
    req.write_text("top\n")
    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE, python="3.9")
    assert [p.name for p in report.packages] == ["top"]
    assert report.closure is None
    assert any("not resolved for --python/--platform" in n for n in report.notes)


def test_an_unresolvable_file_falls_back_to_its_lines_with_pip_error(tmp_path: Path) -> None:
    require_sandbox()
    links = tree_index(tmp_path / "links")
    wheel(links, "needy", "1.0", ["nosuch>=1"])
    req = tmp_path / "requirements.txt"
    req.write_text("needy\n")
    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)
    assert [p.name for p in report.packages] == ["needy"]
    assert report.closure is not None and report.closure.report is None
    assert "nosuch" in report.closure.error
    assert any("only the listed lines are audited" in n for n in report.notes)


def test_a_local_project_and_an_unreachable_vcs_line_keep_the_closure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-e .[extra]` (read against the current directory, as pip does) brings the local
    project's own dependencies into the tree; a VCS line pip cannot fetch is left out
    and said, instead of losing the whole tree."""
    require_sandbox()
    links = tree_index(tmp_path / "links")
    project = tmp_path / "proj"
    (project / "requirements").mkdir(parents=True)
    (project / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='mine', version='0.1', extras_require={'x': ['top']})\n"
    )
    req = project / "requirements" / "dev.txt"
    req.write_text("-e .[x]\n-e git+https://sapper.invalid/nosuch.git#egg=nosuch\n")
    monkeypatch.chdir(project)

    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)

    by_name = {p.name: p for p in report.packages}
    assert report.closure is not None and report.closure.report is not None
    assert by_name["mine"].source == "skipped"
    assert by_name["bomb"].origin == "required by top 1.0"
    assert by_name["bomb"].verdict is not None
    assert by_name["bomb"].verdict.constraint == "setuptools<82.0.0"
    vcs = "git+https://sapper.invalid/nosuch.git#egg=nosuch"
    assert by_name[vcs].source == "skipped"
    assert any(n.startswith(f"pip could not fetch `-e {vcs}`") for n in report.notes)
    assert report_json(report)["closure"]["left_out"] == [f"-e {vcs}"]


def test_a_listed_sdist_no_cap_mends_is_left_out_and_the_rest_resolves(tmp_path: Path) -> None:
    """An sdist whose setup.py raises with every setuptools (pg_config missing, say) stops
    pip; no cap mends it, so its line is left out and the rest of the tree still resolves:
    the dependency no line names is judged, and the listed sdist is audited as listed."""
    require_sandbox()
    links = tree_index(tmp_path / "links")
    make_sdist(
        links,
        "needspg",
        "1.0",
        {"setup.py": "raise RuntimeError('pg_config executable not found')\n"},
    )
    # what static analysis cannot see: its verdict "builds" gives way to what pip met
    make_sdist(
        links,
        "needsenv",
        "1.0",
        {
            "setup.py": "import os\nHOME = os.environ['SAPPER_NO_SUCH_VARIABLE']\n"
            "from setuptools import setup\nsetup(name='needsenv', version='1.0')\n"
        },
    )
    req = tmp_path / "requirements.txt"
    req.write_text("needspg==1.0\nneedsenv==1.0\ntop\n")

    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)

    by_name = {p.name: p for p in report.packages}
    assert sorted(by_name) == ["bomb", "needsenv", "needspg", "top"]
    env = by_name["needsenv"].verdict
    assert env is not None and env.outcome == "fails" and env.newest_good is None
    assert env.reason.startswith("pip could not prepare its metadata here with setuptools")
    assert report.closure is not None and report.closure.report is not None
    assert by_name["needspg"].origin == f"{req}:1"
    assert by_name["needspg"].verdict is not None
    assert by_name["needspg"].verdict.outcome == "fails"
    assert by_name["needspg"].verdict.because == ("SP901",)
    assert by_name["bomb"].origin == "required by top 1.0"
    assert any(
        n.startswith("the metadata of needspg 1.0 cannot be prepared here")
        and n.endswith("the rest was resolved without it")
        for n in report.notes
    )


def test_a_listed_requirement_no_index_has_is_left_out(tmp_path: Path) -> None:
    """A private package, a typo, a deleted release: pip stops at it; without that line
    the rest of the tree still resolves, and the line is audited as listed."""
    require_sandbox()
    links = tree_index(tmp_path / "links")
    req = tmp_path / "requirements.txt"
    req.write_text("nosuchproject==2.3.2\ntop\n")

    report = audit(req, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)

    by_name = {p.name: p for p in report.packages}
    assert sorted(by_name) == ["bomb", "nosuchproject", "top"]
    assert by_name["nosuchproject"].source == "unavailable"
    assert by_name["bomb"].origin == "required by top 1.0"
    assert (
        "pip found no distribution for `nosuchproject==2.3.2`; the rest was resolved without it"
        in report.notes
    )


@pytest.mark.parametrize("given", [".", "pyproject.toml"])
def test_a_project_is_audited_for_its_dependencies(tmp_path: Path, given: str) -> None:
    """`sapper audit .` (or its pyproject.toml): the project's dependencies as `pip install
    .` resolves them, the sdist among them judged; the project itself skipped."""
    require_sandbox()
    links = tree_index(tmp_path / "links")
    project = local_project(tmp_path / "proj")

    report = audit(project / given, no_index=True, find_links=[str(links)], cache_dir=BUILD_CACHE)

    by_name = {p.name: p for p in report.packages}
    assert sorted(by_name) == ["bomb", "mine", "top"]
    assert by_name["mine"].source == "skipped"
    assert by_name["bomb"].verdict is not None and by_name["bomb"].verdict.outcome == "fails"
    assert report.format == "project"
    assert report.input == str(project / given)
    assert report.notes[0].endswith(
        "a project; its dependencies are audited, as `pip install .` resolves them "
        "(the project itself is built from its tree)"
    )
