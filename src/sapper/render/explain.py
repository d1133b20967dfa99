"""``sapper rule CODE``: a rule's documentation plus the versions its example fails in."""

from __future__ import annotations

from ..rules import Rule

__all__ = ["example_files", "explain", "fix_safety"]


def example_files(rule: Rule) -> dict[str, bytes]:
    """The rule's example project as bytes (lone surrogates stand for raw bytes)."""
    return {name: text.encode("utf-8", "surrogateescape") for name, text in rule.example}


def fix_safety(rule: Rule) -> str:
    """What ``sapper fix`` does about the rule, and whether its edits are safe."""
    if rule.fix is None:
        return "`sapper fix` does not repair this rule: make the change under *Use instead*."
    return f"`sapper fix` repairs it in {rule.fix.path}. {rule.fix.safety}"


def explain(rule: Rule) -> str:
    from ..check import check_files
    from ..inputs.sources import ProjectFiles

    files = example_files(rule)
    project = ProjectFiles(label="example", root="", files=files, names=tuple(sorted(files)))
    result = check_files(project, target="example", kind="directory")
    lines = [f"# {rule.code} {rule.slug}", "", rule.summary, "", rule.doc, ""]
    lines += ["## Fix safety", fix_safety(rule), ""]
    hits = [f for f in result.findings if f.code == rule.code]
    if hits:
        f = hits[0]
        lines.append("## Affected setuptools versions (for the example)")
        lines.append(f"- fails: {' | '.join(f.fails) or 'none'}")
        enforced = " | ".join(f.fails_enforced) or "none"
        lines.append(f"- fails with SETUPTOOLS_ENFORCE_DEPRECATION=1: {enforced}")
        if f.warns:
            lines.append(f"- warns: {' | '.join(f.warns)}")
        if f.due_date:
            lines.append(f"- due date: {f.due_date}")
        lines.append("")
    if rule.references:
        lines.append("## Links")
        lines.extend(f"- {r.title}: {r.url}" for r in rule.references)
        lines.append("")
    return "\n".join(lines)
