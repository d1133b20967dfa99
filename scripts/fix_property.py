"""Property study of ``sapper fix`` over real sdists of the most downloaded PyPI projects.

For the first N projects of ``../shared/data/top-pypi-packages-30-days.json`` whose newest
sdist ``sapper check`` flags with a rule ``sapper fix`` repairs (SC001, SC002, SC008, SC009,
SP001 for pkg_resources and setuptools.command.test, SP002), the script fixes the sdist in
memory (safe fixes only, as ``sapper fix`` does by default; ``--unsafe-fixes`` for all) and
checks that:

1. the fixed project has no findings left for the fixed rules (except edits reported as
   unsafe or left to fix by hand);
2. the fixed project builds its metadata with the newest setuptools, also under
   ``SETUPTOOLS_ENFORCE_DEPRECATION=1``;
3. the core metadata of the fixed project built with the newest setuptools equals the
   original's built with the newest setuptools that builds the original (tried from the
   newest down: 84.2.1, 81.0.0, 71.1.0, 67.6.1, 54.1.2), field by field; a difference is
   attributed to the fix only when it also shows with the same setuptools on both sides.

Builds call ``prepare_metadata_for_build_wheel`` in the cached setuptools venvs of
``tests/oracle/harness.py``; those venvs hold setuptools (and wheel) only, so a project whose
setup.py imports other build requirements (Cython, setuptools_scm...) fails on both sides
and is counted as not buildable. Sdists are extracted to a temporary directory for the
builds only.

    python scripts/fix_property.py [--count 50] [--max-size-mb 15] [--write-doc]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from oracle.harness import OracleError, metadata_text  # noqa: E402

from sapper._exceptions import SapperError  # noqa: E402
from sapper.check import Options, check_files  # noqa: E402
from sapper.fix import fix_files  # noqa: E402
from sapper.inputs.sources import ProjectFiles, read_sdist  # noqa: E402
from sapper.pypi import Download, Index, SdistFile, default_cache_dir  # noqa: E402

TOP = ROOT.parent / "shared" / "data" / "top-pypi-packages-30-days.json"
DOC = ROOT / "docs" / "fix.md"
FIXED_RULES = ("SC001", "SC002", "SC008", "SC009", "SP001", "SP002")
NEWEST = "84.2.1"
LADDER = (NEWEST, "81.0.0", "71.1.0", "67.6.1", "54.1.2")
FIELDS = (
    "Name",
    "Version",
    "Summary",
    "Description",
    "Description-Content-Type",
    "Author",
    "Author-email",
    "Maintainer",
    "Maintainer-email",
    "Requires-Dist",
    "Provides-Extra",
    "Requires-Python",
    "Home-page",
    "Download-URL",
    "Project-URL",
    "License",
    "License-File",
    "License-Expression",
)
NONE_BUILT = "none of " + ", ".join(LADDER)
BEGIN = "<!-- property-study:begin -->"
END = "<!-- property-study:end -->"


@dataclass
class Row:
    project: str
    version: str
    flagged: tuple[str, ...]
    changed: bool = False
    applied: int = 0
    unsafe: int = 0
    skipped: int = 0
    remaining: tuple[str, ...] = ()
    #: Codes of the edits reported unsafe or left to fix by hand.
    reported: tuple[str, ...] = ()
    #: A second fix changes nothing; every comment line of setup.cfg is still there.
    idempotent: bool = True
    comments_kept: bool = True
    orig_setuptools: str | None = None
    #: Why the original failed with the newest setuptools (None: it built).
    orig_error: str | None = None
    fixed_newest: str | None = None  # error or None
    fixed_enforced: str | None = None
    cross_diff: tuple[str, ...] = ()
    same_diff: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


def core_metadata(text: str) -> dict[str, object]:
    msg = HeaderParser().parsestr(text)
    out: dict[str, object] = {}
    for name in FIELDS:
        if name == "Description":
            body = msg.get_payload()
            value = msg.get("Description") or (body if isinstance(body, str) else "")
            out[name] = str(value).strip()
        elif name in ("Requires-Dist", "Provides-Extra", "Project-URL", "License-File"):
            out[name] = sorted(str(v).strip() for v in msg.get_all(name) or [])
        else:
            value = msg.get(name)
            out[name] = None if value is None else str(value).strip()
    return out


def differing(a: str, b: str) -> tuple[str, ...]:
    ma, mb = core_metadata(a), core_metadata(b)
    return tuple(name for name in FIELDS if ma[name] != mb[name])


def extract(data: bytes, dest: Path, root: str, new_files: dict[str, bytes]) -> Path:
    """Unpack the sdist under ``dest`` (data filter) and overwrite the fixed files."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            zf.extractall(dest)
    else:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
            tf.extractall(dest, filter="data")
    project = dest / root if root else dest
    for rel, content in new_files.items():
        (project / rel).write_bytes(content)
    return project


