"""The capability profile of the agent under test, from what can be seen of it (config, code, tools)."""

from __future__ import annotations

from pathlib import Path

from khaos_action.attacks.capabilities import CapabilityProfile, Evidence, infer_capabilities
from khaos_action.config.models import AgentConfig
from khaos_action.engine.agent_tools import agent_tools
from khaos_action.tool_info import ToolInfo
from khaos_action.transports import transport_entry


def agent_profile(agent: AgentConfig, base_dir: Path, *, import_code: bool,
                  seen: tuple[list[ToolInfo], object | None] | None = None) -> tuple[CapabilityProfile, dict[str, str]]:
    """Infer the profile. `seen`: what the python worker found when it imported the agent (`agent_tools` run in
    the worker, engine/worker_child.py), so a run never imports pull-request code in this process. Otherwise, with
    `import_code` the tools' signatures and docstrings and the entry's `@khaosagent` metadata are read here (this
    runs the agent's module code); without it only names are."""
    tools, metadata = seen if seen is not None else agent_tools(agent, base_dir, import_code=import_code)
    return profile_of(agent, tools, metadata)


def profile_of(agent: AgentConfig, tools: list[ToolInfo], metadata: object | None
               ) -> tuple[CapabilityProfile, dict[str, str]]:
    """The one profile `validate` prints and `run` uses: the tools' evidence plus what the adapter tells."""
    return infer_capabilities(agent=agent, tools=tools, metadata=metadata,  # type: ignore[arg-type]
                              evidence=adapter_evidence(agent))


def adapter_evidence(agent: AgentConfig) -> list[Evidence]:
    """What the transport itself tells about the agent, whatever its tools say."""
    transport = transport_entry(agent.type)
    if transport.sends_history:
        # The transport sends every case's conversation history (a framework adapter: in its own message types).
        kind = "framework" if transport.adapter else "transport"
        return [Evidence("has_multi_turn", True, f"{kind}:{agent.type} adapter sends the history")]
    return []
