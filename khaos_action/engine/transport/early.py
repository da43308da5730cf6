"""The python worker's zygote, started from khaos.yaml before the config is validated.

Validating the config takes its pydantic models, whose import is most of a small run's fixed cost; the zygote (a
fresh interpreter importing our worker modules, on the other core) is what the run waits for next (figures:
docs/performance.md, "The early zygote"). So `evaluate` reads and parses khaos.yaml (once: config/yaml_file.py, no
models), starts the zygote from its `agent:` block, and imports and validates the config while it boots. It is a
guess, never trusted: the session adopts it only when the command it would start itself from the validated config is
the same (argv, clean environment, working directory, limits, identity: WorkerStarter `_fork`); otherwise, and
whenever the run ends without adopting it, it is killed and reaped (ZygoteProcess.discard). It is started exactly as
the session starts one (`python_worker`, WorkerStarter): the clean environment, its own session, the limits, the
agent user; it imports our modules only, never the agent's code.

Only for what the guess can read without the models: an in-process agent type, plain values of the keys the
worker's command is made of, no MCP servers (their proxy's addresses are only known inside the session), our own
interpreter. Anything else: None, and the session starts its zygote as it always did.
Standard library and the registry of agent types only: no pydantic, no asyncio.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from khaos_action.engine.worker.zygote_process import ZygoteProcess

if TYPE_CHECKING:
    from khaos_action.config.yaml_file import ConfigSource

LIMIT_DEFAULTS = {"memory_mb": 4096, "open_files": 1024, "file_size_mb": 1024}
"""config/agent_block.py AgentLimits' defaults (a guess that differs is only started in vain: the session adopts an
equal command only; tests/integration/test_worker_early_start.py compares them)."""


@dataclass(frozen=True, slots=True)
class GuessedLimits:
    memory_mb: int | None = LIMIT_DEFAULTS["memory_mb"]
    open_files: int | None = LIMIT_DEFAULTS["open_files"]
    file_size_mb: int | None = LIMIT_DEFAULTS["file_size_mb"]


@dataclass(frozen=True, slots=True)
class GuessedAgent:
    """The keys of `agent:` the python worker's command is made of (what WorkerStarter and `python_worker` read),
    as the YAML says them."""

    entry: str
    env: dict[str, str] = field(default_factory=dict)
    pass_env: str | list[str] = "*"
    python: str | None = None
    limits: GuessedLimits = GuessedLimits()


def early_zygote(source: ConfigSource, environ: Mapping[str, str]) -> ZygoteProcess | None:
    """The zygote of the agent khaos.yaml (`source`, read and parsed) describes, spawned now; None when the guess
    cannot be made (see the module's docstring) or the process cannot be started (the session then says why, as it
    always did)."""
    try:
        data = source.document.data
        agent = guess_agent(data.get("agent") if isinstance(data, dict) else None)
        if agent is None:
            return None
        from khaos_action.engine.worker.start import WorkerStarter, python_worker

        worker = python_worker(agent, environ)
        if worker["python"] not in (None, sys.executable):  # another interpreter: started as it always was
            return None
        return WorkerStarter(agent, base_dir=source.base_dir, environ=environ, zygote=True,
                             **worker).spawn_zygote()
    except Exception:  # noqa: BLE001 - a guess: whatever it trips on, the validated config says it properly
        return None


def guess_agent(block: Any) -> GuessedAgent | None:
    """`block` (the `agent:` mapping) read as the models would read it, when every key the command is made of holds
    a plain value of its type; else None."""
    from khaos_action.transports import TRANSPORTS

    if not isinstance(block, dict) or block.get("mcp_servers"):
        return None
    kind = block.get("type", "python")
    entry, env, pass_env = block.get("entry"), block.get("env", {}), block.get("pass_env", "*")
    python, limits = block.get("python"), block.get("limits", {})
    known = isinstance(kind, str) and kind in TRANSPORTS and TRANSPORTS[kind].in_process
    if not (known and _text(entry) and _texts(env) and (pass_env == "*" or _list_of_text(pass_env))
            and (python is None or _text(python)) and isinstance(limits, dict)
            and set(limits) <= set(LIMIT_DEFAULTS)
            and all(v is None or (type(v) is int and v > 0) for v in limits.values())):
        return None
    return GuessedAgent(entry=entry, env=dict(env), pass_env=pass_env, python=python, limits=GuessedLimits(**limits))


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _texts(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _list_of_text(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
