"""The action's `install` input: the user's setup command, run in the user's own environment, never ours.

A virtual environment is created for the agent (outside the workspace) and the command runs with it first on PATH
(`pip install -r requirements.txt` lands there), through the sandbox: a clean environment, its own session, the
agent's rlimits, the agent user when one is configured. The python agent worker then runs with that venv's
interpreter (KHAOS_AGENT_PYTHON), so nothing the user installs can replace a package of the action's own interpreter.

The command is bounded: a time limit, after which its whole process group is killed, and its output is read until
the command itself exits. A background process it leaves (`server &`) keeps our pipe open but does not hold the
action: its later output is read and dropped, and it lives on, bounded like the agent, until the action ends.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from khaos_action.engine import sandbox

TAIL_LINES = 20
SETTLE_S = 0.2
"""After the command exits, how long output still arriving (from what it left running) is shown with it."""


@dataclass(slots=True)
class Installed:
    code: int | None
    """The command's exit status (negative: the signal that ended it); None when it ran out of time."""
    tail: list[str]
    """The command's last output lines (shown with the error when it fails)."""
    python: str | None
    """The venv's interpreter, for the python agent worker."""
    pgid: int | None = None
    """The command's process group (its session): what `stop_group` ends when the action ends."""
    seconds: float = 0.0

    @property
    def timed_out(self) -> bool:
        return self.code is None


def create_venv(directory: Path, identity: sandbox.Identity | None, environ: Mapping[str, str]) -> str:
    """A fresh venv at `directory` (owned by the agent user when there is one); returns its python."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    subprocess.run([base, "-m", "venv", str(directory)], check=True, capture_output=True, text=True,
                   env=sandbox.clean_env(environ=environ))
    if identity is not None:
        for root, dirs, files in os.walk(directory):
            for name in (root, *(os.path.join(root, n) for n in dirs + files)):
                os.lchown(name, identity.uid, identity.gid)
    return str(directory / "bin" / "python")


def run_install(command: str, cwd: str, *, venv: Path, environ: Mapping[str, str], echo: Any = None,
                pass_env: list[str] | str | None = None, limits: sandbox.Limits | None = None,
                timeout_s: float | None = None, clock: Callable[[], float] = time.monotonic) -> Installed:
    """Run `command` in `cwd` with the venv activated; its output is echoed line by line through `echo` (the
    caller makes it inert) and its last lines kept. `environ` (the shell's, secrets already removed) is what the
    command's clean environment and the agent user come from. Past `timeout_s` its process group is killed and
    `code` is None; an interrupt kills it too, then propagates."""
    identity = sandbox.agent_identity(environ)
    python = create_venv(venv, identity, environ)
    env = sandbox.env_for(sandbox.clean_env(pass_env=sandbox.INHERIT if pass_env is None else pass_env,
                                            environ=environ), identity)
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    started = clock()
    process = subprocess.Popen(command, shell=True, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               **sandbox.spawn_kwargs(limits=limits, identity=identity))
    assert process.stdout is not None
    output = _Output(process.stdout, echo)
    try:
        code = _wait(process, output, None if timeout_s is None else started + timeout_s, clock)
    except BaseException:
        stop_group(process.pid)
        raise
    if code is None:
        stop_group(process.pid)
        process.wait()
    output.settle(SETTLE_S)
    return Installed(code=code, tail=output.tail(), python=python, pgid=process.pid, seconds=clock() - started)


def _wait(process: subprocess.Popen[bytes], output: _Output, deadline: float | None,
          clock: Callable[[], float]) -> int | None:
    """The command's exit status, showing its lines as they come; None once `deadline` passes."""
    while True:
        output.show(timeout=0.1)
        code = process.poll()
        if code is not None:
            return code
        if deadline is not None and clock() >= deadline:
            return None


def stop_group(pgid: int) -> None:
    """SIGKILL to the command's process group (it started its own session: the group is its pid)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Output:
    """The command's merged stdout/stderr, read by a thread until end of file (which a background process it left
    may hold off for ever); lines are shown only while the command runs and just after, then read and dropped."""

    def __init__(self, stream: IO[bytes], echo: Callable[[str], None] | None) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=10_000)
        self._echo = echo
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)
        self._open = True
        threading.Thread(target=self._read, args=(stream,), name="install-output", daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        with stream:
            for raw in stream:
                if self._open:
                    self._put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._put(None)

    def _put(self, line: str | None) -> None:
        try:
            self._lines.put(line, timeout=1)
        except queue.Full:
            pass  # nobody shows it any more: a flood from what the command left running

    def show(self, timeout: float) -> None:
        """Show what arrived; wait up to `timeout` for the first line."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return
        while True:
            if line is None:
                self._open = False
                return
            self._tail.append(line)
            if self._echo is not None:
                self._echo(line)
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return

    def settle(self, seconds: float) -> None:
        """Lines still arriving right after the command exited, then stop showing (and keeping) any more."""
        deadline = time.monotonic() + seconds
        while self._open and (left := deadline - time.monotonic()) > 0:
            self.show(timeout=left)
        self._open = False
        while True:  # what the reader queued meanwhile: dropped, so it never blocks on a full queue
            try:
                self._lines.get_nowait()
            except queue.Empty:
                return

    def tail(self) -> list[str]:
        return list(self._tail)
