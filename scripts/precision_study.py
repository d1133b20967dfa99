"""Precision of sapper's rules on real sdists: findings per rule over a corpus, and real
pip builds of sampled sdists to hand-check the verdicts.

    python scripts/precision_study.py table            # sapper check over the corpus
    python scripts/precision_study.py build PIN MODE [--setuptools X] [--enforce]

The corpus is ``benchmarks/corpus-300.txt`` (300 sdists from the top-15,000 list, newest
and pre-2020 releases, built by ``benchmarks/corpus.py``, which also fills the cache).
``table`` prints a Markdown table: per rule, the sdists with a finding, how many of them
fail with the newest setuptools, and how many only under SETUPTOOLS_ENFORCE_DEPRECATION=1.
``build`` runs pip on one cached sdist with build isolation, as a user would: ``meta``
prepares the metadata (``pip download``), ``wheel`` builds the wheel; ``--setuptools``
pins the build environment's setuptools with ``--build-constraint``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks" / "corpus-300.txt"


def _pins() -> list[str]:
    lines = CORPUS.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def table() -> str:
    from sapper.check import Options, check_targets

    results = check_targets(_pins(), Options())
    per_rule: dict[str, dict[str, set[str]]] = collections.defaultdict(
        lambda: {"sdists": set(), "fails": set(), "enforced": set()}
    )
    outcomes = collections.Counter()
    errors = 0
    for r in results:
        if r.errors and r.verdict is None:
            errors += 1
            continue
        assert r.verdict is not None
        outcomes[r.verdict.outcome] += 1
        for f in r.findings:
            row = per_rule[f.code]
            row["sdists"].add(r.target)
            if f.status == "removed":
                row["fails"].add(r.target)
            elif f.status == "overdue":
                row["enforced"].add(r.target)
    from sapper.rules import get_rule

    out = [
        f"{len(results)} sdists: {outcomes['builds']} build, {outcomes['fails']} fail, "
        f"{outcomes['unknown']} other backends, {errors} could not be read.",
        "",
        "| rule | summary | sdists | fail at newest | fail only when enforced |",
        "|---|---|---:|---:|---:|",
    ]
    for code in sorted(per_rule):
        row = per_rule[code]
        rule = get_rule(code)
        summary = rule.summary if rule else ""
        out.append(
            f"| {code} | {summary} | {len(row['sdists'])} | {len(row['fails'])} "
            f"| {len(row['enforced'])} |"
        )
    return "\n".join(out) + "\n"


def _cached_path(pin: str) -> Path:
    from sapper.pypi import DEFAULT_INDEX_URL, Index, default_cache_dir

    download = Index(DEFAULT_INDEX_URL, cache_dir=default_cache_dir()).fetch(pin)
    tmp = Path(tempfile.mkdtemp()) / download.file.filename
    tmp.write_bytes(download.data)
    return tmp


def build(pin: str, mode: str, setuptools: str | None, enforce: bool) -> str:
    path = _cached_path(pin)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETUPTOOLS_")}
    if enforce:
        env["SETUPTOOLS_ENFORCE_DEPRECATION"] = "1"
    out = tempfile.mkdtemp()
    cmd = [sys.executable, "-m", "pip", "download" if mode == "meta" else "wheel"]
    cmd += ["--no-deps", "--no-cache-dir", "-q"]
    cmd += ["-d" if mode == "meta" else "-w", out]
    if setuptools:
        constraint = Path(out) / "constraint.txt"
        constraint.write_text(f"setuptools=={setuptools}\n")
        cmd += ["--build-constraint", str(constraint)]
    proc = subprocess.run([*cmd, str(path)], capture_output=True, text=True, env=env, check=False)
    lines = [
        line.strip()
        for line in (proc.stdout + proc.stderr).splitlines()
        if ("Error" in line or "error" in line) and "WARNING: Location" not in line
    ]
    verdict = "OK" if proc.returncode == 0 else "FAIL"
    detail = " | ".join(lines[-2:])[:240]
    return json.dumps(
        {
            "pin": pin,
            "mode": mode,
            "setuptools": setuptools or "newest",
            "enforce": enforce,
            "result": verdict,
            "detail": detail,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("table")
    b = sub.add_parser("build")
    b.add_argument("pin")
    b.add_argument("mode", choices=("meta", "wheel"))
    b.add_argument("--setuptools")
    b.add_argument("--enforce", action="store_true")
    args = parser.parse_args()
    if args.command == "table":
        sys.stdout.write(table())
    else:
        print(build(args.pin, args.mode, args.setuptools, args.enforce))


if __name__ == "__main__":
    main()
