#!/usr/bin/env python3
"""Derive per-version facts about setuptools from its real wheels on PyPI.

Writes ``src/sapper/data/setuptools.json``, the data file sapper's rules read, so
that no rule hand-types what a given setuptools version does.

Usage (from the repository root, with the dev venv)::

    .venv/bin/python scripts/gen_setuptools_facts.py            # regenerate the data file
    .venv/bin/python scripts/gen_setuptools_facts.py --check    # fail if it is out of date
    .venv/bin/python scripts/gen_setuptools_facts.py --offline  # use only the local cache

What it does:

* reads https://pypi.org/pypi/setuptools/json and takes every release >= 38.0.0
  (yanked ones and odd version strings included);
* downloads each release's pure-Python wheel (a small thread pool) into
  ``$SAPPER_DEV_CACHE/setuptools-wheels/`` (default ``~/.cache/sapper-dev/``),
  verifying the sha256 digest PyPI publishes;
* opens every wheel with ``zipfile`` in memory and analyses the source text with
  ``ast``.  It never extracts a wheel and never imports or runs setuptools code.

Extracted per version:

``cfg``
    How ``setup.cfg`` keys are read (``setuptools/dist.py``, ``setuptools/warnings.py``):
    ``parser`` ("setuptools", or "distutils" when setuptools delegates to the
    standard library's ``Distribution.parse_config_files``), ``optionxform_str``,
    ``encoding`` ("utf-8", "locale" or "coding-header"), ``venv_ignored`` and two
    key rules, ``dash`` (keys containing "-") and ``upper`` (keys for which
    ``not key.islower()``), each with ``action`` ("convert", "warn", "raise" or
    "none"), ``checked`` ("all", "metadata", "setuptools" or null when nothing is
    checked), ``exempt`` (sections excluded, as the code lists them), ``outside``
    (what happens to the key in sections that are not checked: "convert" or
    "keep"; null when every section is checked), ``warning`` (class name),
    ``due_date``, ``enforceable`` (the warning goes through
    ``SetuptoolsWarning.emit``, which raises once the due date has passed and
    ``SETUPTOOLS_ENFORCE_DEPRECATION`` is set) and ``error`` (exception raised).
    ``commands`` is the set of section names the code treats as command sections
    (null when the code has no such notion).
``modules``
    Every importable module of the wheel, with ``setuptools._distutils.X`` also
    listed as ``distutils.X`` and the modules reachable through the
    ``setuptools.extern`` / ``pkg_resources.extern`` vendor importers, as
    inclusive ``[first, last]`` runs over the ordered version list.
``names`` / ``getattr``
    Public names bound at module level in a few modules, and the modules that
    define a module-level ``__getattr__``.
``section_eras`` (``cfg_sections``)
    Which ``[metadata*]`` / ``[options*]`` sections ``parse_configuration``
    (``setuptools/config.py``, later ``setuptools/config/setupcfg.py``) accepts.
    ``ConfigHandler.parse`` looks each sub-section name up as
    ``getattr(handler, ('parse_section' + ('_' + name if name else '')).replace('.', '__'))``
    and raises ``error`` when there is none, whatever ``ignore_option_errors`` is.
    ``metadata`` / ``options`` list every ``parse_section*`` attribute of the
    handler (its own and its setuptools bases'); ``split`` is how a section name
    becomes ``name``: "replace" (names starting with the prefix,
    ``full.replace(prefix, '').strip('.')``) or "partition" (names starting with
    the prefix, ``full.partition(prefix)[2].lstrip('.')``).  ``applied`` (the call
    in ``Distribution.parse_config_files`` was found), ``module``, ``order`` (the
    handlers' ``parse()`` order, so which error is raised first) and
    ``ignore_option_errors`` (``from``: the parameter of the caller that is
    forwarded, or null for a literal; ``default``: its default value).

When the analysis meets code it does not recognise it raises
:class:`ExtractionError` naming the version: it never guesses.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import datetime
import hashlib
import io
import json
import os
import re
import sys
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.utils import parse_wheel_filename
from packaging.version import Version

PYPI_JSON_URL = "https://pypi.org/pypi/setuptools/json"
MIN_VERSION = Version("38.0.0")
FORMAT = 1
GENERATED_BY = "scripts/gen_setuptools_facts.py"
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO_ROOT / "src" / "sapper" / "data" / "setuptools.json"
USER_AGENT = "sapper-dev gen_setuptools_facts"

# ``__all__`` of CPython 3.11's Lib/distutils/command/__init__.py (the last
# CPython with distutils), copied verbatim.  Used as ``distutils.command.__all__``
# for setuptools versions whose wheel has no ``setuptools/_distutils`` (< 48.0.0).
# This is the only hand-typed list in this script.
STDLIB_DISTUTILS_COMMANDS: tuple[str, ...] = (
    "build",
    "build_py",
    "build_ext",
    "build_clib",
    "build_scripts",
    "clean",
    "install",
    "install_lib",
    "install_headers",
    "install_scripts",
    "install_data",
    "sdist",
    "register",
    "bdist",
    "bdist_dumb",
    "bdist_rpm",
    "check",
    "upload",
)

# setuptools < 40.7.0 does not read setup.cfg itself: Distribution.parse_config_files
# calls distutils.dist.Distribution.parse_config_files of the standard library.
# This is that method, copied verbatim from CPython 3.11's Lib/distutils/dist.py
# (identical in 3.6-3.11 apart from whitespace), so the same extractor analyses it.
STDLIB_PARSE_CONFIG_FILES = """
def parse_config_files(self, filenames=None):
    from configparser import ConfigParser

    # Ignore install directory options if we have a venv
    if sys.prefix != sys.base_prefix:
        ignore_options = [
            'install-base', 'install-platbase', 'install-lib',
            'install-platlib', 'install-purelib', 'install-headers',
            'install-scripts', 'install-data', 'prefix', 'exec-prefix',
            'home', 'user', 'root']
    else:
        ignore_options = []

    ignore_options = frozenset(ignore_options)

    if filenames is None:
        filenames = self.find_config_files()

    if DEBUG:
        self.announce("Distribution.parse_config_files():")

    parser = ConfigParser()
    for filename in filenames:
        if DEBUG:
            self.announce("  reading %s" % filename)
        parser.read(filename)
        for section in parser.sections():
            options = parser.options(section)
            opt_dict = self.get_option_dict(section)

            for opt in options:
                if opt != '__name__' and opt not in ignore_options:
                    val = parser.get(section,opt)
                    opt = opt.replace('-', '_')
                    opt_dict[opt] = (filename, val)

        # Make the ConfigParser forget everything (so we retain
        # the original filenames that options come from)
        parser.__init__()
"""

# Modules whose public top-level names are recorded, by wheel path.
NAMES_MODULES: tuple[str, ...] = (
    "setuptools/__init__.py",
    "setuptools/command/easy_install.py",
    "setuptools/command/test.py",
    "pkg_resources/__init__.py",
    "setuptools/dist.py",
    "setuptools/dep_util.py",
)

DIST_PY = "setuptools/dist.py"


class ExtractionError(Exception):
    """The source does not match any pattern the extractor understands."""


# --------------------------------------------------------------------------- wheel view


class WheelView:
    """Read-only access to the files of one wheel (or of a test fixture)."""

    def __init__(self, names: Iterable[str], read_bytes: Callable[[str], bytes]) -> None:
        self.names = sorted(n for n in names if not n.endswith("/"))
        self._name_set = set(self.names)
        self._read_bytes = read_bytes
        self._text_cache: dict[str, str] = {}
        self._tree_cache: dict[str, ast.Module] = {}

    @classmethod
    def from_zip(cls, data: bytes) -> WheelView:
        archive = zipfile.ZipFile(io.BytesIO(data))
        return cls(archive.namelist(), archive.read)

    @classmethod
    def from_mapping(cls, files: Mapping[str, str]) -> WheelView:
        return cls(files, lambda name: files[name].encode())

    def has(self, path: str) -> bool:
        return path in self._name_set

    def has_dir(self, prefix: str) -> bool:
        prefix = prefix.rstrip("/") + "/"
        return any(n.startswith(prefix) for n in self.names)

    def text(self, path: str) -> str:
        if path not in self._text_cache:
            if path not in self._name_set:
                raise ExtractionError(f"{path} is not in the wheel")
            self._text_cache[path] = self._read_bytes(path).decode("utf-8")
        return self._text_cache[path]

    def tree(self, path: str) -> ast.Module:
        if path not in self._tree_cache:
            self._tree_cache[path] = ast.parse(self.text(path), filename=path)
        return self._tree_cache[path]

    def entry_points(self) -> dict[str, list[str]]:
        """Entry point names by group, from the top-level ``*.dist-info``."""
        found = [n for n in self.names if re.fullmatch(r"[^/]+\.dist-info/entry_points\.txt", n)]
        if len(found) != 1:
            raise ExtractionError(f"expected one top-level entry_points.txt, found {found}")
        return parse_entry_points(self.text(found[0]))


def parse_entry_points(text: str) -> dict[str, list[str]]:
    """Parse entry_points.txt the way importlib.metadata does (name = value lines)."""
    groups: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = groups.setdefault(line[1:-1].strip(), [])
            continue
        if current is None or "=" not in line:
            raise ExtractionError(f"unexpected entry_points.txt line {raw!r}")
        current.append(line.partition("=")[0].strip())
    return groups


# --------------------------------------------------------------------------- ast helpers


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def str_constant(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def str_sequence(node: ast.AST) -> list[str] | None:
    """The strings of a tuple/list/set literal of str constants (or a lone string)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        values = [str_constant(e) for e in node.elts]
        if any(v is None for v in values):
            return None
        return [v for v in values if v is not None]
    return None


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and str_constant(stmt.value) is not None


def find_class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return stmt
    return None


def find_function(body: Sequence[ast.stmt], name: str) -> ast.FunctionDef | None:
    found = None
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            found = stmt  # the last definition wins, as at run time
    return found


def fmt(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) < 160 else text[:157] + "..."


def module_path_for(view: WheelView, dotted_name: str) -> str | None:
    base = dotted_name.replace(".", "/")
    for candidate in (base + ".py", base + "/__init__.py"):
        if view.has(candidate):
            return candidate
    return None


