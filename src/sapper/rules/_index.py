"""Rule code -> the module that declares it, so that choosing rules imports only theirs.

Written by hand when a rule is added; ``tests/test_rules_meta.py`` checks it against the
rule modules on disk (listing the family packages costs ``pkgutil`` and five directory
reads on every cold ``sapper check``).
"""

from __future__ import annotations

RULE_MODULES: dict[str, str] = {
    "LY001": "sapper.rules.layout.ly001",
    "LY002": "sapper.rules.layout.ly002",
    "PP001": "sapper.rules.pyproject.pp001",
    "PP002": "sapper.rules.pyproject.pp002",
    "PP003": "sapper.rules.pyproject.pp003",
    "PP004": "sapper.rules.pyproject.pp004",
    "PP005": "sapper.rules.pyproject.pp005",
    "PP006": "sapper.rules.pyproject.pp006",
    "PP007": "sapper.rules.pyproject.pp007",
    "PP008": "sapper.rules.pyproject.pp008",
    "PP009": "sapper.rules.pyproject.pp009",
    "PP010": "sapper.rules.pyproject.pp010",
    "PP900": "sapper.rules.pyproject.pp900",
    "RQ001": "sapper.rules.requires.rq001",
    "RQ002": "sapper.rules.requires.rq002",
    "SC001": "sapper.rules.setup_cfg.sc001",
    "SC002": "sapper.rules.setup_cfg.sc002",
    "SC003": "sapper.rules.setup_cfg.sc003",
    "SC004": "sapper.rules.setup_cfg.sc004",
    "SC005": "sapper.rules.setup_cfg.sc005",
    "SC006": "sapper.rules.setup_cfg.sc006",
    "SC007": "sapper.rules.setup_cfg.sc007",
    "SC008": "sapper.rules.setup_cfg.sc008",
    "SC009": "sapper.rules.setup_cfg.sc009",
    "SC010": "sapper.rules.setup_cfg.sc010",
    "SC011": "sapper.rules.setup_cfg.sc011",
    "SC012": "sapper.rules.setup_cfg.sc012",
    "SC013": "sapper.rules.setup_cfg.sc013",
    "SP001": "sapper.rules.setup_py.sp001",
    "SP002": "sapper.rules.setup_py.sp002",
    "SP003": "sapper.rules.setup_py.sp003",
    "SP004": "sapper.rules.setup_py.sp004",
    "SP005": "sapper.rules.setup_py.sp005",
    "SP006": "sapper.rules.setup_py.sp006",
    "SP007": "sapper.rules.setup_py.sp007",
    "SP008": "sapper.rules.setup_py.sp008",
    "SP009": "sapper.rules.setup_py.sp009",
    "SP010": "sapper.rules.setup_py.sp010",
    "SP900": "sapper.rules.setup_py.sp900",
}

#: Rule code -> the project file without which the rule cannot report: every check of these
#: rules starts from that file's facts (``ctx.setup_py.tree``, ``.keywords``, ``.run``,
#: ``.import_sites``; PP009's ``ctx.pyproject.data``), which are empty when the file is
#: absent. ``sapper check`` neither imports nor runs them for a project without the file (a
#: tree with only setup.cfg and pyproject.toml skips the setup.py rules, one without
#: pyproject.toml skips PP009);
#: ``tests/test_rules_meta.py`` checks that removing the file silences each of them on
#: every test project.
NEEDS_FILE: dict[str, str] = {
    "PP009": "pyproject.toml",
    "PP900": "pyproject.toml",
    "SP001": "setup.py",
    "SP002": "setup.py",
    "SP003": "setup.py",
    "SP004": "setup.py",
    "SP005": "setup.py",
    "SP006": "setup.py",
    "SP007": "setup.py",
    "SP008": "setup.py",
    "SP009": "setup.py",
    "SP010": "setup.py",
    "SP900": "setup.py",
}
