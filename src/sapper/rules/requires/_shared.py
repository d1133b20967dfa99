"""Build requirements: plugins that setuptools loads during the build.

RQ001: a build requirement (``build-system.requires`` or ``setup_requires``) pins a
setuptools plugin to releases that import ``pkg_resources`` when setuptools loads them.
Which releases do is read from the plugins' own wheels by ``scripts/gen_plugin_facts.py``
(an unguarded module-level ``import pkg_resources`` in the package) into
``data/plugins.json``.

What the rules of this family share; each rule lives in its own module."""

from __future__ import annotations
