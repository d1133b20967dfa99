"""Write docs/catalogue.md from the table of setuptools' changes (``--check``: exit 1 if stale)."""

from __future__ import annotations

import sys
from pathlib import Path

from sapper.changes import CHANGES

OUT = Path(__file__).resolve().parent.parent / "docs" / "catalogue.md"

_FIRST, _LAST = CHANGES[0].id, CHANGES[-1].id

HEAD = f"""\
# The catalogue: every known setuptools break, and how sapper covers it

This page maps each entry of the setuptools breaking-change history ({_FIRST}–{_LAST}, compiled
from setuptools' changelog, its source and probe builds; see `../shared/reference/`) to
the sapper rule that detects it, or says why no static rule can, and what would catch it
instead. "Oracle" means a test in `tests/oracle/` builds a minimal project through the PEP
517 hooks pip calls (`get_requires_for_build_wheel`, `prepare_metadata_for_build_wheel`)
with the real setuptools releases at the rule's boundaries and asserts that sapper's
verdict matches at each of them.

Rules only report what breaks a build (or will, once an overdue deprecation is enforced).
A keyword that a later setuptools merely ignores with a warning is not reported
(see ST72).

| entry | what | covered by | notes |
|---|---|---|---|"""  # noqa: RUF001

TAIL = """\

## What would catch the rest

A real build: `sapper` verdicts are static and cover what an sdist's own files say. The
entries marked "not statically detectable" (ST65–ST67) change what the build does without
failing it; they need a wheel built with the old and the new setuptools and a comparison
of the compiler invocations or of the wheels. Run such a build in CI with both
`setuptools==83.0.0` and the newest release pinned in `build-system.requires`.
"""  # noqa: RUF001


def render() -> str:
    rows = [
        f"| {c.id} | {c.what} | {c.covered} | {c.notes} |".replace("|  |", "| |") for c in CHANGES
    ]
    return "\n".join([HEAD, *rows, TAIL])


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale; run python scripts/gen_catalogue.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