def resolve_import(module_path: str, level: int, module: str | None) -> str:
    """Dotted module name for ``from <level dots><module> import ...`` in module_path."""
    if level == 0:
        return module or ""
    package = module_path.removesuffix(".py").split("/")
    package = package[:-1]  # the package containing the module (or __init__'s package)
    if level > 1:
        package = package[: len(package) - (level - 1)]
    parts = [*package, *(module.split(".") if module else [])]
    return ".".join(parts)


# --------------------------------------------------------------------------- cfg facts


@dataclass(frozen=True)
class Emission:
    warning: str
    due_date: str | None
    enforceable: bool


@dataclass
class KeyRule:
    action: str
    checked: str | None = None
    exempt: list[str] | None = None
    outside: str | None = None
    warning: str | None = None
    due_date: str | None = None
    enforceable: bool | None = None
    error: str | None = None
    commands: frozenset[str] | None = None  # command-set sources the rule consults

    def as_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "checked": self.checked,
            "exempt": self.exempt,
            "outside": self.outside,
            "warning": self.warning,
            "due_date": self.due_date,
            "enforceable": self.enforceable,
            "error": self.error,
        }


@dataclass
class _Scope:
    """Names a function body binds, plus which local names mean the option and section."""

    module: str  # wheel path of the module holding the code
    tree: ast.Module
    cls: ast.ClassDef | None
    opt: str | None
    section: str | None
    env: dict[str, ast.expr] = field(default_factory=dict)

    def function(self, call: ast.Call) -> ast.FunctionDef | None:
        """The FunctionDef a ``self.m(...)`` or ``m(...)`` call refers to."""
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and self.cls is not None
        ):
            return find_function(self.cls.body, func.attr)
        if isinstance(func, ast.Name):
            return find_function(self.tree.body, func.id)
        return None

    def callee_scope(self, call: ast.Call, fn: ast.FunctionDef) -> _Scope:
        """A scope for fn's body, with the caller's opt/section mapped onto fn's params."""
        params = [a.arg for a in fn.args.args]
        if params and params[0] == "self":
            params = params[1:]
        opt = section = None
        for param, arg in zip(params, call.args, strict=False):
            if isinstance(arg, ast.Name) and arg.id == self.opt:
                opt = param
            elif isinstance(arg, ast.Name) and arg.id == self.section:
                section = param
        return _Scope(self.module, self.tree, self.cls, opt, section)


def _walk_calls(node: ast.AST) -> Iterator[ast.Call]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            yield sub


def _date_from_tuple(node: ast.AST) -> str:
    if isinstance(node, ast.Tuple) and len(node.elts) == 3:
        parts = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if len(parts) == 3 and all(isinstance(p, int) for p in parts):
            return datetime.date(*parts).isoformat()
    raise ExtractionError(f"due date is not a (y, m, d) literal: {fmt(node)}")


class _WarningsAnalysis:
    """What ``X.emit(...)`` does for a warning class X, from the wheel's source."""

    def __init__(self, view: WheelView) -> None:
        self.view = view

    def resolve_class(self, module_path: str, name: str) -> tuple[str, ast.ClassDef]:
        """Follow imports from module_path to the ClassDef bound to name."""
        for _ in range(5):
            tree = self.view.tree(module_path)
            cls = find_class(tree, name)
            if cls is not None:
                return module_path, cls
            target = None
            for stmt in ast.walk(tree):
                if isinstance(stmt, ast.ImportFrom):
                    for alias in stmt.names:
                        if (alias.asname or alias.name) == name:
                            target = (
                                resolve_import(module_path, stmt.level, stmt.module),
                                alias.name,
                            )
            if target is None:
                break
            path = module_path_for(self.view, target[0])
            if path is None:
                break
            module_path, name = path, target[1]
        raise ExtractionError(f"cannot find class {name} (from {module_path})")

    def find_method(
        self, module_path: str, cls: ast.ClassDef, method: str
    ) -> tuple[str, ast.ClassDef, ast.FunctionDef]:
        seen = 0
        while seen < 10:
            seen += 1
            fn = find_function(cls.body, method)
            if fn is not None:
                return module_path, cls, fn
            bases = [dotted(b) for b in cls.bases]
            local = [b for b in bases if b is not None and "." not in b]
            if not local:
                break
            module_path, cls = self.resolve_class(module_path, local[0])
        raise ExtractionError(f"class {cls.name} has no method {method}")

    def class_attr(self, module_path: str, cls: ast.ClassDef, attr: str) -> ast.expr | None:
        for _ in range(10):
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == attr for t in stmt.targets
                ):
                    return stmt.value
            bases = [dotted(b) for b in cls.bases]
            local = [b for b in bases if b is not None and "." not in b]
            if not local:
                return None
            module_path, cls = self.resolve_class(module_path, local[0])
        return None

    def emit_enforces(self, module_path: str, fn: ast.FunctionDef) -> bool:
        """Does emit() raise when the due date is past and the env var asks for it?"""
        tree = self.view.tree(module_path)
        for node in ast.walk(fn):
            if not (isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body)):
                continue
            test = node.test
            terms = (
                test.values
                if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                else [test]
            )
            past_due = any(
                isinstance(t, ast.Compare)
                and len(t.ops) == 1
                and isinstance(t.ops[0], ast.Lt)
                and isinstance(t.comparators[0], ast.Call)
                and dotted(t.comparators[0].func) in {"date.today", "datetime.date.today"}
                for t in terms
            )
            switch = [
                t.func.id for t in terms if isinstance(t, ast.Call) and isinstance(t.func, ast.Name)
            ]
            if past_due and switch:
                checker = find_function(tree.body, switch[0])
                if checker is None:
                    raise ExtractionError(f"{module_path}: cannot find {switch[0]}()")
                return any(
                    str_constant(arg) == "SETUPTOOLS_ENFORCE_DEPRECATION"
                    for call in _walk_calls(checker)
                    if dotted(call.func) in {"os.getenv", "os.environ.get"}
                    for arg in call.args[:1]
                )
        return False

    def emission(self, scope: _Scope, call: ast.Call) -> Emission | None:
        """Describe a warning call, or None if call is not one."""
        name = dotted(call.func)
        if name == "warnings.warn":
            category = call.args[1] if len(call.args) > 1 else None
            for kw in call.keywords:
                if kw.arg == "category":
                    category = kw.value
            warning = "UserWarning" if category is None else dotted(category)
            if warning is None:
                raise ExtractionError(f"unrecognised warning category in {fmt(call)}")
            return Emission(warning.rpartition(".")[2], None, enforceable=False)
        if name is not None and name.endswith(".emit") and name.count(".") == 1:
            cls_name = name.partition(".")[0]
            cls_module, cls = self.resolve_class(scope.module, cls_name)
            due_node: ast.expr | None = None
            for kw in call.keywords:
                if kw.arg == "due_date":
                    due_node = kw.value
                elif kw.arg is None:
                    raise ExtractionError(f"**kwargs in {fmt(call)}")
            if due_node is None:
                due_node = self.class_attr(cls_module, cls, "_DUE_DATE")
            due = (
                None
                if due_node is None
                or (isinstance(due_node, ast.Constant) and due_node.value is None)
                else _date_from_tuple(due_node)
            )
            emit_module, _, emit_fn = self.find_method(cls_module, cls, "emit")
            enforces = self.emit_enforces(emit_module, emit_fn)
            return Emission(cls_name, due, enforceable=bool(due) and enforces)
        return None


def _is_call_on(node: ast.AST, var: str | None, method: str) -> ast.Call | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == var
    ):
        return node
    return None


def _key_predicate(node: ast.AST, scope: _Scope) -> tuple[str, bool] | None:
    """('dash'|'upper', key_is_ok) for tests on the option key, else None."""
    if _is_call_on(node, scope.opt, "islower") is not None:
        return "upper", True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _key_predicate(node.operand, scope)
        if inner is not None:
            return inner[0], not inner[1]
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and str_constant(node.left) == "-"
        and isinstance(node.comparators[0], ast.Name)
        and node.comparators[0].id == scope.opt
    ):
        if isinstance(node.ops[0], ast.In):
            return "dash", False
        if isinstance(node.ops[0], ast.NotIn):
            return "dash", True
    return None


def _key_transform(node: ast.AST, scope: _Scope) -> str | None:
    """'dash' for opt.replace('-', '_'), 'upper' for opt.lower()."""
    call = _is_call_on(node, scope.opt, "replace")
    if call is not None and [str_constant(a) for a in call.args] == ["-", "_"]:
        return "dash"
    call = _is_call_on(node, scope.opt, "lower")
    if call is not None and not call.args:
        return "upper"
    return None


# Section predicates are normalised to (negated, atoms): "section is in the union
# of atoms" (or not in it, when negated).  Atoms: ("eq", name), ("prefix", text),
# ("in", (names...)) and ("commands", sources).
_Atom = tuple[str, Any]


