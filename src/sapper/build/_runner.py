"""Build one sdist through its PEP 517 hooks, each hook in the sandbox: :class:`Builder`."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .._exceptions import BuildError, SandboxError
from ..inputs._extract import unpack_source
from ._capture import (
    SITECUSTOMIZE,
    BuildWarning,
    HookEvents,
    merge_warnings,
    read_events,
    signature,
)
from ._env import (
    EnvironmentCache,
    Wheelhouse,
    all_pinned,
    base_prefix,
    default_envs_max_size,
    is_installed,
)
from ._sandbox import Limits, SandboxRun, run_sandboxed
from ._server import SERVER_NAME, SERVER_SOURCE, HookServer

__all__ = ["BuildResult", "Builder", "Mode", "Outcome"]

Mode = Literal["metadata", "wheel"]
#: ``ok``; ``fail``: the backend raised or exited non-zero; ``spurious``: the sandbox or a
#: cap ended it (timeout, memory, CPU, file size, processes, a network attempt, a write
#: outside the build directory) — worth one retry; ``prepare-fail``: the sdist or its build
#: requirements could not be fetched, unpacked or installed.
Outcome = Literal["ok", "fail", "spurious", "prepare-fail"]


_NETWORK_RE = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Name or service not known|"
    r"No address associated with hostname|nodename nor servname|\[Errno -[235]\]|"
    r"getaddrinfo failed|Errno 101\b|Errno 99\b|Connection refused",
)
_SANDBOX_RE = re.compile(r"Read-only file system|\[Errno 30\]")
_PROCESSES_RE = re.compile(r"Resource temporarily unavailable|\[Errno 11\]|can't start new thread")


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildResult:
    """How one build of one sdist ended (picklable, plain values)."""

    outcome: Outcome
    mode: Mode
    #: The hook that ended the build (``get_requires_for_build_wheel``,
    #: ``prepare_metadata_for_build_wheel``, ``build_wheel``) or ``prepare``.
    hook: str = ""
    #: ``module.QualName`` of the exception (``SystemExit`` for a plain exit), for failures.
    error_type: str | None = None
    message: str | None = None
    #: :func:`~sapper.build.signature` of the failure.
    signature: str | None = None
    #: For ``spurious``: timeout, memory, cpu, file-size, processes, network, sandbox, killed.
    spurious_reason: str | None = None
    #: The last lines of the failing hook's output (capped).
    log_tail: str = ""
    seconds: float = 0.0
    warnings: tuple[BuildWarning, ...] = ()
    #: The build backend and requirements the sdist declares, and those installed.
    backend: str = ""
    declared_requires: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    #: What ``get_requires_for_build_wheel`` added.
    dynamic_requires: tuple[str, ...] = ()
    #: The wheel (``--mode wheel``) or ``.dist-info`` directory name built.
    artifact: str | None = None
    #: Where the artifact was copied (``keep=``), else None.
    artifact_path: str | None = None


@dataclass(slots=True)
class _Hooks:
    """State of one build: the work directory and what each hook reported."""

    workdir: Path
    runs: list[tuple[str, SandboxRun, HookEvents]] = field(default_factory=list)
    #: The hook server of this build, with what it was started for (environment, working
    #: directory, variables): a hook with another key gets a new one.
    server: HookServer | None = None
    server_key: tuple[object, ...] = ()
    #: Warnings the servers recorded while importing the backend.
    server_events: list[HookEvents] = field(default_factory=list)
    #: Set when a server could not serve (the backend import failed): one interpreter per
    #: hook from then on.
    fresh_interpreters: bool = False

    def close_server(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server_events.append(read_events(self.server_events_path))
            self.server = None

    @property
    def server_events_path(self) -> Path:
        return self.workdir / f".events-server-{len(self.server_events)}.jsonl"


class _HookFailed(Exception):
    def __init__(self, run: SandboxRun) -> None:
        super().__init__(f"hook exited {run.returncode}")
        self.run = run


class Builder:
    """Builds sdists through their PEP 517 hooks, each hook in its own sandboxed process.

    ``hook_server=True`` (the default) starts one sandbox and interpreter per build, which
    imports the backend once and forks a fresh process for each hook (see
    :mod:`sapper.build._server` for why that is what pip does, less the start-up);
    ``False`` starts a new sandbox and interpreter for every hook.

    ``cache_dir`` holds the wheelhouse (``build/wheelhouse``) and the build environments
    (``build/envs``); default: sapper's cache directory. ``online=False`` never fetches:
    every wheel must already be in the wheelhouse. ``sandbox=False`` runs the hooks
    unconfined (caps and timeout still apply). ``envs_max_size`` bounds the build
    environments (bytes; default :func:`~sapper.build.default_envs_max_size`: 10 GiB or
    ``$SAPPER_BUILD_ENVS_MAX_SIZE``): the least recently used are evicted, never one a build
    holds. Instances are cheap and picklable; one may serve many builds, also from several
    processes (environment creation is locked).
    """

    def __init__(
        self,
        *,
        cache_dir: Path | None = None,
        index_url: str | None = None,
        limits: Limits | None = None,
        sandbox: bool = True,
        online: bool = True,
        python: str | None = None,
        work_root: Path | None = None,
        hook_server: bool = True,
        envs_max_size: int | None = None,
    ) -> None:
        if cache_dir is None:
            from ..pypi import default_cache_dir

            cache_dir = default_cache_dir()
        self.cache_dir = Path(cache_dir)
        self.index_url = index_url
        self.limits = limits or Limits()
        self.sandbox = sandbox
        self.online = online
        self.python = python or sys.executable
        self.work_root = work_root
        self.hook_server = hook_server
        self.envs_max_size = default_envs_max_size() if envs_max_size is None else envs_max_size

    # -- pieces ---------------------------------------------------------------------------

    @property
    def wheelhouse(self) -> Wheelhouse:
        return Wheelhouse(
            self.cache_dir / "build" / "wheelhouse", index_url=self.index_url, online=self.online
        )

    @property
    def environments(self) -> EnvironmentCache:
        return EnvironmentCache(
            self.cache_dir / "build" / "envs",
            self.wheelhouse,
            python=self.python,
            max_size=self.envs_max_size,
        )

    def check(self) -> None:
        """Raise :class:`~sapper.SandboxError` unless the sandbox works (no-op without it)."""
        if self.sandbox:
            from ._sandbox import check_sandbox

            check_sandbox()

    def environment(
        self, requirements: Sequence[str], *, hold: contextlib.ExitStack | None = None
    ) -> Path:
        """Fetch (when online) and create the environment for ``requirements``; with
        ``hold``, it stays held (not evicted) until ``hold`` closes.

        For a set whose every requirement is pinned (``name==1.2``) the wheelhouse is tried
        first: when its wheels are already there (the same setuptools with another
        project's extra requirement...), the index is not asked again, which saves a
        resolver run per requirement set. A set with a range (``scikit-build>=0.14``) is
        resolved against the index once, as pip would, and its environment made from what
        that resolution fetched (its own key, so an environment an older sapper made from
        the wheelhouse alone is never reused): the wheelhouse may hold an older release
        than the newest (opencv-python's scikit-build>=0.14.0 got a cached 0.17.6, which
        72.0.0 breaks, where pip gets 0.18.x).

        :raises BuildError: when a wheel cannot be fetched or installed.
        """
        environments = self.environments

        def made(resolved: bool = False) -> Path:
            if hold is None:
                return environments.get(requirements, resolved=resolved)
            return hold.enter_context(environments.use(requirements, resolved=resolved))

        pinned = all_pinned(requirements)
        if pinned and self.online and not self.wheelhouse.fetched(requirements):
            try:
                return made()
            except BuildError:
                pass  # something is missing: fetch it
        self.wheelhouse.fetch(requirements)
        return made(resolved=not pinned)

    def _pin_pulled_in(
        self,
        requires: tuple[str, ...],
        override: Sequence[str],
        env_dir: Path,
        hold: contextlib.ExitStack,
    ) -> tuple[tuple[str, ...], Path]:
        """``requires`` and its environment, with the pins of ``override`` that the
        requirements pulled in without naming them (setuptools, a dependency of
        setuptools_scm that an in-tree backend may import): such a build gets the side's
        pin, as pip's ``--build-constraint`` would give it.

        :raises BuildError: when the environment with the pins cannot be made.
        """
        missing = tuple(
            pin
            for pin in override
            if not any(_is_named(r, _name(pin)) for r in requires)
            and is_installed(env_dir, _name(pin))
        )
        if not missing:
            return requires, env_dir
        requires = (*requires, *missing)
        return requires, self.environment(requires, hold=hold)

    def _capture_dir(self) -> Path:
        """The directory with sapper's ``sitecustomize`` (put on the hooks' PYTHONPATH) and
        a copy of pyproject-hooks' in-process script (run by the build environment's
        interpreter, which does not have pyproject-hooks)."""
        path = self.cache_dir / "build" / "capture"
        _write_if_changed(path / "sitecustomize.py", SITECUSTOMIZE)
        _write_if_changed(path / "hooks" / "_in_process.py", _in_process_source())
        _write_if_changed(path / "hooks" / SERVER_NAME, SERVER_SOURCE)
        return path

    # -- the build ------------------------------------------------------------------------

    def build(
        self,
        source: Path,
        *,
        mode: Mode = "metadata",
        override: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        keep: Path | None = None,
        move_source: bool = False,
    ) -> BuildResult:
        """Build ``source`` (an sdist archive or a source tree, which is copied first;
        with ``move_source``, a tree the caller no longer needs is moved instead).

        ``override`` replaces the build requirements of the same names (``setuptools==78.0.1``
        pins setuptools whatever ``build-system.requires`` says), also those
        ``get_requires_for_build_wheel`` returns. ``env`` adds variables to the hooks'
        scrubbed environment (``SETUPTOOLS_ENFORCE_DEPRECATION=1``). ``keep``: a directory to
        copy the built wheel (or ``.dist-info``) into.

        Never raises for what the project does: every failure is a :class:`BuildResult`.

        :raises SandboxError: when the sandbox is asked for and not available.
        """
        start = time.monotonic()
        self.check()
        root = self.work_root or Path(tempfile.gettempdir())
        root.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="sapper-build-", dir=root))
        try:
            with contextlib.ExitStack() as hold:  # the environments, held until the end
                result = self._build(
                    source, workdir, mode, override, dict(env or {}), keep, move_source, hold
                )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return replace(result, seconds=round(time.monotonic() - start, 3))

    def _build(  # noqa: PLR0917
        self,
        source: Path,
        workdir: Path,
        mode: Mode,
        override: Sequence[str],
        extra_env: dict[str, str],
        keep: Path | None,
        move_source: bool,
        hold: contextlib.ExitStack,
    ) -> BuildResult:
        from .._exceptions import SapperError

        result = BuildResult(outcome="prepare-fail", mode=mode, hook="prepare")
        try:
            tree = unpack_source(source, workdir / "src", move=move_source)
            backend, backend_path, declared = _build_system(tree)
        except (SapperError, OSError, ValueError) as exc:
            return _prepare_fail(result, exc)
        requires = tuple(_apply_override(declared, override, backend=backend))
        result = replace(
            result, backend=backend, declared_requires=tuple(declared), requires=requires
        )
        try:
            env_dir = self.environment(requires, hold=hold)
            requires, env_dir = self._pin_pulled_in(requires, override, env_dir, hold)
        except SapperError as exc:
            return _prepare_fail(result, exc)
        result = replace(result, requires=requires)
        state = _Hooks(workdir=workdir)
        out = workdir / "out"
        out.mkdir()
        for sub in ("home", "tmp"):
            (workdir / sub).mkdir()

        def caller(environment: Path) -> Any:
            from pyproject_hooks import BuildBackendHookCaller

            return BuildBackendHookCaller(
                str(tree),
                backend,
                backend_path=backend_path,
                runner=self._runner(state, environment, extra_env),
                python_executable=str(environment / "bin" / "python"),
            )

        hook = "get_requires_for_build_wheel"
        quiet = warnings.catch_warnings()
        quiet.__enter__()
        warnings.simplefilter("ignore")  # pyproject-hooks re-emits the backend's warnings
        try:
            dynamic = [str(r) for r in caller(env_dir).get_requires_for_build_wheel({})]
            result = replace(result, hook=hook)
            extra = tuple(_apply_override(dynamic, override, add=False))
            if extra:
                wanted = _union(requires, extra)
                result = replace(result, dynamic_requires=extra, requires=wanted)
                if wanted != requires:
                    try:
                        env_dir = self.environment(wanted, hold=hold)
                        wanted, env_dir = self._pin_pulled_in(wanted, override, env_dir, hold)
                        result = replace(result, requires=wanted)
                    except SapperError as exc:
                        return _prepare_fail(
                            replace(result, warnings=_warnings(state)), exc, hook="prepare"
                        )
            if mode == "wheel":
                hook = "build_wheel"
                artifact = caller(env_dir).build_wheel(str(out), {})
            else:
                hook = "prepare_metadata_for_build_wheel"
                artifact = caller(env_dir).prepare_metadata_for_build_wheel(str(out), {})
        except Exception as exc:
            state.close_server()
            return _failure(replace(result, hook=hook), state, exc, self.limits)
        finally:
            state.close_server()
            quiet.__exit__(None, None, None)
        artifact = str(artifact)
        kept = None
        if keep is not None and (out / artifact).exists():
            keep.mkdir(parents=True, exist_ok=True)
            dest = keep / artifact
            if (out / artifact).is_dir():
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(out / artifact, dest)
            else:
                shutil.copy2(out / artifact, dest)
            kept = str(dest)
        return replace(
            result,
            outcome="ok",
            hook=hook,
            warnings=_warnings(state),
            artifact=artifact,
            artifact_path=kept,
        )

    def _runner(self, state: _Hooks, env_dir: Path, extra_env: Mapping[str, str]) -> Any:
        capture = self._capture_dir()

        def run(
            cmd: Sequence[str],
            cwd: str | None = None,
            extra_environ: Mapping[str, str] | None = None,
        ) -> None:
            hook = cmd[2] if len(cmd) > 2 else "hook"
            control = Path(cmd[-1])
            events = state.workdir / f".events-{len(state.runs)}.jsonl"
            environ = {
                "PATH": f"{env_dir / 'bin'}:/usr/local/bin:/usr/bin:/bin",
                "HOME": str(state.workdir / "home"),
                "TMPDIR": str(state.workdir / "tmp"),
                "LANG": "C.UTF-8",
                "LC_ALL": "C.UTF-8",
                "PYTHONPATH": str(capture),
                "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1",
                "PIP_NO_INDEX": "1",
                **dict(extra_environ or {}),
                **dict(extra_env),
            }
            readonly = [env_dir, capture]
            prefix = base_prefix(env_dir)
            if prefix is not None and not str(prefix).startswith("/usr/"):
                readonly.append(prefix)
            log = state.workdir / f".log-{len(state.runs)}"
            workdir_cwd = Path(cwd or state.workdir)
            sandbox_run = None
            if self.hook_server and not state.fresh_interpreters:
                key = (cmd[0], str(workdir_cwd), tuple(sorted(environ.items())))
                if state.server is not None and state.server_key != key:
                    state.close_server()
                if state.server is None:
                    state.server = HookServer(
                        python=cmd[0],
                        script=capture / "hooks" / SERVER_NAME,
                        cwd=workdir_cwd,
                        workdir=state.workdir,
                        env={**environ, "SAPPER_BUILD_EVENTS": str(state.server_events_path)},
                        readonly=readonly,
                        limits=self.limits,
                        sandbox=self.sandbox,
                        log=state.workdir / f".log-server-{len(state.server_events)}",
                    )
                    state.server_key = key
                if state.server.ready in ("failed", "threads"):
                    # the backend import failed (or started a thread): from here on, as
                    # pip does, a new interpreter per hook, which reproduces the failure
                    state.close_server()
                    state.fresh_interpreters = True
                else:
                    sandbox_run = state.server.call(hook, control, log=log, events=events)
            if sandbox_run is None:
                sandbox_run = run_sandboxed(
                    [cmd[0], str(capture / "hooks" / "_in_process.py"), *cmd[2:]],
                    cwd=workdir_cwd,
                    workdir=state.workdir,
                    env={**environ, "SAPPER_BUILD_EVENTS": str(events)},
                    readonly=readonly,
                    writable=[control],
                    limits=self.limits,
                    sandbox=self.sandbox,
                    log=log,
                )
            state.runs.append((hook, sandbox_run, read_events(events)))
            if sandbox_run.returncode != 0 or sandbox_run.timed_out:
                raise _HookFailed(sandbox_run)

        return run


# --------------------------------------------------------------------------- helpers


def _in_process_source() -> str:
    from importlib import resources

    script = resources.files("pyproject_hooks._in_process").joinpath("_in_process.py")
    return script.read_text(encoding="utf-8")


def _write_if_changed(target: Path, text: str) -> None:
    with contextlib.suppress(OSError):
        if target.read_text(encoding="utf-8") == text:
            return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o644)
    tmp.replace(target)
    for parent in (target.parent, target.parent.parent):
        with contextlib.suppress(OSError):
            parent.chmod(0o755)


def _warnings(state: _Hooks) -> tuple[BuildWarning, ...]:
    return merge_warnings(
        *(events.warnings for events in state.server_events),
        *(events.warnings for _, _, events in state.runs),
    )


def _prepare_fail(result: BuildResult, exc: BaseException, *, hook: str = "prepare") -> BuildResult:
    kind = type(exc).__name__
    message = str(exc)
    return replace(
        result,
        outcome="prepare-fail",
        hook=hook,
        error_type=kind,
        message=message,
        signature=signature(kind, message),
    )


def _last_line(output: str) -> str:
    for line in reversed(output.strip().splitlines()):
        if line.strip():
            return line.strip()
    return ""


def _failure(result: BuildResult, state: _Hooks, exc: Exception, limits: Limits) -> BuildResult:
    """Classify a failed hook: what raised, and whether the sandbox or a cap caused it."""
    warnings = _warnings(state)
    if not isinstance(exc, _HookFailed):
        # pyproject-hooks' own errors (BackendUnavailable, HookMissing, UnsupportedOperation)
        if isinstance(exc, SandboxError):
            raise exc
        hooks_kind = f"{type(exc).__module__}.{type(exc).__qualname__}"
        hooks_message = str(getattr(exc, "message", "") or exc) or type(exc).__name__
        return replace(
            result,
            outcome="fail",
            error_type=hooks_kind,
            message=hooks_message[:4000],
            signature=signature(hooks_kind, hooks_message),
            log_tail=state.runs[-1][1].output[-4000:] if state.runs else "",
            warnings=warnings,
        )
    run = exc.run
    events = state.runs[-1][2] if state.runs else HookEvents()
    tail = run.output[-4000:]
    reason: str | None = None
    kind = events.exception_type
    message = events.exception_message
    if run.timed_out and kind is not None and kind.endswith("BlockingIOError"):
        # a process of the build could not fork any more, and the rest went on until killed
        reason, kind = "processes", "ProcessLimit"
        message = (
            f"the build hit the process cap ({limits.processes}) and ran until the "
            f"{limits.timeout:g} s timeout killed it"
        )
    elif run.timed_out:
        reason, kind = "timeout", "Timeout"
        message = f"the hook ran longer than {limits.timeout:g} s and was killed"
    elif run.signal_name in ("SIGXCPU",):
        reason, kind = "cpu", "CPUTimeLimit"
        message = "the hook used more CPU time than allowed and was killed"
    elif run.signal_name in ("SIGXFSZ",):
        reason, kind = "file-size", "FileSizeLimit"
        message = "the hook wrote a file larger than allowed and was killed"
    elif kind is None and run.output.lstrip().startswith("bwrap:"):
        reason, kind, message = "sandbox", "SandboxFailure", _last_line(run.output)
    elif kind is None:
        line = _last_line(run.output)
        if run.signal_name:
            reason, kind = "killed", "Killed"
            message = (
                f"the hook was killed by {run.signal_name} ({line})"
                if line
                else (f"the hook was killed by {run.signal_name}")
            )
        else:
            kind = "builtins.SystemExit"
            message = line or f"the hook exited with status {run.returncode}"
    assert kind is not None
    text = message or ""
    if reason is None:
        if kind.endswith("MemoryError"):
            reason = "memory"
        elif _NETWORK_RE.search(text) or (
            _NETWORK_RE.search(tail[-2000:]) and ("socket" in tail or "urllib" in tail)
        ):
            reason = "network"
        elif _SANDBOX_RE.search(text) or (
            kind.endswith("PermissionError") and str(state.workdir) not in text
        ):
            reason = "sandbox"
        elif _PROCESSES_RE.search(text) and kind.endswith(("BlockingIOError", "RuntimeError")):
            reason = "processes"
    return replace(
        result,
        outcome="spurious" if reason else "fail",
        error_type=kind,
        message=text[:4000],
        signature=signature(kind, text),
        spurious_reason=reason,
        log_tail=tail,
        warnings=warnings,
    )


def _union(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    names = set()
    for text in first:
        with contextlib.suppress(InvalidRequirement):
            names.add(canonicalize_name(Requirement(text).name))
    out = list(first)
    for text in second:
        try:
            name = canonicalize_name(Requirement(text).name)
        except InvalidRequirement:
            out.append(text)
            continue
        if name not in names:
            names.add(name)
            out.append(text)
    return tuple(out)


def _apply_override(
    requires: Sequence[str], override: Sequence[str], *, add: bool = True, backend: str = ""
) -> list[str]:
    """``requires`` with every requirement named in ``override`` replaced by its pin. With
    ``add``, the pins the project does not name are added too, except setuptools for a
    project whose build requirements do not name it and whose ``backend`` is not
    setuptools' (a non-setuptools backend). A setuptools backend reached only through
    another requirement (``requires = ["setuptools_scm"]``, which depends on setuptools) is
    pinned too, as pip's ``--build-constraint`` would pin it."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    pinned: dict[str, str] = {}
    for text in override:
        pinned[canonicalize_name(Requirement(text).name)] = text
    out: list[str] = []
    for text in requires:
        try:
            name = canonicalize_name(Requirement(text).name)
        except InvalidRequirement:
            out.append(text)
            continue
        if name not in pinned:
            out.append(text)
    if not add:
        out.extend(v for k, v in pinned.items() if any(_is_named(r, k) for r in requires))
    elif is_setuptools_backend(backend) or any(_is_named(r, "setuptools") for r in requires):
        out.extend(pinned.values())
    else:
        out.extend(v for k, v in pinned.items() if k != "setuptools")
    return out


