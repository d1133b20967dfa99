"""The ecosystem check (issue 21): sapper's static verdicts against real sandboxed builds at
every catalogue boundary that broke real builds.

For each boundary (a baseline and a candidate setuptools, with the candidate's variables)
and each corpus, one ``sapper canary`` run in metadata mode, with its own DuckDB store:

* ``before``: the top N projects, each in its newest release uploaded before the day the
  boundary's candidate was released (``--versions before:DATE``, the date taken from the
  catalogue, ``sapper.versions.catalogue``); for the enforcement boundary (84.2.1 against
  itself with ``SETUPTOOLS_ENFORCE_DEPRECATION=1``) the day 84.2.1 was released;
* ``newest``: the top N projects in their newest release.

Then the confusion matrix per boundary and corpus: regressions (ok with the baseline,
failing with the candidate) that sapper predicted (*confirmed*), that it did not
(*unexplained*), and builds sapper said would newly fail that are ok (*false alarms*), with
the targets and their real error signatures.

    python benchmarks/ecosystem.py run --corpus before --top 200 [--boundary 78.0.1 ...]
    python benchmarks/ecosystem.py matrix [--rejudge] [--markdown FILE] [--json FILE]

``run`` calls ``nice -n 10 sapper canary ... -j 2`` for each boundary in turn, one log per
run under ``OUT/logs`` and one line per call in ``OUT/runs.jsonl`` (command, start, end,
wall time, exit status); the same command again resumes every run where it stopped (and a
larger ``--top`` extends it: a run's identity includes its corpus, here the top list and
the ``--versions`` selection, but not the corpus size; stores written before the corpus
was part of the identity keep resuming their runs).
``matrix --rejudge`` first recomputes the static verdicts of every stored row with the
engine installed now (:func:`sapper.canary.rejudge.rejudge_run`), from the sdists in the
download cache, without building anything: the way to refresh the matrix after the
static engine changes.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(os.environ.get("SAPPER_ECOSYSTEM_DIR", ".sapper/ecosystem"))
CORPORA = ("before", "newest")


@dataclass(frozen=True, slots=True)
class Boundary:
    """One catalogue boundary: baseline -> candidate (with the candidate's variables)."""

    baseline: str
    candidate: str
    candidate_env: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.candidate}-enforce" if self.candidate_env else self.candidate

    @property
    def label(self) -> str:
        env = " " + " ".join(self.candidate_env) if self.candidate_env else ""
        return f"{self.baseline} → {self.candidate}{env}"

    def date(self) -> str:
        """The candidate's release date, from the catalogue."""
        from sapper.versions import catalogue

        release = catalogue().release(self.candidate)
        if release is None or not release.date:
            msg = f"setuptools {self.candidate}: no release date in the catalogue"
            raise SystemExit(msg)
        return release.date


BOUNDARIES = (
    Boundary("57.5.0", "58.0.0"),
    Boundary("71.1.0", "72.0.0"),
    Boundary("77.0.3", "78.0.1"),
    Boundary("80.2.0", "80.3.0"),
    Boundary("81.0.0", "82.0.0"),
    Boundary("84.2.1", "84.2.1", ("SETUPTOOLS_ENFORCE_DEPRECATION=1",)),
)


def db_path(out: Path, corpus: str, boundary: Boundary) -> Path:
    return out / "db" / f"{corpus}-{boundary.name}.duckdb"


def command(
    out: Path, corpus: str, boundary: Boundary, *, top: int, jobs: int, timeout: int
) -> list[str]:
    """The ``sapper canary`` command of one run."""
    cmd = ["sapper", "canary", "--top", str(top)]
    if corpus == "before":
        cmd += ["--versions", f"before:{boundary.date()}"]
    cmd += [
        "--baseline",
        f"setuptools=={boundary.baseline}",
        "--candidate",
        f"setuptools=={boundary.candidate}",
    ]
    for env in boundary.candidate_env:
        cmd += ["--candidate-env", env]
    cmd += [
        "--mode",
        "metadata",
        "-j",
        str(jobs),
        "--timeout",
        str(timeout),
        "--db",
        str(db_path(out, corpus, boundary)),
        "--format",
        "json",
        "--progress",
        "always",
    ]
    return cmd


def _chosen(names: list[str] | None) -> list[Boundary]:
    if not names:
        return list(BOUNDARIES)
    by_name = {b.name: b for b in BOUNDARIES} | {b.candidate: b for b in BOUNDARIES[:-1]}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        msg = f"unknown boundary {unknown}; choose from {sorted(b.name for b in BOUNDARIES)}"
        raise SystemExit(msg)
    return [by_name[n] for n in names]


