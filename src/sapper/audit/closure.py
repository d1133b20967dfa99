"""The closure of a requirements file: pip's own resolver (``pip install --dry-run
--report``, in the sandbox) resolves the whole tree for the running interpreter, so that
every distribution that gets built is judged, listed or not (:func:`resolve_closure`).
An sdist whose metadata cannot be prepared with today's setuptools is retried under a
build constraint; :func:`failing_sdist` reads which one stopped pip from its output.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name

__all__ = ["RESOLVER_PIP", "Closure", "failing_sdist", "resolve_closure"]


#: The pip that resolves a requirements file's closure: the first release with
#: ``--build-constraint`` (older ones reach build environments only through
#: ``PIP_CONSTRAINT``, which also constrains what gets installed).
RESOLVER_PIP = "pip>=25.3"

_ARCHIVE = r"[^\s/'\"]+?\.(?:tar\.gz|tgz|zip|tar\.bz2|tar\.xz|tar)"
_SDIST_LINE = re.compile(
    r"(?:Downloading|Processing|Using cached|File was already downloaded)\s+(?:\S*/)?"
    rf"(?P<file>{_ARCHIVE})\b"
)
_SDIST_NAME = re.compile(
    r"^(?P<name>.+?)-(?P<version>\d[^-]*?)\.(?:tar\.gz|tgz|zip|tar\.bz2|tar\.xz|tar)$"
)
_BUILD_ERROR = "subprocess-exited-with-error"


@dataclass(frozen=True, slots=True, kw_only=True)
class Closure:
    """What pip's resolver made of a requirements file (:func:`resolve_closure`)."""

    #: pip's ``--report`` JSON (version 1), or None when pip could not resolve.
    report: dict[str, object] | None
    #: The build constraints pip ran under (``setuptools<82.0.0``): the sdists whose
    #: metadata could not be prepared with today's setuptools.
    build_constraints: tuple[str, ...] = ()
    #: The pip that resolved (``pip 25.3``).
    pip: str = ""
    #: Each sdist whose metadata failed, and what was done about it.
    rounds: tuple[str, ...] = ()
    #: Why there is no report (pip's error, in a few lines).
    error: str = ""
    #: (name, version) of the sdist whose metadata stopped pip, when one did.
    failed: tuple[str, str] | None = None
    #: The lines left out of the resolution (local projects, VCS lines pip could not
    #: fetch), and why.
    notes: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    #: (name, version, pip's error) of the listed sdists whose metadata pip could not
    #: prepare with the setuptools of today or under a cap (left out of the resolution).
    unprepared: tuple[tuple[str, str, str], ...] = ()


