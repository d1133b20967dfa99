"""Assembling the facts of every wheel into ``setuptools.json``; the command line."""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._base import DEFAULT_OUTPUT, FORMAT, GENERATED_BY, MIN_VERSION, ExtractionError
from .cfg import extract_cfg
from .modules import extract_names, wheel_modules
from .releases import Release, cache_dir, fetch_wheel, release_files, select_releases
from .sections import extract_sections
from .wheel import WheelView


@dataclass
class WheelFacts:
    cfg: dict[str, Any]
    modules: set[str]
    names: dict[str, set[str]]
    getattr_modules: set[str]
    sections: dict[str, Any] = field(default_factory=dict)


def analyse_wheel(version: str, data: bytes) -> WheelFacts:
    view = WheelView.from_zip(data)
    try:
        cfg = extract_cfg(view)
        modules = wheel_modules(view)
        names, getattr_modules = extract_names(view)
        sections = extract_sections(view)
    except (ExtractionError, SyntaxError) as exc:
        raise ExtractionError(f"setuptools {version}: {exc}") from exc
    return WheelFacts(cfg, modules, names, getattr_modules, sections)


def runs(versions: Sequence[str], present: Iterable[str]) -> list[list[str]]:
    """Inclusive [first, last] runs of versions (in list order) that are in present."""
    present = set(present)
    out: list[list[str]] = []
    start: str | None = None
    previous: str | None = None
    for version in versions:
        if version in present:
            if start is None:
                start = version
            previous = version
        elif start is not None and previous is not None:
            out.append([start, previous])
            start = None
    if start is not None and previous is not None:
        out.append([start, previous])
    return out


def build_document(releases: Sequence[Release], facts: Mapping[str, WheelFacts]) -> dict[str, Any]:
    versions = [r.version for r in releases]
    eras: list[dict[str, Any]] = []
    by_key: dict[str, dict[str, Any]] = {}
    for version in versions:
        cfg = facts[version].cfg
        key = json.dumps(cfg, sort_keys=True)
        if key not in by_key:
            by_key[key] = {"versions": [], "cfg": cfg}
            eras.append(by_key[key])
        by_key[key]["versions"].append(version)

    section_eras: list[dict[str, Any]] = []
    by_sections: dict[str, dict[str, Any]] = {}
    for version in versions:
        sections = facts[version].sections
        key = json.dumps(sections, sort_keys=True)
        if key not in by_sections:
            by_sections[key] = {"versions": [], "cfg_sections": sections}
            section_eras.append(by_sections[key])
        by_sections[key]["versions"].append(version)

    presence: dict[str, set[str]] = {}
    for version in versions:
        for module in facts[version].modules:
            presence.setdefault(module, set()).add(version)
    names: dict[str, dict[str, set[str]]] = {}
    for version in versions:
        for module, bound in facts[version].names.items():
            for name in bound:
                names.setdefault(module, {}).setdefault(name, set()).add(version)
    getattr_presence: dict[str, set[str]] = {}
    for version in versions:
        for module in facts[version].getattr_modules:
            getattr_presence.setdefault(module, set()).add(version)

    return {
        "format": FORMAT,
        "generated_by": GENERATED_BY,
        "generated_at": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "releases": [
            {
                "version": r.version,
                "date": r.date,
                "yanked": r.yanked,
                "yanked_reason": r.yanked_reason,
                "requires_python": r.requires_python,
            }
            for r in releases
        ],
        "cfg_eras": eras,
        "modules": {m: runs(versions, presence[m]) for m in sorted(presence)},
        "names": {
            module: {n: runs(versions, vs) for n, vs in sorted(bound.items())}
            for module, bound in sorted(names.items())
        },
        "getattr": {m: runs(versions, getattr_presence[m]) for m in sorted(getattr_presence)},
        "section_eras": section_eras,
    }


def dump_document(doc: Mapping[str, Any]) -> str:
    """Compact JSON: one line per top-level key, and one per entry of the big containers."""

    def compact(value: object) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    lines = ["{"]
    keys = list(doc)
    for i, key in enumerate(keys):
        value = doc[key]
        comma = "," if i < len(keys) - 1 else ""
        if isinstance(value, list) and value:
            inner = ",\n".join(compact(v) for v in value)
            lines.append(f"{compact(key)}:[\n{inner}\n]{comma}")
        elif isinstance(value, dict) and value:
            inner = ",\n".join(f"{compact(k)}:{compact(v)}" for k, v in value.items())
            lines.append(f"{compact(key)}:{{\n{inner}\n}}{comma}")
        else:
            lines.append(f"{compact(key)}:{compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(offline: bool, jobs: int, log: Callable[[str], None]) -> dict[str, Any]:
    releases = select_releases(release_files(offline))
    log(f"{len(releases)} releases >= {MIN_VERSION}; fetching wheels into {cache_dir()}")

    def download(release: Release) -> None:
        fetch_wheel(release, offline)  # into the cache; the bytes are read again below

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(download, releases))
    log("analysing wheels")
    # one at a time, in this thread: ast.parse is not thread-safe on every CPython 3.11
    facts = {r.version: analyse_wheel(r.version, fetch_wheel(r, offline)) for r in releases}
    return build_document(releases, facts)


def _comparable(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "generated_at"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Derive per-version facts about setuptools from its real wheels on PyPI."
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="data file to write")
    parser.add_argument("--jobs", type=int, default=8, help="concurrent downloads (default 8)")
    parser.add_argument("--offline", action="store_true", help="use only the local cache")
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if the data file differs (ignoring generated_at)",
    )
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr)

    doc = generate(args.offline, args.jobs, log)
    if args.check:
        current = (
            json.loads(args.output.read_text(encoding="utf-8")) if args.output.exists() else {}
        )
        if _comparable(current) != _comparable(doc):
            log(f"{args.output} is out of date: run {GENERATED_BY}")
            return 1
        log(f"{args.output} is up to date")
        return 0
    text = dump_document(doc)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    log(f"wrote {args.output} ({len(text.encode()) // 1024} KiB, {len(doc['cfg_eras'])} cfg eras)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
