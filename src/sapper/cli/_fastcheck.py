"""The common forms of ``sapper check`` parsed without ``argparse``.

A cold ``sapper check`` in pre-commit spent about a tenth of its time importing ``argparse``
and building the ``check`` parser (issue 13); ``benchmarks/check_parser.py`` measures what
this path saves, side by side (issue 23: over 10 ms, so it stays). It is no second
definition of the options: :func:`options` runs the one definition,
:func:`sapper.cli._checkopts.define`, against a recorder instead of an argparse parser, and
reads the option strings, destinations, types, choices and defaults from the calls.

:func:`parse_check` reads the arguments of ``sapper check`` when they use only options spelled
in full, each once or more (the last wins, as in argparse), values given as ``--opt VALUE``
or ``--opt=VALUE``, and targets in one run; for anything else (``--help``, an abbreviated or
unknown option, a missing or invalid value, a value or target starting with ``-``, ``--``,
targets on both sides of an option, or a definition using more of argparse than the recorder
knows) it returns ``None`` and :func:`sapper.cli.run` lets argparse parse, which also writes
the usage errors. ``tests/test_cli_fastcheck.py`` checks that both give the same namespace on
a table of command lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

__all__ = ["Options", "options", "parse_check"]


def _text(value: str) -> str:
    return value


class Options:
    """What the fast parser knows of ``check``, as recorded from its definition (a plain
    class: building a dataclass costs start-up time, see tests/test_cold_start.py)."""

    def __init__(self) -> None:
        #: ``store_true`` option strings -> destination.
        self.flags: dict[str, str] = {}
        #: Option strings that take one value -> (destination, conversion, allowed values).
        self.values: dict[str, tuple[str, Callable[[str], Any], tuple[Any, ...] | None]] = {}
        #: Destination -> default, ``set_defaults`` included (``handler``).
        self.defaults: dict[str, Any] = {}
        #: The destination of the ``nargs="*"`` positional (the targets).
        self.positional: str | None = None
        #: The definition asked for something the recorder does not read: parse nothing.
        self.unsupported = False

    def add_argument(self, *names: str, **spec: Any) -> None:
        """Record one ``add_argument`` call as argparse would read it."""
        known = {"nargs", "metavar", "help", "action", "choices", "default", "type", "dest"}
        if not names or set(spec) - known:
            self.unsupported = True
            return
        if not names[0].startswith("-"):  # a positional: only "TARGET ..." is read
            if len(names) > 1 or spec.get("nargs") != "*" or self.positional is not None:
                self.unsupported = True
                return
            self.positional = names[0]
            self.defaults[names[0]] = spec.get("default", [])
            return
        longs = [n for n in names if n.startswith("--")]
        dest = spec.get("dest") or (longs or list(names))[0].lstrip("-").replace("-", "_")
        action = spec.get("action")
        if action == "store_true" and set(spec) <= {"action", "help", "dest"}:
            self.flags.update(dict.fromkeys(names, dest))
            self.defaults[dest] = False
        elif action in (None, "store") and spec.get("nargs") is None:
            convert = spec.get("type") or _text
            choices = tuple(spec["choices"]) if spec.get("choices") is not None else None
            self.values.update(dict.fromkeys(names, (dest, convert, choices)))
            default = spec.get("default")
            # as argparse: a string default goes through the option's type
            self.defaults[dest] = convert(default) if isinstance(default, str) else default
        else:
            self.unsupported = True

    def set_defaults(self, **values: Any) -> None:
        self.defaults.update(values)


def options() -> Options:
    """The options of ``check``, recorded from :func:`sapper.cli._checkopts.define` (each
    time: defaults such as ``--index-url``'s come from the environment)."""
    from ._checkopts import define

    recorded = Options()
    define(recorded)  # type: ignore[arg-type]  # it only calls add_argument, set_defaults
    return recorded


def parse_check(argv: Sequence[str]) -> SimpleNamespace | None:
    """The namespace argparse would give for ``sapper check ARGV``, or None when ``argv``
    is not one of the simple forms (argparse then parses it, and reports any error)."""
    known = options()
    if known.unsupported or known.positional is None:
        return None
    values: dict[str, Any] = {"command": "check", **known.defaults}
    targets: list[str] = []
    ended = False  # targets were given and an option followed them
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith("-"):
            if ended:
                return None  # argparse rejects targets on both sides of an option
            targets.append(arg)
            continue
        ended = bool(targets)
        name, eq, value = arg.partition("=")
        if name in known.flags and not eq:
            values[known.flags[name]] = True
            continue
        if name not in known.values or not name.startswith("--"):
            return None
        if not eq:
            if i == len(argv) or argv[i].startswith("-"):
                return None
            value = argv[i]
            i += 1
        dest, convert, choices = known.values[name]
        try:
            converted = convert(value)
        except Exception:  # argparse reports a bad value
            return None
        if choices is not None and converted not in choices:
            return None
        values[dest] = converted
    values[known.positional] = targets
    return SimpleNamespace(**values)
