"""Every rule is documented, and its documented example really triggers it."""

from __future__ import annotations

import importlib.util
import pickle
import re
from pathlib import Path

import pytest

from sapper.check import check_files
from sapper.inputs.sources import ProjectFiles
from sapper.render.explain import example_files
from sapper.rules import all_rules
from sapper.rules._index import NEEDS_FILE, RULE_MODULES

RULES = all_rules()
HEADINGS = (
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "## Use instead",
    "## References",
)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_has_doc_and_metadata(rule) -> None:
    assert re.fullmatch(r"[A-Z]{1,3}[0-9]{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.slug)
    positions = [rule.doc.find(h) for h in HEADINGS]
    assert -1 not in positions, f"{rule.code} lacks a heading"
    assert positions == sorted(positions)
    assert rule.references and all(r.url.startswith("https://") for r in rule.references)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_example_triggers_rule(rule) -> None:
    files = example_files(rule)
    project = ProjectFiles(label="example", root="", files=files, names=tuple(sorted(files)))
    result = check_files(project, target="example", kind="directory")
    hits = [f for f in result.findings if f.code == rule.code]
    assert hits, f"the example of {rule.code} does not trigger it"
    assert hits[0].fails or hits[0].fails_enforced
    # Findings are picklable (they cross process boundaries in scans).
    assert pickle.loads(pickle.dumps(hits[0])) == hits[0]


def test_rules_doc_is_current() -> None:
    path = Path(__file__).parent.parent / "scripts" / "gen_rules_doc.py"
    spec = importlib.util.spec_from_file_location("gen_rules_doc", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # docs/rules.md, the rule index and the golden examples file (an entry per rule)
    for out, text in module.outputs().items():
        assert out.read_text(encoding="utf-8") == text, f"{out} is stale"


def _projects() -> list[ProjectFiles]:
    """Every rule's example, and every project tree among the test data."""
    from sapper.inputs.sources import read_directory

    found = []
    for rule in RULES:
        files = example_files(rule)
        found.append(ProjectFiles(label=rule.code, root="", files=files, names=tuple(files)))
    data = Path(__file__).parent / "data"
    roots = {
        p.parent for name in ("setup.py", "setup.cfg", "pyproject.toml") for p in data.rglob(name)
    }
    found.extend(read_directory(root) for root in sorted(roots))
    return found


PROJECTS = _projects()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_findings_belong_to_their_rule(rule) -> None:
    """A rule emits only its own code and slug, and reads only the files it declares."""
    import datetime as dt

    from sapper.rules import Context
    from sapper.versions import catalogue

    cat = catalogue()
    emitted = 0
    for files in PROJECTS:
        ctx = Context(files=files, catalogue=cat, today=dt.date(2026, 12, 3))
        findings = list(rule.check(ctx))
        emitted += len(findings)
        assert {(f.code, f.slug) for f in findings} <= {(rule.code, rule.slug)}, files.label
        if rule.reads is not None:
            only = {k: v for k, v in files.files.items() if k in rule.reads}
            narrow = ProjectFiles(label=files.label, root="", files=only, names=tuple(only))
            ctx = Context(files=narrow, catalogue=cat, today=dt.date(2026, 12, 3))
            assert list(rule.check(ctx)) == findings, f"{rule.code} reads more than {rule.reads}"
    assert emitted, f"no test project triggers {rule.code}"


def test_fix_lists_derive_from_the_fixer_registry() -> None:
    """`sapper fix --help`, Rule.fixable and the "Fix safety" sections of docs/rules.md name
    the same codes, all read from the rules' declarations; README.md and docs/fix.md point
    there instead of keeping a list."""
    from sapper.fix.registry import epilog, fixable_codes

    codes = set(fixable_codes())
    assert {r.code for r in RULES if r.fixable} == codes
    assert codes >= {"SC001", "SP002"}
    assert set(re.findall(r"[A-Z]{2}[0-9]{3}", epilog())) == codes
    root = Path(__file__).parent.parent
    rules_md = (root / "docs" / "rules.md").read_text(encoding="utf-8")
    repaired = {
        code
        for code, section in re.findall(
            r"\n## ([A-Z]{2}[0-9]{3})\n(.*?)(?=\n## [A-Z]{2}[0-9]{3}\n|\Z)", rules_md, re.S
        )
        if "`sapper fix` repairs it" in section
    }
    assert repaired == codes
    for doc in ("README.md", "docs/fix.md"):
        text = (root / doc).read_text(encoding="utf-8")
        assert "`sapper fix\n--help` lists them" in text or "`sapper fix --help` lists them" in text


def test_catalogue_doc_is_current() -> None:
    path = Path(__file__).parent.parent / "scripts" / "gen_catalogue.py"
    spec = importlib.util.spec_from_file_location("gen_catalogue", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.OUT.read_text(encoding="utf-8") == module.render()


def test_changes_table_is_complete_and_names_real_rules() -> None:
    from sapper.changes import CHANGES

    assert [c.id for c in CHANGES] == [f"ST{i:02d}" for i in range(1, len(CHANGES) + 1)]
    codes = {r.code for r in RULES}
    for c in CHANGES:
        named = set(re.findall(r"\b[A-Z]{2}[0-9]{3}\b", c.covered))
        assert named <= codes, f"{c.id} names unknown rules {named - codes}"
        if c.error is not None:
            re.compile(c.error.message)
            assert c.fails or c.due, f"{c.id} has an error but no failing range"


def test_rule_index_names_each_rules_module() -> None:
    """The written index is what the packages hold, and maps each code to its module."""
    from sapper.rules import rule_index
    from sapper.rules._base import scan_rule_modules

    index = rule_index()
    assert index == scan_rule_modules()  # the written table is what the packages hold
    assert sorted(index) == [r.code for r in RULES]
    for rule in RULES:
        assert index[rule.code].rsplit(".", 1)[1] == rule.code.lower()


def test_check_imports_only_the_selected_rule_modules() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from sapper.check import Options, check_files\n"
        "from sapper.inputs.sources import ProjectFiles\n"
        "files = {'setup.cfg': b'[metadata]\\nauthor-email = a@b\\n'}\n"
        "p = ProjectFiles(label='x', root='', files=files, names=tuple(files))\n"
        "r = check_files(p, target='x', kind='directory', options=Options(select=('SC00',)))\n"
        "assert [f.code for f in r.findings] == ['SC001'], r.findings\n"
        "print(sorted(m for m in sys.modules if m.startswith('sapper.rules.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    loaded = {m.rsplit(".", 1)[1] for m in eval(out) if re.search(r"\.[a-z]{2}[0-9]{3}$", m)}
    assert loaded == {c.lower() for c in RULE_MODULES if c.startswith("SC00")}


def test_rule_families_never_import_each_other() -> None:
    """What two families share lives in the facts layer (or rules/_base.py, _emit.py)."""
    import ast

    from sapper.rules._base import FAMILIES

    root = Path(__file__).parent.parent / "src" / "sapper"
    for family in FAMILIES:
        for path in (root / "rules" / family).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    target = node.module or ""
                    if node.level == 0:
                        parts = target.split(".")
                        other = (
                            parts[2]
                            if parts[:2] == ["sapper", "rules"] and len(parts) > 2
                            else None
                        )
                    elif node.level == 2:  # from ..x: a sibling of the family
                        other = target.split(".")[0]
                    else:
                        other = None
                    assert other in (None, family, "_base", "_emit"), (
                        f"{path.name} imports {target} from another rule family"
                    )


@pytest.mark.parametrize("code", sorted(NEEDS_FILE), ids=str)
def test_rules_that_need_a_file_are_silent_without_it(code: str) -> None:
    """``check`` skips the rules of NEEDS_FILE for a project without their file: on every
    test project (each rule's example among them) the rule reports nothing once that file
    is removed, so skipping it changes no output."""
    import datetime as dt

    from sapper.rules import Context, get_rule
    from sapper.versions import catalogue

    rule = get_rule(code)
    assert rule is not None
    needed = NEEDS_FILE[code]
    cat = catalogue()
    had_it = 0
    for files in PROJECTS:
        if needed not in files.files:
            continue
        had_it += 1
        rest = {k: v for k, v in files.files.items() if k != needed}
        names = tuple(n for n in files.names if n != needed)
        without = ProjectFiles(label=files.label, root="", files=rest, names=names)
        ctx = Context(files=without, catalogue=cat, today=dt.date(2026, 12, 3))
        assert list(rule.check(ctx)) == [], f"{code} reports without {needed} ({files.label})"
    assert had_it, f"no test project has {needed}"


def test_check_skips_rules_whose_file_is_absent() -> None:
    """A project without setup.py imports no setup.py rule module, and its findings are
    those of running every rule."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from sapper.check import check_files\n"
        "from sapper.inputs.sources import ProjectFiles\n"
        "files = {'setup.cfg': b'[metadata]\\nauthor-email = a@b\\n'}\n"
        "p = ProjectFiles(label='x', root='', files=files, names=tuple(files))\n"
        "r = check_files(p, target='x', kind='directory')\n"
        "print(sorted(m for m in sys.modules if m.startswith('sapper.rules.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    loaded = {m.rsplit(".", 1)[1] for m in eval(out) if re.search(r"\.[a-z]{2}[0-9]{3}$", m)}
    assert loaded == {
        c.lower() for c in RULE_MODULES if NEEDS_FILE.get(c, "setup.cfg") == "setup.cfg"
    }
    with_setup_py = {"setup.py": b"from setuptools import setup\nsetup()\n"}
    from sapper.rules import rules_for

    present = rules_for(present=with_setup_py)
    assert [r.code for r in present] == sorted(
        c for c in RULE_MODULES if NEEDS_FILE.get(c, "setup.py") == "setup.py"
    )
    assert {"SP001", "SC009", "PP001"} <= {r.code for r in present}
    assert not {"PP009", "PP900", "SC001"} & {r.code for r in present}
    everything = {**with_setup_py, "pyproject.toml": b"[build-system]\n", "setup.cfg": b""}
    assert [r.code for r in rules_for(present=everything)] == sorted(RULE_MODULES)
    assert {r.code for r in rules_for(present={})} == set(RULE_MODULES) - set(NEEDS_FILE)


def _codes(prefix: str) -> list[str]:
    """The codes of the registered rules that start with ``prefix`` (derived, so that a new
    rule changes no expectation below)."""
    return [r.code for r in RULES if r.code.startswith(prefix)]


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        pytest.param((), (), [r.code for r in RULES], id="all"),
        pytest.param(("SP01",), (), _codes("SP01"), id="select-a-prefix"),
        pytest.param(
            ("SP",),
            ("SP00",),
            [c for c in _codes("SP") if c not in _codes("SP00")],
            id="select-a-family-ignore-a-prefix-of-it",
        ),
        pytest.param(
            (),
            ("SC", "SP", "PP", "LY"),
            [r.code for r in RULES if r.code.startswith("RQ")],
            id="ignore-only",
        ),
        pytest.param(("LY001", "RQ"), (), ["LY001", *_codes("RQ")], id="several-selected"),
        # the most specific selector decides, as in sapper.selection (and scan's read plan)
        pytest.param(("SC001",), ("SC",), ["SC001"], id="a-code-beats-its-prefix"),
        pytest.param(
            ("SC",),
            ("SC00",),
            [c for c in _codes("SC") if c not in _codes("SC00")],
            id="ignore-a-sub-prefix",
        ),
    ],
)
def test_rules_for_select_and_ignore(
    select: tuple[str, ...], ignore: tuple[str, ...], expected: list[str]
) -> None:
    """`--select`/`--ignore` (codes or prefixes) as `check` and `scan` apply them."""
    from sapper.rules import rules_for

    assert [r.code for r in rules_for(select, ignore)] == expected


def test_register_strips_the_doc_and_refuses_a_code_twice(monkeypatch) -> None:
    """`sapper rule CODE` and docs/rules.md print the doc without surrounding blank lines;
    a code declared by two modules is an error, not a silent replacement."""
    from sapper.rules import _base

    monkeypatch.setattr(_base, "_REGISTRY", {})
    rule = RULES[0]._replace(code="ZZ999", slug="zz-test", doc="\n\n## What it does\nx\n\n")
    registered = _base.register(rule)
    assert registered.doc == "## What it does\nx"
    assert _base.slug_of("ZZ999") == "zz-test"
    with pytest.raises(RuntimeError, match=r"^rule code ZZ999 registered twice$"):
        _base.register(rule)


@pytest.mark.parametrize(
    ("files", "code", "summary"),
    [
        pytest.param(
            dict(example_files(next(r for r in RULES if r.code == "PP008"))),
            "PP008",
            "fails with SETUPTOOLS_ENFORCE_DEPRECATION=1 in >=67.7.0,<69.0.0; "
            "warns in setuptools >=61.2.0",
            id="warns-without-a-due-date",
        ),
        pytest.param(
            {"setup.py": b"from setuptools.dist import sequence\n"},
            "SP003",
            "fails with SETUPTOOLS_ENFORCE_DEPRECATION=1 in >=75.2.0; "
            "deprecation overdue since 2025-08-28 in the newest release",
            id="due-date",
        ),
    ],
)
def test_finding_summary_says_its_versions(
    files: dict[str, bytes], code: str, summary: str
) -> None:
    """The one-line wording of a finding's versions that `sapper check` prints."""
    import datetime as dt

    from sapper.model import version_summary
    from sapper.rules import Context
    from sapper.versions import catalogue

    project = ProjectFiles(label="x", root="", files=files, names=tuple(sorted(files)))
    ctx = Context(files=project, catalogue=catalogue(), today=dt.date(2026, 12, 3))
    found = [f for r in RULES if r.code == code for f in r.check(ctx)]
    assert [f.summary for f in found] == [summary]
    # ... the wording of the finding's own version fields.
    f = found[0]
    assert f.summary == version_summary(
        f.fails, f.fails_enforced, f.warns, f.due_date, today="2026-12-03"
    )
