"""Whether configured tool faults can reach a tool: checked before the run (declared tools) and after it (tools
that calls actually went through). Never skip a tool fault silently."""

from __future__ import annotations

import fnmatch
from typing import Any

from khaos_action.errors import ConfigError


class ToolsUnreachable(ConfigError):
    """Tool faults are configured but no configured tool can be reached."""


HOW_TO_EXPOSE = ("add the tool callables to `agent.tools` (e.g. `agents/tools.py:lookup_order`), decorate them "
                 "with `@khaos_action.sdk.tool`, or point `agent.tool_registry` at the dict that maps tool names "
                 "to callables")



def _tool_fault_names(fault_specs: list[Any]) -> list[str]:
    """The tool names (globs) of the tool faults among `fault_specs` (ToolFault models or case fault dicts)."""
    names = []
    for spec in fault_specs:
        data = spec.model_dump() if hasattr(spec, "model_dump") else dict(spec)
        target = data.get("target")
        if target == "tool" or (target is None and "tool" in data):
            names.append(str(data.get("tool") or "*"))
    return names


def check_tool_faults_reachable(tool_names: list[str], fault_specs: list[Any]) -> None:
    """ConfigError when tool faults are configured but name no tool the engine can wrap (never skip silently)."""
    wanted = _tool_fault_names(fault_specs)
    if not wanted:
        return
    if not tool_names:
        raise ToolsUnreachable(f"Tool faults are configured ({', '.join(sorted(set(wanted)))}) but the agent exposes "
                               f"no tool the engine can wrap; {HOW_TO_EXPOSE}.")
    missing = sorted({w for w in wanted if w != "*" and not any(fnmatch.fnmatchcase(t, w) for t in tool_names)})
    if missing:
        raise ToolsUnreachable(f"Tool faults target {', '.join(missing)}, which the agent does not declare (declared: "
                               f"{', '.join(tool_names)}); {HOW_TO_EXPOSE}.")


def unreached_tools(reached: set[str], tool_names: list[str], fault_specs: list[Any]) -> list[str]:
    """Declared tools that faults target but that no call ever went through during the run."""
    wanted = _tool_fault_names(fault_specs)
    targeted = {t for t in tool_names for w in wanted if w == "*" or fnmatch.fnmatchcase(t, w)}
    return sorted(targeted - reached)


def never_reached_message(names: list[str]) -> str:
    return (f"Tool faults target {', '.join(names)}, but no call reached {'it' if len(names) == 1 else 'them'} "
            f"through the engine's wrapper during the run: the agent may hold a copy the engine cannot patch "
            f"(e.g. inside a tuple or functools.partial). To make the tool reachable, {HOW_TO_EXPOSE}.")
