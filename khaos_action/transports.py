"""The transport registry: one entry per `agent.type`, owning its `agent:` keys, its builder and its profile facts.

Every stage that needs to know something about a kind of agent asks its entry, never the type's name: the config
(the type's own keys: its `params` model, an `AgentConfig` subclass), the session (a python worker or a process,
the chaos proxy or not), the profile and `validate` (whether the agent's code may be imported, a framework adapter).

Bottom layer, cheap to import (the config validates `agent.type` against it at load): built-in entries name their
builder as `"module:function"`, imported only when a run builds that transport, and their params model as
`"khaos_action.config.agents:Class"`, imported when a config is validated. A transport from outside the
package registers itself with `@register_transport(...)` on its builder (docs/architecture.md "Add a transport").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from khaos_action.registry import Registry
from khaos_action.services import Services


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """What the run hands a builder besides the `agent:` block."""

    base_dir: Path
    """The config file's folder: relative paths in the agent block are relative to it."""
    services: Services | None = None
    """The run's environment and HTTP clients; agents in processes of their own need it (`needed_services`), the
    python worker builds its in-process transport without one."""
    env: Mapping[str, str] | None = None
    """Added to every out-of-process instance's environment."""
    concurrency: int = 8
    """How many cases may be in flight at once."""
    bind_instance: Callable[[int, str | None], None] | None = None
    """`bind_instance(i, case_id)` / `bind_instance(i, None)` bracket each case an out-of-process instance serves
    (the chaos proxy attributes instance i's traffic to that case)."""
    env_for_instance: Callable[[int], Mapping[str, str]] | None = None
    """Instance i's own environment (its chaos-proxy listener URLs, rendered agent.env templates)."""

    def needed_services(self, agent_type: str) -> Services:
        if self.services is None:
            raise TypeError(f"build_transport: a {agent_type} agent runs in processes of its own and needs the run's "
                            "`services` (their environment comes from it)")
        return self.services


Builder = Callable[[Any, BuildOptions], Any]
"""`build(agent, options: BuildOptions) -> Transport` (not yet started); `agent` is an instance of the entry's
`params` model, so the builder reads its own keys from the type that owns them."""


@dataclass(frozen=True, slots=True)
class TransportEntry:
    name: str
    """The `agent.type` value."""
    summary: str
    """One line for docs and errors: how the agent is reached."""
    build: str | Builder = field(repr=False)
    """The builder, or `"module:function"` naming it (imported when a run builds this transport)."""
    params: str | type | None = None
    """The type's agent model: an `AgentConfig` subclass (khaos_action/config/agent_block.py) whose fields are the
    type's own `agent:` keys, with their docs, defaults and validators (an in-process type's extends
    `config.agent_block.InProcessAgent`), or `"module:Class"` naming it. None: the shared keys only
    (`config.agent_block.model_of` reads it)."""
    in_process: bool = False
    """The agent's own code is imported: it runs in the python worker (engine/worker/pool.py), its tools are
    wrapped and its HTTP intercepted, `agent.context` applies, and `validate`/the profile may read its code.
    The worker imports the run's extension modules before it builds the entry, so an extension's type runs there
    too."""
    proxy: bool = True
    """Out of process: the chaos proxy sits between the agent and its dependencies (agent.env `{{ llm_proxy }}`)."""
    adapter: str | None = None
    """A framework type: the module whose `ADAPTER` (a FrameworkAdapter, engine/transport/frameworks/adapter.py)
    finds tools and runs it."""
    sends_history: bool = False
    """The transport sends each case's conversation history itself (capability evidence: multi-turn)."""

    def builder(self) -> Builder:
        return self.build if callable(self.build) else self.resolve(self.build)

    @staticmethod
    def resolve(spec: str) -> Any:
        """`"module:attr"` -> the object."""
        module, _, attr = spec.partition(":")
        return getattr(importlib.import_module(module), attr)


TRANSPORTS: Registry[TransportEntry] = Registry("agent.type")
"""`agent.type` -> its entry, built-ins first in the order the docs list them."""


def register_transport(name: str, *, summary: str, params: type | None = None, in_process: bool = False,
                       proxy: bool = True, adapter: str | None = None,
                       sends_history: bool = False) -> Callable[[Builder], Builder]:
    """Decorator on a builder: `agent.type: <name>` is built by it from then on, its `agent:` keys those of
    `params` (an AgentConfig subclass)."""
    return TRANSPORTS.decorator(name, lambda build: TransportEntry(
        name=name, summary=summary, build=build, params=params, in_process=in_process, proxy=proxy, adapter=adapter,
        sends_history=sends_history))


def transport_entry(agent_type: str) -> TransportEntry:
    """The entry for `agent_type`; a ConfigError listing the valid types when there is none."""
    return TRANSPORTS.lookup(agent_type)


def framework_types() -> tuple[str, ...]:
    """The `agent.type` values served by a framework adapter."""
    return tuple(name for name, entry in TRANSPORTS.items() if entry.adapter)


_T, _A = "khaos_action.engine.transport", "khaos_action.config.agents"
for _entry in (
    TransportEntry("python", "an in-process callable, `entry(message[, history])`", f"{_T}.python:build",
                   f"{_A}:PythonAgent", in_process=True),
    TransportEntry("http", "a server the inputs are POSTed to", f"{_T}.http:build", f"{_A}:HttpAgent"),
    TransportEntry("command", "a long-lived process speaking JSON lines on stdin/stdout", f"{_T}.command:build",
                   f"{_A}:CommandAgent"),
    TransportEntry("mcp", "an MCP server: each input is one call of one of its tools",
                   "khaos_action.mcp.transport:build", f"{_A}:McpTypeAgent"),
    *(TransportEntry(name, f"a {name} agent object run in-process (tools found on the object)",
                     f"{_T}.frameworks.base:build", f"{_A}:FrameworkAgent", in_process=True,
                     adapter=f"{_T}.frameworks.{module}", sends_history=True)
      for name, module in (("pydantic-ai", "pydantic_ai"), ("langgraph", "langgraph"),
                           ("openai-agents", "openai_agents"), ("smolagents", "smolagents"),
                           ("llama-index", "llama_index"), ("autogen", "autogen"),
                           ("google-adk", "google_adk"))),
    # A Crew runs tasks, not a conversation: the history reaches an `Agent` entry only (no multi-turn evidence).
    TransportEntry("crewai", "a CrewAI Crew or Agent run in-process (tools found on the object)",
                   f"{_T}.frameworks.base:build", f"{_A}:CrewAiAgent", in_process=True,
                   adapter=f"{_T}.frameworks.crewai"),
):
    TRANSPORTS.add(_entry.name, _entry)
del _entry
