"""Layout rules: the project's file tree as setuptools' automatic discovery and license-file
globbing see it.

LY001 replays ``setuptools.discovery.ConfigDiscovery`` (61.0.0+) over the member names of
the sdist or directory; LY002 replays ``Distribution._find_pattern`` (77.0.1+) over every
explicit license-file pattern, wherever it is written: setup.cfg ``license_files`` and
``license_file`` (checked here rather than with the setup.cfg rules because the check needs
the file tree), setup.py keywords, and both pyproject.toml tables.

What the rules of this family share; each rule lives in its own module."""

from __future__ import annotations