class _CommandSources:
    """Which lists the code's command-section set is built from."""

    def __init__(self, scope: _Scope) -> None:
        self.scope = scope

    def sources(self, node: ast.expr, scope: _Scope, depth: int = 0) -> frozenset[str]:
        if depth > 20:
            raise ExtractionError(f"command set expression too deep: {fmt(node)}")
        name = dotted(node)
        if name == "distutils.command.__all__":
            return frozenset({"distutils"})
        if name == "setuptools.command.__all__":
            return frozenset({"setuptools.command.__all__"})
        if isinstance(node, ast.Name) and node.id in scope.env:
            return self.sources(scope.env[node.id], scope, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.sources(node.left, scope, depth + 1) | self.sources(
                node.right, scope, depth + 1
            )
        if isinstance(node, ast.Set):
            out: frozenset[str] = frozenset()
            for elt in node.elts:
                if not isinstance(elt, ast.Starred):
                    raise ExtractionError(f"unrecognised command set element: {fmt(elt)}")
                out |= self.sources(elt.value, scope, depth + 1)
            return out
        if isinstance(node, ast.Call):
            func = dotted(node.func)
            if func in {"list", "set", "tuple", "frozenset", "sorted"} and len(node.args) == 1:
                return self.sources(node.args[0], scope, depth + 1)
            if func == "itertools.chain" and not node.keywords:
                out = frozenset()
                for arg in node.args:
                    out |= self.sources(arg, scope, depth + 1)
                return out
            fn = scope.function(node)
            if fn is not None and not node.args:
                return self.function_sources(fn, depth + 1)
        ep = self.entry_point_names(node, scope)
        if ep is not None:
            return frozenset({ep})
        raise ExtractionError(f"unrecognised command set expression: {fmt(node)}")

    def function_sources(self, fn: ast.FunctionDef, depth: int) -> frozenset[str]:
        """Sources of the value a command-set helper (e.g. _setuptools_commands) returns."""
        inner = _Scope(self.scope.module, self.scope.tree, self.scope.cls, None, None)
        results: list[frozenset[str]] = []

        def run(body: Sequence[ast.stmt], bootstrap: bool) -> None:
            for stmt in body:
                if is_docstring(stmt):
                    continue
                if (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                ):
                    target, value = stmt.targets[0].id, stmt.value
                elif (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.value is not None
                ):
                    target, value = stmt.target.id, stmt.value
                elif isinstance(stmt, ast.Try):
                    run(stmt.body, bootstrap)
                    for handler in stmt.handlers:
                        run(handler.body, bootstrap=True)
                    continue
                elif isinstance(stmt, ast.Return) and stmt.value is not None:
                    if bootstrap and _is_empty_literal(stmt.value):
                        continue  # "during bootstrapping, distribution doesn't exist"
                    results.append(self.sources(stmt.value, inner, depth + 1))
                    continue
                else:
                    raise ExtractionError(f"unrecognised statement in {fn.name}: {fmt(stmt)}")
                if bootstrap:
                    if not _is_empty_literal(value) or target not in inner.env:
                        raise ExtractionError(f"unrecognised fallback in {fn.name}: {fmt(stmt)}")
                    continue
                inner.env[target] = value

        run(fn.body, bootstrap=False)
        if not results:
            raise ExtractionError(f"{fn.name} returns nothing recognisable")
        return frozenset().union(*results)

    def entry_point_names(self, node: ast.expr, scope: _Scope) -> str | None:
        """'ep:*' for names of all entry points, 'ep:<group>' for one group's names."""
        value = self._ep_value(node, scope, 0)
        if value is not None and value[0] in {"names", "group"}:
            return "ep:" + value[1]  # iterating an entry map yields its names
        return None

    def _ep_value(self, node: ast.expr, scope: _Scope, depth: int) -> tuple[str, str] | None:
        if depth > 10:
            return None
        if isinstance(node, ast.Name) and node.id in scope.env:
            return self._ep_value(scope.env[node.id], scope, depth + 1)
        if isinstance(node, ast.Call):
            func = dotted(node.func)
            args = [str_constant(a) for a in node.args]
            if func in {
                "metadata.distribution",
                "importlib.metadata.distribution",
                "importlib_metadata.distribution",
                "pkg_resources.get_distribution",
            } and args == ["setuptools"]:
                return ("dist", "")
            if (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "get_entry_map"
                and len(args) == 1
                and args[0]
            ):
                base = self._ep_value(node.func.value, scope, depth + 1)
                if base == ("dist", ""):
                    return ("group", args[0])
            if func in {"list", "set", "tuple", "frozenset", "sorted"} and len(node.args) == 1:
                inner = self._ep_value(node.args[0], scope, depth + 1)
                if inner is not None and inner[0] == "group":
                    return ("names", inner[1])
                if inner is not None and inner[0] == "names":
                    return inner
        if isinstance(node, ast.Attribute):
            base = self._ep_value(node.value, scope, depth + 1)
            if base == ("dist", "") and node.attr == "entry_points":
                return ("eps", "*")
            if base is not None and base[0] == "eps" and node.attr == "names":
                return ("names", "*")
        if (
            isinstance(node, (ast.GeneratorExp, ast.SetComp, ast.ListComp))
            and len(node.generators) == 1
        ):
            gen = node.generators[0]
            if (
                not gen.ifs
                and isinstance(gen.target, ast.Name)
                and isinstance(node.elt, ast.Attribute)
                and node.elt.attr == "name"
                and isinstance(node.elt.value, ast.Name)
                and node.elt.value.id == gen.target.id
            ):
                base = self._ep_value(gen.iter, scope, depth + 1)
                if base is not None and base[0] == "eps":
                    return ("names", base[1])
        return None


def _is_empty_literal(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not node.elts


class _RuleAnalysis:
    def __init__(
        self, view: WheelView, tree: ast.Module, cls: ast.ClassDef | None, module: str
    ) -> None:
        self.view = view
        self.tree = tree
        self.cls = cls
        self.module = module
        self.warnings = _WarningsAnalysis(view)

    # -- section predicates

    def section_pred(
        self, node: ast.expr, scope: _Scope, depth: int = 0
    ) -> tuple[bool, frozenset[_Atom]]:
        if depth > 20:
            raise ExtractionError(f"section predicate too deep: {fmt(node)}")
        sec = scope.section
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            negated, atoms = self.section_pred(node.operand, scope, depth + 1)
            return not negated, atoms
        if isinstance(node, ast.BoolOp):
            parts = [self.section_pred(v, scope, depth + 1) for v in node.values]
            polarity = {p[0] for p in parts}
            atoms = frozenset().union(*(p[1] for p in parts))
            if isinstance(node.op, ast.Or) and polarity == {False}:
                return False, atoms
            if isinstance(node.op, ast.And) and polarity == {True}:
                return True, atoms  # De Morgan: not a and not b == not (a or b)
            raise ExtractionError(f"unrecognised section condition: {fmt(node)}")
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.left, ast.Name)
            and node.left.id == sec
        ):
            op, right = node.ops[0], node.comparators[0]
            if isinstance(op, (ast.Eq, ast.NotEq)) and str_constant(right) is not None:
                return isinstance(op, ast.NotEq), frozenset({("eq", str_constant(right))})
            if isinstance(op, (ast.In, ast.NotIn)):
                negated = isinstance(op, ast.NotIn)
                literal = right
                if isinstance(literal, ast.Name) and literal.id in scope.env:
                    literal = scope.env[literal.id]
                names = str_sequence(literal)
                if names is not None:
                    return negated, frozenset({("in", tuple(names))})
                sources = _CommandSources(scope).sources(right, scope)
                return negated, frozenset({("commands", sources)})
        call = _is_call_on(node, sec, "startswith")
        if call is not None and len(call.args) == 1 and str_constant(call.args[0]) is not None:
            return False, frozenset({("prefix", str_constant(call.args[0]))})
        if isinstance(node, ast.Call):
            fn = scope.function(node)
            if fn is not None:
                inner = scope.callee_scope(node, fn)
                return self.section_pred(self.returned_expr(fn, inner), inner, depth + 1)
        raise ExtractionError(f"unrecognised section condition: {fmt(node)}")

    def returned_expr(self, fn: ast.FunctionDef, scope: _Scope) -> ast.expr:
        """The expression a predicate helper returns (after simple local assignments)."""
        body = [s for s in fn.body if not is_docstring(s)]
        for stmt in body[:-1]:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                scope.env[stmt.targets[0].id] = stmt.value
            else:
                raise ExtractionError(f"unrecognised statement in {fn.name}: {fmt(stmt)}")
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
            raise ExtractionError(f"{fn.name} does not end with a return")
        return body[-1].value

    def guard_terms(
        self, node: ast.expr, scope: _Scope, depth: int = 0
    ) -> Iterator[tuple[ast.expr, _Scope]]:
        """Flatten a guard's ``or`` chain, inlining helper methods that return ``or`` chains."""
        if depth > 10:
            raise ExtractionError(f"guard too deep: {fmt(node)}")
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            for value in node.values:
                yield from self.guard_terms(value, scope, depth + 1)
            return
        if isinstance(node, ast.Call) and _key_predicate(node, scope) is None:
            fn = scope.function(node)
            if fn is not None:
                inner = scope.callee_scope(node, fn)
                expr = self.returned_expr(fn, inner)
                if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
                    yield from self.guard_terms(expr, inner, depth + 1)
                    return
        yield node, scope

    # -- key rules

    def handler_rule(self, call: ast.Call, caller: _Scope) -> tuple[str, KeyRule]:
        """Analyse ``opt = self.<handler>(opt, section)``."""
        fn = caller.function(call)
        if fn is None:
            raise ExtractionError(f"cannot find the method called in {fmt(call)}")
        scope = caller.callee_scope(call, fn)
        if scope.opt is None or scope.section is None:
            raise ExtractionError(f"{fn.name}: cannot map the option/section parameters")
        kinds: set[str] = set()
        exempt: list[str] = []
        checked = "all"
        outside: str | None = None
        commands: frozenset[str] | None = None
        transformed: dict[str, str] = {}
        key_ok_guard = False
        emissions: list[Emission] = []
        error: str | None = None
        returned: str | None = None

        def returned_kind(stmt: ast.Return) -> str:
            value = stmt.value
            if isinstance(value, ast.Name) and value.id == scope.opt:
                return "keep"
            if isinstance(value, ast.Name) and value.id in transformed:
                return "convert"
            raise ExtractionError(f"{fn.name}: unrecognised return {fmt(stmt)}")

        body = [s for s in fn.body if not is_docstring(s)]
        for index, stmt in enumerate(body):
            last = index == len(body) - 1
            if isinstance(stmt, ast.Return):
                if not last:
                    raise ExtractionError(f"{fn.name}: unreachable code after {fmt(stmt)}")
                returned = returned_kind(stmt)
                continue
            if isinstance(stmt, ast.Raise) and last:
                if not (isinstance(stmt.exc, ast.Call) and isinstance(stmt.exc.func, ast.Name)):
                    raise ExtractionError(f"{fn.name}: unrecognised raise {fmt(stmt)}")
                error = stmt.exc.func.id
                continue
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                target = stmt.targets[0].id
                kind = _key_transform(stmt.value, scope)
                if kind is not None:
                    transformed[target] = kind
                    kinds.add(kind)
                    continue
                for sub in _walk_calls(stmt.value):
                    if self.warnings.emission(scope, sub) is not None:
                        raise ExtractionError(
                            f"{fn.name}: warning inside an assignment {fmt(stmt)}"
                        )
                scope.env[target] = stmt.value
                continue
            if (
                isinstance(stmt, ast.If)
                and not stmt.orelse
                and len(stmt.body) == 1
                and isinstance(stmt.body[0], ast.Return)
            ):
                result = returned_kind(stmt.body[0])
                for term, term_scope in self.guard_terms(stmt.test, scope):
                    key = _key_predicate(term, term_scope)
                    if key is not None:
                        if not key[1] or result != "keep":
                            raise ExtractionError(f"{fn.name}: unrecognised key guard {fmt(stmt)}")
                        kinds.add(key[0])
                        key_ok_guard = True
                        continue
                    negated, atoms = self.section_pred(term, term_scope)
                    kinds_of_atoms = {a[0] for a in atoms}
                    if not negated and kinds_of_atoms == {"in"}:
                        if result != "keep":
                            raise ExtractionError(
                                f"{fn.name}: exempt sections are converted: {fmt(stmt)}"
                            )
                        for atom in atoms:
                            exempt.extend(atom[1])
                    elif negated and atoms == {("eq", "metadata")}:
                        checked, outside = _set_once(checked, "metadata", fn), result
                    elif (
                        negated
                        and kinds_of_atoms == {"eq", "prefix", "commands"}
                        and {a for a in atoms if a[0] != "commands"}
                        == {("eq", "metadata"), ("prefix", "options")}
                    ):
                        checked, outside = _set_once(checked, "setuptools", fn), result
                        commands = next(a[1] for a in atoms if a[0] == "commands")
                    else:
                        raise ExtractionError(f"{fn.name}: unrecognised section guard {fmt(term)}")
                continue
            if isinstance(stmt, ast.If) and not stmt.orelse:
                key = _key_predicate(stmt.test, scope)
                if key is None or key[1]:
                    raise ExtractionError(f"{fn.name}: unrecognised condition {fmt(stmt.test)}")
                kinds.add(key[0])
                for inner in stmt.body:
                    emission = self._statement_emission(inner, scope)
                    if emission is None:
                        raise ExtractionError(f"{fn.name}: unrecognised statement {fmt(inner)}")
                    emissions.append(emission)
                continue
            emission = self._statement_emission(stmt, scope)
            if emission is not None:
                if not key_ok_guard:
                    raise ExtractionError(f"{fn.name}: warns without checking the key: {fmt(stmt)}")
                emissions.append(emission)
                continue
            raise ExtractionError(f"{fn.name}: unrecognised statement {fmt(stmt)}")

        if len(kinds) != 1:
            raise ExtractionError(f"{fn.name}: cannot tell which keys it handles ({sorted(kinds)})")
        kind = kinds.pop()
        if error is not None:
            if emissions or not key_ok_guard:
                raise ExtractionError(f"{fn.name}: unrecognised raise pattern")
            action = "raise"
        elif returned is None:
            raise ExtractionError(f"{fn.name}: no return")
        elif emissions:
            if returned != "convert":
                raise ExtractionError(f"{fn.name}: warns but keeps the key")
            action = "warn"
        elif returned == "convert":
            action = "convert"
        else:
            raise ExtractionError(f"{fn.name}: neither converts, warns nor raises")
        if len(set(emissions)) > 1:
            raise ExtractionError(f"{fn.name}: several different warnings {emissions}")
        emission = emissions[0] if emissions else None
        if checked == "all":
            outside = None
        rule = KeyRule(
            action=action,
            checked=checked,
            exempt=exempt,
            outside=outside,
            warning=emission.warning if emission else None,
            due_date=emission.due_date if emission else None,
            enforceable=emission.enforceable if emission else None,
            error=error,
            commands=commands,
        )
        return kind, rule

    def _statement_emission(self, stmt: ast.stmt, scope: _Scope) -> Emission | None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return self.warnings.emission(scope, stmt.value)
        return None


