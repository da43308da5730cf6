"""How a python agent worker process starts: forked by the zygote (engine/worker/zygote.py: started on first use,
or adopted when the run started it early: engine/transport/early.py), else a fresh interpreter running
engine/worker/boot.py; with the run's clean environment, the sandbox's limits and identity, and the paths our package
is imported from. The pool of workers is engine/worker/pool.py.

The run starts its zygote before it imports the config's models and the engine (engine/transport/early.py), through
this module: it imports neither at its top (asyncio and the zygote's loop side are imported where a worker is
started, inside the event loop).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import khaos_action
from khaos_action.engine import sandbox
from khaos_action.engine.transport.preload import http_preload
from khaos_action.engine.worker.zygote_process import ZygoteProcess
from khaos_action.errors import AgentError

if TYPE_CHECKING:
    from khaos_action.config.agent_block import InProcessAgent
    from khaos_action.engine.worker.zygote import Zygote

PACKAGE_ROOT = str(Path(khaos_action.__file__).resolve().parent.parent)
BOOT = str(Path(__file__).resolve().parent / "boot.py")
PRELOAD = ("khaos_action.engine.transport.python",)
"""Imported once in the zygote: every python worker builds its transport. The HTTP libraries the interception
patches are added by `http_preload` (engine/transport/preload.py) unless the agent provably uses none: aiohttp's
import (attrs classes compiled, two SSL contexts loading the CA bundle) is paid by every worker that imports it
itself, at every run's start."""
PYTHON_ENV = "KHAOS_AGENT_PYTHON"
"""The interpreter python agents run with when `agent.python` is not set (the entrypoint sets it to the venv the
`install` command populated)."""


QUIET_ENV = {
    # LiteLLM (CrewAI, ADK's LiteLlm, smolagents' LiteLLMModel...) fetches its model price list from the internet
    # when imported, and waits out its retries where the network is closed; the copy it ships is enough here.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    # Usage telemetry libraries send home on their own (CrewAI's, Chroma's, the Hugging Face Hub's, and the tools
    # that honour DO_NOT_TRACK): off for a run, so an evaluation sends nothing about the agent anywhere and a closed
    # network does not fill the log with their failed exports.
    "CREWAI_DISABLE_TELEMETRY": "true",
    "ANONYMIZED_TELEMETRY": "False",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
}
"""Set in the python worker's environment unless the user sets them (their environment via `agent.pass_env`, or
`agent.env`)."""


