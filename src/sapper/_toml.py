"""The one TOML reader: the standard library's ``tomllib`` (3.11+), its backport ``tomli``
before. Import it where a TOML file is read, not at the top of a module on the cold path,
so that a run without TOML never imports a parser.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:  # pragma: no cover
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
