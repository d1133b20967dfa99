#!/usr/bin/env python3
"""Derive per-version facts about setuptools from its real wheels on PyPI.

Writes ``src/sapper/data/setuptools.json``; the code is the package
``scripts/setuptools_facts`` (see its docstring for what is extracted, and how).

    .venv/bin/python scripts/gen_setuptools_facts.py            # regenerate the data file
    .venv/bin/python scripts/gen_setuptools_facts.py --check    # fail if it is out of date
    .venv/bin/python scripts/gen_setuptools_facts.py --offline  # use only the local cache
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from setuptools_facts import main

if __name__ == "__main__":
    raise SystemExit(main())
