"""What the python worker (engine/worker/child.py) makes of its setup frame before it serves a case: the agent
block, the tool wrappers, the LLM runtime; each imports the machinery behind it only when the agent needs it.

A worker is started on every run's critical path: importing the config's pydantic models, the faults and the chaos
machinery costs CPU time before the agent can be called (docs/performance.md), for an agent that may have no tools, no
HTTP client and no faults. So the agent block of a built-in type is read as plain data (the engine validated it),
the tool wrappers are entered when there is a tool to wrap (or at the first `@khaos_action.sdk.tool` call), and
the HTTP interception's replacements and the faults are imported when a library is patched or a case has faults.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

# Every worker needs these: imported here, in the zygote before it forks, not again in each worker.
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.llm.cassette import Cassette
from khaos_action.llm.pricing import Price
from khaos_action.tool_info import tool_name
from khaos_action.transports import transport_entry


class AgentBlock:
    """The `agent:` block of a built-in in-process type (python, the frameworks) as the engine validated and dumped
    it: its keys read as attributes, as those types' builders read them, without the config's pydantic models."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.__dict__.update(data)

    def _tools(self) -> list[tuple[str | None, str, str | None]]:
        """(code ref or None, tool name, role) per `agent.tools` entry, as `config.agent_block.ToolRef` reads them: it
        dumps as its ref alone without a role or name, else as `{ref | name, role}`; a ref without a colon names a
        tool."""
        out = []
        for tool in self.__dict__.get("tools") or ():
            entry = {"ref": tool} if isinstance(tool, str) else tool
            ref = entry.get("ref")
            code = str(ref) if ref is not None and ":" in str(ref) else None
            name = str(entry["name"]) if entry.get("name") is not None else tool_name(str(ref))
            out.append((code, name, str(entry["role"]) if entry.get("role") else None))
        return out

    def tool_refs(self) -> list[str]:
        return [code for code, _, _ in self._tools() if code is not None]

    def named_tools(self) -> list[str]:
        return [name for code, name, _ in self._tools() if code is None]

    def declared_roles(self) -> dict[str, str]:
        return {name: role for _, name, role in self._tools() if role}


def read_agent(data: Any) -> Any:
    """The agent block the engine sent: an AgentBlock for a built-in type (checked for the keys the worker reads;
    the engine validated the rest), else validated through its type's model (an extension's, with its validators)."""
    if not isinstance(data, dict) or not isinstance(data.get("entry"), str):
        raise TypeError(f"the python worker was sent no in-process agent block: {data!r:.200}")
    entry = transport_entry(str(data.get("type") or "python"))
    if not entry.in_process:
        raise TypeError(f"the python worker runs in-process agents; a {entry.name} agent is not one")
    if isinstance(entry.params, str) and entry.params.startswith("khaos_action.config.agents:"):
        return AgentBlock(data)
    from khaos_action.config.agent_block import AgentConfig

    return AgentConfig.model_validate(data)


class ToolWrappers:
    """The agent's tool wrappers (engine/chaos/tools.py `ToolPatcher`), entered with the worker: at once when there
    is a configured tool, a tool registry or a tool the framework adapter found; otherwise at the first call of an
    `@khaos_action.sdk.tool` function, through the sdk hook installed meanwhile (a worker without tools never
    imports the chaos machinery). `tool_names` and `reached` are the patcher's (empty until it exists)."""

    def __init__(self, refs: Sequence[str], registry: str | None, base_dir: Path,
                 callables: Sequence[tuple[str, Callable[..., Any]]] = ()) -> None:
        self.refs, self.registry, self.base_dir, self.callables = list(refs), registry, base_dir, list(callables)
        self.patcher: Any = None
        self._stack = ExitStack()
        self._lock = threading.Lock()

    @property
    def tool_names(self) -> list[str]:
        return self.patcher.tool_names if self.patcher is not None else []

    @property
    def reached(self) -> set[str]:
        return self.patcher.reached if self.patcher is not None else set()

    def __enter__(self) -> ToolWrappers:
        if self.refs or self.registry or self.callables:
            self._wrap()
        else:
            from khaos_action import sdk

            previous = sdk.set_tool_hook(self._first_call)
            self._stack.callback(sdk.set_tool_hook, previous)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _wrap(self) -> None:
        from khaos_action.engine.chaos.tools import ToolPatcher

        self.patcher = self._stack.enter_context(ToolPatcher(self.refs, self.registry, self.base_dir,
                                                             callables=self.callables))

    def _first_call(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """The first `@tool` call: wrap (the patcher installs its own hook in place of this one), then hand the call
        to the patcher's hook."""
        from khaos_action import sdk

        with self._lock:
            if self.patcher is None:
                self._wrap()
        hook = sdk.get_tool_hook()
        assert hook is not None and hook is not self._first_call
        return hook(name, fn, args, kwargs)


class WorkerRuntime(LlmRuntime):
    """An LlmRuntime that keeps no run-wide list: the engine's runtime totals the records the replies carry."""

    def finished(self, record: dict[str, Any], live_tokens: int | None, cost: float | None) -> None:
        return None


def llm_runtime(setup: dict[str, Any]) -> WorkerRuntime:
    cassette = setup.get("cassette")
    prices = {str(name): Price(float(p[0]), float(p[1])) for name, p in (setup.get("prices") or {}).items()}
    return WorkerRuntime(cassette=Cassette(Path(cassette[0]), cassette[1], secrets=cassette[2]) if cassette else None,
                         prices=prices)