def is_setuptools_backend(backend: str) -> bool:
    """Whether a ``build-backend`` value names setuptools' own backend
    (``setuptools.build_meta``, ``setuptools.build_meta:__legacy__``)."""
    module = backend.partition(":")[0].strip()
    return module == "setuptools" or module.startswith("setuptools.")


def _name(requirement: str) -> str:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        return canonicalize_name(Requirement(requirement).name)
    except InvalidRequirement:
        return ""


def _is_named(text: str, name: str) -> bool:
    return bool(name) and _name(text) == name


def _build_system(tree: Path) -> tuple[str, list[str] | None, list[str]]:
    """(backend, backend-path, requires) from ``pyproject.toml``, with PEP 517's defaults
    (read by :mod:`sapper.facts.pyproject`, as ``sapper check`` reads it).

    :raises BuildError: for a ``pyproject.toml`` a frontend would reject.
    """
    from ..facts.pyproject import build_system, frontend_refusal, parse_pyproject

    path = tree / "pyproject.toml"
    pp = parse_pyproject(path.read_bytes() if path.is_file() else None)
    refusal = frontend_refusal(pp)
    if refusal is not None:
        msg = f"{refusal}; pip refuses such an sdist too" if pp.error else refusal
        raise BuildError(msg)
    bs = build_system(pp)
    backend_path = None if bs.backend_path is None else list(bs.backend_path)
    return bs.backend, backend_path, list(bs.requires)
