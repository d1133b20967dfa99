"""``sapper migrate``: refusals leave the tree byte-identical, what stays is dynamic, the
command line (exit codes, --diff, sdists, JSON), and no comment is ever dropped."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from sapper.cli import main
from sapper.migrate import plan_migration

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DATA = Path(__file__).parent / "data" / "migrate"

_SETUP = 'from setuptools import setup\n\nsetup(name="p", version="1.0", packages=["p"])\n'

#: (id, files, refusal code)
REFUSALS = [
    (
        "opaque-kwargs",
        {"setup.py": "from setuptools import setup\nimport x\nsetup(**x.KW)\n"},
        "setup-py-opaque",
    ),
    (
        "two-setup-calls",
        {"setup.py": "from setuptools import setup\nsetup(name='a')\nsetup(name='b')\n"},
        "setup-py-calls",
    ),
    (
        "computed-name",
        {"setup.py": "from setuptools import setup\nimport x\nsetup(name=x.name(), version='1')\n"},
        "name-unknown",
    ),
    (
        "name-by-platform",
        {
            "setup.py": "import sys\nfrom setuptools import setup\n"
            "setup(name='w' if sys.platform == 'win32' else 'p', version='1')\n"
        },
        "name-unknown",
    ),
    ("no-name", {"setup.py": "from setuptools import setup\nsetup(version='1')\n"}, "no-name"),
    (
        "other-backend",
        {
            "setup.py": _SETUP,
            "pyproject.toml": '[build-system]\nrequires = ["flit_core"]\n'
            'build-backend = "flit_core.buildapi"\n',
        },
        "not-setuptools",
    ),
    (
        "old-setuptools-pinned",
        {"setup.py": _SETUP, "pyproject.toml": '[build-system]\nrequires = ["setuptools<60"]\n'},
        "build-requires",
    ),
    (
        "setup-cfg-duplicate",
        {"setup.py": _SETUP, "setup.cfg": "[metadata]\nname = a\nname = b\n"},
        "setup-cfg-unreadable",
    ),
    ("setup-py-syntax", {"setup.py": "setup(\n"}, "setup-py-syntax"),
    (
        "pbr",
        {"setup.py": "from setuptools import setup\nsetup(setup_requires=['pbr'], pbr=True)\n"},
        "pbr",
    ),
]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("files", "code"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_refusal_leaves_the_tree_untouched(
    files: dict[str, str], code: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _write(tmp_path / "p", files)
    before = _snapshot(root)
    migration = plan_migration(root)
    assert [r.code for r in migration.refusals] == [code]
    assert migration.changes == ()
    assert main(["migrate", str(root), "--no-verify"]) == 3
    assert _snapshot(root) == before
    err = capsys.readouterr().err
    assert f"refused ({code})" in err
    assert "every file is left untouched" in err


def test_a_value_that_depends_on_the_platform_stays_dynamic(tmp_path: Path) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "import sys\nfrom setuptools import setup\n"
            "deps = ['pywin32'] if sys.platform == 'win32' else []\n"
            "setup(name='p', version='1.0', install_requires=deps, py_modules=['p'])\n",
            "p.py": "",
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals
    pyproject = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert pyproject.after is not None
    data = tomllib.loads(pyproject.after)
    assert data["project"]["dynamic"] == ["dependencies"]
    assert "dependencies" not in data["project"]
    setup_py = next(c for c in migration.changes if c.path == "setup.py")
    assert setup_py.after is not None
    assert "install_requires=deps" in setup_py.after
    assert any("install_requires" in n and "platforms" in n for n in migration.notes)


def test_a_keyword_on_some_paths_only_stays(tmp_path: Path) -> None:
    """ext_modules given only when a compiler is found stays in setup.py, untouched."""
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "import os\nfrom setuptools import Extension, setup\n"
            "kw = {}\nif os.environ.get('CC'):\n"
            "    kw['ext_modules'] = [Extension('p._c', ['p/_c.c'])]\n"
            "setup(name='p', version='1.0', packages=['p'], **kw)\n",
            "p/__init__.py": "",
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals
    setup_py = next(c for c in migration.changes if c.path == "setup.py")
    assert setup_py.after is not None
    assert "setup(**kw)" in setup_py.after.replace("\n", "")


def test_a_metadata_keyword_on_some_paths_only_refuses(tmp_path: Path) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "import os\nfrom setuptools import setup\nkw = {}\n"
            "if os.environ.get('X'):\n    kw['python_requires'] = '>=3.8'\n"
            "setup(name='p', version='1.0', py_modules=['p'], **kw)\n",
        },
    )
    assert [r.code for r in plan_migration(root).refusals] == ["setup-py-opaque"]


def test_name_from_a_module_literal(tmp_path: Path) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import setup\nimport p\n"
            "setup(name=p.__title__, version=p.__version__, packages=['p'])\n",
            "p/__init__.py": '__title__ = "p-dist"\n__version__ = "1.2"\n',
        },
    )
    migration = plan_migration(root)
    pyproject = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert pyproject.after is not None
    data = tomllib.loads(pyproject.after)
    assert data["project"]["name"] == "p-dist"
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "p.__version__"}


@pytest.mark.parametrize("keyword", ["use_scm_version", "use_calver"])
def test_a_version_plugin_keeps_the_version_dynamic(keyword: str, tmp_path: Path) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import setup\n"
            f"setup(name='p', {keyword}=True, py_modules=['p'])\n",
            "p.py": "",
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals
    pyproject = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert pyproject.after is not None
    project = tomllib.loads(pyproject.after)["project"]
    assert project["dynamic"] == ["version"]
    setup_py = next(c for c in migration.changes if c.path == "setup.py")
    assert setup_py.after is not None
    assert f"{keyword}=True" in setup_py.after


def test_a_local_import_keeps_the_legacy_backend(tmp_path: Path) -> None:
    """The legacy backend puts setup.py's directory on sys.path, build_meta does not."""
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import setup\nimport helper\n"
            "setup(name='p', version='1.0', py_modules=['p'])\n",
            "helper.py": "",
            "p.py": "",
        },
    )
    migration = plan_migration(root)
    pyproject = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert pyproject.after is not None
    assert "build-backend" not in tomllib.loads(pyproject.after)["build-system"]
    assert any("`helper`" in n for n in migration.notes)