def _set_once(current: str, new: str, fn: ast.FunctionDef) -> str:
    if current != "all":
        raise ExtractionError(f"{fn.name}: several section restrictions")
    return new


def _find_parse_method(
    view: WheelView, tree: ast.Module
) -> tuple[str, ast.ClassDef | None, ast.FunctionDef, ast.Module]:
    """The method that actually reads setup.cfg: ('setuptools'|'distutils', cls, fn, tree)."""
    cls = find_class(tree, "Distribution")
    if cls is None:
        raise ExtractionError(f"{DIST_PY}: no class Distribution")
    public = find_function(cls.body, "parse_config_files")
    if public is None:
        raise ExtractionError(f"{DIST_PY}: Distribution has no parse_config_files")
    own: list[str] = []
    delegated = False
    for call in _walk_calls(public):
        name = dotted(call.func)
        if name == "self._parse_config_files":
            own.append("_parse_config_files")
        elif (
            name is not None
            and name.endswith(".parse_config_files")
            and name != "self.parse_config_files"
        ):
            base = name.rpartition(".")[0]
            if _bound_from_distutils(tree, base):
                delegated = True
            else:
                raise ExtractionError(f"{DIST_PY}: parse_config_files calls {name}")
    if own and not delegated:
        fn = find_function(cls.body, own[0])
        if fn is None:
            raise ExtractionError(f"{DIST_PY}: Distribution has no {own[0]}")
        return "setuptools", cls, fn, tree
    if delegated and not own:
        stdlib = ast.parse(STDLIB_PARSE_CONFIG_FILES)
        fn = stdlib.body[0]
        assert isinstance(fn, ast.FunctionDef)
        return "distutils", None, fn, stdlib
    raise ExtractionError(f"{DIST_PY}: cannot tell which code reads setup.cfg")


def _bound_from_distutils(tree: ast.Module, name: str) -> bool:
    """Is module-level name bound to something taken from distutils?"""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            return any((dotted(n) or "").startswith("distutils.") for n in ast.walk(stmt.value))
        if (
            isinstance(stmt, ast.ImportFrom)
            and (stmt.module or "").startswith("distutils")
            and any((a.asname or a.name) == name for a in stmt.names)
        ):
            return True
    return False


def _parser_facts(fn: ast.FunctionDef) -> tuple[bool, str, list[str]]:
    """(optionxform_str, encoding, venv_ignored) of the setup.cfg reading method."""
    parsers: set[str] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and (dotted(node.value.func) or "").rpartition(".")[2]
            in {"ConfigParser", "RawConfigParser"}
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    parsers.add(target.id)
            for kw in node.value.keywords:
                if kw.arg == "optionxform":
                    raise ExtractionError(
                        f"ConfigParser(optionxform=...) not understood: {fmt(node)}"
                    )
    if len(parsers) != 1:
        raise ExtractionError(f"{fn.name}: expected one ConfigParser, found {sorted(parsers)}")
    parser = parsers.pop()

    optionxform_str = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if dotted(target) == f"{parser}.optionxform":
                    if dotted(node.value) != "str":
                        raise ExtractionError(f"unrecognised optionxform: {fmt(node)}")
                    optionxform_str = True

    encodings: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and dotted(node.func) == f"{parser}.read":
            encodings.add(_encoding_kw(node) or "locale")
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and dotted(call.func) in {"open", "io.open"}:
                    mode = str_constant(call.args[1]) if len(call.args) > 1 else None
                    for kw in call.keywords:
                        if kw.arg == "mode":
                            mode = str_constant(kw.value)
                    if mode is not None and "b" in mode:
                        names = {dotted(c.func) for c in _walk_calls(node)}
                        if "detect_encoding" in names and "io.TextIOWrapper" in names:
                            encodings.add("coding-header")
                        else:
                            raise ExtractionError(
                                f"binary open of setup.cfg not understood: {fmt(call)}"
                            )
                    else:
                        encodings.add(_encoding_kw(call) or "locale")
    if len(encodings) != 1:
        raise ExtractionError(
            f"{fn.name}: cannot tell how setup.cfg is opened ({sorted(encodings)})"
        )

    ignored: list[list[str]] = []
    mentions_venv = False
    for node in ast.walk(fn):
        if dotted(node) == "sys.base_prefix":
            mentions_venv = True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "ignore_options" for t in node.targets
        ):
            for sub in ast.walk(node.value):
                values = str_sequence(sub) if isinstance(sub, ast.List) else None
                if values:
                    ignored.append(values)
    if len(ignored) != 1 or not mentions_venv:
        raise ExtractionError(f"{fn.name}: cannot find the venv ignore_options list")
    return optionxform_str, encodings.pop().lower(), ignored[0]


def _encoding_kw(call: ast.Call) -> str | None:
    for kw in call.keywords:
        if kw.arg == "encoding":
            value = str_constant(kw.value)
            if value is None:
                raise ExtractionError(f"non-literal encoding: {fmt(call)}")
            return value
    return None


def _option_loop(fn: ast.FunctionDef) -> tuple[ast.For, str, str]:
    """The ``for opt in options`` loop, with the option and section variable names."""
    for outer in ast.walk(fn):
        if not (isinstance(outer, ast.For) and isinstance(outer.target, ast.Name)):
            continue
        if not (
            isinstance(outer.iter, ast.Call)
            and (dotted(outer.iter.func) or "").endswith(".sections")
        ):
            continue
        section = outer.target.id
        for inner in ast.walk(outer):
            if (
                isinstance(inner, ast.For)
                and inner is not outer
                and isinstance(inner.target, ast.Name)
            ):
                return inner, inner.target.id, section
    raise ExtractionError(f"{fn.name}: cannot find the loop over sections and options")


