"""The target a build runs on (Python version and platform) and the conditions of
setup.py decided there: ``sys.platform``, ``os.name``, ``platform.system()``,
``sys.version_info`` comparisons."""

from __future__ import annotations

import ast
from typing import Any, Final, NamedTuple

from ._exprs import UNKNOWN, dotted, func_name
from ._slots import Slot

__all__ = ["NOT_SPECIAL", "Conditions", "Target", "make_target", "running_target"]

#: ``os.name`` and ``platform.system()`` for the ``sys.platform`` values sapper knows.
_OS_NAMES: Final = {"win32": "nt", "cygwin": "posix"}
_SYSTEMS: Final = {
    "linux": "Linux",
    "win32": "Windows",
    "darwin": "Darwin",
    "cygwin": "CYGWIN_NT",
    "freebsd": "FreeBSD",
}


class Target(NamedTuple):
    """The interpreter a build runs on: Python ``(major, minor)`` and ``sys.platform``."""

    python: tuple[int, int]
    platform: str

    @property
    def os_name(self) -> str:
        return _OS_NAMES.get(self.platform, "posix")

    @property
    def system(self) -> str | None:
        """What ``platform.system()`` returns there; None when sapper does not know."""
        for prefix, system in _SYSTEMS.items():
            if self.platform.startswith(prefix):
                return system
        return None


def running_target() -> Target:
    """The interpreter sapper runs on."""
    import sys

    return Target((sys.version_info[0], sys.version_info[1]), sys.platform)


def make_target(python: str | None = None, platform: str | None = None) -> Target:
    """A :class:`Target` from ``--python X.Y`` and ``--platform`` (``sys.platform`` values:
    ``linux``, ``darwin``, ``win32``...); what is not given is the running interpreter's."""
    here = running_target()
    version = here.python
    if python:
        major, _, minor = python.partition(".")
        if major.isdigit() and minor.isdigit():
            version = (int(major), int(minor))
    return Target(version, platform or here.platform)


#: Not an expression whose value depends on the target (see :meth:`Conditions._special`).
NOT_SPECIAL: Final = object()