def _now() -> str:
    return dt.datetime.now(tz=dt.timezone.utc).isoformat(timespec="seconds")


def cmd_run(args: argparse.Namespace) -> int:
    out: Path = args.out
    (out / "logs").mkdir(parents=True, exist_ok=True)
    (out / "db").mkdir(parents=True, exist_ok=True)
    for corpus in args.corpus:
        for boundary in _chosen(args.boundary):
            cmd = command(out, corpus, boundary, top=args.top, jobs=args.jobs, timeout=args.timeout)
            full = ["nice", "-n", str(args.nice), *cmd]
            log = out / "logs" / f"{corpus}-{boundary.name}-top{args.top}.log"
            report = out / "logs" / f"{corpus}-{boundary.name}-top{args.top}.json"
            start, t0 = _now(), time.monotonic()
            print(f"{start} {shlex.join(full)}", flush=True)
            with log.open("ab") as err, report.open("wb") as stdout:
                done = subprocess.run(full, stdout=stdout, stderr=err, check=False)
            record = {
                "corpus": corpus,
                "boundary": boundary.name,
                "top": args.top,
                "command": shlex.join(cmd),
                "nice": args.nice,
                "start": start,
                "end": _now(),
                "wall_seconds": round(time.monotonic() - t0, 1),
                "exit": done.returncode,
                "log": str(log),
            }
            with (out / "runs.jsonl").open("a", encoding="utf-8") as stream:
                stream.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)
            if done.returncode in (2, 130) or done.returncode < 0:
                return done.returncode if done.returncode > 0 else 130
    return 0


# --------------------------------------------------------------------------- matrix


def _entry(row: Any) -> dict[str, Any]:
    b, c = row.baseline, row.candidate
    return {
        "target": f"{row.project}=={row.version}" if row.project else row.target,
        "signature": (c.signature or c.message or b.signature) if c else None,
        "codes": sorted({*b.static_codes, *c.static_codes}) if b and c else [],
        "static": {"baseline": b.static if b else None, "candidate": c.static if c else None},
    }


def matrix_of(rows: list[Any]) -> dict[str, Any]:
    """The confusion matrix of one run's rows (the triage of ``sapper report --canary``)."""
    from sapper.report.canary import summarize

    report = summarize(rows, {})
    triage = report["triage"]
    classes = {k: v["count"] for k, v in report["classes"].items()}
    by_target = {_entry(r)["target"]: r for r in rows}
    out: dict[str, Any] = {
        "targets": len(rows),
        "classes": classes,
        "regressed": classes.get("regressed", 0),
        "confirmed": len(triage["confirmed"]),
        "unexplained": len(triage["unexplained"]),
        "false_alarms": len(triage["false_alarm"]),
    }
    for label in ("confirmed", "unexplained", "false_alarm"):
        out[f"{label}_targets"] = [_entry(by_target[e["target"]]) for e in triage[label]]
    out.update(side_disagreements(rows))
    return out


