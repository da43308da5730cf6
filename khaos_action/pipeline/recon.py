"""The recon stage: what the started agent exposes, before anything is planned. Its tools (what the python worker
found when it imported the agent: pull-request code never runs in this process), their roles and parameters, the
capabilities they and the config give it, and whether tool faults have anything to reach."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from khaos_action.attacks.capabilities import CapabilityProfile
    from khaos_action.config.models import AgentConfig
    from khaos_action.roles import ToolRole
    from khaos_action.session import AgentSession
    from khaos_action.tool_info import ToolInfo


@dataclass(frozen=True, slots=True)
class Recon:
    profile: CapabilityProfile
    sources: dict[str, str]
    """Each capability flag's source (attacks/capabilities.py)."""
    roles: list[ToolRole] = field(default_factory=list)
    """The agent's tools with their roles: declared, else guessed by name (forbidden-tool attacks aim at them)."""
    parameters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each tool's parameter names (an attack adapted to a tool fills them with the attacker's values)."""
    wrapped: tuple[str, ...] = ()
    """The tools the engine's wrappers reach (none for an agent whose tools run in its own process)."""
    tool_faults_unreachable: str | None = None
    """Why tool faults aimed at every tool cannot apply to this agent (no tool to wrap), else None."""

    @property
    def tool_roles(self) -> dict[str, str]:
        """Each tool's role, for the reports' list of consequential calls."""
        return {r.tool: r.role for r in self.roles if r.role}


def recon(session: AgentSession, agent: AgentConfig, base_dir: Path) -> Recon:
    """What the agent, started in `session`, exposes."""
    from khaos_action.engine.agent_tools import agent_tools

    seen = session.transport.seen
    tools, metadata = seen if seen is not None else agent_tools(agent, base_dir, import_code=False)
    patcher = session.patcher
    wrapped = tuple(patcher.tool_names) if patcher is not None else ()
    return recon_of(agent, tools, metadata, wrapped=wrapped, tool_faults_unreachable=_unreachable(patcher, agent))


def recon_of(agent: AgentConfig, tools: Sequence[ToolInfo], metadata: Any, *, wrapped: Sequence[str] = (),
             tool_faults_unreachable: str | None = None) -> Recon:
    """The recon of an agent whose tools are `tools` (`validate`: as the sandboxed worker found them)."""
    from khaos_action.attacks.profile import profile_of
    from khaos_action.roles import guess_role

    profile, sources = profile_of(agent, list(tools), metadata)
    roles = [tool.role_info() for tool in tools]
    # Tools only the wrappers know (a tool_registry's entries, framework toolsets): roles guessed by name.
    roles += [guess_role(name) for name in wrapped if name not in {r.tool for r in roles}]
    return Recon(profile=profile, sources=sources, roles=roles, parameters={t.name: t.parameters for t in tools},
                 wrapped=tuple(wrapped), tool_faults_unreachable=tool_faults_unreachable)


def _unreachable(patcher: Any, agent: AgentConfig) -> str | None:
    """Tool faults aimed at every tool, for an agent with no tool the engine can wrap, are not applicable (a
    chat-only agent runs every built-in pack: its LLM faults and attacks apply)."""
    if patcher is not None and patcher.tool_names:
        return None
    from khaos_action.plan.applicable import NO_TOOLS, out_of_process_reason

    return NO_TOOLS if patcher is not None else out_of_process_reason(agent.type)
