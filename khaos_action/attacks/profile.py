"""The capability profile of the agent under test, from what can be seen of it (config, code, tools)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from khaos_action.attacks.capabilities import CapabilityProfile, Evidence, infer_capabilities
from khaos_action.config.models import AgentConfig, tool_name
from khaos_action.engine.transport.frameworks import FRAMEWORK_TYPES
from khaos_action.tool_info import ToolInfo, tool_info_from_callable


def agent_tools(agent: AgentConfig, base_dir: Path, *, import_code: bool) -> tuple[list[ToolInfo], object | None]:
    """The agent's tools (names, descriptions, parameters, declared roles) and its `@khaosagent` metadata. With
    `import_code` (a run or `validate` of an in-process agent) the code is imported, never called; otherwise only
    the configured names are known."""
    declared = agent.declared_roles()
    refs = agent.tool_refs()
    tools: list[ToolInfo] = []
    metadata = None
    if agent.type == "python" and import_code:
        from khaos_action.engine.transport.python import load_callable

        tools = [tool_info_from_callable(load_callable(spec, base_dir, what="agent.tools")) for spec in refs]
        entry = load_callable(agent.entry or "", base_dir, what="agent.entry")
        metadata = getattr(entry, "__khaos_agent__", None)
    elif agent.type in FRAMEWORK_TYPES and import_code:
        from khaos_action.engine.transport.frameworks.base import discover_tools
        from khaos_action.engine.transport.python import load_callable

        # The framework's own tool definitions (names, descriptions, JSON schemas), plus any listed in agent.tools.
        tools = [t.info for t in discover_tools(agent.type, agent.entry or "", base_dir)]
        tools += [tool_info_from_callable(load_callable(spec, base_dir, what="agent.tools")) for spec in refs]
    else:
        tools = [ToolInfo(name=tool_name(ref), description="") for ref in refs]
    # A role in khaos.yaml overrides the one a decorator declared: the config is the user's last word.
    return [replace(t, role=declared.get(t.name, t.role)) for t in tools], metadata


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
    if agent.type in FRAMEWORK_TYPES:
        # The adapter sends every case's conversation history in the framework's own message types.
        return [Evidence("has_multi_turn", True, f"framework:{agent.type} adapter sends the history")]
    return []
