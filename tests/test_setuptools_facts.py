"""Tests of src/sapper/data/setuptools.json and of the script that generates it.

The first half checks the committed data file against facts established
independently (the reference's release facts, changelog and probe builds): if the
extraction goes wrong these fail.  The second half exercises the extraction
functions of the package scripts/setuptools_facts (which scripts/gen_setuptools_facts.py
runs) on small source snippets, without the network.
"""

from __future__ import annotations

import ast
import io
import json
import textwrap
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import setuptools_facts as gen
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "sapper" / "data" / "setuptools.json"

SKIP_ALL_FIVE = [
    "options.extras_require",
    "options.data_files",
    "options.entry_points",
    "options.package_data",
    "options.exclude_package_data",
]


@cache
def data() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


@cache
def versions() -> list[str]:
    return [r["version"] for r in data()["releases"]]


@cache
def cfg_by_version() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for era in data()["cfg_eras"]:
        for version in era["versions"]:
            assert version not in out, f"{version} is in two eras"
            out[version] = era["cfg"]
    return out


def cfg(version: str) -> dict[str, Any]:
    return cfg_by_version()[version]


def in_runs(runs: list[list[str]], version: str) -> bool:
    order = versions()
    index = order.index(version)
    return any(order.index(first) <= index <= order.index(last) for first, last in runs)


def has_module(module: str, version: str) -> bool:
    return in_runs(data()["modules"].get(module, []), version)


def last_with(module: str) -> str:
    return data()["modules"][module][-1][1]


# --------------------------------------------------------------------------- data file


def test_file_shape_and_size() -> None:
    doc = data()
    assert doc["format"] == 1
    assert doc["generated_by"] == "scripts/gen_setuptools_facts.py"
    assert set(doc) >= {"releases", "cfg_eras", "modules", "names", "getattr", "section_eras"}
    assert DATA.stat().st_size < 300_000
    assert sorted(cfg_by_version()) == sorted(versions())  # every version in one era


def test_releases() -> None:
    order = versions()
    assert order == sorted(order, key=Version)
    assert order[0] == "38.0.0"
    assert order[-1] == "84.2.1"
    assert "51.1.0.post20201221" in order
    assert "63.0.0b1" in order
    # tags never published on PyPI (reference section 2.1)
    for missing in ("38.2.2", "55.0.0", "59.0.0", "67.3.0", "77.0.0", "77.0.2", "78.0.0", "80.5.0"):
        assert missing not in order
    by_version = {r["version"]: r for r in data()["releases"]}
    yanked = {v for v, r in by_version.items() if r["yanked"]}
    assert yanked == {
        "51.1.0.post20201221",
        "59.1.0",
        "60.3.0",
        "69.3.0",
        "69.4.0",
        "71.0.1",
        "72.0.0",
        "75.9.0",
        "80.3.0",
        "80.7.0",
    }
    assert by_version["72.0.0"]["yanked_reason"].endswith("4518")
    assert by_version["80.3.0"]["yanked_reason"].endswith("4976")
    assert by_version["78.0.1"]["yanked"] is False
    assert by_version["38.0.0"]["date"] == "2017-11-25"
    assert by_version["78.0.1"]["date"] == "2025-03-24"
    assert by_version["84.2.1"]["date"] == "2026-10-20"
    # newest per Python (reference section 2.3) follows from requires_python
    newest = {
        "2.7": "44.1.1",
        "3.5": "50.3.2",
        "3.6": "59.6.0",
        "3.7": "68.0.0",
        "3.8": "75.3.4",
        "3.9": "82.0.1",
        "3.10": "84.2.1",
    }
    for python, expected in newest.items():
        allowed = [
            r["version"]
            for r in data()["releases"]
            if not r["yanked"]
            and not Version(r["version"]).is_prerelease
            and python in SpecifierSet(r["requires_python"] or "")
        ]
        assert max(allowed, key=Version) == expected, python


def test_78_0_1_raises() -> None:
    c = cfg("78.0.1")
    for rule in (c["dash"], c["upper"]):
        assert rule["action"] == "raise"
        assert rule["error"] == "InvalidConfigError"
        assert rule["exempt"] == SKIP_ALL_FIVE
        assert rule["checked"] == "setuptools"
        assert rule["outside"] == "keep"


@pytest.mark.parametrize("version", ["78.0.2", "80.9.0", "84.2.1"])
def test_78_0_2_onwards_warns_due_2026(version: str) -> None:
    c = cfg(version)
    for rule in (c["dash"], c["upper"]):
        assert rule["action"] == "warn"
        assert rule["warning"] == "SetuptoolsDeprecationWarning"
        assert rule["due_date"] == "2026-03-03"
        assert rule["enforceable"] is True
        assert rule["outside"] == "keep"
        assert rule["checked"] == "setuptools"
        assert rule["exempt"] == SKIP_ALL_FIVE


