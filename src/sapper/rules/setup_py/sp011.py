"""SP011 `setuppy-install-command`: the project's code creates the `install` command in
the metadata stage, where "setup.py install is deprecated" is an error once enforced."""

from __future__ import annotations

from collections.abc import Iterable

from ...changes import change
from ...facts.commands import (
    CommandCall,
    command_calls,
    metadata_commands,
    option_methods,
    resolve_class,
)
from ...facts.raises import surely_run
from ...facts.setup_py import PATH
from ...model import Finding, Reference
from .._base import Context, Rule, register
from .._emit import due_sets, make_finding
from ._shared import keyword_items

#: The command whose creation warns.
INSTALL = "install"


def _check(ctx: Context) -> Iterable[Finding]:
    tree = ctx.setup_py.tree
    if tree is None:
        return []
    # setup.py's own module-level code that surely runs: in every stage
    top = list(surely_run(ctx.setup_py, tree.body))
    calls = command_calls(top, INSTALL, PATH, None)
    if calls:
        call = calls[0]
        return [_finding(ctx, call, call.line, "setup.py runs it in every build")]
    stage = metadata_commands({kw.name: kw.value for kw in ctx.setup_py.keywords})
    for items in keyword_items(ctx, "cmdclass"):
        for command, expr in items:
            if command not in stage:
                continue
            cls = resolve_class(ctx.setup_py, PATH, tree, expr)
            if cls is None:
                continue
            for path, qualname, method in option_methods(ctx.setup_py, cls):
                found = command_calls(method.body, INSTALL, path, qualname)
                if not found:
                    continue
                why = (
                    f"`{qualname}` runs when the `{command}` command ({cls.node.name}, "
                    f"setup.py's cmdclass) is finalized, which {_who(command)} does in every "
                    "build"
                )
                return [_finding(ctx, found[0], expr.lineno, why)]
    return []


def _who(command: str) -> str:
    if command in {"egg_info", "dist_info"}:
        return "the metadata hooks"
    if command in {"bdist_wheel", "bdist"}:
        return "dist_info (the wheel's layout)"
    return "egg_info (listing the sources)"


def _finding(ctx: Context, call: CommandCall, line: int, why: str) -> Finding:
    warns, enforced, due = due_sets(ctx, change("ST56").due)
    return make_finding(
        ctx,
        "SP011",
        f'{call.path}:{call.line}: `{call.getter}("install")` creates setuptools\' install '
        f'command ({why}); its initialize_options warns "setup.py install is '
        f'deprecated" (due {due}), an error under SETUPTOOLS_ENFORCE_DEPRECATION=1 once '
        "overdue, already in the metadata stage",
        path=PATH,
        line=line,
        enforced=enforced,
        warns=warns,
        due=due,
        fix="do not ask for the install command while options are set up: read what is "
        "needed from `self.distribution` or the environment, or ask for it in `run()` of a "
        "command only installs run",
    )


register(
    Rule(
        code="SP011",
        slug="setuppy-install-command",
        family="setup.py",
        summary="the project's code creates the `install` command in every build",
        doc="""
## What it does
Finds a call that creates setuptools' `install` command (`get_command_obj("install")`,
`get_finalized_command("install")`, `reinitialize_command("install")`,
`run_command("install")`, `set_undefined_options("install", ...)`) in code the metadata
stage of a wheel build runs: setup.py's module-level code, or the `initialize_options` /
`finalize_options` (with the project base classes they call or inherit, and the methods
they call on `self`) of a class setup.py registers in `cmdclass` for a command that
stage finalizes: `egg_info`, `dist_info`, `bdist_wheel` and `bdist` (`dist_info` asks
for the wheel's layout) and `build` always; `build_py` when `setup()` gets `packages` or
`py_modules`, `build_ext` with `ext_modules`, `build_clib` with `libraries`,
`build_scripts` with `scripts` (`egg_info` finalizes them to list the sources). The
class is read in setup.py or in the project module setup.py imports it from.

## Why is this bad?
From setuptools 80.1.0, `install.initialize_options` emits "setup.py install is
deprecated" with a due date (2025-10-31); once overdue it is an error under
`SETUPTOOLS_ENFORCE_DEPRECATION=1`, whatever warning filters are set. A wheel build
creates the `install` command itself in `build_wheel` (`bdist_wheel.run`; a backend fact
the verdict's stages report for every project), but pip and uv ask for the metadata
first: a project whose `build_ext` asks for `install` while finalizing (as
mysql-connector-python 26.10.0 does) fails already there, so `pip download`, a resolver
and any tool that only needs the metadata fail too.

## Example
```python
from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def finalize_options(self):
        super().finalize_options()
        self.prefix = self.distribution.get_command_obj("install").prefix


setup(name="example", version="1.0", py_modules=["example"], cmdclass={"build_py": BuildPy})
```

## Use instead
```python
from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def finalize_options(self):
        super().finalize_options()


setup(name="example", version="1.0", py_modules=["example"], cmdclass={"build_py": BuildPy})
```

## References
- setuptools 80.1.0: `setuptools/command/install.py`, `install.initialize_options`
""",
        references=(
            Reference(
                title="setuptools 80.1.0: setuptools/command/install.py",
                url="https://github.com/pypa/setuptools/blob/v80.1.0/setuptools/command/install.py",
            ),
        ),
        example=(
            (
                PATH,
                "from setuptools import setup\n"
                "from setuptools.command.build_py import build_py\n"
                "\n"
                "\n"
                "class BuildPy(build_py):\n"
                "    def finalize_options(self):\n"
                "        super().finalize_options()\n"
                '        self.prefix = self.distribution.get_command_obj("install").prefix\n'
                "\n"
                "\n"
                'setup(name="example", version="1.0", py_modules=["example"], '
                'cmdclass={"build_py": BuildPy})\n',
            ),
            ("example.py", ""),
        ),
        check=_check,
        needs="setup.py",
    )
)