def extract_cfg(view: WheelView) -> dict[str, Any]:
    """setup.cfg key-handling facts of one setuptools wheel."""
    tree = view.tree(DIST_PY)
    parser, cls, fn, fn_tree = _find_parse_method(view, tree)
    optionxform_str, encoding, venv_ignored = _parser_facts(fn)
    loop, opt, section = _option_loop(fn)
    analysis = _RuleAnalysis(view, tree, cls, DIST_PY)
    scope = _Scope(DIST_PY, tree, cls, opt, section)

    rules: dict[str, KeyRule] = {}
    for node in ast.walk(loop):
        if not (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == opt for t in node.targets)
        ):
            continue
        if len(node.targets) != 1:
            raise ExtractionError(f"unrecognised option assignment {fmt(node)}")
        inline = _key_transform(node.value, scope)
        if inline == "dash":
            kind, rule = "dash", KeyRule(action="convert", checked="all", exempt=[])
        elif isinstance(node.value, ast.Call) and scope.function(node.value) is not None:
            if fn_tree is not tree:
                raise ExtractionError("stdlib code calls a setuptools method")
            kind, rule = analysis.handler_rule(node.value, scope)
        else:
            raise ExtractionError(f"unrecognised option transformation {fmt(node)}")
        if kind in rules:
            raise ExtractionError(f"two {kind} rules in {fn.name}")
        rules[kind] = rule
    if "dash" not in rules:
        raise ExtractionError(f"{fn.name}: no handling of dash-separated keys found")
    if "upper" not in rules:
        rules["upper"] = KeyRule(action="none")

    sources = {r.commands for r in rules.values() if r.commands is not None}
    if len(sources) > 1:
        raise ExtractionError(f"the key rules use different command sets: {sources}")
    commands = sorted(command_set(view, sources.pop())) if sources else None
    return {
        "parser": parser,
        "optionxform_str": optionxform_str,
        "encoding": encoding,
        "venv_ignored": venv_ignored,
        "dash": rules["dash"].as_json(),
        "upper": rules["upper"].as_json(),
        "commands": commands,
    }


# --------------------------------------------------------------------------- setup.cfg sections


def _bound_module(view: WheelView, module_path: str, tree: ast.Module, name: str) -> str:
    """Wheel path of the module a module-level ``from X import name`` binds (or of X.name)."""
    for stmt in tree.body:
        if not isinstance(stmt, ast.ImportFrom):
            continue
        for alias in stmt.names:
            if (alias.asname or alias.name) != name:
                continue
            package = resolve_import(module_path, stmt.level, stmt.module)
            # ``from pkg import submodule`` or ``from module import function``
            for candidate in (f"{package}.{alias.name}", package):
                path = module_path_for(view, candidate)
                if path is not None:
                    return path
            raise ExtractionError(f"{module_path}: cannot find the module of {fmt(stmt)}")
    raise ExtractionError(f"{module_path}: {name} is not bound by a module-level import")


def _parse_configuration_calls(fn: ast.FunctionDef) -> list[ast.Call]:
    return [c for c in _walk_calls(fn) if (dotted(c.func) or "").endswith("parse_configuration")]


def _ignore_option_errors(call: ast.Call, fn: ast.FunctionDef, target: ast.FunctionDef) -> Any:
    """How the ``ignore_option_errors`` argument of a parse_configuration call is fixed."""
    value: ast.expr | None = call.args[2] if len(call.args) > 2 else None
    for kw in call.keywords:
        if kw.arg == "ignore_option_errors":
            value = kw.value
        elif kw.arg is None:
            raise ExtractionError(f"parse_configuration called with **kwargs: {fmt(call)}")
    if value is None:  # the callee's own default
        return {
            "from": "parse_configuration",
            "default": _param_default(target, "ignore_option_errors"),
        }
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return {"from": None, "default": value.value}
    if isinstance(value, ast.Name):
        return {
            "from": f"Distribution.{fn.name}",
            "default": _param_default(fn, value.id),
        }
    raise ExtractionError(f"ignore_option_errors not understood: {fmt(call)}")


def _param_default(fn: ast.FunctionDef, name: str) -> bool:
    args = [*fn.args.posonlyargs, *fn.args.args]
    defaults: dict[str, ast.expr | None] = dict(
        zip(
            [a.arg for a in args][len(args) - len(fn.args.defaults) :],
            fn.args.defaults,
            strict=True,
        )
    )
    defaults.update(
        {a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)}
    )
    default = defaults.get(name)
    if not (isinstance(default, ast.Constant) and isinstance(default.value, bool)):
        raise ExtractionError(f"{fn.name}: parameter {name} has no bool default")
    return default.value


def _module_class(tree: ast.Module, name: str, path: str) -> ast.ClassDef | None:
    """The module-level class ``name``; refuses names bound more than once."""
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    if len(found) > 1:
        raise ExtractionError(f"{path}: class {name} is defined {len(found)} times")
    return found[0] if found else None


def _class_chain(tree: ast.Module, cls: ast.ClassDef, path: str) -> list[ast.ClassDef]:
    """cls and its bases defined in the same module, in MRO order (single inheritance)."""
    chain = [cls]
    while True:
        current = chain[-1]
        local: list[ast.ClassDef] = []
        for base in current.bases:
            node = base.value if isinstance(base, ast.Subscript) else base
            name = dotted(node)
            if name in {"object", "Generic", "typing.Generic"}:
                continue
            found = _module_class(tree, name, path) if name else None
            if found is None:
                raise ExtractionError(f"{path}: base {fmt(base)} of {current.name} not understood")
            local.append(found)
        if current.keywords:
            raise ExtractionError(f"{path}: class {current.name} has keywords (metaclass?)")
        if not local:
            return chain
        if len(local) > 1:
            raise ExtractionError(f"{path}: {current.name} has several setuptools bases")
        if local[0] in chain:
            raise ExtractionError(f"{path}: inheritance cycle at {local[0].name}")
        chain.append(local[0])


def _class_names(cls: ast.ClassDef) -> set[str]:
    """Names bound in a class body (methods and assignments, including nested blocks)."""
    names: set[str] = set()
    for stmt in cls.body:
        for node in ast.walk(stmt) if isinstance(stmt, (ast.If, ast.Try)) else [stmt]:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    names.update(_target_names(target))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                names.update(_target_names(node.target))
    return names


def _chain_method(chain: Sequence[ast.ClassDef], name: str, path: str) -> ast.FunctionDef:
    for cls in chain:
        fn = find_function(cls.body, name)
        if fn is not None:
            return fn
    raise ExtractionError(f"{path}: {chain[0].name} has no method {name}")


def _section_prefix(chain: Sequence[ast.ClassDef], path: str) -> str:
    for cls in chain:
        for stmt in cls.body:
            target = (
                stmt.targets[0]
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                else stmt.target
                if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
                else None
            )
            if isinstance(target, ast.Name) and target.id == "section_prefix":
                assert isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None
                value = str_constant(stmt.value)
                if not value:
                    raise ExtractionError(f"{path}: section_prefix is not a string: {fmt(stmt)}")
                return value
    raise ExtractionError(f"{path}: {chain[0].name} has no section_prefix")


def _body(fn: ast.FunctionDef) -> list[ast.stmt]:
    return [s for s in fn.body if not is_docstring(s)]


def _is_self_attr(node: ast.AST, attr: str, owner: str = "self") -> bool:
    return dotted(node) == f"{owner}.{attr}"


def _assigned(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, value) of ``name = value`` or ``name: T = value``."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
        return stmt.target.id, stmt.value
    return None


def _percent_or_fstring(node: ast.AST, prefix: str) -> str | None:
    """X for ``'<prefix>%s' % X`` or ``f'<prefix>{X}'`` (X a plain name)."""
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and str_constant(node.left) == prefix + "%s"
        and isinstance(node.right, ast.Name)
    ):
        return node.right.id
    if (
        isinstance(node, ast.JoinedStr)
        and len(node.values) == 2
        and str_constant(node.values[0]) == prefix
        and isinstance(node.values[1], ast.FormattedValue)
        and node.values[1].conversion == -1
        and node.values[1].format_spec is None
        and isinstance(node.values[1].value, ast.Name)
    ):
        return node.values[1].value.id
    return None


def _parse_loop_error(fn: ast.FunctionDef, path: str) -> str:
    """Check ConfigHandler.parse is the known getattr dispatch; the exception it raises.

    Recognised (names free, ``%`` or f-strings, annotations allowed)::

        for name, options in self.sections.items():
            postfix = ''
            if name:
                postfix = '_%s' % name
            method = getattr(self, ('parse_section%s' % postfix).replace('.', '__'), None)
            if method is None:
                raise Error(...)
            method(options)
    """

    def bad(what: str) -> ExtractionError:
        return ExtractionError(f"{path}: {fn.name}() not understood ({what})")

    body = _body(fn)
    if len(body) != 1 or not isinstance(body[0], ast.For) or body[0].orelse:
        raise bad("expected a single for loop")
    loop = body[0]
    if not (
        isinstance(loop.target, ast.Tuple)
        and len(loop.target.elts) == 2
        and all(isinstance(e, ast.Name) for e in loop.target.elts)
        and isinstance(loop.iter, ast.Call)
        and not loop.iter.args
        and isinstance(loop.iter.func, ast.Attribute)
        and loop.iter.func.attr == "items"
        and _is_self_attr(loop.iter.func.value, "sections")
    ):
        raise bad(f"loop {fmt(loop.target)} in {fmt(loop.iter)}")
    name, options = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
    stmts = loop.body
    if len(stmts) != 5:
        raise bad(f"{len(stmts)} statements in the loop")
    first = _assigned(stmts[0])
    if first is None or str_constant(first[1]) != "":
        raise bad(fmt(stmts[0]))
    postfix = first[0]
    cond = stmts[1]
    if not (
        isinstance(cond, ast.If)
        and isinstance(cond.test, ast.Name)
        and cond.test.id == name
        and not cond.orelse
        and len(cond.body) == 1
        and _assigned(cond.body[0]) is not None
    ):
        raise bad(fmt(cond))
    inner = _assigned(cond.body[0])
    assert inner is not None
    if inner[0] != postfix or _percent_or_fstring(inner[1], "_") != name:
        raise bad(fmt(cond.body[0]))
    lookup = _assigned(stmts[2])
    if lookup is None:
        raise bad(fmt(stmts[2]))
    method, call = lookup
    if not (
        isinstance(call, ast.Call)
        and dotted(call.func) == "getattr"
        and not call.keywords
        and len(call.args) == 3
        and dotted(call.args[0]) == "self"
        and isinstance(call.args[2], ast.Constant)
        and call.args[2].value is None
    ):
        raise bad(fmt(stmts[2]))
    key = call.args[1]
    if not (
        isinstance(key, ast.Call)
        and isinstance(key.func, ast.Attribute)
        and key.func.attr == "replace"
        and [str_constant(a) for a in key.args] == [".", "__"]
        and not key.keywords
        and _percent_or_fstring(key.func.value, "parse_section") == postfix
    ):
        raise bad(f"lookup key {fmt(key)}")
    check = stmts[3]
    if not (
        isinstance(check, ast.If)
        and isinstance(check.test, ast.Compare)
        and isinstance(check.test.left, ast.Name)
        and check.test.left.id == method
        and len(check.test.ops) == 1
        and isinstance(check.test.ops[0], ast.Is)
        and isinstance(check.test.comparators[0], ast.Constant)
        and check.test.comparators[0].value is None
        and not check.orelse
        and len(check.body) == 1
        and isinstance(check.body[0], ast.Raise)
        and isinstance(check.body[0].exc, ast.Call)
        and isinstance(check.body[0].exc.func, ast.Name)
    ):
        raise bad(fmt(check))
    error = check.body[0].exc.func.id
    last = stmts[4]
    if not (
        isinstance(last, ast.Expr)
        and isinstance(last.value, ast.Call)
        and isinstance(last.value.func, ast.Name)
        and last.value.func.id == method
        and len(last.value.args) == 1
        and isinstance(last.value.args[0], ast.Name)
        and last.value.args[0].id == options
    ):
        raise bad(fmt(last))
    return error