def test_77_0_3() -> None:
    c = cfg("77.0.3")
    assert c["dash"]["action"] == "warn"
    assert c["dash"]["exempt"] == ["options.extras_require", "options.data_files"]
    assert c["dash"]["checked"] == "setuptools"
    assert c["dash"]["outside"] == "convert"
    assert c["dash"]["due_date"] == "2025-03-03"
    assert c["upper"]["action"] == "warn"
    assert c["upper"]["checked"] == "metadata"
    assert c["upper"]["due_date"] == "2025-03-03"


def test_due_date_history() -> None:
    assert cfg("67.6.1")["dash"]["warning"] == "UserWarning"
    assert cfg("67.6.1")["dash"]["due_date"] is None
    assert cfg("67.6.1")["dash"]["enforceable"] is False
    assert cfg("67.7.0")["dash"]["due_date"] == "2023-09-26"
    assert cfg("67.7.0")["dash"]["enforceable"] is True
    assert cfg("67.7.0")["upper"]["due_date"] == "2023-09-26"
    assert cfg("68.2.2")["dash"]["due_date"] == "2023-09-26"
    assert cfg("69.0.0")["dash"]["due_date"] == "2024-09-26"
    assert cfg("75.1.0")["dash"]["due_date"] == "2024-09-26"
    assert cfg("75.2.0")["dash"]["due_date"] == "2025-03-03"  # tag 75.1.1 never on PyPI
    assert cfg("75.3.4")["dash"]["due_date"] == "2025-03-03"  # 3.8 maintenance line


def test_54_1_x() -> None:
    assert cfg("54.0.0")["dash"]["action"] == "convert"
    c = cfg("54.1.0")
    assert c["dash"]["action"] == "warn"
    assert c["dash"]["checked"] == "all"
    assert c["dash"]["warning"] == "UserWarning"
    assert c["upper"]["action"] == "none"
    c = cfg("54.1.1")
    assert c["upper"]["action"] == "warn"
    assert c["upper"]["checked"] == "metadata"
    assert c["dash"]["checked"] == "all"
    c = cfg("54.1.2")  # scope reduced to setuptools sections (#2595)
    assert c["dash"]["checked"] == "setuptools"
    assert c["dash"]["outside"] == "convert"


def test_case_sensitivity_53_1_0() -> None:
    assert cfg("53.0.0")["optionxform_str"] is False
    c = cfg("53.1.0")
    assert c["optionxform_str"] is True
    assert c["dash"]["action"] == "convert"
    assert c["upper"]["action"] == "none"
    assert all(cfg(v)["optionxform_str"] for v in versions() if Version(v) >= Version("53.1.0"))


def test_encoding() -> None:
    assert cfg("38.0.0")["encoding"] == "locale"
    assert cfg("38.0.0")["parser"] == "distutils"
    assert cfg("40.6.3")["encoding"] == "locale"
    assert cfg("40.7.0")["encoding"] == "coding-header"
    assert cfg("40.9.0")["encoding"] == "coding-header"
    for version in versions():
        if Version(version) >= Version("41.0.0"):
            assert cfg(version)["encoding"] == "utf-8", version
            assert cfg(version)["parser"] == "setuptools", version


def test_venv_ignored() -> None:
    for version in versions():
        ignored = cfg(version)["venv_ignored"]
        assert ignored[0] == "install-base"
        assert len(ignored) == 13
        assert {"prefix", "exec-prefix", "home", "user", "root"} <= set(ignored)


def test_commands() -> None:
    order = versions()
    with_commands = [v for v in order if cfg(v)["commands"] is not None]
    # the code has no notion of command sections before 54.1.2
    assert with_commands[0] == "54.1.2"
    assert with_commands == [v for v in order if Version(v) >= Version("54.1.2")]
    for version in with_commands:
        commands = set(cfg(version)["commands"])
        assert {"egg_info", "sdist", "build_py", "install", "develop"} <= commands, version
        assert "aliases" not in commands
        assert ("bdist_wheel" in commands) == (Version(version) >= Version("70.1.0")), version
    # 60.9.0+ takes the names of all entry points, not only commands
    assert "install_requires" in cfg("60.9.0")["commands"]
    assert "PKG-INFO" in cfg("84.2.1")["commands"]
    assert "install_requires" not in cfg("60.8.2")["commands"]
    assert "test" in cfg("71.1.0")["commands"]
    assert "test" not in cfg("72.1.0")["commands"]