class WorkerStarter:
    def __init__(self, agent: InProcessAgent, *, base_dir: Path, environ: Mapping[str, str], python: str | None,
                 env: Mapping[str, str] | None, limits: sandbox.Limits | None, identity: sandbox.Identity | None,
                 zygote: bool, early: ZygoteProcess | None = None) -> None:
        self.agent = agent
        self.base_dir = base_dir
        self.environ = environ
        """The run's environment: the workers' clean environment is made from it (engine/sandbox.py)."""
        self.python = python or sys.executable
        self.env = dict(env or {})
        self.limits = limits
        self.identity = identity
        self.zygote = zygote
        """Fork workers from a template process (the imports paid once); False: a fresh interpreter each."""
        self._zygote: Zygote | None = None
        self._early = early
        """A zygote started before the run's event loop (engine/transport/early.py): adopted if it is the one `_fork`
        would start, else discarded."""

    async def process(self) -> tuple[Any, int, int]:
        """A started worker: its process, and the ends of its request and reply pipes the engine holds."""
        return await self._fork() or await self._exec()

    async def close(self) -> None:
        early, self._early = self._early, None
        if early is not None:  # never adopted (no worker was asked for)
            early.discard()
        zygote, self._zygote = self._zygote, None
        if zygote is not None:
            await zygote.close()

    def command(self) -> tuple[list[str], dict[str, str], dict[str, Any]]:
        """The boot command's prefix and paths, the clean environment and the sandbox's spawn arguments (also how
        `validate` and `init` start their one-shot worker: engine/agent_check.py)."""
        env = sandbox.env_for(sandbox.clean_env(environ=self.environ, configured=self.env,
                                                pass_env=self.agent.pass_env), self.identity)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.setdefault("PYTHONDONTWRITEBYTECODE", "1")  # no __pycache__ of the agent's files left in the workspace
        for key, value in QUIET_ENV.items():
            env.setdefault(key, value)
        ours = self.python == sys.executable
        paths = {"front": [PACKAGE_ROOT], "back": [] if ours else _our_site_packages(),
                 # another interpreter's libraries are the agent's
                 "preload": [*http_preload(self.agent.entry, self.base_dir), *PRELOAD] if ours else []}
        return [self.python, BOOT, json.dumps(paths)], env, sandbox.spawn_kwargs(limits=self.limits,
                                                                                  identity=self.identity)

    def spawn_zygote(self) -> ZygoteProcess:
        """The zygote's process, started now (no event loop needed); OSError when it cannot be."""
        argv, env, spawn, key = self.zygote_command()
        return ZygoteProcess.spawn(argv, env=env, cwd=str(self.base_dir), key=key, **spawn)

    def zygote_command(self) -> tuple[list[str], dict[str, str], dict[str, Any], tuple[Any, ...]]:
        """The zygote's argv (`{ctl}`: its control socket), environment and spawn arguments, and the key of all
        they are made of: the argv, the environment, the working directory, the limits and the identity (the
        spawn arguments' preexec function is made from the last two)."""
        (python, boot, paths), env, spawn = self.command()
        argv = [python, boot, "zygote", "{ctl}", paths]
        return argv, env, spawn, (tuple(argv), tuple(sorted(env.items())), str(self.base_dir), self.limits,
                                  self.identity)

    async def _fork(self) -> tuple[Any, int, int] | None:
        """A worker forked by the zygote (started on first use, or the early one adopted); None when there is none
        to fork from."""
        import asyncio

        from khaos_action.engine.worker.zygote import Zygote

        if self._zygote is None and self.zygote:
            self.zygote = False  # one attempt per run
            early, self._early = self._early, None
            argv, env, spawn, key = self.zygote_command()
            try:
                if early is not None and early.key == key:
                    self._zygote = await Zygote.adopt(early)
                else:
                    if early is not None:  # started for another command than this one: never used
                        early.discard()
                    self._zygote = await Zygote.start(argv, env=env, cwd=str(self.base_dir), **spawn)
            except OSError:
                return None
        if self._zygote is None or not self._zygote.alive:
            return None
        try:
            return await self._zygote.fork()
        except (OSError, asyncio.TimeoutError):
            return None

    async def _exec(self) -> tuple[Any, int, int]:
        """A worker started as a fresh interpreter."""
        import asyncio

        child_read, parent_write = os.pipe()
        parent_read, child_write = os.pipe()
        (python, boot, paths), env, spawn = self.command()
        try:
            process = await asyncio.create_subprocess_exec(
                python, boot, str(child_read), str(child_write), paths,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                pass_fds=(child_read, child_write), env=env, cwd=str(self.base_dir), **spawn)
        except OSError as exc:
            for fd in (parent_write, parent_read):
                os.close(fd)
            raise AgentError(f"cannot start the python agent worker with {self.python!r}: {exc}. Set agent.python "
                             "to an existing interpreter") from None
        finally:
            os.close(child_read)
            os.close(child_write)
        return process, parent_read, parent_write


def _our_site_packages() -> list[str]:
    """Where our dependencies live, for an interpreter that is not ours (worker/boot.py puts them last)."""
    return [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]


def worker_python(agent: InProcessAgent, environ: Mapping[str, str]) -> str | None:
    """The interpreter for the worker: agent.python, else KHAOS_AGENT_PYTHON in the run's environment (the action's
    `install` venv), else ours (None)."""
    chosen = agent.python or environ.get(PYTHON_ENV, "").strip() or None
    return chosen


def python_worker(agent: InProcessAgent, environ: Mapping[str, str],
                  extra_env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """How the python worker of `agent` is started (WorkerStarter's arguments, the session's and early.py's alike):
    its interpreter, its environment (agent.env expanded, then `extra_env`: the MCP proxy's addresses), the
    sandbox's limits and identity."""
    return {"python": worker_python(agent, environ), "env": {**python_agent_env(agent, environ), **(extra_env or {})},
            "limits": sandbox.limits_from(agent.limits), "identity": sandbox.agent_identity(environ)}


def python_agent_env(agent: Any, environ: Mapping[str, str]) -> dict[str, str]:
    """agent.env for a python worker: `${VAR}` expanded from the run's environment less the runner's secrets (no
    chaos-proxy templates: the worker's HTTP is intercepted in-process)."""
    visible = sandbox.visible_environ(environ)
    own = {k: sandbox.expand_vars(str(v), visible, where=f"agent.env.{k}") for k, v in agent.env.items()}
    return {**quiet_env(agent), **own}


def quiet_env(agent: Any) -> dict[str, str]:
    """What a framework adapter sets in its agent's worker while `agent.tracing` is off (CrewAI's telemetry and trace
    export would post every case over the network); agent.env wins over it."""
    from khaos_action.transports import TRANSPORTS

    entry = TRANSPORTS.get(str(getattr(agent, "type", "python")))
    if entry is None or entry.adapter is None or getattr(agent, "tracing", False):
        return {}
    import importlib

    return dict(getattr(importlib.import_module(entry.adapter).ADAPTER, "quiet_env", None) or {})