def _sections_split(chain: Sequence[ast.ClassDef], path: str) -> str:
    """How ``self.sections`` maps full section names to sub-section names.

    "replace": ``name.replace(prefix, '').strip('.')`` for names starting with prefix;
    "partition": ``name.partition(prefix)`` with an empty head, then ``.lstrip('.')``.
    """
    init, assigns = None, []
    for index, cls in enumerate(chain):
        init = find_function(cls.body, "__init__")
        if init is None:
            continue
        assigns = [
            s
            for s in ast.walk(init)
            if isinstance(s, (ast.Assign, ast.AnnAssign))
            and any(
                _is_self_attr(t, "sections")
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            )
        ]
        if assigns or not _calls_super_init(init, cls.name, chain[index + 1 :]):
            break
    if init is None or len(assigns) != 1 or assigns[0].value is None:
        raise ExtractionError(f"{path}: expected one self.sections assignment in __init__")
    value = assigns[0].value
    if isinstance(value, ast.Name):
        return _split_replace(init, value.id, path)
    if (
        isinstance(value, ast.Call)
        and dotted(value.func) == "dict"
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Call)
        and (dotted(value.args[0].func) or "").startswith("self.")
    ):
        helper = _chain_method(chain, (dotted(value.args[0].func) or "")[5:], path)
        return _split_partition(helper, path)
    raise ExtractionError(f"{path}: self.sections = {fmt(value)} not understood")


def _calls_super_init(init: ast.FunctionDef, name: str, bases: Sequence[ast.ClassDef]) -> bool:
    """Does init delegate to the next ``__init__`` (``super().__init__(...)``) at top level?"""
    for stmt in _body(init):
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        func = stmt.value.func
        if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
            continue
        owner = func.value
        if (
            isinstance(owner, ast.Call)
            and dotted(owner.func) == "super"
            and (
                not owner.args
                or (
                    len(owner.args) == 2
                    and dotted(owner.args[0]) == name
                    and dotted(owner.args[1]) == "self"
                )
            )
        ):
            return True
        if bases and dotted(owner) == bases[0].name:
            return True
        raise ExtractionError(f"{name}.__init__: {fmt(stmt)} not understood")
    return False


def _split_replace(init: ast.FunctionDef, var: str, path: str) -> str:
    """The loop filling ``var`` in __init__: startswith filter then replace/strip."""
    prefix_names = {"self.section_prefix"}
    for stmt in _body(init):
        bound = _assigned(stmt)
        if bound is not None and dotted(bound[1]) == "self.section_prefix":
            prefix_names.add(bound[0])
    loops = [
        s
        for s in _body(init)
        if isinstance(s, ast.For)
        and any(
            isinstance(n, ast.Subscript) and dotted(n.value) == var
            for b in s.body
            if isinstance(b, ast.Assign)
            for n in b.targets
        )
    ]
    if len(loops) != 1:
        raise ExtractionError(f"{path}: cannot find the loop filling {var}")
    loop = loops[0]
    if not (
        isinstance(loop.target, ast.Tuple)
        and len(loop.target.elts) == 2
        and all(isinstance(e, ast.Name) for e in loop.target.elts)
        and len(loop.body) == 3
        and not loop.orelse
    ):
        raise ExtractionError(f"{path}: loop {fmt(loop.target)} not understood")
    name, options = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
    skip, rename, store = loop.body
    ok_skip = (
        isinstance(skip, ast.If)
        and isinstance(skip.test, ast.UnaryOp)
        and isinstance(skip.test.op, ast.Not)
        and isinstance(skip.test.operand, ast.Call)
        and dotted(skip.test.operand.func) == f"{name}.startswith"
        and len(skip.test.operand.args) == 1
        and dotted(skip.test.operand.args[0]) in prefix_names
        and len(skip.body) == 1
        and isinstance(skip.body[0], ast.Continue)
        and not skip.orelse
    )
    renamed = _assigned(rename)
    expected = f"{name}.replace(P, '').strip('.')"
    ok_rename = False
    if renamed is not None and renamed[0] == name:
        call = renamed[1]
        ok_rename = (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "strip"
            and [str_constant(a) for a in call.args] == ["."]
            and isinstance(call.func.value, ast.Call)
            and dotted(call.func.value.func) == f"{name}.replace"
            and len(call.func.value.args) == 2
            and dotted(call.func.value.args[0]) in prefix_names
            and str_constant(call.func.value.args[1]) == ""
        )
    ok_store = (
        isinstance(store, ast.Assign)
        and len(store.targets) == 1
        and isinstance(store.targets[0], ast.Subscript)
        and dotted(store.targets[0].value) == var
        and dotted(store.targets[0].slice) == name
        and dotted(store.value) == options
    )
    if not (ok_skip and ok_rename and ok_store):
        raise ExtractionError(f"{path}: the section loop is not `{expected}`: {fmt(loop)}")
    return "replace"


def _split_partition(fn: ast.FunctionDef, path: str) -> str:
    """``for full, v in options.items(): pre, _, name = full.partition(cls.section_prefix);
    if pre: continue; yield name.lstrip('.'), v``."""
    body = _body(fn)
    owner = fn.args.args[0].arg if fn.args.args else None
    ok = (
        len(body) == 1
        and isinstance(body[0], ast.For)
        and isinstance(body[0].target, ast.Tuple)
        and len(body[0].target.elts) == 2
        and all(isinstance(e, ast.Name) for e in body[0].target.elts)
        and len(body[0].body) == 3
    )
    if ok:
        loop = body[0]
        assert isinstance(loop, ast.For) and isinstance(loop.target, ast.Tuple)
        full, value = (e.id for e in loop.target.elts if isinstance(e, ast.Name))
        split, skip, out = loop.body
        ok = (
            isinstance(split, ast.Assign)
            and len(split.targets) == 1
            and isinstance(split.targets[0], ast.Tuple)
            and len(split.targets[0].elts) == 3
            and all(isinstance(e, ast.Name) for e in split.targets[0].elts)
            and isinstance(split.value, ast.Call)
            and dotted(split.value.func) == f"{full}.partition"
            and len(split.value.args) == 1
            and dotted(split.value.args[0]) == f"{owner}.section_prefix"
        )
        if ok:
            assert isinstance(split, ast.Assign) and isinstance(split.targets[0], ast.Tuple)
            pre, _, name = (e.id for e in split.targets[0].elts if isinstance(e, ast.Name))
            ok = (
                isinstance(skip, ast.If)
                and dotted(skip.test) == pre
                and len(skip.body) == 1
                and isinstance(skip.body[0], ast.Continue)
                and not skip.orelse
                and isinstance(out, ast.Expr)
                and isinstance(out.value, ast.Yield)
                and isinstance(out.value.value, ast.Tuple)
                and len(out.value.value.elts) == 2
                and isinstance(out.value.value.elts[0], ast.Call)
                and dotted(out.value.value.elts[0].func) == f"{name}.lstrip"
                and [str_constant(a) for a in out.value.value.elts[0].args] == ["."]
                and dotted(out.value.value.elts[1]) == value
            )
    if not ok:
        raise ExtractionError(f"{path}: {fn.name}() not understood: {fmt(fn)}")
    return "partition"


