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
from typing import Any

import pytest

from sapper.cli import main
from sapper.migrate import Migration, plan_migration

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
    # entry_points that cannot move cannot stay either unless setuptools gets a dict
    (
        "entry-points-string-with-extras",
        {
            "setup.py": "from setuptools import setup\n"
            "setup(name='p', version='1', py_modules=['p'],\n"
            "      entry_points='[console_scripts]\\nx = p:main [cli]\\n')\n"
        },
        "entry-points",
    ),
    (
        "entry-points-computed",
        {
            "setup.py": "from setuptools import setup\nimport x\n"
            "setup(name='p', version='1', py_modules=['p'], entry_points=x.eps())\n"
        },
        "entry-points",
    ),
    (
        "entry-points-setup-cfg-option-unread",
        {"setup.py": _SETUP, "setup.cfg": "[options]\nentry_points = file: missing.cfg\n"},
        "entry-points",
    ),
]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _pyproject(migration: Migration) -> dict[str, Any]:
    """The pyproject.toml a migration writes, parsed."""
    change = next(c for c in migration.changes if c.path == "pyproject.toml")
    assert change.after is not None
    return tomllib.loads(change.after)


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


def test_a_setuptools_import_that_never_fails_decides_the_paths(tmp_path: Path) -> None:
    """dill, pathos, ppft: ``has_setuptools`` is True in every build (setuptools and its
    ``setuptools.dist.Distribution`` always import there), so the keywords given under
    ``if has_setuptools:`` reach setup() on every path."""
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "try:\n    from setuptools import setup\n"
            "    from setuptools.dist import Distribution\n    has_setuptools = True\n"
            "except ImportError:\n    from distutils.core import setup\n"
            "    Distribution = object\n    has_setuptools = False\n"
            "kw = dict(name='p', version='1.0', py_modules=['p'])\n"
            "if has_setuptools:\n    kw.update(extras_require={'x': ['dill>=0.4']})\n"
            "setup(**kw)\n",
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals
    assert "optional-dependencies" in _pyproject(migration)["project"]["dynamic"]


#: (id, files, the [project] tables of the entry points written)
ENTRY_POINTS = [
    (
        "setup-py-string",  # nltk 3.10.4: setuptools reads it with importlib.metadata's rules
        {
            "setup.py": "from setuptools import setup\n"
            'EPS = """\nignored = before.any:group\n[console_scripts]\n'
            '# a comment\n  x=p:main  \n\n[p.plugins]\na = p:A\n"""\n'
            "setup(name='p', version='1', py_modules=['p'], entry_points=EPS)\n"
        },
        {"scripts": {"x": "p:main"}, "entry-points": {"p.plugins": {"a": "p:A"}}},
    ),
    (
        "setup-cfg-file",
        {
            "setup.py": _SETUP,
            "setup.cfg": "[options]\nentry_points = file: eps.cfg\n",
            "eps.cfg": "[gui_scripts]\ng = p:gui\n",
        },
        {"gui-scripts": {"g": "p:gui"}},
    ),
    (
        "setup-cfg-inline",
        {
            "setup.py": _SETUP,
            "setup.cfg": "[options]\nentry_points =\n    [console_scripts]\n    x = p:main\n",
        },
        {"scripts": {"x": "p:main"}},
    ),
]


@pytest.mark.parametrize(
    ("files", "tables"), [c[1:] for c in ENTRY_POINTS], ids=[c[0] for c in ENTRY_POINTS]
)
def test_entry_points_text_moves(
    files: dict[str, str], tables: dict[str, Any], tmp_path: Path
) -> None:
    migration = plan_migration(_write(tmp_path / "p", files))
    assert not migration.refusals
    project = _pyproject(migration)["project"]
    assert {k: project[k] for k in ("scripts", "gui-scripts", "entry-points") if k in project} == (
        tables
    )
    assert not {"scripts", "gui-scripts", "entry-points"} & set(project.get("dynamic", []))
    for change in migration.changes:
        if change.path in {"setup.py", "setup.cfg"}:
            assert "entry_points" not in (change.after or "")


def test_entry_points_built_by_code_in_a_dict_stay(tmp_path: Path) -> None:
    """A dict display setuptools reads as a dict stays (listed in dynamic) even when the
    resolver cannot read its values."""
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import setup\nimport x\n"
            "setup(name='p', version='1', py_modules=['p'],\n"
            "      entry_points={'console_scripts': x.scripts()})\n"
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals
    assert {"scripts", "gui-scripts", "entry-points"} <= set(
        _pyproject(migration)["project"]["dynamic"]
    )


@pytest.mark.parametrize(
    ("setup_py", "packages"),
    [
        # lz4 4.4.5: bound on two paths, the resolver keeps one finder call: stays
        (
            "import os\nif os.environ.get('X'):\n    pk = find_packages()\n"
            "else:\n    pk = find_packages(exclude=('p.extra',))\n",
            None,
        ),
        # bound once, unconditionally, through two names: the finder moves
        (
            "found = find_packages(exclude=('p.extra',))\npk = found\n",
            {"find": {"exclude": ["p.extra"], "namespaces": False}},
        ),
        # rebound later: stays
        ("pk = find_packages()\npk = find_packages(exclude=('p.extra',))\n", None),
    ],
    ids=["two-paths", "bound-once", "rebound"],
)
def test_a_package_finder_moves_only_from_its_sole_binding(
    setup_py: str, packages: dict[str, Any] | None, tmp_path: Path
) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import find_packages, setup\n"
            + setup_py
            + "setup(name='p', version='1', packages=pk)\n",
            "p/__init__.py": "",
            "p/extra/__init__.py": "",
        },
    )
    migration = plan_migration(root)
    assert not migration.refusals
    assert _pyproject(migration)["tool"]["setuptools"].get("packages") == packages
    setup_after = next(c.after for c in migration.changes if c.path == "setup.py")
    assert setup_after is not None
    assert ("packages=pk" in setup_after) == (packages is None)


@pytest.mark.parametrize(
    ("setup_py", "reason"),
    [
        (
            "from setuptools import setup\nsetup(name='a')\nsetup(name='b')\n",
            "setup.py calls setup() more than once: setup.py:2, setup.py:3",
        ),
        (  # simplejson, gevent: one call, in a function run twice
            "from setuptools import setup\n"
            "def run(ext):\n    setup(name='p', version='1')\n"
            "try:\n    run(True)\nexcept Exception:\n    run(False)\n",
            "setup.py calls setup() more than once: setup.py:3 (in run(), called at "
            "setup.py:5, setup.py:7)",
        ),
    ],
    ids=["two-calls", "one-call-run-twice"],
)
def test_setup_py_calls_says_each_call_once(setup_py: str, reason: str, tmp_path: Path) -> None:
    root = _write(tmp_path / "p", {"setup.py": setup_py})
    (refusal,) = plan_migration(root).refusals
    assert (refusal.code, refusal.reason, refusal.path) == ("setup-py-calls", reason, "setup.py")
    first = re.search(r"setup\.py:(\d+)", reason)
    assert first is not None
    assert refusal.line == int(first.group(1))


def test_name_from_a_module_literal(tmp_path: Path) -> None:
    root = _write(
        tmp_path / "p",
        {
            "setup.py": "from setuptools import setup\nimport p\n"
            "setup(name=p.__title__, version=p.__version__, packages=['p'])\n",
            "p/__init__.py": '__title__ = "p-dist"\n__version__ = "1.2"\n',
        },
    )
    data = _pyproject(plan_migration(root))
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
    assert _pyproject(migration)["project"]["dynamic"] == ["version"]
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
