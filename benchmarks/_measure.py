"""What the start-up benchmarks share: instructions counted with valgrind's callgrind.

A count of executed instructions does not depend on the machine's load, so it backs up the
wall-clock medians of ``check_cold.py``, ``check_cold_validators.py`` and
``check_parser.py`` on a busy machine. Imported by those scripts (run as
``python benchmarks/NAME.py``, whose folder is then on ``sys.path``).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def instructions(cmd: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> int | None:
    """Instructions ``cmd`` executes (callgrind's "Collected" total), or None without
    valgrind or when it reports no total."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd,
        env=None if env is None else dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    return None
