"""Derive per-version facts about setuptools from its real wheels on PyPI.

Writes ``src/sapper/data/setuptools.json``, the data file sapper's rules read, so
that no rule hand-types what a given setuptools version does.

The code is this package, one module per section: ``wheel`` (reading a wheel, ``ast``
helpers), ``cfg_keys`` and ``cfg`` (the ``cfg`` facts), ``sections``, ``modules``
(``modules``, ``names``, ``getattr``), ``releases`` and ``document`` (assembly, command
line). ``scripts/gen_setuptools_facts.py`` runs it; tests import it as ``setuptools_facts``.

Usage (from the repository root, with the dev venv)::

    .venv/bin/python scripts/gen_setuptools_facts.py            # regenerate the data file
    .venv/bin/python scripts/gen_setuptools_facts.py --check    # fail if it is out of date
    .venv/bin/python scripts/gen_setuptools_facts.py --offline  # use only the local cache

What it does:

* reads the project page of setuptools on PyPI's simple API (through
  :class:`sapper.pypi.Index`) and takes every release >= 38.0.0 (yanked ones included);
* downloads each release's pure-Python wheel (a small thread pool) with
  :meth:`sapper.pypi.Index.download`, which verifies the sha256 digest PyPI publishes,
  into ``$SAPPER_DEV_CACHE/index/`` (default ``~/.cache/sapper-dev/``);
* opens every wheel with ``zipfile`` in memory and analyses the source text with
  ``ast``.  It never extracts a wheel and never imports or runs setuptools code.

Extracted per version:

``cfg``
    How ``setup.cfg`` keys are read (``setuptools/dist.py``, ``setuptools/warnings.py``):
    ``parser`` ("setuptools", or "distutils" when setuptools delegates to the
    standard library's ``Distribution.parse_config_files``), ``optionxform_str``,
    ``encoding`` ("utf-8", "locale" or "coding-header"), ``venv_ignored`` and two
    key rules, ``dash`` (keys containing "-") and ``upper`` (keys for which
    ``not key.islower()``), each with ``action`` ("convert", "warn", "raise" or
    "none"), ``checked`` ("all", "metadata", "setuptools" or null when nothing is
    checked), ``exempt`` (sections excluded, as the code lists them), ``outside``
    (what happens to the key in sections that are not checked: "convert" or
    "keep"; null when every section is checked), ``warning`` (class name),
    ``due_date``, ``enforceable`` (the warning goes through
    ``SetuptoolsWarning.emit``, which raises once the due date has passed and
    ``SETUPTOOLS_ENFORCE_DEPRECATION`` is set) and ``error`` (exception raised).
    ``commands`` is the set of section names the code treats as command sections
    (null when the code has no such notion).
``modules``
    Every importable module of the wheel, with ``setuptools._distutils.X`` also
    listed as ``distutils.X`` and the modules reachable through the
    ``setuptools.extern`` / ``pkg_resources.extern`` vendor importers, as
    inclusive ``[first, last]`` runs over the ordered version list.
``names`` / ``getattr``
    Public names bound at module level in a few modules, and the modules that
    define a module-level ``__getattr__``.
``section_eras`` (``cfg_sections``)
    Which ``[metadata*]`` / ``[options*]`` sections ``parse_configuration``
    (``setuptools/config.py``, later ``setuptools/config/setupcfg.py``) accepts.
    ``ConfigHandler.parse`` looks each sub-section name up as
    ``getattr(handler, ('parse_section' + ('_' + name if name else '')).replace('.', '__'))``
    and raises ``error`` when there is none, whatever ``ignore_option_errors`` is.
    ``metadata`` / ``options`` list every ``parse_section*`` attribute of the
    handler (its own and its setuptools bases'); ``split`` is how a section name
    becomes ``name``: "replace" (names starting with the prefix,
    ``full.replace(prefix, '').strip('.')``) or "partition" (names starting with
    the prefix, ``full.partition(prefix)[2].lstrip('.')``).  ``applied`` (the call
    in ``Distribution.parse_config_files`` was found), ``module``, ``order`` (the
    handlers' ``parse()`` order, so which error is raised first) and
    ``ignore_option_errors`` (``from``: the parameter of the caller that is
    forwarded, or null for a literal; ``default``: its default value).

When the analysis meets code it does not recognise it raises
:class:`ExtractionError` naming the version: it never guesses.
"""

from __future__ import annotations

from ._base import ExtractionError
from .cfg import extract_cfg
from .document import (
    WheelFacts,
    analyse_wheel,
    build_document,
    dump_document,
    generate,
    main,
    runs,
)
from .modules import extract_names, module_names, wheel_modules
from .releases import Release, select_releases
from .sections import extract_sections
from .wheel import WheelView, parse_entry_points

__all__ = [
    "ExtractionError",
    "Release",
    "WheelFacts",
    "WheelView",
    "analyse_wheel",
    "build_document",
    "dump_document",
    "extract_cfg",
    "extract_names",
    "extract_sections",
    "generate",
    "main",
    "module_names",
    "parse_entry_points",
    "runs",
    "select_releases",
    "wheel_modules",
]
