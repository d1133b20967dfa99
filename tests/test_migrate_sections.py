"""A setup.cfg key in the section setuptools does not read it from has no effect, so
``sapper migrate`` leaves it where it is instead of giving it an effect in pyproject.toml
(weaviate-client 4.23.1: ``[options] platforms = any`` became ``Platform: any``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sapper.migrate import plan_migration

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SETUP_PY = "from setuptools import setup\nsetup()\n"
BASE = "[metadata]\nname = probe\nversion = 1.0\n"

# (id, extra [metadata] lines, extra [options] lines, a pyproject.toml key that must not be
# written, the text setup.cfg must keep)
CASES = [
    (
        "options-platforms",
        "",
        "platforms = any\n",
        ("tool", "setuptools", "platforms"),
        "platforms = any",
    ),
    ("options-keywords", "", "keywords = a, b\n", ("project", "keywords"), "keywords = a, b"),
    (
        "options-project-urls",
        "",
        "project_urls =\n    Home = https://example.org\n",
        ("project", "urls"),
        "Home = https://example.org",
    ),
    (
        "metadata-install-requires",
        "install_requires = six\n",
        "",
        ("project", "dependencies"),
        "install_requires = six",
    ),
    (
        "metadata-zip-safe",
        "zip_safe = false\n",
        "",
        ("tool", "setuptools", "zip-safe"),
        "zip_safe = false",
    ),
]


def _lookup(data: dict[str, object], path: tuple[str, ...]) -> object:
    node: object = data
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


@pytest.mark.parametrize(
    ("metadata", "options", "absent", "kept"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_key_in_the_wrong_section_stays_without_effect(
    tmp_path: Path, metadata: str, options: str, absent: tuple[str, ...], kept: str
) -> None:
    cfg = BASE + metadata + "\n[options]\npy_modules = probe\n" + options
    (tmp_path / "setup.cfg").write_text(cfg)
    (tmp_path / "setup.py").write_text(SETUP_PY)
    (tmp_path / "probe.py").write_text("")
    migration = plan_migration(tmp_path)
    assert not migration.refusals
    changes = {c.path: c.after for c in migration.changes}
    written = changes["pyproject.toml"]
    assert written is not None
    data = tomllib.loads(written)
    assert data["project"]["name"] == "probe"  # the rest moved
    assert _lookup(data, absent) is None
    assert kept in (changes.get("setup.cfg") or "")


def test_the_same_keys_in_their_own_section_move(tmp_path: Path) -> None:
    cfg = (
        BASE + "keywords = a, b\nplatforms = any\n\n[options]\npy_modules = probe\n"
        "zip_safe = false\ninstall_requires = six\n"
    )
    (tmp_path / "setup.cfg").write_text(cfg)
    (tmp_path / "setup.py").write_text(SETUP_PY)
    (tmp_path / "probe.py").write_text("")
    migration = plan_migration(tmp_path)
    assert not migration.refusals
    written = next(c.after for c in migration.changes if c.path == "pyproject.toml")
    assert written is not None
    data = tomllib.loads(written)
    assert data["project"]["keywords"] == ["a", "b"]
    assert data["project"]["dependencies"] == ["six"]
    assert data["tool"]["setuptools"]["zip-safe"] is False
    assert data["tool"]["setuptools"]["platforms"] == ["any"]


def test_packages_stay_beside_namespace_packages_in_setup_py(tmp_path: Path) -> None:
    """snowflake-snowpark-python 1.56.0: setup() checks ``namespace_packages`` against the
    packages it is given, before pyproject.toml is read; moved, the build failed with
    "Distribution contains no modules or packages for namespace package 'snowflake'"."""
    (tmp_path / "src" / "ns" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "ns" / "__init__.py").write_text(
        "__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n"
    )
    (tmp_path / "src" / "ns" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='ns-pkg', version='1.0', namespace_packages=['ns'],\n"
        "      packages=['ns.pkg'], package_dir={'': 'src'})\n"
    )
    migration = plan_migration(tmp_path)
    assert not migration.refusals
    written = next(c.after for c in migration.changes if c.path == "pyproject.toml")
    assert written is not None
    data = tomllib.loads(written)
    assert data["project"]["name"] == "ns-pkg"
    assert "packages" not in data.get("tool", {}).get("setuptools", {})
    assert "package-dir" not in data.get("tool", {}).get("setuptools", {})
    setup_py = next(c.after for c in migration.changes if c.path == "setup.py")
    assert setup_py is not None
    assert "packages=['ns.pkg']" in setup_py and "package_dir={'': 'src'}" in setup_py


@pytest.mark.parametrize(
    ("keyword", "kept"),
    [
        ("cffi_modules=['build_ffi.py:ffibuilder']", True),  # cffi appends to py_modules
        ("rust_extensions=[]", True),
        ("use_scm_version=True", False),  # a version plugin: the version stays dynamic only
    ],
)
def test_modules_stay_beside_a_plugin_keyword(tmp_path: Path, keyword: str, kept: bool) -> None:
    """soundfile 0.14.0: cffi's ``cffi_modules`` handler appends the generated module to the
    ``py_modules`` setup() was given; ``[tool.setuptools] py-modules``, read later, replaced
    them and ``_soundfile`` left top_level.txt."""
    (tmp_path / "probe.py").write_text("")
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        f"setup(name='probe', version='1.0', py_modules=['probe'], {keyword})\n"
    )
    migration = plan_migration(tmp_path)
    assert not migration.refusals
    written = next(c.after for c in migration.changes if c.path == "pyproject.toml")
    assert written is not None
    tool = tomllib.loads(written).get("tool", {}).get("setuptools", {})
    setup_py = next(c.after for c in migration.changes if c.path == "setup.py")
    assert setup_py is not None
    assert ("py-modules" not in tool) == kept
    assert ("py_modules=['probe']" in setup_py) == kept
