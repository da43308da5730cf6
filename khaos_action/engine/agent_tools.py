"""The agent's tools and its `@khaosagent` metadata, read from its config and, for in-process agents, its code.

In the engine because reading them means importing the agent the way its transport does (python entry, framework
adapters); attacks/profile.py turns them into the capability profile, engine/worker/child.py runs this in the
python worker so a run never imports pull-request code in the engine's process.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.errors import ConfigError
from khaos_action.tool_info import ToolInfo, tool_info_from_callable
from khaos_action.transports import transport_entry

if TYPE_CHECKING:
    from khaos_action.config.models import AgentConfig


def agent_tools(agent: AgentConfig, base_dir: Path, *, import_code: bool) -> tuple[list[ToolInfo], object | None]:
    """The agent's tools (names, descriptions, parameters, declared roles) and its `@khaosagent` metadata. With
    `import_code` (a run or `validate` of an in-process agent) the code is imported, never called, and every tool
    `agent.tools` names by `name:` must be among those found; otherwise only the configured names are known."""
    from khaos_action.config.agent_block import InProcessAgent

    if isinstance(agent, InProcessAgent) and import_code:
        tools, metadata = imported_tools(agent.type, agent.entry, agent.tool_refs(), base_dir, agent.tool_registry)
        return named_roles(tools, agent), metadata
    tools = [ToolInfo(name=name, description="") for name in agent.tool_names()]
    return with_roles(tools, agent.declared_roles()), None


def imported_tools(agent_type: str, entry: str, refs: Sequence[str], base_dir: Path,
                   registry: str | None = None) -> tuple[list[ToolInfo], object | None]:
    """An in-process agent's tools and metadata, read by importing its code (never calling it): the tools listed in
    `agent.tools` (functions, methods, framework tool objects), and those the agent has on its own: a framework
    agent object's, a tool registry's entries, `@khaos_action.sdk.tool` functions in the agent's modules. Takes the
    agent block's values, not its model: the python worker calls it without importing the config
    (engine/worker/child.py)."""
    from khaos_action.engine.chaos.tool_kinds import describe_tool
    from khaos_action.engine.code_ref import load_callable, load_object

    listed = [describe_tool(load_object(spec, base_dir, what="agent.tools")) for spec in refs]
    if transport_entry(agent_type).adapter is None:
        entry_fn = load_callable(entry, base_dir, what="agent.entry")
        found = [*listed, *_registry_tools(registry, base_dir), *_sdk_tools(base_dir)]
        return _unique(found), with_signature(getattr(entry_fn, "__khaos_agent__", None), entry_fn)
    from khaos_action.engine.transport.frameworks.base import discover_tools

    # The framework's own tool definitions (names, descriptions, JSON schemas), plus any listed in agent.tools.
    return _unique([t.info for t in discover_tools(agent_type, entry, base_dir)] + listed), None


def named_roles(tools: Sequence[ToolInfo], agent: Any) -> list[ToolInfo]:
    """`with_roles`, after checking that every tool `agent.tools` names (`{name: ..., role: ...}`) is one the agent
    has: a ConfigError listing the tools found otherwise (a typo would silently declare nothing)."""
    found = [tool.name for tool in tools]
    unknown = [name for name in agent.named_tools() if name not in found]
    if unknown:
        raise UnknownToolNames(unknown, found)
    return with_roles(tools, agent.declared_roles())


class UnknownToolNames(ConfigError):
    """`agent.tools` names tools the agent does not have."""

    def __init__(self, unknown: Sequence[str], found: Sequence[str]) -> None:
        self.unknown, self.found = list(unknown), list(found)
        super().__init__(f"agent.tools names {', '.join(repr(n) for n in unknown)}, which the agent does not have. "
                         f"{unknown_fix(found)}.")


def unknown_fix(found: Sequence[str]) -> str:
    return (f"Tools found on it: {', '.join(found) if found else 'none'}. Use one of those names (the name its model "
            f"calls the tool by), or give the code to wrap as `ref: file.py:function`")


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


def _unique(tools: Sequence[ToolInfo]) -> list[ToolInfo]:
    seen: dict[str, ToolInfo] = {}
    for tool in tools:
        seen.setdefault(tool.name, tool)
    return list(seen.values())


def _registry_tools(registry: str | None, base_dir: Path) -> list[ToolInfo]:
    if not registry:
        return []
    from khaos_action.engine.chaos.tool_registry import load_callable_or_object, registry_mapping

    mapping = registry_mapping(load_callable_or_object(registry, base_dir))
    return [replace(tool_info_from_callable(fn), name=str(key)) for key, fn in mapping.items() if callable(fn)]


def _sdk_tools(base_dir: Path) -> list[ToolInfo]:
    """`@khaos_action.sdk.tool` functions defined in the agent's own modules (those loaded from under the config's
    folder once the entry is imported)."""
    root = base_dir.resolve()
    found: list[ToolInfo] = []
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not file or not _under(file, root):
            continue
        found += [replace(tool_info_from_callable(value), name=value.__khaos_tool__)
                  for value in list(vars(module).values())
                  if callable(value) and isinstance(getattr(value, "__khaos_tool__", None), str)
                  and getattr(value, "__module__", None) == module.__name__]
    return found


def _under(file: str, root: Path) -> bool:
    try:
        return Path(file).resolve().is_relative_to(root)
    except (OSError, ValueError):
        return False
