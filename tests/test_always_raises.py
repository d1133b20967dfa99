"""SP901: a setup.py whose code that surely runs in a wheel build raises (or exits with a
failure) fails with every setuptools; code that may not run is never reported."""

from __future__ import annotations

import pytest
from helpers import check

HEAD = "import sys\nfrom setuptools import setup\n"
SETUP = 'setup(name="probe", version="1.0")\n'
ERROR = {"ERROR.txt": "#####\nThis is a placeholder.\n```\n$ pip install real\n```\n#####\n"}

#: (id, setup.py body after HEAD, other files, (line, text in the message) or None)
CASES: list[tuple[str, str, dict[str, str], tuple[int, str] | None]] = [
    ("module-level", 'raise RuntimeError("use the other index")\n', {}, (3, "use the other index")),
    ("after-setup", SETUP + 'raise RuntimeError("late")\n', {}, (4, "RuntimeError")),
    (
        "nvidia-else-of-argv-sdist",
        'if sys.argv[1] == "sdist":\n    '
        + SETUP
        + 'else:\n    raise RuntimeError(open("ERROR.txt", "r").read())\n',
        ERROR,
        (6, "This is a placeholder. $ pip install real"),
    ),
    (
        "sdist-not-in-argv",
        'if "sdist" not in sys.argv:\n    raise RuntimeError("x")\n' + SETUP,
        {},
        (4, "x"),
    ),
    (
        "sys-exit-message",
        'sys.exit("not on PyPI")\n',
        {},
        (3, "raises SystemExit at module level on every wheel build: not on PyPI"),
    ),
    ("sys-exit-1", "sys.exit(1)\n", {}, (3, "SystemExit")),
    (
        "raise-systemexit-message",
        'raise SystemExit("no")\n',
        {},
        (3, "SystemExit at module level on every wheel build: no;"),
    ),
    ("dunder-main", 'if __name__ == "__main__":\n    raise RuntimeError("x")\n', {}, (4, "x")),
    (
        "function-called",
        'def main():\n    raise RuntimeError("inner")\n\nmain()\n',
        {},
        (6, "inner"),
    ),
    (
        "imported-module",
        "import info\n" + SETUP,
        {"info.py": 'raise RuntimeError("from info")\n'},
        (3, "from info"),
    ),
    (
        "old-python-else",
        'if sys.version_info < (3,):\n    pass\nelse:\n    raise RuntimeError("py3")\n',
        {},
        (6, "py3"),
    ),
    # never reported: may not run
    (
        "under-if-undecided",
        'if len(sys.argv) > 5:\n    raise RuntimeError("x")\n' + SETUP,
        {},
        None,
    ),
    (
        "argv-egg-info",
        'if sys.argv[1] == "egg_info":\n    raise RuntimeError("x")\n' + SETUP,
        {},
        None,
    ),
    (
        "argv-sdist-branch",
        'if sys.argv[1] == "sdist":\n    raise RuntimeError("x")\n' + SETUP,
        {},
        None,
    ),
    (
        "under-try",
        'try:\n    raise RuntimeError("x")\nexcept Exception:\n    pass\n' + SETUP,
        {},
        None,
    ),
    (
        "in-handler",
        "try:\n    import numpy\nexcept ImportError:\n    raise RuntimeError('x')\n" + SETUP,
        {},
        None,
    ),
    ("function-not-called", 'def f():\n    raise RuntimeError("x")\n\n' + SETUP, {}, None),
    ("under-for", 'for a in []:\n    raise RuntimeError("x")\n' + SETUP, {}, None),
    ("under-with", 'with open("x") as f:\n    raise RuntimeError("x")\n' + SETUP, {}, None),
    (
        "after-undecided-exit",
        'if len(sys.argv) > 5:\n    sys.exit(0)\nraise RuntimeError("x")\n',
        {},
        None,
    ),
    ("exit-0-first", 'sys.exit(0)\nraise RuntimeError("x")\n', {}, None),
    ("sys-exit-0", "sys.exit(0)\n", {}, None),
    ("raise-systemexit-none", "raise SystemExit\n", {}, None),
    (
        "windows-only",
        'if sys.platform == "win32":\n    raise RuntimeError("x")\n' + SETUP,
        {},
        None,
    ),
    ("bare-raise", "raise\n", {}, None),
    (
        "function-raises-conditionally",
        'def main():\n    if len(sys.argv) > 5:\n        raise RuntimeError("x")\n\nmain()\n'
        + SETUP,
        {},
        None,
    ),
    (
        "name-not-main",
        'if __name__ != "__main__":\n    raise RuntimeError("x")\n' + SETUP,
        {},
        None,
    ),
    (
        "pinterest-rebound-in-undecided-branch",
        "import os\nv = None\nif os.environ.get('X'):\n    v = '1'\nelse:\n    v = read()\n"
        'if v is None:\n    raise ValueError("Version is not defined")\n' + SETUP,
        {},
        None,
    ),
    (
        "bound-by-exec",
        'v = None\nexec(open("v.py").read())\nif v is None:\n    raise ValueError("x")\n' + SETUP,
        {"v.py": "v = '1'\n"},
        None,
    ),
    (
        "bound-once",
        'V = None\nif V is None:\n    raise ValueError("no version")\n',
        {},
        (5, "no version"),
    ),
    ("fine", SETUP, {}, None),
]


@pytest.mark.parametrize(
    ("body", "files", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_always_raises(body: str, files: dict[str, str], expected: tuple[int, str] | None) -> None:
    result = check({"setup.py": HEAD + body, **files}, setuptools="84.2.1")
    findings = [f for f in result.findings if f.code == "SP901"]
    assert result.verdict is not None
    if expected is None:
        assert findings == [], findings[0].message
        assert result.verdict.outcome != "fails"
        return
    line, text = expected
    assert [f.line for f in findings] == [line]
    message = findings[0].message
    assert text in message, message
    assert result.verdict.outcome == "fails"
    assert result.verdict.because == ("SP901",)
    # every release: the project's own code fails, whatever setuptools does
    old = check({"setup.py": HEAD + body, **files}, setuptools="58.0.4")
    assert old.verdict is not None and old.verdict.outcome == "fails"


def test_python_target_decides() -> None:
    body = HEAD + 'if sys.version_info < (3, 8):\n    raise RuntimeError("needs 3.8")\n' + SETUP
    assert not [f for f in check({"setup.py": body}).findings if f.code == "SP901"]
    old = check({"setup.py": body}, python="3.7")
    assert [f.line for f in old.findings if f.code == "SP901"] == [4]
