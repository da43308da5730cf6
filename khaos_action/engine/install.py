"""The action's `install` input: the user's setup command, run in the user's own environment, never ours.

A virtual environment is created for the agent (outside the workspace) and the command runs with it first on PATH
(`pip install -r requirements.txt` lands there), through the sandbox: a clean environment, its own session, the
agent user when one is configured. The python agent worker then runs with that venv's interpreter
(KHAOS_AGENT_PYTHON), so nothing the user installs can replace a package of the action's own interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from khaos_action.engine import sandbox

TAIL_LINES = 20


@dataclass(slots=True)
class Installed:
    code: int
    tail: list[str]
    """The command's last output lines (shown with the error when it fails)."""
    python: str | None
    """The venv's interpreter, for the python agent worker."""


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
                pass_env: list[str] | str | None = None,
                limits: sandbox.Limits | None = None) -> Installed:
    """Run `command` in `cwd` with the venv activated; its output is echoed line by line through `echo` (the
    caller makes it inert) and its last lines kept. `environ` (the shell's, secrets already removed) is what the
    command's clean environment and the agent user come from."""
    identity = sandbox.agent_identity(environ)
    python = create_venv(venv, identity, environ)
    env = sandbox.env_for(sandbox.clean_env(pass_env=sandbox.INHERIT if pass_env is None else pass_env,
                                            environ=environ), identity)
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    process = subprocess.Popen(command, shell=True, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               **sandbox.spawn_kwargs(limits=limits, identity=identity))
    assert process.stdout is not None
    for raw in process.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        tail.append(line)
        if echo is not None:
            echo(line)
    code = process.wait()
    return Installed(code=code, tail=list(tail), python=python)
