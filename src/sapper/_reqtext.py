"""Say what is wrong with a malformed requirement, naming the bad part."""

from __future__ import annotations

import re

__all__ = ["requirement_problem"]

_NAME = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*")
_CLAUSE = re.compile(r"(===|==|!=|~=|<=|>=|<|>)\s*([^,;\s\]]*)")


def requirement_problem(text: str) -> str | None:
    """``"invalid version '1.2.O'"`` for ``foo==1.2.O``; None when ``text`` parses, or does
    not start like a project name at all."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    if not _NAME.match(text):
        return None
    try:
        Requirement(text)
    except InvalidRequirement as exc:
        detail = str(exc)
    else:
        return None
    for op, version in _CLAUSE.findall(text[_NAME.match(text).end() :]):  # type: ignore[union-attr]
        if not version:
            return f"no version after {op!r}"
        if op == "===":
            continue
        plain = version[:-2] if op in ("==", "!=") and version.endswith(".*") else version
        try:
            Version(plain)
        except InvalidVersion:
            return f"invalid version {version!r}"
    first, _, rest = detail.partition("\n")
    return f"{first[:1].lower()}{first[1:]}" + (f"\n{rest}" if rest else "")