def test_modules() -> None:
    assert last_with("pkg_resources") == "81.0.0"
    assert not has_module("pkg_resources", "82.0.0")
    absent_test = [v for v in versions() if not has_module("setuptools.command.test", v)]
    assert absent_test == ["72.0.0"]
    assert last_with("setuptools.dep_util") == "69.5.1"
    assert last_with("setuptools.extern") == "70.3.0"
    assert has_module("distutils.msvccompiler", "73.0.1")
    assert not has_module("distutils.msvccompiler", "74.0.0")
    assert not has_module("distutils.msvccompiler", "65.0.0")
    assert last_with("setuptools.sandbox") == "79.0.1"
    assert last_with("setuptools.package_index") == "80.2.0"
    assert last_with("distutils.command.bdist_wininst") == "64.0.3"
    assert last_with("distutils.bcppcompiler") == "74.1.3"
    assert last_with("setuptools.command.upload_docs") == "74.1.3"
    assert last_with("setuptools.ssl_support") == "57.0.0"
    assert last_with("setuptools.lib2to3_ex") == "57.5.0"
    assert last_with("setuptools.command.py36compat") == "67.8.0"
    assert last_with("distutils.compat.py39") == "83.0.0"
    assert not has_module("distutils", "47.3.2")  # stdlib distutils only
    assert has_module("distutils", "48.0.0")
    assert has_module("setuptools._distutils.command.build_ext", "84.2.1")
    assert has_module("distutils.command.build_ext", "84.2.1")
    assert has_module("pkg_resources.extern.packaging.version", "60.0.0")
    assert has_module("setuptools.extern.six", "38.0.0")
    assert has_module("setuptools", "84.2.1")


def test_names_and_getattr() -> None:
    names = data()["names"]
    assert in_runs(names["setuptools"]["Feature"], "45.3.0")
    assert not in_runs(names["setuptools"]["Feature"], "46.0.0")
    assert in_runs(names["setuptools"]["find_namespace_packages"], "84.2.1")
    assert in_runs(names["pkg_resources"]["require"], "81.0.0")  # globals().update(locals())
    assert in_runs(names["pkg_resources"]["run_main"], "38.0.0")
    assert in_runs(names["setuptools.command.test"]["test"], "71.1.0")
    assert not in_runs(names["setuptools.command.test"]["test"], "72.1.0")
    getattr_runs = data()["getattr"]
    assert in_runs(getattr_runs["setuptools.command.test"], "72.1.0")  # the shim
    assert not in_runs(getattr_runs["setuptools.command.test"], "71.1.0")
    assert not any(n.startswith("_") for module in names.values() for n in module)


@cache
def sections_by_version() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for era in data()["section_eras"]:
        for version in era["versions"]:
            assert version not in out, f"{version} is in two section eras"
            out[version] = era["cfg_sections"]
    return out


def sections(version: str) -> dict[str, Any]:
    return sections_by_version()[version]


OPTIONS_84 = [
    "parse_section",
    "parse_section_data_files",
    "parse_section_entry_points",
    "parse_section_exclude_package_data",
    "parse_section_extras_require",
    "parse_section_package_data",
    "parse_section_packages__find",
]


def test_section_eras() -> None:
    assert sorted(sections_by_version()) == sorted(versions())
    assert sections("84.2.1")["options"] == OPTIONS_84
    assert sections("38.0.0")["options"] == [
        n for n in OPTIONS_84 if n != "parse_section_data_files"
    ]
    for version in versions():
        facts = sections(version)
        assert facts["metadata"] == ["parse_section"]  # no [metadata.x] is ever accepted
        assert facts["applied"] is True
        assert facts["ignore_option_errors"] == {
            "from": "Distribution.parse_config_files",
            "default": False,
        }
    # parse_section_data_files (options.data_files) first appears in 40.5.0
    first = next(v for v in versions() if "parse_section_data_files" in sections(v)["options"])
    assert first == "40.5.0"
    assert "parse_section_data_files" not in sections("40.4.3")["options"]


def test_section_split_error_order_module() -> None:
    assert sections("67.5.0")["split"] == "replace"
    assert sections("67.5.1")["split"] == "partition"
    assert sections("67.6.1")["error"] == "DistutilsOptionError"
    assert sections("67.7.0")["error"] == "OptionError"  # setuptools.errors alias
    assert sections("39.1.0")["order"] == ["metadata", "options"]
    assert sections("39.2.0")["order"] == ["options", "metadata"]
    assert sections("60.10.0")["module"] == "setuptools/config.py"
    assert sections("61.0.0")["module"] == "setuptools/config/setupcfg.py"
    assert len(data()["section_eras"]) == 6


# --------------------------------------------------------------------------- extraction


HEADER = """
import io
import sys
import itertools
import warnings
import distutils.core
import distutils.command
from configparser import ConfigParser
from .warnings import SetuptoolsDeprecationWarning
from .errors import InvalidConfigError

_Distribution = get_unpatched(distutils.core.Distribution)
"""

