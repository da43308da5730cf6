"""The agent's tools and its `@khaosagent` metadata, read from its config and, for in-process agents, its code.

In the engine because reading them means importing the agent the way its transport does (python entry, framework
adapters); attacks/profile.py turns them into the capability profile, engine/worker_child.py runs this in the
python worker so a run never imports pull-request code in the engine's process.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from khaos_action.config.agents import InProcessAgent
from khaos_action.config.models import AgentConfig, tool_name
from khaos_action.tool_info import ToolInfo, tool_info_from_callable
from khaos_action.transports import transport_entry


def agent_tools(agent: AgentConfig, base_dir: Path, *, import_code: bool) -> tuple[list[ToolInfo], object | None]:
    """The agent's tools (names, descriptions, parameters, declared roles) and its `@khaosagent` metadata. With
    `import_code` (a run or `validate` of an in-process agent) the code is imported, never called; otherwise only
    the configured names are known."""
    declared = agent.declared_roles()
    refs = agent.tool_refs()
    tools: list[ToolInfo] = []
    metadata = None
    transport = transport_entry(agent.type)
    if isinstance(agent, InProcessAgent) and transport.adapter is None and import_code:
        from khaos_action.engine.transport.python import load_callable

        tools = [tool_info_from_callable(load_callable(spec, base_dir, what="agent.tools")) for spec in refs]
        entry = load_callable(agent.entry, base_dir, what="agent.entry")
        metadata = getattr(entry, "__khaos_agent__", None)
    elif isinstance(agent, InProcessAgent) and import_code:
        from khaos_action.engine.transport.frameworks.base import discover_tools
        from khaos_action.engine.transport.python import load_callable

        # The framework's own tool definitions (names, descriptions, JSON schemas), plus any listed in agent.tools.
        tools = [t.info for t in discover_tools(agent.type, agent.entry, base_dir)]
        tools += [tool_info_from_callable(load_callable(spec, base_dir, what="agent.tools")) for spec in refs]
    else:
        tools = [ToolInfo(name=tool_name(ref), description="") for ref in refs]
    # A role in khaos.yaml overrides the one a decorator declared: the config is the user's last word.
    return [replace(t, role=declared.get(t.name, t.role)) for t in tools], metadata