def extract_sections(view: WheelView) -> dict[str, Any]:
    """Which ``[metadata.*]`` / ``[options.*]`` sections parse_configuration accepts."""
    tree = view.tree(DIST_PY)
    cls = find_class(tree, "Distribution")
    public = find_function(cls.body, "parse_config_files") if cls else None
    if public is None:
        raise ExtractionError(f"{DIST_PY}: no Distribution.parse_config_files")
    calls = _parse_configuration_calls(public)
    if len(calls) != 1:
        raise ExtractionError(
            f"{DIST_PY}: {len(calls)} parse_configuration calls in parse_config_files"
        )
    call = calls[0]
    name = dotted(call.func) or ""
    head = name.split(".")[0]
    if name not in {"parse_configuration", f"{head}.parse_configuration"}:
        raise ExtractionError(f"{DIST_PY}: call of {name} not understood")
    if len(call.args) < 2 or dotted(call.args[0]) != "self":
        raise ExtractionError(f"{DIST_PY}: unexpected arguments {fmt(call)}")
    if dotted(call.args[1]) != "self.command_options":
        raise ExtractionError(f"{DIST_PY}: unexpected arguments {fmt(call)}")
    path = _bound_module(view, DIST_PY, tree, head)
    module = view.tree(path)
    target = find_function(module.body, "parse_configuration")
    if target is None:
        raise ExtractionError(f"{path}: no parse_configuration")
    ignore = _ignore_option_errors(call, public, target)

    # handlers parse_configuration builds, and the order their parse() runs
    built: dict[str, ast.ClassDef] = {}
    order: list[str] = []
    for node in ast.walk(target):
        bound = _assigned(node) if isinstance(node, ast.stmt) else None
        if bound and isinstance(bound[1], ast.Call) and isinstance(bound[1].func, ast.Name):
            handler = _module_class(module, bound[1].func.id, path)
            if handler is not None:
                built[bound[0]] = handler
    parse_calls = sorted(
        (
            c
            for c in _walk_calls(target)
            if isinstance(c.func, ast.Attribute)
            and c.func.attr == "parse"
            and isinstance(c.func.value, ast.Name)
        ),
        key=lambda c: (c.lineno, c.col_offset),
    )
    facts: dict[str, Any] = {}
    errors: set[str] = set()
    splits: set[str] = set()
    for parse_call in parse_calls:
        assert isinstance(parse_call.func, ast.Attribute)
        assert isinstance(parse_call.func.value, ast.Name)
        handler = built.get(parse_call.func.value.id)
        if handler is None:
            raise ExtractionError(f"{path}: {fmt(parse_call)} on an unknown object")
        chain = _class_chain(module, handler, path)
        prefix = _section_prefix(chain, path)
        if prefix in facts:
            raise ExtractionError(f"{path}: two handlers for [{prefix}]")
        names = set().union(*(_class_names(c) for c in chain))
        if names & {"__getattr__", "__getattribute__"}:
            raise ExtractionError(f"{path}: {handler.name} customises attribute lookup")
        order.append(prefix)
        facts[prefix] = sorted(n for n in names if n.startswith("parse_section"))
        errors.add(_parse_loop_error(_chain_method(chain, "parse", path), path))
        splits.add(_sections_split(chain, path))
    if sorted(order) != ["metadata", "options"] or len(built) != 2:
        raise ExtractionError(f"{path}: parse_configuration handlers not understood: {order}")
    if len(errors) != 1 or len(splits) != 1:
        raise ExtractionError(f"{path}: handlers differ ({errors}, {splits})")
    return {
        "applied": True,
        "module": path,
        "ignore_option_errors": ignore,
        "order": order,
        "metadata": facts["metadata"],
        "options": facts["options"],
        "split": splits.pop(),
        "error": errors.pop(),
    }


def literal_all(tree: ast.Module, path: str) -> list[str]:
    """The ``__all__ = [...]`` literal of a module."""
    found: list[str] | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
        ):
            values = str_sequence(stmt.value)
            if values is None or found is not None:
                raise ExtractionError(f"{path}: __all__ is not a single list literal")
            found = values
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and dotted(stmt.target) == "__all__":
            raise ExtractionError(f"{path}: __all__ is modified")
    if found is None:
        raise ExtractionError(f"{path}: no __all__")
    return found


def command_set(view: WheelView, sources: frozenset[str]) -> set[str]:
    out: set[str] = set()
    for source in sources:
        if source == "distutils":
            path = "setuptools/_distutils/command/__init__.py"
            if view.has(path):
                out.update(literal_all(view.tree(path), path))
            else:
                out.update(STDLIB_DISTUTILS_COMMANDS)
        elif source == "setuptools.command.__all__":
            path = "setuptools/command/__init__.py"
            out.update(literal_all(view.tree(path), path))
        elif source == "ep:*":
            for names in view.entry_points().values():
                out.update(names)
        elif source.startswith("ep:"):
            out.update(view.entry_points().get(source[3:], []))
        else:
            raise ExtractionError(f"unknown command source {source}")
    return out


# --------------------------------------------------------------------------- modules


def wheel_modules(view: WheelView) -> set[str]:
    """Dotted names of every importable module and package in the wheel.

    ``setuptools._distutils.X`` is also listed as ``distutils.X``, and the names the
    ``*.extern`` vendor importers serve (``setuptools.extern.packaging.version``)
    are listed when the vendored module is in the wheel.
    """
    modules: set[str] = set()
    for name in view.names:
        if not name.endswith(".py"):
            continue
        parts = name[:-3].split("/")
        if not all(p.isidentifier() for p in parts):
            continue  # *.dist-info, *.data, vendored metadata, ...
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(1, len(parts) + 1):  # parents (regular or namespace packages)
            modules.add(".".join(parts[:i]))
    modules.update(extern_modules(view, modules))
    modules.update(
        "distutils" + m.removeprefix("setuptools._distutils")
        for m in list(modules)
        if m == "setuptools._distutils" or m.startswith("setuptools._distutils.")
    )
    return modules


def extern_modules(view: WheelView, modules: set[str]) -> set[str]:
    out: set[str] = set()
    for package in ("setuptools.extern", "pkg_resources.extern"):
        path = package.replace(".", "/") + "/__init__.py"
        if not view.has(path):
            continue
        names, vendor = _vendor_importer(view.tree(path), package, path)
        for vendored in names:
            real = f"{vendor}.{vendored}"
            out.update(
                package + "." + vendored + m.removeprefix(real)
                for m in modules
                if m == real or m.startswith(real + ".")
            )
    return out


def _vendor_importer(tree: ast.Module, package: str, path: str) -> tuple[list[str], str]:
    """(vendored names, vendor package) of ``VendorImporter(__name__, names, ...).install()``."""
    env: dict[str, list[str]] = {}
    result: tuple[list[str], str] | None = None
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            values = str_sequence(stmt.value)
            if values is not None:
                env[stmt.targets[0].id] = values
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        install = stmt.value
        if not (isinstance(install.func, ast.Attribute) and install.func.attr == "install"):
            continue
        ctor = install.func.value
        if not (isinstance(ctor, ast.Call) and dotted(ctor.func) == "VendorImporter"):
            raise ExtractionError(f"{path}: unrecognised importer {fmt(stmt)}")
        args = list(ctor.args)
        if (
            len(args) < 2
            or dotted(args[0]) != "__name__"
            or not isinstance(args[1], ast.Name)
            or args[1].id not in env
        ):
            raise ExtractionError(f"{path}: unrecognised VendorImporter call {fmt(ctor)}")
        vendor = package.replace("extern", "_vendor")
        if len(args) > 2:
            given = str_constant(args[2])
            if given is None:
                raise ExtractionError(f"{path}: unrecognised vendor package {fmt(args[2])}")
            vendor = given
        if ctor.keywords:
            raise ExtractionError(f"{path}: unrecognised VendorImporter keywords {fmt(ctor)}")
        result = env[args[1].id], vendor
    if result is None:
        raise ExtractionError(f"{path}: no VendorImporter(...).install()")
    return result


# --------------------------------------------------------------------------- names


def _is_type_checking(test: ast.expr) -> bool:
    return dotted(test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def _target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def module_names(
    tree: ast.Module,
    *,
    star: Callable[[str], set[str]] | None = None,
    module_path: str = "",
) -> tuple[set[str], bool]:
    """Public names bound at module level, and whether a module ``__getattr__`` exists.

    Counts imports, defs, classes, assignments (also inside module-level ``if``/
    ``try``/``with``/``for`` blocks, except ``if TYPE_CHECKING:``), the names listed
    in ``__all__`` and the locals of ``@_call_aside`` functions that end with
    ``globals().update(locals())`` (pkg_resources' master working set).  Top-level
    ``del`` removes names.
    """
    names: set[str] = set()
    has_getattr = False

    def visit(body: Sequence[ast.stmt], top: bool) -> None:
        nonlocal has_getattr
        for stmt in body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    names.add(alias.asname or alias.name.partition(".")[0])
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if alias.name == "*":
                        if star is None:
                            raise ExtractionError(f"{module_path}: star import {fmt(stmt)}")
                        names.update(star(resolve_import(module_path, stmt.level, stmt.module)))
                    else:
                        names.add(alias.asname or alias.name)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(stmt.name)
                if stmt.name == "__getattr__":
                    has_getattr = True
                if _publishes_locals(stmt):
                    for node in ast.walk(stmt):
                        if isinstance(node, ast.Assign):
                            for target in node.targets:
                                names.update(_target_names(target))
                        elif (
                            isinstance(node, (ast.AnnAssign, ast.AugAssign))
                            and node.value is not None
                        ):
                            names.update(_target_names(node.target))
            elif isinstance(stmt, ast.ClassDef):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    names.update(_target_names(target))
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
                    names.update(_all_entries(stmt.value))
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                names.update(_target_names(stmt.target))
            elif isinstance(stmt, ast.AugAssign):
                names.update(_target_names(stmt.target))
                if dotted(stmt.target) == "__all__":
                    names.update(_all_entries(stmt.value))
            elif isinstance(stmt, ast.If):
                if not _is_type_checking(stmt.test):
                    visit(stmt.body, top=False)
                visit(stmt.orelse, top=False)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body, top=False)
                for handler in stmt.handlers:
                    if handler.name:
                        names.add(handler.name)
                    visit(handler.body, top=False)
                visit(stmt.orelse, top=False)
                visit(stmt.finalbody, top=False)
            elif isinstance(stmt, (ast.With, ast.For, ast.While)):
                if isinstance(stmt, ast.For):
                    names.update(_target_names(stmt.target))
                visit(stmt.body, top=False)
                visit(getattr(stmt, "orelse", []), top=False)
            elif isinstance(stmt, ast.Delete) and top:
                for target in stmt.targets:
                    names.difference_update(_target_names(target))
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                if dotted(call.func) == "__all__.extend" and call.args:
                    names.update(_all_entries(call.args[0]))
                elif dotted(call.func) == "__all__.append" and call.args:
                    value = str_constant(call.args[0])
                    if value:
                        names.add(value)

    visit(tree.body, top=True)
    return {n for n in names if not n.startswith("_")}, has_getattr


def _all_entries(node: ast.expr) -> list[str]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _all_entries(node.left) + _all_entries(node.right)
    values = str_sequence(node)
    return values or []


