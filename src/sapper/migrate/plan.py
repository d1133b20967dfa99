"""Plan a migration: read the project, decide what moves, compute the new files."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from .._toml import TOMLDecodeError
from .._toml import loads as toml_loads
from ..facts._exprs import func_name
from ..facts._values import UNKNOWN, make_target
from ..facts.setup_py import SetupPyFacts
from ..inputs.sources import ProjectFiles, default_wanted, read_directory
from ._model import FileChange, Migration, Refusal
from ._values import Given
from .cfg import edit_setup_cfg, read_setup_cfg
from .setup_py import SetupPyEdit, removable_dict, remove_dict_items, remove_keywords
from .translate import translate
from .writer import build_pyproject

__all__ = ["plan_migration"]

#: The platforms and Pythons a setup.py value must not differ between to move: a value
#: that does would be pinned to one of them in pyproject.toml.
_PLATFORMS = ("linux", "win32", "darwin")
_PYTHONS = ("2.7", "3.6", "3.8", "3.13")

#: The setup() keywords of the metadata fields [project] governs (``_PREVIOUSLY_DEFINED``
#: of setuptools' ``_apply_pyprojecttoml``).
_METADATA = frozenset(
    {"name", "version", "description", "long_description", "python_requires", "license",
     "license_expression", "author", "author_email", "maintainer", "maintainer_email",
     "keywords", "classifiers", "project_urls", "entry_points", "install_requires",
     "extras_require"}
)  # fmt: skip

_SETUPTOOLS_BACKENDS = frozenset({"setuptools.build_meta", "setuptools.build_meta:__legacy__"})


def _wanted(path: str) -> bool:
    # README files without a suffix too: a long_description may be read from one
    return default_wanted(path) or "/" not in path


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogateescape")


def _refused(root: Path, refusals: list[Refusal], notes: list[str]) -> Migration:
    return Migration(root, (), tuple(refusals), tuple(notes))


def _read_setup_py(
    files: ProjectFiles, python: str | None
) -> tuple[dict[str, Given], ast.Call | None, list[Refusal], SetupPyFacts | None]:
    if "setup.py" not in files.files:
        return {}, None, [], None
    facts = SetupPyFacts(files, make_target(python))
    if facts.tree is None:
        return {}, None, [Refusal("setup-py-syntax", "setup.py does not parse", "setup.py")], None
    run = facts.run
    if run is None or not run.calls:
        return (
            {},
            None,
            [
                Refusal(
                    "setup-py-no-call",
                    "no setup() call that sapper can follow runs in setup.py",
                    "setup.py",
                )
            ],
            None,
        )
    if len(run.calls) > 1:
        first = min(c.call.lineno for c in run.calls)
        return (
            {},
            None,
            [
                Refusal(
                    "setup-py-calls",
                    "setup.py calls setup() more than once: "
                    + _call_sites(facts.tree, [c.call for c in run.calls]),
                    "setup.py",
                    first,
                )
            ],
            None,
        )
    call = run.calls[0]
    unseen = None
    if call.unread:
        unseen = "setup.py passes keywords sapper cannot read (**kwargs built by code)"
    elif metadata := sorted(set(call.maybe) & _METADATA):
        # a metadata keyword that stays must be listed in dynamic, and setuptools fails on
        # a dynamic field nothing sets: it cannot stay if it is set on some paths only
        keys = ", ".join(f"`{k}`" for k in metadata)
        unseen = f"setup() gets {keys} only on paths that depend on code sapper cannot decide"
    if unseen is not None:
        line = call.call.lineno
        return {}, None, [Refusal("setup-py-opaque", unseen, "setup.py", line)], None
    direct = {kw.arg for kw in call.call.keywords if kw.arg is not None}
    # the same keywords on other platforms and Pythons
    others: list[dict[str, Any]] = []
    for platform in _PLATFORMS:
        for version in _PYTHONS:
            other = SetupPyFacts(files, make_target(version, platform))
            others.append({k.name: k.value for k in other.keywords})
    # keys of the dict setup(**kwargs) gets, when sapper can take them out of its display
    in_dict: set[str] = set()
    py_source = _text(files.files.get("setup.py"))
    dict_name = removable_dict(facts.tree, call.call) if py_source is not None else None
    if py_source is not None and dict_name is not None:
        at = {
            (kw.node.lineno, kw.node.col_offset): kw.name
            for kw in facts.keywords
            if kw.name not in direct
        }
        try:
            _, found = remove_dict_items(py_source, at, dict_name)
        except Exception:  # libcst cannot read it: the keys stay
            found = set()
        in_dict = {at[p] for p in found}
    given: dict[str, Given] = {}
    written = {kw.arg: kw.value for kw in call.call.keywords if kw.arg is not None}
    for kw in facts.keywords:
        varies = kw.name in call.maybe or any(
            kw.name not in seen or not _same(seen[kw.name], kw.value) for seen in others
        )
        node = kw.node
        if kw.name in written and not _sole_source(facts.tree, written[kw.name], node):
            node = written[kw.name]
        given[kw.name] = Given(
            kw.name,
            "py",
            kw.value,
            line=kw.line,
            direct=kw.name in direct or kw.name in in_dict,
            node=node,
            in_dict=kw.name in in_dict,
            varies=varies,
        )
    for key in call.maybe:  # given on some paths only: stays where it is
        given.setdefault(key, Given(key, "py", UNKNOWN, direct=False, varies=True))
    return given, call.call, [], facts


def _call_sites(tree: ast.Module, calls: list[ast.Call]) -> str:
    """Each ``setup()`` call that runs, once, as ``setup.py:LINE``; one that runs more
    than once with the function it is in and where that function is called."""
    parents = {
        id(child): node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.walk(node)
        if child is not node
    }
    counts: dict[int, int] = {}
    unique: list[ast.Call] = []
    for call in calls:
        if id(call) not in counts:
            unique.append(call)
        counts[id(call)] = counts.get(id(call), 0) + 1
    parts = []
    for call in sorted(unique, key=lambda c: (c.lineno, c.col_offset)):
        text = f"setup.py:{call.lineno}"
        func = parents.get(id(call))
        if counts[id(call)] > 1 and func is not None:
            sites = sorted(
                {
                    n.lineno
                    for n in ast.walk(tree)
                    if isinstance(n, ast.Call) and func_name(n.func) == func.name
                }
            )
            where = ", ".join(f"setup.py:{line}" for line in sites)
            text += f" (in {func.name}(), called at {where})" if where else f" (in {func.name}())"
        elif counts[id(call)] > 1:
            text += f" ({counts[id(call)]} times)"
        parts.append(text)
    return ", ".join(parts)


def _binds(node: ast.AST, name: str) -> bool:
    """Whether ``node`` binds ``name`` (an assignment, import, definition, parameter,
    ``global`` statement, ``except ... as``, pattern capture...)."""
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.arg):
        return node.arg == name
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((a.asname or a.name.split(".")[0]) == name for a in node.names)
    if isinstance(node, ast.Global | ast.Nonlocal):
        return name in node.names
    if isinstance(
        node,
        ast.FunctionDef
        | ast.AsyncFunctionDef
        | ast.ClassDef
        | ast.ExceptHandler
        | ast.MatchAs
        | ast.MatchStar,
    ):
        return node.name == name
    return False


def _sole_source(tree: ast.Module | None, written: ast.expr, node: ast.expr) -> bool:
    """Whether ``node``, the expression the value resolver took a setup() keyword's value
    from, is the only one that can reach the keyword written as ``written``: the keyword
    itself, or a name bound once, unconditionally (at the top level of the module or of a
    function), to it or to such a name. The resolver keeps one of the expressions of a
    name bound differently on several paths (``packages = find_packages()`` in an
    ``if``, ``find_packages(exclude=...)`` in its ``else``) when code decides both
    values; the expression must then not be translated."""
    if tree is None:
        return written is node
    bodies = [tree.body] + [
        f.body for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    top = {id(stmt) for body in bodies for stmt in body}
    expr = written
    for _ in range(8):
        if expr is node:
            return True
        if not isinstance(expr, ast.Name):
            return False
        bound = [n for n in ast.walk(tree) if _binds(n, expr.id)]
        assign = next(
            (
                s
                for s in ast.walk(tree)
                if isinstance(s, ast.Assign | ast.AnnAssign)
                and id(s) in top
                and any(
                    t in bound for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                )
            ),
            None,
        )
        if (
            len(bound) != 1
            or assign is None
            or assign.value is None
            or (isinstance(assign, ast.Assign) and len(assign.targets) != 1)
        ):
            return False
        expr = assign.value
    return False


def _without_items(edit: SetupPyEdit, items: dict[tuple[int, int], str], name: str) -> SetupPyEdit:
    """``edit`` with the moved keys also taken out of the dict setup() gets; a comment
    that goes with them goes to the top of pyproject.toml (key ``""``)."""
    import io
    import tokenize
    from collections import Counter

    def comments(text: str) -> Counter[str]:
        found: Counter[str] = Counter()
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    found[tok.string] += 1
        except (tokenize.TokenError, SyntaxError):
            pass
        return found

    new, _ = remove_dict_items(edit.text, items, name)
    lost = comments(edit.text) - comments(new)
    moved = list(edit.comments) + [("", c) for c in lost.elements()]
    return SetupPyEdit(new, tuple(moved))


def _same(a: Any, b: Any) -> bool:
    if a is UNKNOWN or b is UNKNOWN:
        return a is b
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # a value whose comparison fails is not the same
        return False


def _merge(py: dict[str, Given], cfg: dict[str, Given]) -> dict[str, Given]:
    """setup.cfg fills what setup() leaves falsy (``ConfigHandler.__setitem__`` skips an
    option whose attribute is already set): the winner carries the other as its shadow."""
    merged = dict(cfg)
    for key, given in py.items():
        other = cfg.get(key)
        if other is None:
            merged[key] = given
        elif given.value is UNKNOWN or given.varies or not given.direct:
            merged[key] = given  # stays; the setup.cfg option stays too
        elif given.value:
            merged[key] = Given(**{**_fields(given), "shadow": other})
        else:
            merged[key] = Given(**{**_fields(other), "shadow": given})
    return merged


def _fields(given: Given) -> dict[str, Any]:
    return {name: getattr(given, name) for name in Given.__slots__}


#: Calls that find a module through ``sys.path`` at run time (jedi's setup.py reads its
#: version with ``setuptools.depends.get_module_constant("jedi", "__version__")``).
_PATH_LOOKUPS = frozenset(
    {
        "get_module_constant",
        "find_module",
        "import_module",
        "__import__",
        "run_module",
        "find_spec",
        "load_module",
        "extract_constant",
    }
)


def _local_imports(facts: SetupPyFacts | None, files: ProjectFiles) -> list[str]:
    """Modules of the project's root directory that setup.py imports, or a call of
    setup.py's that looks modules up on ``sys.path`` (found there only because the legacy
    backend puts setup.py's directory on ``sys.path``)."""
    if facts is None:
        return []
    found: list[str] = []
    for site in facts.import_sites:
        top = site.module.split(".")[0]
        if (f"{top}.py" in files.files or f"{top}/__init__.py" in files.files) and top not in found:
            found.append(top)
    tree = facts.tree
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = func_name(node.func)
                if name in _PATH_LOOKUPS and f"{name}()" not in found:
                    found.append(f"{name}()")
    return found


