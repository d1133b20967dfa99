"""Add a rule: ``python scripts/new_rule.py CODE SLUG --family FAMILY --change STxx``.

Writes what a new rule needs, then regenerates everything derived from the rules:

1. ``src/sapper/rules/FAMILY/xx000.py``: the rule module, a working placeholder (it reports
   each line of the family's file that holds the marker ``TODO(CODE)``, and its example holds
   one) that cites the changes entry for its failing versions; replace the check, the doc and
   the example with the real ones;
2. a test row stub at the end of the family's test file (``tests/test_setup_py.py``, ...): the
   example fires at its line, the example without the marker does not;
3. the changes entry's reference: ``covered`` names the new rule (and ``--fails LO:HI`` writes
   the failing range into an entry that has none);
4. ``scripts/gen_rules_doc.py`` (the rule index ``rules/_index.py`` with ``NEEDS_FILE``,
   ``docs/rules.md``, the rule's entry in ``tests/data/golden/rule-examples.json``) and
   ``scripts/gen_catalogue.py`` (``docs/catalogue.md``).

Nothing else registers a rule: the module's file name is its index entry. Run it from the
repository root, in the environment sapper is installed in (editable).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "src" / "sapper" / "rules"
CHANGES = ROOT / "src" / "sapper" / "changes.py"

#: Family package -> (the file its rules read first, the test file of its rules).
FAMILY_FILES = {
    "setup_cfg": ("setup.cfg", "tests/test_setup_cfg.py"),
    "setup_py": ("setup.py", "tests/test_setup_py.py"),
    "pyproject": ("pyproject.toml", "tests/test_pyproject_rules.py"),
    "layout": ("setup.py", "tests/test_layout_rules.py"),
    "requires": ("pyproject.toml", "tests/test_requires_rules.py"),
}

#: A project file of each kind whose only finding, once the marker line is added, is the new
#: rule's: the placeholder example.
EXAMPLES = {
    "setup.cfg": "[metadata]\nname = example\nversion = 1.0\n# TODO({code})\n",
    "setup.py": (
        'from setuptools import setup\n\n# TODO({code})\nsetup(name="example", version="1.0")\n'
    ),
    "pyproject.toml": (
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '\n[project]\nname = "example"\nversion = "1.0"\n# TODO({code})\n'
    ),
}

MODULE = '''"""{code} `{slug}`: TODO: the summary, one line."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...model import Finding, Reference
from .._base import Context, Rule, register

PATH = "{path}"


def _check(ctx: Context) -> Iterable[Finding]:
    """TODO: detect the practice from the facts (``ctx.setup_py``, ``ctx.setup_cfg``,
    ``ctx.pyproject``, ``ctx.names``). This placeholder reports each line of {path} that
    holds the marker ``TODO({code})``, so that the rule runs end to end before its detection
    is written."""
    data = ctx.files.files.get(PATH)
    if data is None:
        return []
    fails = ctx.catalogue.to_specifiers(change("{change}").failing(ctx.catalogue))
    return [
        ctx.report(
            code="{code}",
            message="TODO: what is wrong, where, and why it fails",
            path=PATH,
            line=number,
            column=1,
            fails=fails,
            fails_enforced=fails,
            fix="TODO: what to write instead",
        )
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1)
        if "TODO({code})" in line
    ]


