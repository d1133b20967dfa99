"""Sandboxed PEP 517 builds: the runner behind ``sapper canary`` and ``sapper wheelhouse``.

The API is small::

    from sapper.build import Builder, Limits

    builder = Builder(limits=Limits(timeout=120))        # cache: sapper's cache directory
    result = builder.build(Path("pkg-1.0.tar.gz"), mode="wheel",
                           override=["setuptools==78.0.1"], keep=Path("wheels"))
    result.outcome          # "ok" | "fail" | "spurious" | "prepare-fail"
    result.signature        # "InvalidConfigError: Invalid dash-separated key '<name>' ..."
    result.warnings         # every warning the backend emitted, setuptools' ones parsed

A build unpacks the sdist into a private directory, fetches the wheels of its
``build-system.requires`` into a local wheelhouse (online, pip, sha256-checked; wheels only,
so nothing runs), creates (once per requirement set, with uv, offline) a build environment,
and runs ``get_requires_for_build_wheel`` then ``prepare_metadata_for_build_wheel`` (or
``build_wheel``) through pyproject-hooks, each hook in bubblewrap: no network, read-only
system, one writable directory, caps on memory, CPU time, file size and processes, a
wall-clock timeout that kills the whole process tree, a scrubbed environment. Requirements
the first hook adds (``setup_requires``, ``wheel`` for setuptools < 70.1) trigger one more
fetch and environment. :func:`check_sandbox` raises :class:`~sapper.SandboxError` when
bubblewrap cannot run, naming the cause :func:`diagnose_sandbox` found and its fix;
``Builder(sandbox=False)`` is the explicit opt-out. The environments are bounded
(``Builder(envs_max_size=...)``, default 10 GiB or ``$SAPPER_BUILD_ENVS_MAX_SIZE``): the
least recently used are evicted, never one a build holds.
"""

from __future__ import annotations

from ..inputs._extract import unpack_sdist
from ._capture import BuildWarning, parse_setuptools_message, signature
from ._env import DEFAULT_ENVS_MAX_SIZE, EnvironmentCache, Wheelhouse, default_envs_max_size
from ._runner import Builder, BuildResult, Mode, Outcome
from ._sandbox import (
    Limits,
    Remedy,
    SandboxDiagnosis,
    SandboxRun,
    check_sandbox,
    diagnose_sandbox,
    run_sandboxed,
)

__all__ = [
    "DEFAULT_ENVS_MAX_SIZE",
    "BuildResult",
    "BuildWarning",
    "Builder",
    "EnvironmentCache",
    "Limits",
    "Mode",
    "Outcome",
    "Remedy",
    "SandboxDiagnosis",
    "SandboxRun",
    "Wheelhouse",
    "check_sandbox",
    "default_envs_max_size",
    "diagnose_sandbox",
    "parse_setuptools_message",
    "run_sandboxed",
    "signature",
    "unpack_sdist",
]


def __dir__() -> list[str]:
    return __all__
