"""Write src/sapper/data/plugins.json: which releases of the setuptools plugins that
setuptools loads during a build (setuptools-scm, pbr) import ``pkg_resources``.

Every non-prerelease wheel of each plugin is downloaded from PyPI with
:class:`sapper.pypi.Index` (the simple API; each wheel checked against the sha256 the index
publishes, and cached) and read with ``ast`` (never imported): a release counts as
importing ``pkg_resources`` when one of its modules (tests excluded) has an unguarded
module-level ``import pkg_resources`` or ``from pkg_resources import ...``. Releases
without a (non-yanked) wheel are left out.

    python scripts/gen_plugin_facts.py            # regenerate (network)
    python scripts/gen_plugin_facts.py --check    # exit 1 if the file is out of date
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import io
import json
import os
import sys
import zipfile
from pathlib import Path

from packaging.version import InvalidVersion, Version

from sapper.pypi import Index, ReleaseFile

PLUGINS = ("setuptools-scm", "pbr")
OUT = Path(__file__).resolve().parent.parent / "src" / "sapper" / "data" / "plugins.json"


def _index() -> Index:
    base = os.environ.get("SAPPER_DEV_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "sapper-dev"
    return Index(cache_dir=root / "index", page_max_age=0)


def imports_pkg_resources(wheel: bytes) -> bool:
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        for name in archive.namelist():
            if not name.endswith(".py") or "/tests/" in name or name.startswith("tests/"):
                continue
            try:
                tree = ast.parse(archive.read(name))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.Import) and any(
                    a.name.split(".")[0] == "pkg_resources" for a in node.names
                ):
                    return True
                if (
                    isinstance(node, ast.ImportFrom)
                    and node.level == 0
                    and (node.module or "").split(".")[0] == "pkg_resources"
                ):
                    return True
    return False


def plugin_facts(name: str) -> dict[str, bool]:
    index = _index()
    listing = index.listing(name)
    jobs: list[tuple[str, ReleaseFile]] = []
    for version in listing.versions:
        try:
            if Version(version).is_prerelease:
                continue
        except InvalidVersion:
            continue
        wheels = [f for f in listing.files(version) if f.kind == "wheel" and not f.yanked]
        if wheels:
            jobs.append((version, wheels[0]))
    with cf.ThreadPoolExecutor(8) as pool:
        flags = dict(
            zip(
                [v for v, _ in jobs],
                pool.map(lambda job: imports_pkg_resources(index.download(job[1]).data), jobs),
                strict=True,
            )
        )
    return dict(sorted(flags.items(), key=lambda kv: Version(kv[0])))


def render() -> str:
    doc = {
        "generated_by": "scripts/gen_plugin_facts.py",
        "plugins": {name: plugin_facts(name) for name in PLUGINS},
    }
    return json.dumps(doc, indent=0) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if json.loads(current or "{}").get("plugins") != json.loads(text)["plugins"]:
            sys.stderr.write(f"{OUT} is out of date; run {sys.argv[0]}\n")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
