#!/usr/bin/env python3
"""How often sapper's verdict on a pyproject.toml agrees with real setuptools (issue 27).

Two steps, so that the measure can be rerun on the same files:

``collect`` builds a corpus of pyproject.toml files written by others, not for sapper's
tests, into DIR (default ``~/.cache/sapper-dev/pyproject-corpus``):

* ``sdist``: the pyproject.toml of the newest sdist of the most downloaded projects of
  ``/work/shared/data/top-pypi-packages-30-days.json`` (``--top``) that build with setuptools
  (``build-backend`` a setuptools one, or none) and configure it there (``[project]`` or
  ``[tool.setuptools]``); for every third one, an older sdist of the same project too;
* ``cache``: the same from the sdists already in sapper's download cache;
* ``setuptools-tests``: the TOML documents of ``setuptools/tests/config/*.py`` (string
  literals holding ``[project]`` or ``[tool.setuptools]`` that parse as TOML) in the real
  sdists of setuptools 61.0.0, 77.0.3 and 84.2.1.

Every file is fetched through :class:`sapper.pypi.Index` (sha256-checked, cached), and
``manifest.json`` names where each came from.

``measure`` puts each file in an otherwise empty project folder, with empty stand-ins for
the folders and files it names (``_scaffold``: package folders, the module an ``attr:``
names with the attribute set to "1.0", readme and license files; never the project's code)
and asks both sides at a given setuptools release (``--setuptools``, repeatable):

* real setuptools: the oracle harness (``tests/oracle/harness.py``, ``run_hooks``) runs
  ``get_requires_for_build_wheel`` and ``prepare_metadata_for_build_wheel`` with the legacy
  backend. A failure raised while reading pyproject.toml (``config/pyprojecttoml.py``,
  ``config/_apply_pyprojecttoml.py``, ``_validate_pyproject``, ``NotImplementedError``) is
  "fails"; a build is "builds"; a failure elsewhere (a file or module the lone
  pyproject.toml refers to, package discovery) says nothing about validation and the file
  is left out of the ratio ("other");
* sapper: ``check_target`` with ``Options(setuptools=VERSION)``, its verdict's outcome.

A file whose ``build-system.requires`` excludes the release is left out too: no frontend
builds it with that release, and sapper drops findings about releases a project rules out.

The agreement is the share of the files that build or fail in validation on which both
agree; the disagreements are listed. Real results are kept in DIR/oracle-VERSION.json so a
rerun only asks setuptools about new files (``--fresh`` asks again; ``--oracle-tag`` names
the store, so that results of another tree-making are not mixed).

    .venv/bin/python scripts/pyproject_agreement.py collect --top 1200
    .venv/bin/python scripts/pyproject_agreement.py measure --setuptools 84.2.1 --setuptools 69.5.1
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tarfile
import tempfile
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from inspect import cleandoc
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DIR = Path.home() / ".cache" / "sapper-dev" / "pyproject-corpus"
TOP = Path("/work/shared/data/top-pypi-packages-30-days.json")
SETUPTOOLS_TEST_RELEASES = ("61.0.0", "77.0.3", "84.2.1")
#: Where setuptools raises what it finds reading pyproject.toml.
VALIDATION_PLACES = (
    "config/pyprojecttoml.py",
    "config/_apply_pyprojecttoml.py",
    "_validate_pyproject",
)


def _configures_setuptools(text: str) -> bool:
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False  # invalid TOML is another helper's subject (issue 27 leaves it out)
    backend = str(doc.get("build-system", {}).get("build-backend", "setuptools.build_meta"))
    if not backend.startswith("setuptools.build_meta"):
        return False
    tool = doc.get("tool", {})
    return bool(doc.get("project")) or bool(isinstance(tool, dict) and tool.get("setuptools"))


def _pyproject_of(filename: str, data: bytes) -> str | None:
    """The top-level pyproject.toml of an sdist, read in memory."""
    try:
        if filename.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = [n for n in zf.namelist() if re.fullmatch(r"[^/]+/pyproject\.toml", n)]
                return zf.read(names[0]).decode("utf-8") if names else None
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            for member in tf.getmembers():
                if re.fullmatch(r"[^/]+/pyproject\.toml", member.name) and member.isfile():
                    stream = tf.extractfile(member)
                    return stream.read().decode("utf-8") if stream else None
    except (OSError, tarfile.TarError, zipfile.BadZipFile, UnicodeDecodeError, EOFError):
        return None
    return None


def _toml_strings(source: str) -> list[str]:
    """TOML documents written as string literals in a test module of setuptools."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if "[project]" not in text and "[tool.setuptools" not in text:
                continue
            text = cleandoc(text)
            try:
                tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                continue  # a template filled at run time
            out.append(text + "\n")
    return out


def collect(out: Path, top: int) -> None:
    from sapper._exceptions import SapperError
    from sapper.pypi import Index

    out.mkdir(parents=True, exist_ok=True)
    index = Index()
    manifest: dict[str, dict[str, str]] = {}

    def keep(name: str, text: str, origin: dict[str, str]) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        (out / f"{safe}.toml").write_text(text)
        manifest[f"{safe}.toml"] = origin

    # setuptools' own test cases
    for release in SETUPTOOLS_TEST_RELEASES:
        dl = index.fetch(f"setuptools=={release}")
        with tarfile.open(fileobj=io.BytesIO(dl.data)) as tf:
            for member in tf.getmembers():
                if not re.fullmatch(r"[^/]+/setuptools/tests/config/[^/]+\.py", member.name):
                    continue
                stream = tf.extractfile(member)
                if stream is None:
                    continue
                module = member.name.rsplit("/", 1)[1]
                for i, text in enumerate(_toml_strings(stream.read().decode())):
                    keep(
                        f"setuptools-tests__{release}__{module}__{i}",
                        text,
                        {"source": "setuptools-tests", "release": release, "module": module},
                    )
    # sdists already downloaded
    cache = index.cache_dir
    for path in sorted(cache.glob("sdists/*/*/*")) if cache else []:
        text = _pyproject_of(path.name, path.read_bytes())
        if text and _configures_setuptools(text):
            keep(f"cache__{path.name}", text, {"source": "cache", "sdist": path.name})
    # newest (and some older) sdists of the most downloaded projects
    rows = json.loads(TOP.read_text())["rows"][:top]

    def one(project: str) -> list[tuple[str, str, dict[str, str]]]:
        found = []
        try:
            sdists = [s for s in index.sdists(project) if not s.yanked]
            if not sdists:
                return []
            from packaging.version import InvalidVersion, Version

            def order(s: Any) -> Any:
                try:
                    return Version(s.version)
                except InvalidVersion:
                    return Version("0")

            sdists.sort(key=order)
            picks = [sdists[-1]]
            if len(sdists) > 12 and zlib.crc32(project.encode()) % 3 == 0:
                picks.append(sdists[-12])
            for sd in picks:
                if sd.size and sd.size > 30_000_000:
                    continue
                dl = index.download(sd)
                text = _pyproject_of(sd.filename, dl.data)
                if text and _configures_setuptools(text):
                    found.append(
                        (f"sdist__{sd.filename}", text, {"source": "sdist", "sdist": sd.filename})
                    )
        except SapperError:
            return found
        return found

    with ThreadPoolExecutor(4) as pool:
        for result in pool.map(one, [r["project"] for r in rows]):
            for name, text, origin in result:
                keep(name, text, origin)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    counts: dict[str, int] = {}
    for origin in manifest.values():
        counts[origin["source"]] = counts.get(origin["source"], 0) + 1
    sys.stdout.write(f"{len(manifest)} files in {out}: {counts}\n")


def _touch(path: Path, text: str = "") -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(text)
    except OSError:
        pass  # a path that cannot be made here (absolute, `..`): setuptools will say so


def _scaffold(root: Path, text: str) -> None:
    """The minimal tree around a lone pyproject.toml: empty stand-ins for the folders,
    packages and files it names (never any of the project's code), so that setuptools
    gets past them and its verdict is about the configuration itself.

    Folders of ``package-dir``, ``packages`` and ``packages.find.where``; the module an
    ``attr:`` directive names, with the attribute set to ``"1.0"``; the files of ``file:``
    directives, ``readme``, ``license = {file}`` and ``license-files`` (a glob with only
    ``*`` as its wildcard gets a file with the ``*`` dropped)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    project = doc.get("project") if isinstance(doc.get("project"), dict) else {}
    tool = doc.get("tool", {}).get("setuptools") if isinstance(doc.get("tool"), dict) else None
    tool = tool if isinstance(tool, dict) else {}
    package_dir = tool.get("package-dir") if isinstance(tool.get("package-dir"), dict) else {}
    base = root / str(package_dir.get("", "."))
    for value in package_dir.values():
        if isinstance(value, str):
            (root / value).mkdir(parents=True, exist_ok=True)
    packages = tool.get("packages")
    if isinstance(packages, list):
        for name in packages:
            if isinstance(name, str) and name:
                where = package_dir.get(name)
                folder = root / where if isinstance(where, str) else base / name.replace(".", "/")
                _touch(folder / "__init__.py")
    elif isinstance(packages, dict) and isinstance(packages.get("find"), dict):
        for where in packages["find"].get("where", []) or []:
            if isinstance(where, str):
                (root / where).mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    dynamic = tool.get("dynamic") if isinstance(tool.get("dynamic"), dict) else {}
    for field, directive in dynamic.items():
        entries = directive.values() if field == "optional-dependencies" else [directive]
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            attr = entry.get("attr")
            if isinstance(attr, str) and "." in attr:
                module, _, name = attr.rpartition(".")
                parts = module.split(".")
                for i in range(1, len(parts)):
                    _touch(base.joinpath(*parts[:i]) / "__init__.py")
                target = base.joinpath(*parts[:-1]) / f"{parts[-1]}.py"
                if (base.joinpath(*parts)).is_dir():
                    target = base.joinpath(*parts) / "__init__.py"
                _touch(target, f'{name} = "1.0"\n')
            found = entry.get("file")
            files += [found] if isinstance(found, str) else list(found or [])
    readme = project.get("readme")
    if isinstance(readme, str):
        files.append(readme)
    elif isinstance(readme, dict) and isinstance(readme.get("file"), str):
        files.append(readme["file"])
    license_ = project.get("license")
    if isinstance(license_, dict) and isinstance(license_.get("file"), str):
        files.append(license_["file"])
    for pattern in list(project.get("license-files") or []) + list(tool.get("license-files") or []):
        if isinstance(pattern, str) and not any(c in pattern for c in "?[]"):
            files.append(pattern.replace("*", ""))
    for name in files:
        if isinstance(name, str) and name and not name.endswith("/"):
            _touch(root / name, "1.0\n")


def _real(version: str, text: str) -> dict[str, Any]:
    from tests.oracle.harness import run_hooks

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pyproject.toml").write_text(text)
        _scaffold(Path(tmp), text)
        result = run_hooks(version, Path(tmp), timeout=120)
    if result.outcome == "builds":
        return {"outcome": "builds"}
    where = result.where or ""
    validation = result.exc_name == "NotImplementedError" or any(
        p in where for p in VALIDATION_PLACES
    )
    return {
        "outcome": "fails" if validation else "other",
        "error": result.error,
        "where": where,
    }


def _sapper(version: str, text: str) -> dict[str, Any]:
    from sapper.check import Options, check_target

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pyproject.toml").write_text(text)
        _scaffold(Path(tmp), text)
        result = check_target(tmp, Options(setuptools=version))
    verdict = result.verdict
    return {
        "outcome": verdict.outcome if verdict else "unknown",
        "because": list(verdict.because) if verdict else [],
    }


def _allows(text: str, version: str) -> bool:
    """Whether the file's ``build-system.requires`` lets a frontend build with setuptools
    ``version`` (a file that requires setuptools>=77 never meets 69.5.1)."""
    from sapper.facts.pyproject import PyProject, build_system

    try:
        spec = build_system(PyProject(tomllib.loads(text))).setuptools
    except tomllib.TOMLDecodeError:
        return True
    return spec is None or spec.contains(version, prereleases=True)


def measure(corpus: Path, versions: list[str], fresh: bool, show: int, tag: str) -> int:
    manifest = json.loads((corpus / "manifest.json").read_text())
    names = sorted(manifest)
    for version in versions:
        store = corpus / f"oracle-{tag}{version}.json"
        real: dict[str, Any] = {} if fresh or not store.exists() else json.loads(store.read_text())
        todo = [n for n in names if n not in real]
        with ThreadPoolExecutor(2) as pool:
            for name, outcome in zip(
                todo,
                pool.map(lambda n, v=version: _real(v, (corpus / n).read_text()), todo),
                strict=True,
            ):
                real[name] = outcome
        store.write_text(json.dumps(real, indent=1, sort_keys=True) + "\n")
        counted = agree = 0
        other = 0
        excluded = 0
        wrong: list[str] = []
        by_source: dict[str, list[int]] = {}
        for name in names:
            truth = real[name]
            if truth["outcome"] == "other":
                other += 1
                continue
            if not _allows((corpus / name).read_text(), version):
                excluded += 1
                continue
            mine = _sapper(version, (corpus / name).read_text())
            counted += 1
            ok = mine["outcome"] == truth["outcome"]
            agree += ok
            tally = by_source.setdefault(manifest[name]["source"], [0, 0])
            tally[0] += ok
            tally[1] += 1
            if not ok:
                wrong.append(
                    f"  {name}: setuptools {truth['outcome']}"
                    + (f" ({truth.get('error')})" if truth.get("error") else "")
                    + f"; sapper {mine['outcome']} {mine['because']}"
                )
        share = 100 * agree / counted if counted else 0.0
        sys.stdout.write(
            f"setuptools {version}: {agree}/{counted} agree ({share:.1f}%); "
            f"{other} left out (failed outside validation), {excluded} more (their "
            f"build-system.requires excludes {version}); "
            + ", ".join(f"{k} {a}/{n}" for k, (a, n) in sorted(by_source.items()))
            + "\n"
        )
        for line in wrong[:show]:
            sys.stdout.write(line[:400] + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="build the corpus")
    c.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    c.add_argument("--top", type=int, default=1200, help="how many top projects to look at")
    m = sub.add_parser("measure", help="compare sapper with real setuptools on the corpus")
    m.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    m.add_argument("--setuptools", action="append", default=[], metavar="VERSION")
    m.add_argument("--fresh", action="store_true", help="ask setuptools again")
    m.add_argument("--show", type=int, default=40, help="disagreements to list")
    m.add_argument("--oracle-tag", default="scaffold-", help="prefix of the oracle's store")
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.dir, args.top)
        return 0
    versions = args.setuptools or ["84.2.1"]
    return measure(args.dir, versions, args.fresh, args.show, args.oracle_tag)


if __name__ == "__main__":
    raise SystemExit(main())