register(
    Rule(
        code="{code}",
        slug="{slug}",
        family="{family}",
        summary="TODO: the summary, one line",
        doc="""
## What it does
TODO: what the rule finds.

## Why is this bad?
TODO: which setuptools releases fail (changes entry {change}), with what error.

## Example
```
TODO: the smallest project that fails
```

## Use instead
```
TODO: the same project, fixed
```

## References
- TODO: the setuptools changelog entry
""",
        references=(
            Reference(
                title="TODO: setuptools changelog entry",
                url="https://setuptools.pypa.io/en/latest/history.html",
            ),
        ),
        example=((PATH, {example}),),
        check=_check,
        reads=frozenset({{PATH}}),
    )
)
'''

TEST = """

# ------------------------------------------------------------------ {code} (scripts/new_rule.py)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TODO: rows from real sdists, and rows that must not fire
        pytest.param({example}, [("{code}", {line})], id="{code}-example"),
        pytest.param({clean}, [], id="{code}-not-fired"),
    ],
)
def test_{lower}(text: str, expected: list[tuple[str, int]]) -> None:
    from helpers import check as check_files_of

    found = check_files_of({{"{path}": text}}).findings
    assert [(f.code, f.line) for f in found if f.code == "{code}"] == expected
"""


def _literal(text: str) -> str:
    """``text`` as Python source that keeps lines short: one string per line, in brackets."""
    parts = " ".join(repr(line) for line in text.splitlines(keepends=True))
    return f"({parts})"


def _family_prefix(family: str) -> str:
    codes = sorted(p.stem for p in (RULES / family).glob("[a-z][a-z][0-9][0-9][0-9].py"))
    if not codes:
        msg = f"rules/{family}/ holds no rule module to take the code prefix from"
        raise SystemExit(msg)
    return codes[0][:2].upper()


def _family_name(family: str) -> str:
    """The rules' ``family`` field, as the family's first rule spells it."""
    first = sorted((RULES / family).glob("[a-z][a-z][0-9][0-9][0-9].py"))[0]
    found = re.search(r'\n        family="([^"]+)"', first.read_text(encoding="utf-8"))
    if found is None:
        msg = f"{first}: no family= in its declaration"
        raise SystemExit(msg)
    return found.group(1)


def _cite(change: str, code: str, fails: str | None) -> None:
    """Name the rule in the entry's ``covered`` (and write ``fails`` if given)."""
    text = CHANGES.read_text(encoding="utf-8")
    start = text.find(f'id="{change}",')
    if start < 0:
        msg = f"src/sapper/changes.py has no entry {change}"
        raise SystemExit(msg)
    end_candidates = [
        i for i in (text.find("\n    Change(", start), text.find("\n)", start)) if i > 0
    ]
    end = min(end_candidates)
    block = text[start:end]
    covered = re.search(r'covered="([^"]*)"', block)
    if covered is None:
        msg = f"{change}: no covered= in the entry"
        raise SystemExit(msg)
    old = covered.group(1)
    new = code if old in ("", "not a rule") or old.startswith("not a rule") else f"{old}, {code}"
    replacement = f'covered="{new}"'
    if fails is not None:
        if re.search(r"\bfails=", block):
            msg = f"{change} already has fails=; drop --fails"
            raise SystemExit(msg)
        lo, _, hi = fails.partition(":")
        bounds = ", ".join(f'"{v}"' if v else "None" for v in (lo, hi))
        one_line = "\n" not in block[: covered.end()]
        sep = ", " if one_line else ",\n        "
        replacement += f"{sep}fails=(({bounds}),)"
    block = block[: covered.start()] + replacement + block[covered.end() :]
    CHANGES.write_text(text[:start] + block + text[end:], encoding="utf-8")


def _has_failing_range(change: str) -> bool:
    """Whether entry ``change`` says where it fails (read by the regenerating subprocess)."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from sapper.changes import change; print(bool(change({change!r}).fails))",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return out.strip() == "True"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("code", help="the new rule's code, e.g. SP011")
    parser.add_argument("slug", help="its name, e.g. setuppy-metaclass-conflict")
    parser.add_argument("--family", required=True, choices=sorted(FAMILY_FILES))
    parser.add_argument("--change", required=True, help="the changes entry it covers, e.g. ST43")
    parser.add_argument(
        "--fails",
        metavar="LO:HI",
        help="the failing range [LO, HI) to write into an entry that has none (an empty "
        "bound is open)",
    )
    args = parser.parse_args(argv)
    code, slug, family = args.code.upper(), args.slug, args.family
    prefix = _family_prefix(family)
    if not re.fullmatch(rf"{prefix}[0-9]{{3}}", code):
        parser.error(f"a {family} rule's code is {prefix} and three digits, not {code}")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", slug):
        parser.error(f"the slug is lowercase words joined by dashes, not {slug!r}")
    module = RULES / family / f"{code.lower()}.py"
    existing = {p.stem.upper() for p in RULES.glob("*/[a-z][a-z][0-9][0-9][0-9].py")}
    if module.exists() or code in existing:
        parser.error(f"{code} exists already")
    path, test_file = FAMILY_FILES[family]
    example = EXAMPLES[path].format(code=code)
    line = next(i for i, text in enumerate(example.splitlines(), 1) if f"TODO({code})" in text)
    clean = example.replace(f"# TODO({code})\n", "")

    if args.fails is None and not _has_failing_range(args.change):
        parser.error(f"{args.change} has no failing range: give --fails LO:HI")
    _cite(args.change, code, args.fails)
    module.write_text(
        MODULE.format(
            code=code,
            slug=slug,
            family=_family_name(family),
            path=path,
            change=args.change,
            example=_literal(example),
        ),
        encoding="utf-8",
    )
    with (ROOT / test_file).open("a", encoding="utf-8") as out:
        out.write(
            TEST.format(
                code=code,
                lower=code.lower(),
                path=path,
                example=_literal(example),
                clean=_literal(clean),
                line=line,
            )
        )
    for script in ("gen_rules_doc.py", "gen_catalogue.py"):
        subprocess.run([sys.executable, str(ROOT / "scripts" / script)], check=True, cwd=ROOT)
    written = [module, ROOT / test_file, CHANGES]
    ruff = shutil.which(
        "ruff", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    if ruff is not None:  # the project's style (one string per line becomes what ruff wants)
        subprocess.run([ruff, "format", "-q", *map(str, written)], check=False, cwd=ROOT)
    print("wrote " + ", ".join(str(p.relative_to(ROOT)) for p in written))
    print(
        "regenerated src/sapper/rules/_index.py, docs/rules.md, docs/catalogue.md, "
        "tests/data/golden/rule-examples.json"
    )
    print(f"next: write {code}'s check, doc and example in {module.relative_to(ROOT)}, its rows in")
    print(f"{test_file}, and the entry's error= in src/sapper/changes.py; see CONTRIBUTING.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
