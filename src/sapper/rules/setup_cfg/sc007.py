"""SC007 `setupcfg-unsupported-section`:
setup.cfg section that starts with `metadata` or `options` but that setuptools lacks.
"""

from __future__ import annotations

from ...model import Reference
from ._shared import (
    _rule,
)

_DOCS = "https://setuptools.pypa.io/en/latest/userguide/declarative_config.html"


_rule(
    "SC007",
    "setup.cfg section that starts with `metadata` or `options` but that setuptools lacks",
    """
## What it does
Finds sections whose name starts with `metadata` or `options` (a prefix match, as in
setuptools: `[options_extra]` and `[options.test]` count) for which setuptools' config
handlers have no parser. The sub-sections each version accepts come from the handlers in
that version's wheel (`[options.data_files]` exists since 40.5.0).

## Why is this bad?
`parse_configuration` raises `Unsupported distribution option section` and the build fails
in every setuptools version that lacks the handler, whatever the section contains.

## Example
```ini
[metadata]
name = example

[options.extras]
test = pytest
```

## Use instead
```ini
[metadata]
name = example

[options.extras_require]
test = pytest
```

## References
- `ConfigHandler.parse` in `setuptools/config/setupcfg.py`
- setuptools docs: configuring setuptools using setup.cfg files
""",
    "[metadata]\nname = example\n\n[options.extras]\ntest = pytest\n",
    (Reference(title="setuptools: configuring setuptools using setup.cfg files", url=_DOCS),),
)
