"""The agent's tools and its `@khaosagent` metadata, read from its config and, for in-process agents, its code.

In the engine because reading them means importing the agent the way its transport does (python entry, framework
adapters); attacks/profile.py turns them into the capability profile, engine/worker_child.py runs this in the
python worker so a run never imports pull-request code in the engine's process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from khaos_action.tool_info import ToolInfo, tool_info_from_callable, tool_name
from khaos_action.transports import transport_entry

if TYPE_CHECKING:
    from khaos_action.config.models import AgentConfig


def agent_tools(agent: AgentConfig, base_dir: Path, *, import_code: bool) -> tuple[list[ToolInfo], object | None]:
    """The agent's tools (names, descriptions, parameters, declared roles) and its `@khaosagent` metadata. With
    `import_code` (a run or `validate` of an in-process agent) the code is imported, never called; otherwise only
    the configured names are known."""
    from khaos_action.config.agents import InProcessAgent

    refs = agent.tool_refs()
    if isinstance(agent, InProcessAgent) and import_code:
        tools, metadata = imported_tools(agent.type, agent.entry, refs, base_dir)
    else:
        tools, metadata = [ToolInfo(name=tool_name(ref), description="") for ref in refs], None
    return with_roles(tools, agent.declared_roles()), metadata


def imported_tools(agent_type: str, entry: str, refs: Sequence[str],
                   base_dir: Path) -> tuple[list[ToolInfo], object | None]:
    """An in-process agent's tools and metadata, read by importing its code (never calling it). Takes the agent
    block's values, not its model: the python worker calls it without importing the config (engine/worker_child.py)."""
    from khaos_action.engine.transport.python import load_callable

    if transport_entry(agent_type).adapter is None:
        tools = [tool_info_from_callable(load_callable(spec, base_dir, what="agent.tools")) for spec in refs]
        entry_fn = load_callable(entry, base_dir, what="agent.entry")
        return tools, with_signature(getattr(entry_fn, "__khaos_agent__", None), entry_fn)
    from khaos_action.engine.transport.frameworks.base import discover_tools

    # The framework's own tool definitions (names, descriptions, JSON schemas), plus any listed in agent.tools.
    tools = [t.info for t in discover_tools(agent_type, entry, base_dir)]
    tools += [tool_info_from_callable(load_callable(spec, base_dir, what="agent.tools")) for spec in refs]
    return tools, None


def with_signature(metadata: object | None, entry_fn: object) -> object | None:
    """The `@khaosagent` record, plus the entry's signature when it takes the conversation history (evidence of
    multi-turn state: attacks/capabilities.py `signature_evidence`)."""
    from khaos_action.engine.transport.python import entry_signature

    found = entry_signature(entry_fn)
    if found is None or found[1] is None:
        return metadata
    record = dict(metadata) if isinstance(metadata, dict) else {"capabilities": None}
    record["entry_signature"], record["entry_history"] = found
    return record


def with_roles(tools: Sequence[ToolInfo], declared: Mapping[str, str]) -> list[ToolInfo]:
    """A role in khaos.yaml overrides the one a decorator declared: the config is the user's last word."""
    return [replace(t, role=declared.get(t.name, t.role)) for t in tools]