def plan_migration(root: Path, *, python: str | None = None) -> Migration:
    """What migrating the project at ``root`` changes (nothing is written or run).

    ``python`` (``X.Y``) is the Python setup.py is read for (default: this one)."""
    root = Path(root)
    files = read_directory(root, wanted=_wanted)
    notes: list[str] = []
    raw_pyproject = files.files.get("pyproject.toml")
    existing: dict[str, Any] = {}
    if raw_pyproject is not None:
        try:
            existing = toml_loads(raw_pyproject.decode("utf-8"))
        except (UnicodeDecodeError, TOMLDecodeError) as exc:
            return _refused(
                root,
                [
                    Refusal(
                        "pyproject-unreadable",
                        f"pyproject.toml does not parse: {exc}",
                        "pyproject.toml",
                    )
                ],
                notes,
            )
        if "project" in existing:
            notes.append("pyproject.toml has a [project] table already: nothing to migrate")
            return Migration(root, (), (), tuple(notes))
        backend = existing.get("build-system", {}).get("build-backend")
        if backend is not None and backend not in _SETUPTOOLS_BACKENDS:
            return _refused(
                root,
                [
                    Refusal(
                        "not-setuptools",
                        f"the build backend is {backend!r}, not setuptools",
                        "pyproject.toml",
                    )
                ],
                notes,
            )
        if "setuptools" in existing.get("tool", {}):
            return _refused(
                root,
                [
                    Refusal(
                        "tool-setuptools",
                        "pyproject.toml has a [tool.setuptools] table without [project]; "
                        "merging it is not supported",
                        "pyproject.toml",
                    )
                ],
                notes,
            )
    if "setup.py" not in files.files and "setup.cfg" not in files.files:
        notes.append("no setup.py or setup.cfg: nothing to migrate")
        return Migration(root, (), (), tuple(notes))
    cfg_given, refusals = read_setup_cfg(files)
    py_given, call, py_refusals, facts = _read_setup_py(files, python)
    refusals += py_refusals
    if refusals:
        return _refused(root, refusals, notes)
    given = _merge(py_given, cfg_given)
    if not any(g.section in {"metadata", "options"} or g.origin == "py" for g in given.values()):
        notes.append("setup.py and setup.cfg configure nothing sapper can move")
    requires = existing.get("build-system", {}).get("requires", [])
    scm = "setuptools_scm" in existing.get("tool", {}) or any(
        isinstance(r, str) and r.replace("-", "_").lower().startswith("setuptools_scm")
        for r in (requires if isinstance(requires, list) else [])
    )
    outcome = translate(given, files.files, scm=scm)
    notes += outcome.notes
    if outcome.refusals:
        return _refused(root, outcome.refusals, notes)
    moved = list(outcome.moved)
    moved += [(g.shadow, to) for g, to in outcome.moved if g.shadow is not None]
    comments: dict[str, list[str]] = {}
    changes: list[FileChange] = []
    # setup.py
    py_source = _text(files.files.get("setup.py"))
    if py_source is not None and call is not None:
        remove = {g.key: to for g, to in moved if g.origin == "py" and not g.in_dict}
        items = {
            (g.node.lineno, g.node.col_offset): g.key
            for g, _ in moved
            if g.origin == "py" and g.in_dict and g.node is not None
        }
        if remove or items:
            import libcst

            try:
                edit = remove_keywords(py_source, call, remove)
                if items:
                    assert facts is not None
                    assert facts.tree is not None
                    name = removable_dict(facts.tree, call)
                    assert name is not None
                    edit = _without_items(edit, items, name)
            except libcst.ParserSyntaxError as exc:
                return _refused(
                    root,
                    [Refusal("setup-py-libcst", f"libcst cannot read setup.py: {exc}", "setup.py")],
                    notes,
                )
            for to, text in edit.comments:
                comments.setdefault(to, []).append(text.lstrip("#").strip())
            if edit.text != py_source:
                changes.append(FileChange("setup.py", py_source, edit.text))
    # setup.cfg
    cfg_source = _text(files.files.get("setup.cfg"))
    if cfg_source is not None and any(g.origin == "cfg" for g, _ in moved):
        cfg_edit = edit_setup_cfg(cfg_source, moved)
        for to, text in cfg_edit.comments:
            comments.setdefault(to, []).append(text)
        if cfg_edit.text != cfg_source:
            changes.append(FileChange("setup.cfg", cfg_source, cfg_edit.text))
            if cfg_edit.text is None:
                notes.append("setup.cfg is removed: nothing is left in it")
    # pyproject.toml
    local = _local_imports(facts, files)
    if local and "build-backend" not in existing.get("build-system", {}):
        notes.append(
            "no build-backend is written: setup.py imports (or looks up) "
            + ", ".join(f"`{m}`" for m in local)
            + " from the project's directory, which only the legacy backend puts on sys.path"
        )
    old = _text(raw_pyproject)
    written = build_pyproject(old, outcome, comments, backend=not local)
    if isinstance(written, Refusal):
        return _refused(root, [written], notes)
    changes.append(FileChange("pyproject.toml", old, written))
    changes.sort(key=lambda c: c.path)
    return Migration(root, tuple(changes), (), tuple(notes))
