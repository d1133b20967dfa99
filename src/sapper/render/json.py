"""The versioned JSON report of ``sapper check --format json`` (documented in docs/json.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .._version import __version__
from ..model import Finding, TargetResult

__all__ = ["SCHEMA_VERSION", "finding_dict", "render_json", "result_dict"]

#: Bumped only on incompatible changes; adding keys is compatible.
SCHEMA_VERSION = 2


def finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "slug": f.slug,
        "message": f.text,
        "summary": f.summary,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "status": f.status,
        "fails": list(f.fails),
        "fails_enforced": list(f.fails_enforced),
        "warns": list(f.warns),
        "due_date": f.due_date,
        "fix": f.fix,
    }


def result_dict(r: TargetResult) -> dict[str, Any]:
    v = r.verdict
    return {
        "target": r.target,
        "kind": r.kind,
        "project": {"name": r.project.name, "version": r.project.version},
        "backend": r.backend,
        "sha256": r.sha256,
        "findings": [finding_dict(f) for f in r.findings],
        "verdict": None
        if v is None
        else {
            "setuptools": v.setuptools or None,
            "enforce_deprecations": v.enforce_deprecations,
            "outcome": v.outcome,
            "because": list(v.because),
            "reason": v.reason,
            "excluded_by_requires": v.excluded_by,
            "stages": [
                {
                    "name": st.name,
                    "hook": st.hook,
                    "outcome": st.outcome,
                    "because": list(st.because),
                    "backend": st.backend,
                }
                for st in v.stages
            ],
        },
        "errors": [{"type": e.type, "message": e.message} for e in r.errors],
    }


def render_json(results: Sequence[TargetResult], *, newest: str) -> str:
    doc = {
        "version": SCHEMA_VERSION,
        "sapper": __version__,
        "newest_setuptools": newest,
        "targets": [result_dict(r) for r in results],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
