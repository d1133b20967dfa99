"""Settings of one run: ``[tool.sapper]`` overridden by the command line, and validated."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .._exceptions import UsageError
from ..config import Config, find_config, load_config

if TYPE_CHECKING:
    import argparse

    from ..versions import Catalogue

__all__ = ["Settings", "config_for", "settings_for"]


class Settings(NamedTuple):
    """What a target is checked with, after merging configuration and options (a
    NamedTuple: a frozen dataclass costs several exec() calls at every cold start)."""

    config: Config
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    setuptools: str | None
    python: str | None
    enforce_deprecations: bool
    #: The build's ``sys.platform`` (None: the running interpreter's).
    platform: str | None = None
    #: SAP100 (unused suppression comments) was selected: by ``ALL`` or a selector naming
    #: it, never by default (as ruff's RUF100).
    unused_suppressions: bool = False


def config_for(args: argparse.Namespace, target: str | None, cache: dict[Path, Config]) -> Config:
    """The configuration for ``target``: ``--config``, none with ``--isolated``, or the nearest
    ``[tool.sapper]`` above a directory target (above the current directory otherwise)."""
    if getattr(args, "isolated", False):
        if getattr(args, "config", None) is not None:
            msg = "--config and --isolated contradict each other: pass one of them"
            raise UsageError(msg)
        return Config()
    path: Path | None = getattr(args, "config", None)
    if path is None:
        start = Path(target) if target is not None and Path(target).is_dir() else Path.cwd()
        path = find_config(start)
    elif not path.is_file():
        msg = f"--config {path}: no such file"
        raise UsageError(msg)
    if path is None:
        return Config()
    if path not in cache:
        cache[path] = load_config(path)
    return cache[path]


def _check_python(text: str, origin: str) -> str:
    parts = text.split(".")
    if not (1 < len(parts) <= 3 and all(p.isdigit() for p in parts)):
        msg = f"{origin} {text!r}: write a version such as 3.12"
        raise UsageError(msg)
    return text


def settings_for(args: argparse.Namespace, config: Config) -> Settings:
    """Merge ``config`` with the options in ``args`` (the options win) and validate them:
    unknown rule codes, a setuptools version that does not exist or does not run on the
    requested Python are usage errors."""
    from ..rules import rule_index
    from ..selection import Selection, resolve, validate_selectors
    from ..suppress import UNUSED_SUPPRESSION
    from ..versions import catalogue

    rule_codes = sorted(rule_index())  # the codes only: no rule module is imported here
    codes = [*rule_codes, UNUSED_SUPPRESSION]
    origin = ""
    if config.path is not None:
        table = " [tool.sapper]" if config.path.name == "pyproject.toml" else ":"
        origin = f"{config.path}{table}"
    cli_select = tuple(getattr(args, "select", ()) or ())
    cli_ignore = tuple(getattr(args, "ignore", ()) or ())
    validate_selectors(config.select or (), codes, option=f"{origin} select")
    validate_selectors(config.ignore, codes, option=f"{origin} ignore")
    for _pattern, selectors in config.per_file_ignores:
        validate_selectors(selectors, codes, option=f"{origin} per-file-ignores")
    validate_selectors(cli_select, codes, option="--select")
    validate_selectors(cli_ignore, codes, option="--ignore")
    layers = [
        Selection(config.select, config.ignore),
        Selection(cli_select or None, cli_ignore),
    ]
    chosen = set(resolve(layers, codes))
    # SAP100 runs only when a select names it (ALL included), never by default.
    unused = UNUSED_SUPPRESSION in chosen and any(layer.select for layer in layers)
    chosen.discard(UNUSED_SUPPRESSION)
    if not chosen:
        msg = "--select/--ignore leave no rule to run" + (
            f" (with the selection in {config.path})" if config.path else ""
        )
        if unused:
            msg += f"; {UNUSED_SUPPRESSION} checks the suppressions of the rules that run"
        raise UsageError(msg)
    select = () if len(chosen) == len(rule_codes) else tuple(sorted(chosen))

    cat = catalogue()
    setuptools = getattr(args, "setuptools", None)
    st_origin = "--setuptools"
    if setuptools is None and config.setuptools is not None:
        setuptools, st_origin = config.setuptools, f"{origin} setuptools"
    python = getattr(args, "python", None)
    py_origin = "--python"
    if python is None and config.python is not None:
        python, py_origin = config.python, f"{origin} python"
    if setuptools is not None:
        try:
            setuptools = cat.validate_version(setuptools)
        except UsageError as exc:
            if st_origin == "--setuptools":
                raise
            msg = f"{st_origin}: {exc}"
            raise UsageError(msg) from exc
    if python is not None:
        python = _check_python(python, py_origin)
    if setuptools is not None and python is not None:
        _check_supported(setuptools, python, cat)
    platform = getattr(args, "platform", None)
    pf_origin = "--platform"
    if platform is None and config.platform is not None:
        platform, pf_origin = config.platform, f"{origin} platform"
    if platform is not None and not (platform.isascii() and platform.isalnum()):
        msg = f"{pf_origin} {platform!r}: write a sys.platform value such as linux, darwin or win32"
        raise UsageError(msg)
    enforce = bool(getattr(args, "enforce_deprecations", False)) or bool(
        config.enforce_deprecations
    )
    return Settings(
        config=config,
        select=select,
        ignore=(),
        setuptools=setuptools,
        python=python,
        enforce_deprecations=enforce,
        unused_suppressions=unused,
        platform=platform,
    )


def _check_supported(setuptools: str, python: str, cat: Catalogue) -> None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    release = cat.release(setuptools)
    if release is None or not release.requires_python:
        return
    try:
        spec = SpecifierSet(release.requires_python)
    except InvalidSpecifier:  # pragma: no cover - PyPI data is clean
        return
    if not spec.contains(python):
        newest = cat.select(python=python)
        hint = f"; the newest setuptools for Python {python} is {newest}" if newest else ""
        msg = (
            f"setuptools {setuptools} does not run on Python {python} (it requires Python "
            f"{release.requires_python}){hint}"
        )
        raise UsageError(msg)