PARSE = """
    def parse_config_files(self, filenames=None, ignore_option_errors=False):
        self._parse_config_files(filenames=filenames)
        parse_configuration(self, self.command_options)

    def _parse_config_files(self, filenames=None):
        ignore_options = [] if sys.prefix == sys.base_prefix else [
            'install-base', 'prefix', 'root',
        ]
        parser = ConfigParser()
        {optionxform}
        for filename in filenames:
            with io.open(filename, encoding='utf-8') as reader:
                parser.read_file(reader)
            for section in parser.sections():
                options = parser.options(section)
                opt_dict = self.get_option_dict(section)
                for opt in options:
                    if opt == '__name__' or opt in ignore_options:
                        continue
                    val = parser.get(section, opt)
{transforms}
                    opt_dict[opt] = (filename, val)
            parser.__init__()
"""

WARNINGS_PY = """
import os
from datetime import date

class SetuptoolsWarning(UserWarning):
    @classmethod
    def emit(cls, summary=None, details=None, due_date=None, **kwargs):
        due = date(*due_date) if due_date else None
        text = summary
        if due and due < date.today() and _should_enforce():
            raise cls(text)
        warnings.warn(text, cls, stacklevel=2)

class SetuptoolsDeprecationWarning(SetuptoolsWarning):
    pass

def _should_enforce():
    enforce = os.getenv("SETUPTOOLS_ENFORCE_DEPRECATION", "false").lower()
    return enforce in ("true", "on", "ok", "1")
"""

ENTRY_POINTS = """
[distutils.commands]
egg_info = setuptools.command.egg_info:egg_info
bdist_wheel = setuptools.command.bdist_wheel:bdist_wheel

[distutils.setup_keywords]
install_requires = setuptools.dist:check_requirements

[egg_info.writers]
PKG-INFO = setuptools.command.egg_info:write_pkg_info
"""

DISTUTILS_COMMANDS = "__all__ = ['build', 'sdist']\n"


def dist_py(methods: str, transforms: str, optionxform: str = "parser.optionxform = str") -> str:
    body = PARSE.format(
        optionxform=optionxform,
        transforms=textwrap.indent(textwrap.dedent(transforms).strip(), " " * 20),
    )
    return (
        HEADER
        + "\nclass Distribution(_Distribution):\n"
        + body
        + textwrap.indent(textwrap.dedent(methods), "    ")
    )


def view(dist: str, extra: dict[str, str] | None = None) -> Any:
    files = {
        "setuptools/dist.py": dist,
        "setuptools/warnings.py": WARNINGS_PY,
        "setuptools-99.0.0.dist-info/entry_points.txt": ENTRY_POINTS,
        "setuptools/_distutils/command/__init__.py": DISTUTILS_COMMANDS,
    }
    files.update(extra or {})
    return gen.WheelView.from_mapping(files)


def test_extract_delegated_to_stdlib() -> None:
    source = HEADER + textwrap.dedent("""
        class Distribution(_Distribution):
            def parse_config_files(self, filenames=None):
                _Distribution.parse_config_files(self, filenames=filenames)
                parse_configuration(self, self.command_options)
        """)
    facts = gen.extract_cfg(view(source))
    assert facts["parser"] == "distutils"
    assert facts["encoding"] == "locale"
    assert facts["optionxform_str"] is False
    assert facts["dash"]["action"] == "convert"
    assert facts["dash"]["checked"] == "all"
    assert facts["upper"]["action"] == "none"
    assert facts["commands"] is None
    assert len(facts["venv_ignored"]) == 13


def test_extract_inline_convert_and_optionxform() -> None:
    facts = gen.extract_cfg(view(dist_py("", "opt = opt.replace('-', '_')", optionxform="")))
    assert facts["parser"] == "setuptools"
    assert facts["optionxform_str"] is False
    assert facts["encoding"] == "utf-8"
    assert facts["venv_ignored"] == ["install-base", "prefix", "root"]
    assert facts["dash"] == {
        "action": "convert",
        "checked": "all",
        "exempt": [],
        "outside": None,
        "warning": None,
        "due_date": None,
        "enforceable": None,
        "error": None,
    }
    facts = gen.extract_cfg(view(dist_py("", "opt = opt.replace('-', '_')")))
    assert facts["optionxform_str"] is True


def test_extract_coding_header() -> None:
    source = dist_py("", "opt = opt.replace('-', '_')").replace(
        "with io.open(filename, encoding='utf-8') as reader:\n",
        "with io.open(filename, 'rb') as fp:\n"
        "                encoding = detect_encoding(fp)\n"
        "                reader = io.TextIOWrapper(fp, encoding=encoding)\n",
    )
    assert gen.extract_cfg(view(source))["encoding"] == "coding-header"


WARN_DASH_54 = """
def warn_dash_deprecation(self, opt, section):
    if section in ('options.extras_require', 'options.data_files'):
        return opt
    underscore_opt = opt.replace('-', '_')
    commands = distutils.command.__all__ + setuptools.command.__all__
    if (not section.startswith('options') and section != 'metadata'
            and section not in commands):
        return underscore_opt
    if '-' in opt:
        warnings.warn("Usage of dash-separated '%s' ..." % (opt, underscore_opt))
    return underscore_opt

def make_option_lowercase(self, opt, section):
    if section != 'metadata' or opt.islower():
        return opt
    lowercase_opt = opt.lower()
    warnings.warn("Usage of uppercase key '%s' ..." % (opt, section, lowercase_opt))
    return lowercase_opt
"""

