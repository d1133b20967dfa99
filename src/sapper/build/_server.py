"""One interpreter per build that forks a fresh process for every PEP 517 hook.

pip (and pyproject-hooks' default runner) start a new interpreter for each hook, and that
interpreter imports the build backend before it calls the hook. Starting the sandbox and the
interpreter and importing setuptools costs more than most hooks themselves, twice per build.
:class:`HookServer` starts, in the build's sandbox, one interpreter that

1. drops its own directory from ``sys.path`` exactly as pyproject-hooks' ``_in_process.py``
   does before it imports the backend;
2. imports the backend module (only a backend installed in the build environment: never an
   in-tree ``backend-path`` one), inside ``warnings.catch_warnings(record=True)`` as
   ``_in_process.py`` does, so nothing is printed and sapper's ``sitecustomize`` still records
   every warning;
3. for every hook, forks; the child points its output and its events file at the hook's
   own, sets ``sys.argv`` as pip would, and runs ``_in_process.py`` as ``__main__``, ending
   as the interpreter ends a script (excepthook, thread joins, ``atexit``, flushed output,
   exit status) but without tearing its modules down, which changes nothing the build
   reports and would cost a tenth of a second per hook.

Each hook therefore runs in a process whose state is that of a new interpreter that has
just imported the backend, as under pip: no hook ever sees what another hook did in memory
(files in the build directory are shared, as they are under pip). When the import fails, or
left a thread running (fork would copy it half), the server says so and the caller falls
back to one new interpreter per hook, which reproduces the failure as pip would.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from ._sandbox import (
    Limits,
    SandboxRun,
    give_to_builder,
    kill_group,
    limits_hook,
    log_tail,
    sandbox_argv,
    signal_name,
)

__all__ = ["SERVER_NAME", "SERVER_SOURCE", "HookServer"]

SERVER_NAME = "_sapper_hook_server.py"

#: Source of the server, written next to ``_in_process.py`` and run by the build
#: environment's interpreter (which has neither sapper nor pyproject-hooks).
SERVER_SOURCE = r'''
"""sapper: run the PEP 517 hooks of one build, each in a process forked from this one."""
import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_SCRIPT = os.path.join(_HERE, "_in_process.py")


def _send(fd, message):
    os.write(fd, (json.dumps(message) + "\n").encode())


def _receive(fd):
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


def _serve():
    reply = os.dup(1)
    os.dup2(2, 1)  # whatever the server itself prints goes to its log
    here = os.path.normcase(os.path.realpath(_HERE))
    sys.path[:] = [p for p in sys.path if os.path.normcase(os.path.realpath(p)) != here]
    ready = "skipped"
    backend = os.environ.get("_PYPROJECT_HOOKS_BUILD_BACKEND", "")
    if "--preimport" in sys.argv and backend and not os.environ.get(
        "_PYPROJECT_HOOKS_BACKEND_PATH_JSON"
    ):
        import importlib
        import warnings

        try:
            with warnings.catch_warnings(record=True):
                importlib.import_module(backend.partition(":")[0])
            ready = "ok"
        except BaseException:
            ready = "failed"
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        ready = "threads"
    _send(reply, {"ready": ready})
    if ready in ("failed", "threads"):
        return None
    while True:
        command = _receive(0)
        if command is None:
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(reply)
            return command
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            code = -os.WTERMSIG(status)
        else:
            code = os.WEXITSTATUS(status)
        _send(reply, {"status": code})


_command = _serve()
if _command is None:
    sys.exit(0)
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
_log = os.open(_command["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
os.dup2(_log, 1)
os.dup2(_log, 2)
os.close(_log)
os.environ["SAPPER_BUILD_EVENTS"] = _command["events"]
if "sitecustomize" in sys.modules:
    sys.modules["sitecustomize"]._EVENTS = _command["events"]
sys.argv = [_SCRIPT, _command["hook"], _command["control"]]
del _null, _log, _command


def _run_hook():
    """Run the hook as ``python _in_process.py`` would, and return its exit status after
    the observable part of the interpreter's exit: ``Py_FinalizeEx`` joins the non-daemon
    threads, runs the ``atexit`` functions and flushes stdout and stderr (status 120 when
    that fails). What it does next, tearing the modules down, cannot change the hook's
    result (``output.json`` is written, the status is set) and costs a tenth of a second
    with setuptools loaded: the process ends with ``os._exit`` instead."""
    import runpy

    try:
        runpy.run_path(_SCRIPT, run_name="__main__")
        status = 0
    except SystemExit as exc:
        code = exc.code
        if code is None:
            status = 0
        elif isinstance(code, int):
            status = code & 0xFF
        else:
            try:
                sys.stderr.write(str(code) + "\n")
            except Exception:
                pass
            status = 1
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            status = 120
    return status


os._exit(_run_hook())
'''


class HookServer:
    """The server of one build environment, started in the sandbox (see the module doc).

    :attr:`ready` is ``ok`` (backend imported), ``skipped`` (not imported: in-tree backend,
    or ``preimport=False``), ``failed`` or ``threads`` (the caller must fall back to one
    interpreter per hook), or ``dead`` (the sandbox or the interpreter did not start; the
    next :meth:`call` reports how it ended).
    """

    def __init__(
        self,
        *,
        python: str,
        script: Path,
        cwd: Path,
        workdir: Path,
        env: Mapping[str, str],
        readonly: Sequence[Path],
        limits: Limits,
        sandbox: bool,
        log: Path,
        preimport: bool = True,
    ) -> None:
        self.workdir = workdir
        self.limits = limits
        self.sandbox = sandbox
        self.log = log
        self._buffer = b""
        self._calls = 0
        argv = [python, str(script), *(["--preimport"] if preimport else [])]
        full = sandbox_argv(
            argv, cwd=cwd, workdir=workdir, env=env, readonly=readonly, sandbox=sandbox
        )
        self._out: IO[bytes] = log.open("ab")
        self.proc = subprocess.Popen(
            full,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._out,
            start_new_session=True,
            preexec_fn=limits_hook(limits),  # noqa: PLW1509
        )
        self.started = time.monotonic()
        message, self._startup_timed_out = self._receive(limits.timeout)
        self.ready: str = "dead" if message is None else str(message.get("ready", "dead"))
        self.startup_seconds = time.monotonic() - self.started

    def _receive(self, timeout: float) -> tuple[dict[str, Any] | None, bool]:
        """The next message of the server: (message or None when it ended, timed out)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, True
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return None, False
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            return None, False
        return (message if isinstance(message, dict) else None), False

    def call(self, hook: str, control: Path, *, log: Path, events: Path) -> SandboxRun:
        """Run ``hook`` with pyproject-hooks' control directory ``control`` (its
        ``input.json`` in, its ``output.json`` back), output to ``log``, events to ``events``.
        """
        self._calls += 1
        start = time.monotonic()
        if self.ready == "dead" or self.proc.poll() is not None:
            return self._ended(start, timed_out=self._startup_timed_out)
        # the control directory lives in the build directory, the only place the sandbox
        # can write; pyproject-hooks' own (under the host's /tmp) gets the output back
        private = Path(tempfile.mkdtemp(prefix=".control-", dir=self.workdir))
        shutil.copy2(control / "input.json", private / "input.json")
        give_to_builder([private])
        command = {"hook": hook, "control": str(private), "log": str(log), "events": str(events)}
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(command) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return self._ended(start, timed_out=False)
        message, timed_out = self._receive(self.limits.timeout)
        if message is None:
            return self._ended(start, timed_out=timed_out, log=log)
        with contextlib.suppress(OSError):
            shutil.copy2(private / "output.json", control / "output.json")
        code = int(message.get("status", 1))
        return SandboxRun(
            returncode=code,
            timed_out=False,
            seconds=time.monotonic() - start,
            output=log_tail(log),
            signal_name=signal_name(code, sandbox=False),
        )

    def _ended(self, start: float, *, timed_out: bool, log: Path | None = None) -> SandboxRun:
        """The server is gone or must go: kill it and say how it ended."""
        kill_group(self.proc)
        returncode = self.proc.wait()
        self._out.flush()
        output = log_tail(self.log)
        if log is not None:
            output += log_tail(log)
        return SandboxRun(
            returncode=returncode,
            timed_out=timed_out,
            seconds=time.monotonic() - start,
            output=output[-64 * 1024 :],
            signal_name=signal_name(returncode, sandbox=self.sandbox),
        )

    def close(self) -> None:
        """End the server and everything of the build still running (as after a hook run
        in its own sandbox: nothing outlives the build)."""
        kill_group(self.proc)
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._out.close()
