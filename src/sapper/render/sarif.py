"""``--format sarif``: SARIF 2.1.0 for code-scanning services (GitHub, GitLab, IDEs).

One run; ``tool.driver.rules`` describes the rules that have results. ``removed`` findings
are ``error``, ``overdue`` ones ``warning``, the others ``note``. A directory target's
locations are relative to the current directory (``%SRCROOT%``), or ``file:`` URIs when
the directory was given as an absolute path; an archive's are the path inside the
archive, with the archive in the result's ``properties.target``. Targets that could not be
analysed become ``toolExecutionNotifications`` and mark the invocation unsuccessful. Every
result carries the setuptools versions it fails in as properties. A verdict for a
``--setuptools`` version that ``build-system.requires`` rules out is a ``note``
notification (``outside-build-requires``), and its target's results carry the specifier
as ``properties.excludedByRequires``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from .._version import __version__
from ..model import Finding, TargetResult
from ._where import finding_path

__all__ = ["SARIF_SCHEMA", "render_sarif", "sarif_log"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {
    "removed": "error",
    "overdue": "warning",
    "deprecated": "note",
    "requires-newer": "note",
    "suppression": "note",
}


def _rule_descriptor(code: str, slug: str) -> dict[str, Any]:
    from ..rules import get_rule

    rule = get_rule(code)
    descriptor: dict[str, Any] = {"id": code, "name": slug}
    if rule is not None:
        descriptor["shortDescription"] = {"text": rule.summary}
        descriptor["fullDescription"] = {"text": rule.summary}
        descriptor["help"] = {"text": rule.doc, "markdown": rule.doc}
        if rule.references:
            descriptor["helpUri"] = rule.references[0].url
        descriptor["properties"] = {"fixable": rule.fixable, "family": rule.family}
    else:
        from ..suppress import UNUSED_DOC, UNUSED_SUPPRESSION

        if code == UNUSED_SUPPRESSION:  # sapper's own rule about its comments
            text = "a `sapper: ignore` comment that suppresses nothing"
            descriptor["shortDescription"] = {"text": text}
            descriptor["help"] = {"text": UNUSED_DOC, "markdown": UNUSED_DOC}
            descriptor["properties"] = {"fixable": True, "family": "sapper"}
    return descriptor


def _result(result: TargetResult, f: Finding, index: int) -> dict[str, Any]:
    path = PurePath(finding_path(result, f))
    artifact: dict[str, Any]
    if path.is_absolute():
        artifact = {"uri": path.as_uri()}
    elif result.kind == "directory":
        artifact = {"uri": quote(path.as_posix()), "uriBaseId": "%SRCROOT%"}
    else:
        artifact = {"uri": quote(path.as_posix())}
    location: dict[str, Any] = {"artifactLocation": artifact}
    if f.line is not None:
        location["region"] = {"startLine": f.line, "startColumn": f.column or 1}
    out: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index,
        "level": _LEVEL[f.status],
        "message": {"text": f.text},
        "locations": [{"physicalLocation": location}],
        "properties": {
            "target": result.target,
            "slug": f.slug,
            "status": f.status,
            "fails": list(f.fails),
            "failsEnforced": list(f.fails_enforced),
            "warns": list(f.warns),
            "dueDate": f.due_date,
        },
    }
    v = result.verdict
    if v is not None and v.excluded_by is not None:
        out["properties"]["excludedByRequires"] = v.excluded_by
    if f.fix:
        out["properties"]["fix"] = f.fix
    return out


def sarif_log(results: Sequence[TargetResult]) -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    order: dict[str, int] = {}
    rules: list[dict[str, Any]] = []
    sarif_results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in results:
        for f in result.findings:
            if f.code not in order:
                order[f.code] = len(rules)
                rules.append(_rule_descriptor(f.code, f.slug))
            sarif_results.append(_result(result, f, order[f.code]))
        notifications.extend(
            {
                "level": "error",
                "message": {"text": f"{result.target}: {e.message}"},
                "descriptor": {"id": e.type},
            }
            for e in result.errors
        )
        v = result.verdict
        if v is not None and v.excluded_by is not None:
            # the question a packager asks (--setuptools outside build-system.requires):
            # said once per target, since results are per finding
            notifications.append(
                {
                    "level": "note",
                    "message": {
                        "text": f"{result.target}: {v.outcome} with setuptools "
                        f"{v.setuptools} [{v.reason}]"
                    },
                    "descriptor": {"id": "outside-build-requires"},
                }
            )
    invocation: dict[str, Any] = {
        "executionSuccessful": not any(r.errors and r.verdict is None for r in results)
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sapper",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "results": sarif_results,
            }
        ],
    }


def render_sarif(results: Sequence[TargetResult]) -> str:
    return json.dumps(sarif_log(results), indent=2, ensure_ascii=False) + "\n"