def side_disagreements(rows: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """Each side judged on its own, beyond the boundary's triage: a static "fails" whose
    build is ok (``side_false_alarms``) and a static "builds" whose build failed
    (``side_misses``), for the targets classed by their builds (regressed, fixed, fail,
    pass; not the spurious, prepare-fail or not-setuptools ones)."""
    alarms: list[dict[str, Any]] = []
    misses: list[dict[str, Any]] = []
    for row in rows:
        if row.cls not in ("regressed", "fixed", "fail", "pass"):
            continue
        for label, side in (("baseline", row.baseline), ("candidate", row.candidate)):
            entry = {
                "target": _entry(row)["target"],
                "side": label,
                "signature": side.signature or side.message,
                "codes": list(side.static_codes),
            }
            if side.static == "fails" and side.outcome == "ok":
                alarms.append(entry)
            elif side.static == "builds" and side.outcome == "fail":
                misses.append(entry)
    return {"side_false_alarms": alarms, "side_misses": misses}


def cmd_matrix(args: argparse.Namespace) -> int:
    out: Path = args.out
    runs = _runs_log(out)
    doc: dict[str, Any] = {
        "schema": "sapper.ecosystem/1",
        "generated": _now(),
        "rejudged": bool(args.rejudge),
        "boundaries": [],
    }
    for boundary in _chosen(args.boundary):
        for corpus in CORPORA:
            db = db_path(out, corpus, boundary)
            if not db.exists():
                continue
            # re-judging writes to the store; otherwise a copy is read, so that a run going
            # on meanwhile is never locked out of its store
            with _opened(db, write=args.rejudge) as store:
                run_id = store.resolve_run(None)
                changed = None
                if args.rejudge:
                    from sapper.canary.rejudge import rejudge_run

                    summary = rejudge_run(store, run_id, cache_dir=args.cache_dir)
                    changed = {
                        "rows": summary.rows,
                        "rejudged": summary.rejudged,
                        "changed": summary.changed,
                        "missing": summary.missing,
                    }
                rows = list(store.rows(run_id))
                info = next(r for r in store.runs() if r["run_id"] == run_id)
            calls = [r for r in runs if r["corpus"] == corpus and r["boundary"] == boundary.name]
            doc["boundaries"].append(
                {
                    "boundary": boundary.name,
                    "label": boundary.label,
                    "corpus": corpus,
                    "date": boundary.date() if corpus == "before" else None,
                    "db": str(db),
                    "run_id": run_id,
                    "created": info.get("created"),
                    "finished": info.get("finished"),
                    "top": max((c["top"] for c in calls), default=None),
                    "wall_seconds": round(sum(c["wall_seconds"] for c in calls), 1),
                    "commands": sorted({c["command"] for c in calls}),
                    "rejudge": changed,
                    **matrix_of(rows),
                }
            )
    text = json.dumps(doc, indent=2, sort_keys=True)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    markdown = render_markdown(doc)
    if args.markdown:
        args.markdown.write_text(markdown, encoding="utf-8")
    if not args.json and not args.markdown:
        print(markdown)
    return 0


@contextlib.contextmanager
def _opened(db: Path, *, write: bool) -> Iterator[Any]:
    from sapper.canary import CanaryStore

    if write:
        with CanaryStore(db) as store:
            yield store
        return
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / db.name
        shutil.copyfile(db, copy)
        wal = db.with_name(db.name + ".wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
        with CanaryStore(copy) as store:
            yield store


def _runs_log(out: Path) -> list[dict[str, Any]]:
    path = out / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def render_markdown(doc: dict[str, Any]) -> str:
    lines = [
        "| boundary | corpus | top | sdists | setuptools builds | regressed | confirmed "
        "| unexplained | false alarms | side: fails but ok | side: builds but fails "
        "| wall time |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in doc["boundaries"]:
        corpus = f"before {b['date']}" if b["corpus"] == "before" else "newest"
        cls = b["classes"]
        setuptools = sum(cls.get(k, 0) for k in ("regressed", "fixed", "fail", "pass"))
        wall = f"{b['wall_seconds'] / 60:.0f} min" if b["wall_seconds"] else "—"
        lines.append(
            f"| {b['label']} | {corpus} | {b['top'] or '—'} | {b['targets']} | {setuptools} "
            f"| {b['regressed']} | {b['confirmed']} | {b['unexplained']} "
            f"| {b['false_alarms']} | {len(b['side_false_alarms'])} "
            f"| {len(b['side_misses'])} | {wall} |"
        )
    lines.append("")
    for b in doc["boundaries"]:
        for label, title in (("unexplained", "unexplained"), ("false_alarm", "false alarm")):
            for entry in b[f"{label}_targets"]:
                codes = ", ".join(entry["codes"]) or "no finding"
                lines.append(
                    f"- {b['label']} ({b['corpus']}), {title}: `{entry['target']}` "
                    f"({codes}): `{entry['signature']}`"
                )
        for label, title in (
            ("side_false_alarms", "static fails, build ok"),
            ("side_misses", "static builds, build fails"),
        ):
            for entry in b[label]:
                codes = ", ".join(entry["codes"]) or "no finding"
                lines.append(
                    f"- {b['label']} ({b['corpus']}), {entry['side']}, {title}: "
                    f"`{entry['target']}` ({codes}): `{entry['signature']}`"
                )
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="stores, logs (%(default)s)")
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="real builds, one canary run per boundary and corpus")
    run.add_argument("--corpus", choices=CORPORA, action="append", required=True)
    run.add_argument("--top", type=int, default=200)
    run.add_argument("--boundary", action="append", help="e.g. 78.0.1 or 84.2.1-enforce")
    run.add_argument("-j", "--jobs", type=int, default=2)
    run.add_argument("--timeout", type=int, default=120, help="per hook (default 120 s)")
    run.add_argument("--nice", type=int, default=10)
    matrix = sub.add_parser("matrix", help="the confusion matrix of the stored runs")
    matrix.add_argument("--boundary", action="append")
    matrix.add_argument("--rejudge", action="store_true", help="recompute the static verdicts")
    matrix.add_argument("--cache-dir", type=Path, default=None, help="the download cache")
    matrix.add_argument("--markdown", type=Path)
    matrix.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    return cmd_run(args) if args.cmd == "run" else cmd_matrix(args)


if __name__ == "__main__":
    sys.exit(main())
