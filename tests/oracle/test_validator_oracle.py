"""pyproject.toml judged by each release's own validator, against real setuptools.

The cases are not written here: they are the TOML documents of setuptools' own
configuration tests (``setuptools/tests/config/*.py``: string literals holding ``[project]``
or ``[tool.setuptools]``), read at test time from the real sdists of three releases (61.x,
77.x, the newest) and built, alone in an empty project, with the release they come from.
sapper runs with the validators warmed (``real_validators``): its verdict and its reason
must match real setuptools' (a failure outside the reading of pyproject.toml, such as a
file the lone document refers to, proves nothing about validation and is left out).

Hand-written cases pin the new semantics at their boundaries: a [tool.setuptools] table
without [project] (rejected by every release's validator), PEP 794 keys (PP010), and PP001's
61.2.0-67.8.0 relaxation with the validator's answer.
"""

from __future__ import annotations

import ast
import io
import re
import tarfile
from concurrent.futures import ThreadPoolExecutor
from inspect import cleandoc
from pathlib import Path

import pytest

from sapper import _toml as tomllib
from sapper.check import Options, check_target
from sapper.pypi import DEFAULT_INDEX_URL, Index

from .agree import disagreements
from .harness import CACHE, reason_mismatch, require_runnable, run_hooks
from .reasons import reasons_for

pytestmark = [pytest.mark.oracle, pytest.mark.network]


#: Where setuptools raises what it finds reading pyproject.toml.
_READING = ("config/pyprojecttoml.py", "config/_apply_pyprojecttoml.py", "_validate_pyproject")

RELEASES = ("61.0.0", "77.0.3", "84.2.1")


def setuptools_test_documents(release: str) -> list[str]:
    """The TOML documents of ``setuptools/tests/config/*.py`` in the sdist of ``release``."""
    index = Index(DEFAULT_INDEX_URL, cache_dir=CACHE / "pypi")
    data = index.fetch(f"setuptools=={release}").data
    docs: list[str] = []
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        for member in sorted(tf.getmembers(), key=lambda m: m.name):
            if not re.fullmatch(r"[^/]+/setuptools/tests/config/[^/]+\.py", member.name):
                continue
            stream = tf.extractfile(member)
            assert stream is not None
            for node in ast.walk(ast.parse(stream.read().decode())):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                    continue
                if "[project]" not in node.value and "[tool.setuptools" not in node.value:
                    continue
                text = cleandoc(node.value) + "\n"
                try:
                    tomllib.loads(text)
                except tomllib.TOMLDecodeError:
                    continue  # a template the test fills at run time
                if text not in docs:
                    docs.append(text)
    return docs


def _compare(root: Path, text: str, version: str) -> tuple[str, str | None]:
    """("skip"|"agree"|"disagree", the mismatch) for one document at one release."""
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(text)
    real = run_hooks(version, root, timeout=120)
    if real.outcome == "fails":
        reading = real.exc_name == "NotImplementedError" or any(
            p in (real.where or "") for p in _READING
        )
        if not reading:
            return "skip", None
    result = check_target(str(root), Options(setuptools=version))
    assert result.verdict is not None
    because = result.verdict.because
    problem = reason_mismatch(
        real, result.verdict.outcome, reasons_for(because), because=because, label=version
    )
    return ("disagree", f"{problem}\n--- document ---\n{text}") if problem else ("agree", None)


@pytest.mark.parametrize("release", RELEASES)
def test_setuptools_own_config_cases(tmp_path: Path, release: str, real_validators: Path) -> None:
    require_runnable([release])
    docs = setuptools_test_documents(release)
    assert len(docs) >= 5, "setuptools' tests/config holds fewer documents than expected"
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(
            pool.map(lambda p: _compare(tmp_path / f"d{p[0]}", p[1], release), enumerate(docs))
        )
    judged = [r for r in results if r[0] != "skip"]
    wrong = [m for kind, m in judged if kind == "disagree" and m]
    assert len(judged) >= 5
    assert not wrong, "\n\n".join(wrong)