TRANSFORMS = """
opt = self.warn_dash_deprecation(opt, section)
opt = self.make_option_lowercase(opt, section)
"""


def test_extract_54_style_user_warnings() -> None:
    facts = gen.extract_cfg(
        view(
            dist_py(WARN_DASH_54, TRANSFORMS),
            {"setuptools/command/__init__.py": "__all__ = ['alias', 'egg_info']\n"},
        )
    )
    assert facts["dash"]["action"] == "warn"
    assert facts["dash"]["warning"] == "UserWarning"
    assert facts["dash"]["enforceable"] is False
    assert facts["dash"]["checked"] == "setuptools"
    assert facts["dash"]["outside"] == "convert"
    assert facts["dash"]["exempt"] == ["options.extras_require", "options.data_files"]
    assert facts["upper"]["checked"] == "metadata"
    assert facts["upper"]["outside"] == "keep"
    assert facts["commands"] == ["alias", "build", "egg_info", "sdist"]


def test_extract_67_style_emit_and_command_helpers() -> None:
    methods = (
        WARN_DASH_54.replace(
            "distutils.command.__all__ + setuptools.command.__all__",
            "list(itertools.chain(distutils.command.__all__, self._setuptools_commands()))",
        )
        .replace(
            """warnings.warn("Usage of dash-separated '%s' ..." % (opt, underscore_opt))""",
            'SetuptoolsDeprecationWarning.emit("Invalid", f"{opt!r}", due_date=(2023, 9, 26))',
        )
        .replace(
            """warnings.warn("Usage of uppercase key '%s' ..." % (opt, section, lowercase_opt))""",
            'SetuptoolsDeprecationWarning.emit("Invalid", due_date=(2023, 9, 26))',
        )
    )
    all_names = """
def _setuptools_commands(self):
    try:
        return metadata.distribution('setuptools').entry_points.names
    except metadata.PackageNotFoundError:
        return []
"""
    facts = gen.extract_cfg(view(dist_py(methods + all_names, TRANSFORMS)))
    assert facts["dash"]["warning"] == "SetuptoolsDeprecationWarning"
    assert facts["dash"]["due_date"] == "2023-09-26"
    assert facts["dash"]["enforceable"] is True
    assert facts["upper"]["due_date"] == "2023-09-26"
    assert facts["commands"] == [
        "PKG-INFO",
        "bdist_wheel",
        "build",
        "egg_info",
        "install_requires",
        "sdist",
    ]

    one_group = """
def _setuptools_commands(self):
    try:
        dist = pkg_resources.get_distribution('setuptools')
        return list(dist.get_entry_map('distutils.commands'))
    except pkg_resources.DistributionNotFound:
        return []
"""
    facts = gen.extract_cfg(view(dist_py(methods + one_group, TRANSFORMS)))
    assert facts["commands"] == ["bdist_wheel", "build", "egg_info", "sdist"]

    # an emit() that never raises is not enforceable
    lax = WARNINGS_PY.replace("and _should_enforce()", "and False")
    facts = gen.extract_cfg(
        view(dist_py(methods + all_names, TRANSFORMS), {"setuptools/warnings.py": lax})
    )
    assert facts["dash"]["enforceable"] is False


ENFORCE_78 = """
def _enforce_underscore(self, opt: str, section: str) -> str:
    if "-" not in opt or self._skip_setupcfg_normalization(section):
        return opt
    {dash}

def _enforce_option_lowercase(self, opt: str, section: str) -> str:
    if opt.islower() or self._skip_setupcfg_normalization(section):
        return opt
    {upper}

def _skip_setupcfg_normalization(self, section: str) -> bool:
    skip = (
        'options.extras_require',
        'options.data_files',
        'options.entry_points',
        'options.package_data',
        'options.exclude_package_data',
    )
    return section in skip or not self._is_setuptools_section(section)

def _is_setuptools_section(self, section: str) -> bool:
    return (
        section == "metadata"
        or section.startswith("options")
        or section in _setuptools_commands()
    )
"""

COMMANDS_78 = """

def _setuptools_commands() -> set[str]:
    try:
        entry_points = metadata.distribution('setuptools').entry_points
        eps: Iterable[str] = (ep.name for ep in entry_points)
    except metadata.PackageNotFoundError:
        eps = []
    return {*distutils.command.__all__, *eps}
"""

TRANSFORMS_78 = """
opt = self._enforce_underscore(opt, section)
opt = self._enforce_option_lowercase(opt, section)
"""


