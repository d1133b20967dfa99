"""What names hold during an abstract run of setup.py: values, dicts built key by key,
functions setup.py defines, the ``setup()`` calls recorded, and how the bindings of branches
sapper cannot decide merge."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

from ._exprs import UNKNOWN

__all__ = [
    "UNKNOWN_SLOT",
    "Function",
    "Item",
    "SetupCall",
    "Slot",
    "add",
    "constant",
    "dict_slot",
    "item_slot",
    "merge",
    "merge_slots",
    "taint",
]


class Item(NamedTuple):
    """One key of a dict setup.py builds: its value (or ``UNKNOWN``) and the expression it
    comes from."""

    key: str
    value: Any
    node: ast.expr
    #: Set on some of the paths that reach here only (a branch sapper cannot decide).
    maybe: bool = False


class Slot(NamedTuple):
    """What a name holds at one point of setup.py's run: its value (or ``UNKNOWN``), the
    expression it was bound to, and for a dict built step by step each key with its own
    expression (``open``: keys may exist that sapper cannot see)."""

    value: Any
    node: ast.expr | None = None
    items: tuple[Item, ...] | None = None
    open: bool = False


def dict_slot(items: Iterable[Item], node: ast.expr | None, *, open_: bool = False) -> Slot:
    merged: dict[str, Item] = {}
    for item in items:
        merged[item.key] = item
    values = tuple(merged.values())
    known = not open_ and all(i.value is not UNKNOWN for i in values)
    value = {i.key: i.value for i in values} if known else UNKNOWN
    return Slot(value, node, values, open_)


UNKNOWN_SLOT: Final = Slot(UNKNOWN)


class Function:
    """A function setup.py defines, as the value of its name."""

    __slots__ = ("node",)

    def __init__(self, node: ast.FunctionDef) -> None:
        self.node = node


class SetupCall(NamedTuple):
    """A ``setup()`` call that runs when setup.py runs, with the keywords it gets."""

    call: ast.Call
    keywords: tuple[tuple[str, Slot, ast.expr], ...]
    #: ``setup(**x)`` with ``x`` a dict sapper cannot read entirely.
    opaque: bool
    #: Keys ``setup(**x)`` gets on some paths only (branches sapper cannot decide): whether
    #: they reach ``setup()`` is not known, so they are not reported as if they did.
    maybe: tuple[str, ...] = ()
    #: ``setup(**x)``/``setup(*args)`` with something sapper cannot read at all.
    unread: bool = False


def taint(env: dict[str, Slot]) -> None:
    """Every name bound so far may have been rebound: unknown."""
    for key in list(env):
        env[key] = UNKNOWN_SLOT


def add(left: Any, right: Any) -> Any:
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(left, list) and isinstance(right, list | tuple):
        return [*left, *right]
    if isinstance(left, tuple) and isinstance(right, tuple):
        return left + right
    return UNKNOWN


def item_slot(item: Item) -> Slot:
    return Slot(item.value, item.node)


def merge_slots(slots: Sequence[Slot]) -> Slot:
    first = slots[0]
    if all(s == first for s in slots[1:]):
        return first
    if all(s.items is not None for s in slots):
        # a dict built differently on each path: a key any path sets is kept (reported if
        # it may reach setup()), with its value only if every path agrees
        by_key: dict[str, list[Item]] = {}
        for slot in slots:
            for item in slot.items or ():
                by_key.setdefault(item.key, []).append(item)
        items = []
        for key, found in by_key.items():
            values = {repr(i.value) for i in found}
            value = found[0].value if len(values) == 1 else UNKNOWN
            maybe = len(found) != len(slots) or any(i.maybe for i in found)
            items.append(Item(key, value, found[0].node, maybe))
        open_ = any(s.open for s in slots)
        merged = dict_slot(items, first.node, open_=open_)
        if any(len(f) != len(slots) for f in by_key.values()):
            merged = merged._replace(value=UNKNOWN)
        return merged
    same_value = all(repr(s.value) == repr(first.value) for s in slots)
    return Slot(first.value if same_value else UNKNOWN, first.node)


def merge(envs: Sequence[dict[str, Slot]]) -> dict[str, Slot]:
    if len(envs) == 1:
        return dict(envs[0])
    merged: dict[str, Slot] = {}
    names = dict.fromkeys(name for env in envs for name in env)
    for name in names:
        found = [env[name] for env in envs if name in env]
        slot = merge_slots(found)
        if len(found) != len(envs) and slot.items is None:
            slot = slot._replace(value=UNKNOWN)  # bound on some paths only
        merged[name] = slot
    return merged


def constant(value: Any, node: ast.expr) -> ast.expr:
    """A known value as an expression (lists of constants as a list display)."""
    if isinstance(value, list):
        out: ast.expr = ast.List(elts=[constant(v, node) for v in value], ctx=ast.Load())
    else:
        out = ast.Constant(value=value)
    return ast.copy_location(out, node)