NAME = '[project]\nname = "probe"\nversion = "1.0"\n'
SETUP = 'from setuptools import setup\n\nsetup(name="probe", version="1.0", py_modules=[])\n'

CASES = [
    # [tool.setuptools] alone: read_configuration validates an empty [project].
    (
        "tool-table-without-project",
        {"pyproject.toml": "[tool.setuptools]\npy-modules = []\n", "setup.py": SETUP},
        ("60.10.0", "61.0.0", "67.7.0", "68.0.0", "84.2.1"),
    ),
    # an author table with a key the schema forbids (validators from 67.1.0 on)
    (
        "author-extra-key",
        {"pyproject.toml": NAME + 'authors = [{name = "a", url = "b"}]\n'},
        ("61.0.0", "67.0.0", "67.1.0", "84.2.1"),
    ),
    (
        "empty-author-table",
        {"pyproject.toml": NAME + "authors = [{}]\n"},
        ("61.0.0", "77.0.3", "84.2.1"),
    ),
    (
        "cmdclass-not-qualified-identifier",
        {"pyproject.toml": NAME + '[tool.setuptools]\ncmdclass = {a = "1b"}\n'},
        ("61.0.0", "77.0.3", "84.2.1"),
    ),
    (
        "dynamic-optional-dependencies-bad-extra",
        {
            "pyproject.toml": NAME.replace('version = "1.0"\n', "")
            + 'version = "1.0"\ndynamic = ["optional-dependencies"]\n'
            '[tool.setuptools.dynamic.optional-dependencies]\n"not valid!" = {file = "r.txt"}\n',
            "r.txt": "six\n",
        },
        ("62.6.0", "77.0.3", "84.2.1"),
    ),
    # PP010: PEP 794 keys, rejected by the schema before 82.0.1, NotImplementedError after
    (
        "pep794-import-names",
        {"pyproject.toml": NAME + 'import-names = ["probe"]\n'},
        ("82.0.0", "82.0.1", "84.2.1"),
    ),
    (
        "pep794-import-namespaces-dynamic",
        {"pyproject.toml": NAME + 'dynamic = ["import-namespaces"]\n'},
        ("82.0.0", "82.0.1", "84.2.1"),
    ),
    # PP001's relaxation: 61.2.0-67.8.0 ignore an invalid [project] of the popular subset
    (
        "relaxed-requires-python-only",
        {"pyproject.toml": '[project]\nrequires-python = ">=3.8"\n', "setup.py": SETUP},
        ("61.0.0", "61.2.0", "67.8.0", "68.0.0", "84.2.1"),
    ),
    # license table beside license-files (PEP 639 wants a string then)
    (
        "license-table-with-license-files",
        {
            "pyproject.toml": NAME + 'license = {text = "MIT"}\nlicense-files = ["LICENSE"]\n',
            "LICENSE": "MIT\n",
        },
        ("77.0.3", "84.2.1"),
    ),
    # controls
    (
        "control-valid",
        {"pyproject.toml": NAME + 'authors = [{name = "a"}]\n'},
        ("61.0.0", "84.2.1"),
    ),
]


@pytest.mark.parametrize(("name", "files", "versions"), CASES, ids=[c[0] for c in CASES])
def test_validator_matches_setuptools(
    tmp_path: Path,
    name: str,
    files: dict[str, str],
    versions: tuple[str, ...],
    real_validators: Path,
) -> None:
    require_runnable(versions)
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    mismatches = disagreements(tmp_path, versions)
    assert not mismatches, "\n".join(mismatches)


def test_fallback_knows_a_tool_table_without_project(tmp_path: Path) -> None:
    """Without any validator cached (tests/conftest.py's default), PP001's own check says
    what the validators say of [tool.setuptools] without [project]."""
    versions = ("60.10.0", "61.0.0", "84.2.1")
    require_runnable(versions)
    (tmp_path / "pyproject.toml").write_text("[tool.setuptools]\npy-modules = []\n")
    (tmp_path / "setup.py").write_text(SETUP)
    mismatches = disagreements(tmp_path, versions)
    assert not mismatches, "\n".join(mismatches)