def test_a_sys_path_lookup_keeps_the_legacy_backend(tmp_path: Path) -> None:
    """jedi 0.20.1 reads its version with setuptools.depends.get_module_constant, which
    searches sys.path: under build_meta the version became 0.0.0 (a different wheel)."""
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import setup\nfrom setuptools.depends import "
            "get_module_constant\n"
            "version = get_module_constant('p', '__version__')\n"
            "setup(name='p', version=version, py_modules=['p'])\n",
            "p.py": "__version__ = '1.0'\n",
        },
    )
    migration = plan_migration(root)
    pyproject = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert pyproject.after is not None
    assert "build-backend" not in tomllib.loads(pyproject.after)["build-system"]
    assert any("`get_module_constant()`" in n for n in migration.notes)


@pytest.mark.parametrize(
    ("requires", "written"),
    [
        # jsii 1.x: "~=80.3" is at least 80.3, which reads [project]: kept, not refused
        (["setuptools~=80.3"], "setuptools~=80.3"),
        (["setuptools==80.9.0"], "setuptools==80.9.0"),
        (["setuptools>=40"], "setuptools>=61.0.0"),
        (["setuptools"], "setuptools>=61.0.0"),
    ],
)
def test_build_requires_bounds(tmp_path: Path, requires: list[str], written: str) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": _SETUP,
            "p/__init__.py": "",
            "pyproject.toml": f"[build-system]\nrequires = {json.dumps(requires)}\n",
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals, migration.refusals
    pyproject = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert pyproject.after is not None
    got = tomllib.loads(pyproject.after)["build-system"]["requires"]
    assert written in got, got


def test_nothing_to_migrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _write(tmp_path / "p", {"pyproject.toml": '[project]\nname = "p"\nversion = "1"\n'})
    before = _snapshot(root)
    assert main(["migrate", str(root)]) == 0
    assert _snapshot(root) == before
    assert "nothing to migrate" in capsys.readouterr().out


def _comments(text: str) -> list[str]:
    return [m.strip() for m in re.findall(r"(?m)(?:^|\s)[#;]\s*(.*)$", text) if m.strip()]


@pytest.mark.parametrize("case", sorted(p.name for p in DATA.iterdir()))
def test_no_comment_is_dropped(case: str, tmp_path: Path) -> None:
    root = tmp_path / case
    shutil.copytree(DATA / case / "before", root)
    names = ("setup.py", "setup.cfg", "pyproject.toml")
    before = [c for n in names if (root / n).exists() for c in _comments((root / n).read_text())]
    migration = plan_migration(root)
    after_text = "\n".join(c.after or "" for c in migration.changes)
    unchanged = {c.path for c in migration.changes}
    after_text += "\n".join(
        (root / n).read_text() for n in names if (root / n).exists() and n not in unchanged
    )
    for comment in before:
        if comment.startswith("!"):  # the shebang
            continue
        assert comment in after_text, comment


def test_diff_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "p"
    shutil.copytree(DATA / "cfg_only" / "before", root)
    before = _snapshot(root)
    assert main(["migrate", str(root), "--diff", "--no-verify"]) == 0
    assert _snapshot(root) == before
    out = capsys.readouterr().out
    assert "+++ b/pyproject.toml" in out
    subprocess.run(["patch", "-p1", "-s"], input=out, text=True, cwd=root, check=True)
    assert "[project]" in (root / "pyproject.toml").read_text()


def _sdist(tmp_path: Path, case: str) -> Path:
    archive = tmp_path / f"{case}-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(DATA / case / "before", arcname=f"{case}-1.0")
    return archive


def test_sdist_needs_an_output_dir(tmp_path: Path) -> None:
    archive = _sdist(tmp_path, "namespace")
    assert main(["migrate", str(archive), "--no-verify"]) == 2


def test_sdist_migrated_tree_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = _sdist(tmp_path, "namespace")
    out = tmp_path / "out"
    assert main(["migrate", str(archive), "-o", str(out), "--no-verify", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 1
    assert doc["status"] == "migrated"
    assert doc["static_only"] is None
    assert {c["path"]: c["action"] for c in doc["changes"]} == {
        "pyproject.toml": "created",
        "setup.cfg": "removed",
    }
    tree = out / "namespace-1.0"
    assert (tree / "pyproject.toml").exists()
    assert not (tree / "setup.cfg").exists()
    assert (tree / "acme" / "tools" / "__init__.py").exists()


def test_json_of_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _write(tmp_path / "p", dict(REFUSALS[0][1]))
    assert main(["migrate", str(root), "--format", "json"]) == 3
    doc = json.load(io.StringIO(capsys.readouterr().out))
    assert doc["status"] == "refused"
    assert doc["refusals"][0]["code"] == "setup-py-opaque"
    assert doc["changes"] == []