def build(
    data: bytes, root: str, new_files: dict[str, bytes], version: str, *, enforce: bool
) -> tuple[str | None, str | None]:
    with tempfile.TemporaryDirectory(prefix="sapper-fix-prop-") as tmp:
        project = extract(data, Path(tmp), root, new_files)
        try:
            return metadata_text(version, project, enforce=enforce)
        except OracleError as exc:  # timed out or crashed: no build, reported as such
            return None, f"no result: {str(exc)[:200]}"


def flagged_codes(files: ProjectFiles, rules: tuple[str, ...]) -> tuple[str, ...]:
    result = check_files(files, target=files.label, kind="sdist", options=Options(select=rules))
    return tuple(sorted({f.code for f in result.findings if _fixable(f.code, f.message)}))


def _missing_build_dependency(error: str) -> bool:
    if not error.startswith("ModuleNotFoundError"):
        return False
    return not any(m in error for m in ("pkg_resources", "setuptools", "distutils"))


def _fixable(code: str, message: str) -> bool:
    """SP001 is fixed only for the removed modules with a modern equivalent; its findings
    about modules that *old* setuptools releases lack (setuptools.errors...) are not."""
    if code != "SP001":
        return True
    return "`pkg_resources" in message or "`setuptools.command.test" in message


def candidates(
    index: Index, names: list[str], max_size: int, before: str | None
) -> Iterator[tuple[str, Download | None, str]]:
    """Yield (name, download or None, reason) in rank order, downloading 4 at a time.

    With ``before`` (an ISO date), the release is the newest sdist uploaded before it."""

    def pick(name: str) -> SdistFile | None:
        if before is None:
            return index.resolve(name)
        files = [
            f
            for f in index.sdists(name)
            if not f.yanked and f.upload_time and f.upload_time[:10] < before
        ]
        if not files:
            return None
        return max(files, key=lambda f: f.upload_time or "")

    def fetch(name: str) -> tuple[str, Download | None, str]:
        try:
            sdist = pick(name)
            if sdist is None:
                return name, None, f"no sdist uploaded before {before}"
            if sdist.size is not None and sdist.size > max_size:
                return name, None, f"sdist over {max_size >> 20} MiB"
            return name, index.download(sdist), ""
        except SapperError as exc:
            return name, None, str(exc)[:120]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        batch = 8
        for start in range(0, len(names), batch):
            yield from pool.map(fetch, names[start : start + batch])