class Conditions:
    """The conditions of an abstract run (:class:`~._values.Run`), decided for its target."""

    target: Target

    def eval(self, node: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None) -> Slot:
        raise NotImplementedError

    def truth(
        self, test: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> bool | None:
        """Whether ``test`` holds on the target; None when that cannot be known."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.truth(test.operand, env, outer)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            results = [self.truth(v, env, outer) for v in test.values]
            if isinstance(test.op, ast.And):
                if False in results:
                    return False
                return True if all(r is True for r in results) else None
            if True in results:
                return True
            return False if all(r is False for r in results) else None
        if isinstance(test, ast.Compare):  # chained too: a < b < c is a < b and b < c
            left = self._target_value(test.left, env, outer)
            results = []
            for op, comparator in zip(test.ops, test.comparators, strict=True):
                right = self._target_value(comparator, env, outer)
                if left is UNKNOWN or right is UNKNOWN:
                    results.append(None)
                else:
                    results.append(_compare(op, left, right))
                left = right
            if False in results:
                return False
            return True if all(r is True for r in results) else None
        if isinstance(test, ast.Call) and func_name(test.func) in {"startswith", "endswith"}:
            if isinstance(test.func, ast.Attribute) and len(test.args) == 1:
                base = self._target_value(test.func.value, env, outer)
                arg = self._target_value(test.args[0], env, outer)
                if isinstance(arg, list):
                    arg = tuple(arg)
                if isinstance(base, str) and isinstance(arg, str | tuple):
                    try:
                        return bool(getattr(base, test.func.attr)(arg))
                    except TypeError:
                        return None
            return None
        value = self._target_value(test, env, outer)  # Compare/BoolOp/not are read above
        if value is UNKNOWN:
            return None
        try:
            return bool(value)
        except Exception:
            return None

    def _target_value(
        self, node: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None
    ) -> Any:
        """The value of an expression, ``sys.platform``, ``os.name``, ``platform.system()``
        and ``sys.version_info`` (whole, indexed, sliced, ``.major``/``.minor``) taken from
        the target."""
        special = self._special(node, env, outer)
        if special is not NOT_SPECIAL:
            return special
        if isinstance(node, ast.Tuple):
            parts = [self._target_value(e, env, outer) for e in node.elts]
            return UNKNOWN if any(p is UNKNOWN for p in parts) else tuple(parts)
        if isinstance(node, ast.Compare | ast.BoolOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            truth = self.truth(node, env, outer)
            return UNKNOWN if truth is None else truth
        value = self.eval(node, env, outer).value
        if isinstance(value, list):
            return tuple(value)
        return value

    def _special(self, node: ast.expr, env: dict[str, Slot], outer: dict[str, Slot] | None) -> Any:
        """What a target-dependent expression gives on the target, or ``NOT_SPECIAL``."""
        name = dotted(node)
        target = self.target
        version = (*target.python, 0)
        if name == "sys.platform":
            return target.platform
        if name in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}:
            return False  # true for type checkers only, never when code runs
        if name == "os.name":
            return target.os_name
        if name == "sys.version_info":
            return version
        if name == "sys.version":
            return f"{target.python[0]}.{target.python[1]}.0"
        if name in {"sys.version_info.major", "sys.version_info.minor"}:
            return version[0 if name.endswith("major") else 1]
        if name in {"six.PY2", "six.PY3"}:
            return target.python[0] == int(name[-1])
        if isinstance(node, ast.Call) and not node.args:
            called = dotted(node.func)
            if called == "platform.system":
                return target.system or UNKNOWN
            if called == "platform.python_version_tuple":
                return UNKNOWN
            if isinstance(node.func, ast.Attribute) and node.func.attr in {"lower", "upper"}:
                base = self._target_value(node.func.value, env, outer)
                return getattr(base, node.func.attr)() if isinstance(base, str) else UNKNOWN
        if isinstance(node, ast.Subscript) and dotted(node.value) == "sys.version_info":
            index = node.slice
            if isinstance(index, ast.Constant) and index.value in (0, 1):
                return version[0 if index.value == 0 else 1]
            if (
                isinstance(index, ast.Slice)
                and index.lower is None
                and index.step is None
                and isinstance(index.upper, ast.Constant)
                and index.upper.value in (1, 2)
            ):
                return version[: 1 if index.upper.value == 1 else 2]
            return UNKNOWN
        if (
            isinstance(node, ast.Subscript)
            and dotted(node.value) == "sys.version"
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == 0
        ):
            return str(target.python[0])
        return NOT_SPECIAL


def _compare(op: ast.cmpop, left: Any, right: Any) -> bool | None:
    """``left op right`` for the values a condition compares; None when it cannot be
    decided (a version tuple compared with a shorter tuple is decided as Python does)."""
    # sys.version_info has 5 fields; sapper knows the first two (and says micro is 0): a
    # comparison that needs the micro number is not decided.
    if (
        isinstance(left, tuple)
        and isinstance(right, tuple)
        and any(len(t) > 2 and any(t[2:]) for t in (left, right))
        and tuple(left[:2]) == tuple(right[:2])
    ):
        return None
    try:
        if isinstance(op, ast.Eq):
            return bool(left == right)
        if isinstance(op, ast.NotEq):
            return bool(left != right)
        if isinstance(op, ast.Lt):
            return bool(left < right)
        if isinstance(op, ast.LtE):
            return bool(left <= right)
        if isinstance(op, ast.Gt):
            return bool(left > right)
        if isinstance(op, ast.GtE):
            return bool(left >= right)
        if isinstance(op, ast.In):
            return bool(left in right)
        if isinstance(op, ast.NotIn):
            return bool(left not in right)
        if isinstance(op, ast.Is):
            return bool(left is right) if left is None or right is None else None
        if isinstance(op, ast.IsNot):
            return bool(left is not right) if left is None or right is None else None
    except TypeError:
        return None
    return None
