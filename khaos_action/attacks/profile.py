"""The capability profile of the agent under test, from what can be seen of it (config, code, tools)."""

from __future__ import annotations

from khaos_action.attacks.capabilities import CapabilityProfile, Evidence, infer_capabilities
from khaos_action.config.models import AgentConfig
from khaos_action.tool_info import ToolInfo
from khaos_action.transports import transport_entry


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
