"""SC007 `setupcfg-unsupported-section`:
setup.cfg section that starts with `metadata` or `options` but that setuptools lacks.
"""

from __future__ import annotations

from ...facts.setup_cfg import PATH
from ...model import Reference
from .._base import Rule, register
from ._shared import _Check

_DOCS = "https://setuptools.pypa.io/en/latest/userguide/declarative_config.html"


register(
    Rule(
        code="SC007",
        slug="setupcfg-unsupported-section",
        family="setup.cfg",
        summary=(
            "setup.cfg section that starts with `metadata` or `options` but that setuptools lacks"
        ),
        doc="""
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
        references=(
            Reference(title="setuptools: configuring setuptools using setup.cfg files", url=_DOCS),
        ),
        example=((PATH, "[metadata]\nname = example\n\n[options.extras]\ntest = pytest\n"),),
        check=_Check("SC007"),
        reads=frozenset({PATH}),
    )
)