def test_extract_78_raise() -> None:
    methods = ENFORCE_78.format(
        dash="raise InvalidConfigError(f'Invalid dash-separated key {opt!r}')",
        upper="raise InvalidConfigError(f'Invalid uppercase key {opt!r}')",
    )
    facts = gen.extract_cfg(view(dist_py(methods, TRANSFORMS_78) + COMMANDS_78))
    for rule in (facts["dash"], facts["upper"]):
        assert rule["action"] == "raise"
        assert rule["error"] == "InvalidConfigError"
        assert rule["checked"] == "setuptools"
        assert rule["outside"] == "keep"
        assert rule["exempt"] == SKIP_ALL_FIVE
        assert rule["warning"] is None
    assert "install_requires" in facts["commands"]
    assert "build" in facts["commands"]


def test_extract_78_warn() -> None:
    methods = ENFORCE_78.format(
        dash=(
            "underscore_opt = opt.replace('-', '_')\n"
            "    affected = f'(Affected: {self.metadata.name}).' if self.metadata.name else ''\n"
            "    SetuptoolsDeprecationWarning.emit('x', affected, due_date=(2026, 3, 3))\n"
            "    return underscore_opt"
        ),
        upper=(
            "lowercase_opt = opt.lower()\n"
            "    SetuptoolsDeprecationWarning.emit('x', due_date=(2026, 3, 3))\n"
            "    return lowercase_opt"
        ),
    )
    facts = gen.extract_cfg(view(dist_py(methods, TRANSFORMS_78) + COMMANDS_78))
    for rule in (facts["dash"], facts["upper"]):
        assert rule["action"] == "warn"
        assert rule["due_date"] == "2026-03-03"
        assert rule["enforceable"] is True
        assert rule["outside"] == "keep"


@pytest.mark.parametrize(
    ("methods", "transforms"),
    [
        # an option transformation the extractor does not know
        ("", "opt = opt.upper()"),
        # a section condition it does not know
        (
            WARN_DASH_54.replace("section != 'metadata' or", "section.endswith('x') or"),
            TRANSFORMS,
        ),
        # a handler with an extra statement
        (
            WARN_DASH_54.replace(
                "    return lowercase_opt", "    print(opt)\n    return lowercase_opt"
            ),
            TRANSFORMS,
        ),
        # no dash handling at all
        ("", "pass"),
    ],
)
def test_extract_fails_loudly(methods: str, transforms: str) -> None:
    source = dist_py(methods, transforms)
    with pytest.raises(gen.ExtractionError):
        gen.extract_cfg(
            view(source, {"setuptools/command/__init__.py": "__all__ = ['alias', 'egg_info']\n"})
        )


def test_analyse_wheel_names_the_version_on_failure() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("setuptools/dist.py", "x = 1\n")
    with pytest.raises(gen.ExtractionError, match=r"setuptools 99\.0\.0: .*Distribution"):
        gen.analyse_wheel("99.0.0", buffer.getvalue())


def test_module_names() -> None:
    source = textwrap.dedent("""
        import os.path
        from typing import TYPE_CHECKING
        from .x import a as alias_a, b
        if TYPE_CHECKING:
            from .y import only_for_types
        else:
            runtime_else = 1
        try:
            import json as fast_json
        except ImportError:
            fast_json = None
        __all__ = ['dynamic_name'] + ['other']
        Feature, Other = 1, 2
        temp = 3
        del temp
        _private = 4
        def __getattr__(name):
            raise AttributeError(name)
        class Thing: pass
        @_call_aside
        def _init():
            require = 1
            working_set = 2
            globals().update(locals())
        def not_called():
            hidden = 1
            globals().update(locals())
        """)
    names, has_getattr = gen.module_names(ast.parse(source), module_path="pkg/mod.py")
    assert has_getattr is True
    assert names == {
        "os",
        "TYPE_CHECKING",
        "alias_a",
        "b",
        "runtime_else",
        "fast_json",
        "dynamic_name",
        "other",
        "Feature",
        "Other",
        "Thing",
        "require",
        "working_set",
        "not_called",
    }


def test_wheel_modules() -> None:
    files = {
        "setuptools/__init__.py": "",
        "setuptools/command/test.py": "",
        "setuptools/_distutils/__init__.py": "",
        "setuptools/_distutils/command/build.py": "",
        "setuptools/_vendor/jaraco/text/__init__.py": "",  # namespace package jaraco
        "setuptools/extern/__init__.py": (
            "class VendorImporter: pass\n"
            "names = ('jaraco', 'missing')\n"
            "VendorImporter(__name__, names, 'setuptools._vendor').install()\n"
        ),
        "setuptools-1.0.dist-info/RECORD": "",
        "setuptools/_vendor/more_itertools-1.0.dist-info/foo.py": "",
        "distutils-precedence.pth": "",
    }
    modules = gen.wheel_modules(gen.WheelView.from_mapping(files))
    assert modules == {
        "setuptools",
        "setuptools.command",
        "setuptools.command.test",
        "setuptools._distutils",
        "setuptools._distutils.command",
        "setuptools._distutils.command.build",
        "distutils",
        "distutils.command",
        "distutils.command.build",
        "setuptools._vendor",
        "setuptools._vendor.jaraco",
        "setuptools._vendor.jaraco.text",
        "setuptools.extern",
        "setuptools.extern.jaraco",
        "setuptools.extern.jaraco.text",
    }