def study(
    count: int,
    max_size: int,
    before: str | None,
    *,
    unsafe: bool = False,
    rules: tuple[str, ...] = FIXED_RULES,
) -> tuple[list[Row], dict[str, int]]:
    index = Index(cache_dir=default_cache_dir())
    top = [row["project"] for row in json.loads(TOP.read_text())["rows"]]
    rows: list[Row] = []
    stats = {"looked_at": 0, "no_sdist_or_error": 0, "not_flagged": 0, "not_setuptools": 0}
    for name, download, _reason in candidates(index, top, max_size, before):
        if len(rows) >= count:
            break
        stats["looked_at"] += 1
        if download is None:
            stats["no_sdist_or_error"] += 1
            continue
        try:
            files = read_sdist(download.data, label=download.file.filename)
        except SapperError:
            stats["no_sdist_or_error"] += 1
            continue
        flagged = flagged_codes(files, rules)
        if not flagged:
            stats["not_flagged"] += 1
            continue
        row = Row(project=name, version=download.file.version, flagged=flagged)
        rows.append(row)
        result = fix_files(files, unsafe_fixes=unsafe, select=rules)
        row.changed = result.changed
        row.applied, row.unsafe, row.skipped = (
            len(result.applied),
            len(result.unsafe),
            len(result.skipped),
        )
        fixed = ProjectFiles(
            label=files.label,
            root=files.root,
            files={**files.files, **result.files},
            names=files.names,
        )
        row.remaining = flagged_codes(fixed, rules)
        row.reported = tuple(sorted({e.code for e in result.unsafe + result.skipped}))
        row.idempotent = not fix_files(fixed, unsafe_fixes=unsafe, select=rules).changed
        if "setup.cfg" in result.files:
            before_lines = files.files["setup.cfg"].decode("utf-8", "replace").splitlines()
            after_lines = set(result.files["setup.cfg"].decode("utf-8", "replace").splitlines())
            row.comments_kept = all(
                line in after_lines for line in before_lines if line.strip().startswith(("#", ";"))
            )
        new = dict(result.files)
        print(
            f"[{len(rows)}/{count}] {name} {row.version}: flagged {','.join(flagged)}; "
            f"{row.applied} fixed, {row.unsafe} unsafe, {row.skipped} by hand",
            file=sys.stderr,
            flush=True,
        )
        if not row.changed:
            continue
        orig_md = None
        for version in LADDER:
            md, err = build(download.data, files.root, {}, version, enforce=False)
            if md is not None:
                orig_md, row.orig_setuptools = md, version
                break
            row.orig_error = row.orig_error or err
            if err and _missing_build_dependency(err):
                break  # another build requirement is missing: no setuptools will do
        fixed_md, row.fixed_newest = build(download.data, files.root, new, NEWEST, enforce=False)
        _, row.fixed_enforced = build(download.data, files.root, new, NEWEST, enforce=True)
        if orig_md is not None and fixed_md is not None:
            row.cross_diff = differing(orig_md, fixed_md)
            if row.cross_diff and row.orig_setuptools != NEWEST:
                same_md, _ = build(
                    download.data, files.root, new, row.orig_setuptools or NEWEST, enforce=False
                )
                row.same_diff = differing(orig_md, same_md) if same_md else ("<no build>",)
            else:
                row.same_diff = row.cross_diff
        elif orig_md is not None and row.orig_setuptools != NEWEST:
            # The fixed project fails with the newest setuptools as the original does: compare
            # with the setuptools that built the original.
            same_md, err = build(
                download.data, files.root, new, row.orig_setuptools or NEWEST, enforce=False
            )
            row.same_diff = differing(orig_md, same_md) if same_md else (f"<fails: {err}>",)
            row.notes.append("compared with the setuptools that built the original only")
    return rows, stats


def _short(error: str | None) -> str:
    return "ok" if error is None else error[:60].replace("|", "/")


