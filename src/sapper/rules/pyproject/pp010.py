"""PP010 `pyproject-not-implemented-key`:
`[project]` key the schema accepts but setuptools does not implement (PEP 794).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import make_finding
from ._shared import PATH

#: PEP 794 keys: the validator vendored since 82.0.1 accepts them, then
#: ``pyprojecttoml.read_configuration`` raises NotImplementedError (before validation) when
#: either is a key of [project] or listed in ``project.dynamic``.
_KEYS = ("import-names", "import-namespaces")


def _check_not_implemented(ctx: Context) -> Iterable[Finding]:
    project, _ = ctx.pyproject.tables
    if not project:
        return []
    dynamic = project.get("dynamic")
    listed = dynamic if isinstance(dynamic, list) else []
    failing = change("ST76").failing(ctx.catalogue)
    findings = []
    for key in _KEYS:
        where = "a key of [project]" if key in project else None
        if where is None and key in listed:
            where = "listed in `project.dynamic`"
        if where is None:
            continue
        findings.append(
            make_finding(
                ctx,
                "PP010",
                f"`{key}` is {where}; setuptools accepts it in the schema and then stops "
                'with "NotImplementedError: Setuptools does not support `import-names` and '
                '`import-namespaces` in `pyproject.toml` yet"',
                line=ctx.pyproject.locate("project", key if key in project else "dynamic"),
                fails=failing,
                fix=f"remove `{key}` (PEP 794 metadata is optional; setuptools cannot "
                "write it yet)",
            )
        )
    return findings


_REF_PEP794 = Reference(
    title="PEP 794: import name metadata",
    url="https://peps.python.org/pep-0794/",
)


register(
    Rule(
        code="PP010",
        slug="pyproject-not-implemented-key",
        family="pyproject.toml",
        summary="`[project]` key the schema accepts but setuptools does not implement (PEP 794)",
        doc="""
## What it does
Finds the PEP 794 keys `import-names` and `import-namespaces` in `[project]` (or listed in
`project.dynamic`).

## Why is this bad?
The validator setuptools vendors since 82.0.1 knows these keys, but
`setuptools/config/pyprojecttoml.py` raises `NotImplementedError: Setuptools does not
support import-names and import-namespaces in pyproject.toml yet` before it even
validates. Older releases reject them as unknown keys of `[project]` (PP001). No release
builds such a project.

## Example
```toml
[project]
name = "example"
version = "1.0"
import-names = ["example"]
```

## Use instead
```toml
[project]
name = "example"
version = "1.0"
```

## References
- setuptools 82.0.1 (`read_configuration`); PEP 794
""",
        references=(_REF_PEP794,),
        example=(
            (PATH, '[project]\nname = "example"\nversion = "1.0"\nimport-names = ["example"]\n'),
        ),
        check=_check_not_implemented,
    )
)