def _publishes_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    called_aside = any(dotted(d) == "_call_aside" for d in fn.decorator_list)
    updates = any(
        (
            isinstance(call.func, ast.Attribute)
            and call.func.attr == "update"
            and isinstance(call.func.value, ast.Call)
            and dotted(call.func.value.func) == "globals"
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Call)
            and dotted(call.args[0].func) == "locals"
        )
        for call in _walk_calls(fn)
    )
    return called_aside and updates


def extract_names(view: WheelView) -> tuple[dict[str, set[str]], set[str]]:
    """Public names of NAMES_MODULES and the set of modules with a module __getattr__."""
    names: dict[str, set[str]] = {}

    def star(module: str) -> set[str]:
        path = module_path_for(view, module)
        if path is None:
            raise ExtractionError(f"star import from {module}, which is not in the wheel")
        return module_names(view.tree(path), star=star, module_path=path)[0]

    for path in NAMES_MODULES:
        if view.has(path):
            module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            names[module] = module_names(view.tree(path), star=star, module_path=path)[0]

    getattr_modules: set[str] = set()
    for path in view.names:
        if not path.endswith(".py") or "/_vendor/" in path or "/tests/" in path:
            continue
        parts = path[:-3].split("/")
        if not all(p.isidentifier() for p in parts):
            continue
        text = view.text(path)
        if "def __getattr__" not in text:
            continue
        tree = ast.parse(text, filename=path)
        if module_names(tree, star=lambda _module: set(), module_path=path)[1]:
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            getattr_modules.add(module)
            if module.startswith("setuptools._distutils"):
                getattr_modules.add("distutils" + module.removeprefix("setuptools._distutils"))
    return names, getattr_modules


# --------------------------------------------------------------------------- releases


@dataclass(frozen=True)
class Release:
    version: str
    date: str
    yanked: bool
    yanked_reason: str | None
    requires_python: str | None
    wheel_filename: str
    wheel_url: str
    wheel_sha256: str


def select_releases(pypi: Mapping[str, Any], json_url: str = PYPI_JSON_URL) -> list[Release]:
    """Releases >= MIN_VERSION, ascending, each with its py3 wheel."""
    out: list[Release] = []
    for version, files in pypi["releases"].items():
        if Version(version) < MIN_VERSION:
            continue
        if not files:
            raise ExtractionError(f"setuptools {version}: no files on PyPI")
        wheels = []
        for f in files:
            if f["packagetype"] != "bdist_wheel":
                continue
            _, _, _, tags = parse_wheel_filename(f["filename"])
            if all(t.abi == "none" and t.platform == "any" for t in tags) and any(
                t.interpreter == "py3" for t in tags
            ):
                wheels.append(f)
        if len(wheels) != 1:
            raise ExtractionError(
                f"setuptools {version}: expected one py3 wheel, found {len(wheels)}"
            )
        wheel = wheels[0]
        first = min(f["upload_time_iso_8601"] for f in files)
        yanked = any(f.get("yanked") for f in files)
        reasons = {f.get("yanked_reason") for f in files if f.get("yanked")}
        out.append(
            Release(
                version=version,
                date=first[:10],
                yanked=yanked,
                yanked_reason=(sorted(r for r in reasons if r) or [None])[0],
                requires_python=wheel.get("requires_python") or None,
                wheel_filename=wheel["filename"],
                wheel_url=urllib.parse.urljoin(json_url, wheel["url"]),
                wheel_sha256=wheel["digests"]["sha256"],
            )
        )
    out.sort(key=lambda r: Version(r.version))
    return out


def cache_dir() -> Path:
    base = os.environ.get("SAPPER_DEV_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "sapper-dev"
    return root / "setuptools-wheels"


def _http_get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=120) as response:
        data: bytes = response.read()
    return data


def fetch_pypi_json(offline: bool) -> dict[str, Any]:
    path = cache_dir().parent / "setuptools-pypi.json"
    if offline:
        if not path.exists():
            raise SystemExit(f"--offline: no cached PyPI metadata at {path}")
        data = path.read_bytes()
    else:
        data = _http_get(PYPI_JSON_URL)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    result: dict[str, Any] = json.loads(data)
    return result


def fetch_wheel(release: Release, offline: bool) -> Path:
    """Path of the cached wheel, downloaded if needed, checked against PyPI's sha256."""
    directory = cache_dir()
    path = directory / release.wheel_filename
    if path.exists():
        if hashlib.sha256(path.read_bytes()).hexdigest() == release.wheel_sha256:
            return path
        path.unlink()
    if offline:
        raise SystemExit(f"--offline: {release.wheel_filename} is not cached")
    data = _http_get(release.wheel_url)
    digest = hashlib.sha256(data).hexdigest()
    if digest != release.wheel_sha256:
        raise ExtractionError(
            f"{release.wheel_filename}: sha256 {digest} != {release.wheel_sha256}"
        )
    directory.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


# --------------------------------------------------------------------------- assembly


@dataclass
class WheelFacts:
    cfg: dict[str, Any]
    modules: set[str]
    names: dict[str, set[str]]
    getattr_modules: set[str]
    sections: dict[str, Any] = field(default_factory=dict)


def analyse_wheel(version: str, data: bytes) -> WheelFacts:
    view = WheelView.from_zip(data)
    try:
        cfg = extract_cfg(view)
        modules = wheel_modules(view)
        names, getattr_modules = extract_names(view)
        sections = extract_sections(view)
    except (ExtractionError, SyntaxError) as exc:
        raise ExtractionError(f"setuptools {version}: {exc}") from exc
    return WheelFacts(cfg, modules, names, getattr_modules, sections)


def runs(versions: Sequence[str], present: Iterable[str]) -> list[list[str]]:
    """Inclusive [first, last] runs of versions (in list order) that are in present."""
    present = set(present)
    out: list[list[str]] = []
    start: str | None = None
    previous: str | None = None
    for version in versions:
        if version in present:
            if start is None:
                start = version
            previous = version
        elif start is not None and previous is not None:
            out.append([start, previous])
            start = None
    if start is not None and previous is not None:
        out.append([start, previous])
    return out


def build_document(releases: Sequence[Release], facts: Mapping[str, WheelFacts]) -> dict[str, Any]:
    versions = [r.version for r in releases]
    eras: list[dict[str, Any]] = []
    by_key: dict[str, dict[str, Any]] = {}
    for version in versions:
        cfg = facts[version].cfg
        key = json.dumps(cfg, sort_keys=True)
        if key not in by_key:
            by_key[key] = {"versions": [], "cfg": cfg}
            eras.append(by_key[key])
        by_key[key]["versions"].append(version)

    section_eras: list[dict[str, Any]] = []
    by_sections: dict[str, dict[str, Any]] = {}
    for version in versions:
        sections = facts[version].sections
        key = json.dumps(sections, sort_keys=True)
        if key not in by_sections:
            by_sections[key] = {"versions": [], "cfg_sections": sections}
            section_eras.append(by_sections[key])
        by_sections[key]["versions"].append(version)

    presence: dict[str, set[str]] = {}
    for version in versions:
        for module in facts[version].modules:
            presence.setdefault(module, set()).add(version)
    names: dict[str, dict[str, set[str]]] = {}
    for version in versions:
        for module, bound in facts[version].names.items():
            for name in bound:
                names.setdefault(module, {}).setdefault(name, set()).add(version)
    getattr_presence: dict[str, set[str]] = {}
    for version in versions:
        for module in facts[version].getattr_modules:
            getattr_presence.setdefault(module, set()).add(version)

    return {
        "format": FORMAT,
        "generated_by": GENERATED_BY,
        "generated_at": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "releases": [
            {
                "version": r.version,
                "date": r.date,
                "yanked": r.yanked,
                "yanked_reason": r.yanked_reason,
                "requires_python": r.requires_python,
            }
            for r in releases
        ],
        "cfg_eras": eras,
        "modules": {m: runs(versions, presence[m]) for m in sorted(presence)},
        "names": {
            module: {n: runs(versions, vs) for n, vs in sorted(bound.items())}
            for module, bound in sorted(names.items())
        },
        "getattr": {m: runs(versions, getattr_presence[m]) for m in sorted(getattr_presence)},
        "section_eras": section_eras,
    }


def dump_document(doc: Mapping[str, Any]) -> str:
    """Compact JSON: one line per top-level key, and one per entry of the big containers."""

    def compact(value: object) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    lines = ["{"]
    keys = list(doc)
    for i, key in enumerate(keys):
        value = doc[key]
        comma = "," if i < len(keys) - 1 else ""
        if isinstance(value, list) and value:
            inner = ",\n".join(compact(v) for v in value)
            lines.append(f"{compact(key)}:[\n{inner}\n]{comma}")
        elif isinstance(value, dict) and value:
            inner = ",\n".join(f"{compact(k)}:{compact(v)}" for k, v in value.items())
            lines.append(f"{compact(key)}:{{\n{inner}\n}}{comma}")
        else:
            lines.append(f"{compact(key)}:{compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(offline: bool, jobs: int, log: Callable[[str], None]) -> dict[str, Any]:
    pypi = fetch_pypi_json(offline)
    releases = select_releases(pypi)
    log(f"{len(releases)} releases >= {MIN_VERSION}; fetching wheels into {cache_dir()}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        paths = list(pool.map(lambda r: fetch_wheel(r, offline), releases))
    log("analysing wheels")
    facts = {
        release.version: analyse_wheel(release.version, path.read_bytes())
        for release, path in zip(releases, paths, strict=True)
    }
    return build_document(releases, facts)


def _comparable(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "generated_at"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="data file to write")
    parser.add_argument("--jobs", type=int, default=8, help="concurrent downloads (default 8)")
    parser.add_argument("--offline", action="store_true", help="use only the local cache")
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if the data file differs (ignoring generated_at)",
    )
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr)

    doc = generate(args.offline, args.jobs, log)
    if args.check:
        current = (
            json.loads(args.output.read_text(encoding="utf-8")) if args.output.exists() else {}
        )
        if _comparable(current) != _comparable(doc):
            log(f"{args.output} is out of date: run {GENERATED_BY}")
            return 1
        log(f"{args.output} is up to date")
        return 0
    text = dump_document(doc)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    log(f"wrote {args.output} ({len(text.encode()) // 1024} KiB, {len(doc['cfg_eras'])} cfg eras)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