def table(
    rows: list[Row],
    stats: dict[str, int],
    seconds: float,
    before: str | None,
    rules: tuple[str, ...] = FIXED_RULES,
    *,
    unsafe: bool = False,
    section: str = "",
) -> str:
    changed = [r for r in rows if r.changed]
    clean = [r for r in changed if set(r.remaining) <= set(r.reported)]
    built_orig = [r for r in changed if r.orig_setuptools]
    built_fixed = [r for r in changed if r.orig_setuptools and r.fixed_newest is None]
    orig_newest = [r for r in changed if r.orig_setuptools == NEWEST]
    enforced = [r for r in changed if r.orig_setuptools and r.fixed_enforced is None]
    same_ok = [r for r in built_fixed if not r.same_diff]
    old_only = [r for r in changed if r.notes]
    old_only_ok = [r for r in old_only if not r.same_diff]
    cross_ok = [r for r in built_fixed if not r.cross_diff]
    release = f"the newest sdist uploaded before {before}" if before else "the newest sdist"
    lines = [
        BEGIN,
        "",
        f"Run: `python scripts/fix_property.py --count {len(rows)} --before {before} "
        f"--rules {','.join(rules)}{' --unsafe-fixes' if unsafe else ''}"
        f"{f' --section {section}' if section else ''} --write-doc` "
        f"({time.strftime('%Y-%m-%d')}, "
        f"{seconds / 60:.0f} min). Release studied: {release}. Projects looked at in rank "
        f"order: {stats['looked_at']}; no sdist, too large or unreadable: "
        f"{stats['no_sdist_or_error']}; not flagged by {', '.join(rules)}: "
        f"{stats['not_flagged']}.",
        "",
        "| measure | count |",
        "|---|---|",
        f"| sdists flagged | {len(rows)} |",
        f"| ... rewritten by `sapper fix` ({'all' if unsafe else 'safe'} fixes) | {len(changed)} |",
        f"| ... no finding left for the fixed rules, or only ones reported unsafe/by hand "
        f"| {len(clean)} of {len(changed)} |",
        f"| ... a second fix changes nothing | {sum(r.idempotent for r in changed)} of "
        f"{len(changed)} |",
        f"| ... every comment line of setup.cfg kept | {sum(r.comments_kept for r in changed)} "
        f"of {len(changed)} |",
        f"| ... whose original builds its metadata with some setuptools tried "
        f"| {len(built_orig)} of {len(changed)} |",
        f"| fixed builds with setuptools {NEWEST} | {len(built_fixed)} of {len(built_orig)} |",
        f"| ... of those whose original builds with {NEWEST} | "
        f"{sum(r.fixed_newest is None for r in orig_newest)} of {len(orig_newest)} |",
        f"| fixed builds with {NEWEST} and SETUPTOOLS_ENFORCE_DEPRECATION=1 "
        f"| {len(enforced)} of {len(built_orig)} |",
        f"| core metadata equal, same setuptools on both sides | {len(same_ok)} of "
        f"{len(built_fixed)} |",
        f"| core metadata equal, original with the newest setuptools that built it, fixed "
        f"with {NEWEST} | {len(cross_ok)} of {len(built_fixed)} |",
        f"| fixed failing with {NEWEST} like its original: core metadata equal with the "
        f"setuptools that built the original | {len(old_only_ok)} of {len(old_only)} |",
        "",
        "| project | version | flagged | fixed / unsafe / by hand | left | original on "
        f"{NEWEST} | original built by | fixed on {NEWEST} | fixed, enforced | fields differing "
        "(same setuptools) | fields differing (across versions) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.project} | {r.version} | {' '.join(r.flagged)} | "
            f"{r.applied} / {r.unsafe} / {r.skipped} | {' '.join(r.remaining) or '-'} | "
            + (
                f"{_short(r.orig_error)} | {r.orig_setuptools or NONE_BUILT} | "
                if r.changed
                else "| | "
            )
            + (
                f"{_short(r.fixed_newest)} | {_short(r.fixed_enforced)} | "
                f"{', '.join(r.same_diff) or '-'} | {', '.join(r.cross_diff) or '-'} |"
                if r.changed
                else "not rewritten | | | |"
            )
        )
    lines += ["", END]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--max-size-mb", type=int, default=15)
    parser.add_argument(
        "--before",
        metavar="DATE",
        default="2021-03-08",
        help="study the newest sdist uploaded before DATE (default: about when setuptools "
        "54.1.0 started warning about dash-separated keys); 'none' for the newest release",
    )
    parser.add_argument("--write-doc", action="store_true", help=f"update {DOC}")
    parser.add_argument(
        "--section", default="", help="write between the markers property-study:SECTION:begin/end"
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    parser.add_argument("--unsafe-fixes", action="store_true", help="make unsafe fixes too")
    parser.add_argument(
        "--rules",
        type=lambda text: tuple(c.strip().upper() for c in text.split(",") if c.strip()),
        default=FIXED_RULES,
        help="only these rules flag a project and are fixed (default: every fixed rule)",
    )
    args = parser.parse_args()
    start = time.monotonic()
    before = None if args.before == "none" else args.before
    rows, stats = study(
        args.count, args.max_size_mb << 20, before, unsafe=args.unsafe_fixes, rules=args.rules
    )
    text = table(
        rows,
        stats,
        time.monotonic() - start,
        before,
        args.rules,
        unsafe=args.unsafe_fixes,
        section=args.section,
    )
    print(text)
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1, default=list))
    if args.write_doc:
        doc = DOC.read_text()
        begin, end = BEGIN, END
        if args.section:
            begin = BEGIN.replace("begin", f"{args.section}:begin")
            end = END.replace("end", f"{args.section}:end")
            text = text.replace(BEGIN, begin).replace(END, end)
        head, found, rest = doc.partition(begin)
        if not found:
            msg = f"{DOC} has no {begin} marker"
            raise SystemExit(msg)
        _, _, tail = rest.partition(end)
        DOC.write_text(head + text + tail)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
