"""The framework adapter seam: what an adapter is (`FrameworkAdapter`), what it finds on an agent object
(`DiscoveredTool`) and what a turn is run with besides its input (`RunOptions`). The adapters (one module per
framework) implement it, base.py's `FrameworkTransport` drives it, and the package's `adapter_for` returns one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from khaos_action.tool_info import ToolInfo


@dataclass(frozen=True, slots=True)
class DiscoveredTool:
    """One tool found on the agent object: the name the model calls it by, what the engine wraps (a function, whose
    every reference is patched for the run, or the framework's tool object, wrapped in place by its kind:
    engine/chaos/tool_kinds.py; None for tools running elsewhere, e.g. behind an MCP server), and what the
    capability profile may read."""

    name: str
    target: Any
    info: ToolInfo


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How one turn is run, besides its input."""

    context: Any = None
    """The case's `agent.context` object (None without a factory)."""
    stream: bool = False
    """Through the framework's streaming API (`agent.stream`)."""
    tracing: bool = False
    """Leave the framework's trace export on (`agent.tracing`); off, no framework global is touched either."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The type's own `agent:` keys the adapter reads (its `settings`), e.g. crewai's `inputs`."""


class FrameworkAdapter(Protocol):
    agent_type: str
    """The `agent.type` this adapter serves."""
    extra: str
    """The khaos-action extra that installs the framework (`pip install 'khaos-action[<extra>]'`)."""
    module: str
    """The framework's top-level module, imported lazily."""
    package: str
    """The PyPI package that provides `module`."""
    expects: str
    """What `entry` must name, for error messages."""

    # Optional, read with getattr: `one_case_at_a_time = True` when the agent object itself holds a conversation
    # (smolagents' memory, an AutoGen agent's model context): its worker then serves one case at a time, as a sync
    # agent's does. `settings`: the names of the type's own `agent:` keys handed over in RunOptions.settings.

    def accepts(self, obj: Any) -> bool:
        """Whether `obj` is an agent this adapter can run."""

    def discover(self, obj: Any) -> list[DiscoveredTool]:
        """The agent's tools, found on the object itself (the user does not list them)."""

    def context_type(self, obj: Any) -> str | None:
        """What the agent declares it needs as context (pydantic-ai `deps_type`, LangGraph `context_schema`,
        openai-agents `RunContextWrapper[T]`), as "<type> (<where it is declared>)"; None when it needs none."""

    async def run(self, obj: Any, text: str, history: list[dict[str, str]], session_id: str,
                  options: RunOptions) -> dict[str, Any]:
        """One turn: `{"text": str, "tool_calls": [{"name", "args"}], "notes"?: [...]}`."""