def test_runs_and_entry_points() -> None:
    order = ["1", "2", "3", "4", "5"]
    assert gen.runs(order, {"1", "2", "4"}) == [["1", "2"], ["4", "4"]]
    assert gen.runs(order, set()) == []
    assert gen.runs(order, set(order)) == [["1", "5"]]
    assert gen.parse_entry_points(ENTRY_POINTS) == {
        "distutils.commands": ["egg_info", "bdist_wheel"],
        "distutils.setup_keywords": ["install_requires"],
        "egg_info.writers": ["PKG-INFO"],
    }


def test_select_releases() -> None:
    from packaging.utils import parse_wheel_filename

    from sapper.pypi import ReleaseFile

    def file(name: str, when: str, yanked: bool = False) -> ReleaseFile:
        wheel = name.endswith(".whl")
        return ReleaseFile(
            name="setuptools",
            version=name.split("-")[1].removesuffix(".tar.gz"),
            kind="wheel" if wheel else "sdist",
            filename=name,
            url=f"https://files.example/{name}",
            sha256="0" * 64,
            upload_time=when,
            size=1,
            yanked=yanked,
            yanked_reason="broken" if yanked else None,
            requires_python=">=3.9",
            tags=frozenset(parse_wheel_filename(name)[3]) if wheel else frozenset(),
        )

    files = [
        file("setuptools-37.0.0-py2.py3-none-any.whl", "2017-01-01T00:00:00Z"),
        file("setuptools-80.3.0.tar.gz", "2025-05-02T23:59:00.123456Z", yanked=True),
        file("setuptools-80.3.0-py3-none-any.whl", "2025-05-03T00:01:00.5Z", yanked=True),
        file("setuptools-63.0.0b1-py3-none-any.whl", "2022-06-29T10:00:00Z"),
    ]
    releases = gen.select_releases(files)
    assert [r.version for r in releases] == ["63.0.0b1", "80.3.0"]
    yanked = releases[1]
    assert yanked.yanked is True
    assert yanked.yanked_reason == "broken"
    assert yanked.date == "2025-05-02"  # earliest file
    assert yanked.requires_python == ">=3.9"
    assert yanked.wheel.filename == "setuptools-80.3.0-py3-none-any.whl"
    with pytest.raises(gen.ExtractionError, match="expected one py3 wheel"):
        gen.select_releases(files[1:2])


# --------------------------------------------------------------------------- cfg sections

SECTIONS_DIST = """
from setuptools.config import parse_configuration


class Distribution:
    def parse_config_files(self, filenames=None, ignore_option_errors=False):
        self._parse_config_files(filenames=filenames)
        parse_configuration(self, self.command_options, ignore_option_errors=ignore_option_errors)
"""

SECTIONS_DIST_NEW = """
from .config import setupcfg, pyprojecttoml


class Distribution:
    def parse_config_files(self, filenames=None, ignore_option_errors: bool = False):
        setupcfg.parse_configuration(self, self.command_options, ignore_option_errors=True)
"""

OLD_INIT = """
def __init__(self, target_obj, options, ignore_option_errors=False):
    sections = {}
    section_prefix = self.section_prefix
    for section_name, section_options in options.items():
        if not section_name.startswith(section_prefix):
            continue
        section_name = section_name.replace(section_prefix, '').strip('.')
        sections[section_name] = section_options
    self.sections = sections
"""

NEW_INIT = """
def __init__(self, target_obj, options, ignore_option_errors, ensure_discovered):
    self.sections = dict(self._section_options(options))

@classmethod
def _section_options(cls, options):
    for full_name, value in options.items():
        pre, _sep, name = full_name.partition(cls.section_prefix)
        if pre:
            continue
        yield name.lstrip('.'), value
"""

OLD_PARSE = """
def parse(self):
    for section_name, section_options in self.sections.items():
        method_postfix = ''
        if section_name:  # [section.option] variant
            method_postfix = '_%s' % section_name
        section_parser_method = getattr(
            self, ('parse_section%s' % method_postfix).replace('.', '__'), None)
        if section_parser_method is None:
            raise DistutilsOptionError('Unsupported: [%s]' % section_name)
        section_parser_method(section_options)
"""

NEW_PARSE = """
def parse(self) -> None:
    for section_name, section_options in self.sections.items():
        method_postfix = ''
        if section_name:
            method_postfix = f"_{section_name}"
        section_parser_method: Callable | None = getattr(
            self, f'parse_section{method_postfix}'.replace('.', '__'), None,
        )
        if section_parser_method is None:
            raise OptionError(f"Unsupported: [{section_name}]")
        section_parser_method(section_options)
"""