def resolve_closure(
    requirements: Path,
    *,
    constraint_for: Callable[[str, str], str | None],
    index_url: str | None = None,
    no_index: bool = False,
    find_links: Sequence[str] = (),
    only_binary: Sequence[str] = (),
    no_binary: Sequence[str] = (),
    cache_dir: Path | None = None,
    sandbox: bool = True,
    timeout: float = 900.0,
    max_rounds: int = 8,
    build_constraints: Sequence[str] = (),
) -> Closure:
    """Resolve the whole dependency tree of ``requirements`` for the running interpreter with
    pip's own resolver: ``pip install --dry-run --ignore-installed --report``, run in the
    sandbox of :mod:`sapper.build` with the network kept (pip must reach the index; the
    metadata hooks of the sdists it meets run there, never unconfined), the user's pip
    configuration ignored, the index options given here and those of the file applied.

    When the metadata of an sdist cannot be prepared (it fails with today's setuptools, as
    a real install would), ``constraint_for(name, version)`` gives the build constraint
    sapper's verdict has for it (``setuptools<82.0.0``), and pip runs again under every
    constraint found so far (``--build-constraint``), at most ``max_rounds`` times. Never
    raises for what pip or a project does: a failure is :attr:`Closure.error`.
    ``build_constraints`` are given to pip from the first round (``cython<3.0.0``, found by
    the real builds of a wheelhouse).
    """
    import contextlib
    import json
    import os
    import tempfile

    from .._exceptions import SapperError
    from ..build import Builder, Limits, run_sandboxed
    from ..build._env import base_prefix
    from ..build._sandbox import LOG_NAME
    from ._stage import (
        drop_named_lines,
        drop_vcs_lines,
        stage_directory,
        stage_requirements,
    )

    builder = Builder(cache_dir=cache_dir, sandbox=sandbox)
    hold = contextlib.ExitStack()  # pip's environment, not evicted while pip runs
    try:
        builder.check()
        env_dir = builder.environment([RESOLVER_PIP], hold=hold)
    except SapperError as exc:
        hold.close()
        return Closure(report=None, error=f"no pip to resolve with: {exc}")
    python = env_dir / "bin" / "python"
    pip = _pip_version(env_dir)
    readonly = [env_dir]
    prefix = base_prefix(env_dir)
    if prefix is not None:
        readonly.append(prefix)
    cert = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    constraints: dict[tuple[str, str], str] = {("", c): c for c in build_constraints}
    rounds: list[str] = []
    with hold, tempfile.TemporaryDirectory(prefix="sapper-closure-") as tmp:
        work = Path(tmp)
        for sub in ("home", "tmp", "src"):
            (work / sub).mkdir()
        # The sandboxed pip (as ``nobody`` when sapper runs as root) reads copies: the
        # requirements file with the files it includes, and the --find-links directories.
        stage = work / "input"
        stage_made = stage_requirements(requirements.resolve(), stage)
        staged = stage_made.requirements
        readonly += stage_made.readonly
        options: list[str] = []
        if no_index:
            options.append("--no-index")
        elif index_url:
            options += ["--index-url", index_url]
        for location in find_links:
            local = Path(location.removeprefix("file://"))
            here = str(stage_directory(local.resolve(), stage)) if local.is_dir() else location
            options += ["--find-links", here]
        for value in only_binary:
            options += ["--only-binary", value]
        for value in no_binary:
            options += ["--no-binary", value]
        environ = {
            "PATH": f"{env_dir / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(work / "home"),
            "TMPDIR": str(work / "tmp"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_NO_CACHE_DIR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PYTHONNOUSERSITE": "1",
        }
        if stage_made.readonly:  # a local project's repository, owned by another user
            environ |= {
                "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "safe.directory",
                "GIT_CONFIG_VALUE_0": "*",
            }
        if cert and Path(cert).is_file():
            environ["PIP_CERT"] = cert
            readonly.append(Path(cert).resolve().parent)

        def closed(
            *,
            report: dict[str, object] | None = None,
            error: str = "",
            failed: tuple[str, str] | None = None,
        ) -> Closure:
            return Closure(
                report=report,
                build_constraints=tuple(constraints.values()),
                pip=pip,
                rounds=tuple(rounds),
                error=error,
                failed=failed,
                notes=tuple(stage_made.notes),
                dropped=tuple(stage_made.dropped),
                unprepared=tuple(stage_made.unprepared),
            )

        for _ in range(max_rounds):
            report = work / "report.json"
            report.unlink(missing_ok=True)
            argv = [
                str(python),
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--ignore-installed",
                "--no-input",
                "--progress-bar",
                "off",
                "--report",
                str(report),
                # editable VCS lines are cloned here (pip's default is in its read-only env)
                "--src",
                str(work / "src"),
                *options,
            ]
            if constraints:
                file = work / "build-constraints.txt"
                file.write_text("".join(f"{c}\n" for c in constraints.values()))
                argv += ["--build-constraint", str(file)]
            argv += ["-r", str(staged)]
            (work / LOG_NAME).unlink(missing_ok=True)
            run = run_sandboxed(
                argv,
                cwd=staged.parent,
                workdir=work,
                env=environ,
                readonly=readonly,
                limits=Limits(timeout=timeout),
                sandbox=sandbox,
                network=True,
                output_limit=256 * 1024,
            )
            if run.returncode == 0 and report.is_file():
                # the URLs of staged files name their copies: give back the originals
                text = report.read_text(encoding="utf-8")
                text = text.replace(json.dumps(stage.as_uri() + "/")[1:-1], "file:///")
                data = json.loads(text)
                return closed(report=data)
            if run.timed_out:
                return closed(error=f"pip did not finish in {timeout:.0f} s")
            dropped = drop_vcs_lines(stage_made, run.output)
            if dropped:
                stage_made.notes.append(
                    f"pip could not fetch {', '.join(f'`{d}`' for d in dropped)} "
                    f"({_pip_error(run.output)}); the rest was resolved without "
                    + ("it" if len(dropped) == 1 else "them")
                )
                continue
            failed = failing_sdist(run.output)
            absent = _NOT_FOUND.search(run.output)
            if failed is None and absent and drop_named_lines(stage_made, absent.group("name")):
                # a listed requirement no index has (a private package, a typo, a release
                # deleted since): left out, so that the rest still resolves
                stage_made.notes.append(
                    f"pip found no distribution for `{absent.group('req')}`; "
                    "the rest was resolved without it"
                )
                continue
            if failed is None:
                return closed(error=_pip_error(run.output))
            name, version = failed
            key = (canonicalize_name(name), version)
            found = None if key in constraints else constraint_for(name, version)
            own = not _BUILD_DEPS_FAILED.search(run.output)  # the sdist's own hook failed
            if found is None and own and drop_named_lines(stage_made, name):
                # a listed line pip cannot prepare (pg_config missing, Python 2 only):
                # left out, so that the rest of the tree still resolves
                stage_made.unprepared.append((name, version, _pip_error(run.output)))
                stage_made.notes.append(
                    f"the metadata of {name} {version} cannot be prepared here"
                    + (f" even under {constraints[key]}" if key in constraints else "")
                    + f" ({_pip_error(run.output)}); the rest was resolved without it"
                )
                continue
            if key in constraints:
                why = f"the metadata of {name} {version} fails even under {constraints[key]}"
                return closed(error=f"{why}: {_pip_error(run.output)}", failed=failed)
            if found is None:
                why = (
                    f"the metadata of {name} {version} cannot be prepared with today's "
                    "setuptools, and sapper's static verdict has no setuptools cap for it"
                )
                return closed(error=f"{why}: {_pip_error(run.output)}", failed=failed)
            constraints[key] = found
            rounds.append(
                f"{name} {version}: its metadata fails with today's setuptools; "
                f"resolved again under {found}"
            )
        return closed(error=f"still failing after {max_rounds} rounds")


def _pip_version(env_dir: Path) -> str:
    for site in env_dir.glob("lib/python*/site-packages"):
        for dist in site.glob("pip-*.dist-info"):
            return "pip " + dist.name.removesuffix(".dist-info").partition("-")[2]
    return "pip"


def failing_sdist(output: str) -> tuple[str, str] | None:
    """(name, version) of the sdist whose build step failed in pip's ``output``: the last
    sdist pip fetched before the first ``subprocess-exited-with-error``."""
    cut = output.find(_BUILD_ERROR)
    if cut < 0:
        return None
    files = _SDIST_LINE.findall(output[:cut])
    if not files:
        return None
    match = _SDIST_NAME.match(files[-1])
    if match is None:
        return None
    return match.group("name"), match.group("version")


#: pip could not install an sdist's build requirements (an index without setuptools, a pin
#: no index has): the environment's failure, not the sdist's
_BUILD_DEPS_FAILED = re.compile(
    r"(?i)installing build dependencies did not run successfully|when installing build dependencies"
)
_NOT_FOUND = re.compile(
    r"No matching distribution found for (?P<req>(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\S*)"
)
#: pip's list of releases it skipped for their Requires-Python: long, and not the cause
_NOISE = "ERROR: Ignored the following versions that require a different python version"


def _pip_error(output: str) -> str:
    """pip's ``ERROR:`` lines, or its last lines."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:") and not line.startswith(_NOISE)]
    return " / ".join((errors or lines)[-4:])[-1500:]