CONFIG_HEAD = """
def parse_configuration(distribution, command_options, ignore_option_errors=False):
    meta = ConfigMetadataHandler(distribution.metadata, command_options)
    meta.parse()
    options = ConfigOptionsHandler(distribution, command_options)
    options.parse()
    return meta, options


class ConfigHandler(Generic[Target]):
    section_prefix: str

    def parse_section(self, section_options):
        pass
"""

CONFIG_TAIL = """

class ConfigMetadataHandler(ConfigHandler["DistributionMetadata"]):
    section_prefix = 'metadata'


class ConfigOptionsHandler(ConfigHandler):
    section_prefix = 'options'

    def parse_section_packages__find(self, section_options):
        pass

    parse_section_data_files = parse_section_packages__find
"""


def config_py(init: str = OLD_INIT, parse: str = OLD_PARSE, tail: str = CONFIG_TAIL) -> str:
    return (
        CONFIG_HEAD
        + textwrap.indent(init, "    ")
        + textwrap.indent(parse, "    ")
        + textwrap.dedent(tail)
    )


def sections_view(dist: str, config: str, path: str = "setuptools/config.py") -> Any:
    return gen.WheelView.from_mapping({"setuptools/dist.py": dist, path: config})


def test_extract_sections_old_style() -> None:
    facts = gen.extract_sections(sections_view(SECTIONS_DIST, config_py()))
    assert facts == {
        "applied": True,
        "module": "setuptools/config.py",
        "ignore_option_errors": {"from": "Distribution.parse_config_files", "default": False},
        "order": ["metadata", "options"],
        "metadata": ["parse_section"],
        "options": [
            "parse_section",
            "parse_section_data_files",
            "parse_section_packages__find",
        ],
        "split": "replace",
        "error": "DistutilsOptionError",
    }


def test_extract_sections_new_style() -> None:
    files = sections_view(
        SECTIONS_DIST_NEW,
        config_py(NEW_INIT, NEW_PARSE),
        "setuptools/config/setupcfg.py",
    )
    facts = gen.extract_sections(files)
    assert facts["module"] == "setuptools/config/setupcfg.py"
    assert facts["split"] == "partition"
    assert facts["error"] == "OptionError"
    assert facts["ignore_option_errors"] == {"from": None, "default": True}


def test_extract_sections_super_init() -> None:
    tail = CONFIG_TAIL.replace(
        "section_prefix = 'metadata'\n",
        """section_prefix = 'metadata'

    def __init__(self, target_obj, options, ignore_option_errors=False, package_dir=None):
        super(ConfigMetadataHandler, self).__init__(target_obj, options)
        self.package_dir = package_dir
""",
    )
    facts = gen.extract_sections(sections_view(SECTIONS_DIST, config_py(tail=tail)))
    assert facts["split"] == "replace"
    assert facts["metadata"] == ["parse_section"]


@pytest.mark.parametrize(
    ("init", "parse", "tail"),
    [
        # a different lookup key: no '.' -> '__' translation
        (OLD_INIT, OLD_PARSE.replace(".replace('.', '__')", ""), CONFIG_TAIL),
        # the error depends on ignore_option_errors
        (
            OLD_INIT,
            OLD_PARSE.replace(
                "if section_parser_method is None:",
                "if section_parser_method is None and not self.ignore_option_errors:",
            ),
            CONFIG_TAIL,
        ),
        # other ways of splitting the section name
        (OLD_INIT.replace(".strip('.')", ".lstrip('.')"), OLD_PARSE, CONFIG_TAIL),
        (NEW_INIT.replace("if pre:", "if not pre:"), OLD_PARSE, CONFIG_TAIL),
        # attribute lookup customised
        (
            OLD_INIT,
            OLD_PARSE,
            CONFIG_TAIL + "\n    def __getattr__(self, name):\n        return None\n",
        ),
        # a base class from elsewhere
        (
            OLD_INIT,
            OLD_PARSE,
            CONFIG_TAIL.replace("(ConfigHandler):", "(ConfigHandler, mixins.Extra):"),
        ),
        # a handler class defined twice
        (
            OLD_INIT,
            OLD_PARSE,
            CONFIG_TAIL + "\n\nclass ConfigOptionsHandler(ConfigHandler):\n    pass\n",
        ),
    ],
)
def test_extract_sections_fails_loudly(init: str, parse: str, tail: str) -> None:
    with pytest.raises(gen.ExtractionError):
        gen.extract_sections(sections_view(SECTIONS_DIST, config_py(init, parse, tail)))


def test_extract_sections_needs_the_call() -> None:
    dist = SECTIONS_DIST.replace("parse_configuration(self", "print(self")
    with pytest.raises(gen.ExtractionError, match="parse_configuration"):
        gen.extract_sections(sections_view(dist, config_py()))
