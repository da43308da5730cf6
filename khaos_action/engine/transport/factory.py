"""Builds the transport an `agent:` block asks for; the one place that maps `agent.type` to an implementation."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from khaos_action.config.models import AgentConfig
from khaos_action.engine.transport.base import BindInstance, EnvForInstance, Transport
from khaos_action.errors import ConfigError
from khaos_action.services import Services


def build_transport(agent: AgentConfig, *, base_dir: Path, services: Services | None = None,
                    env: Mapping[str, str] | None = None,
                    concurrency: int = 8, bind_instance: BindInstance | None = None,
                    env_for_instance: EnvForInstance | None = None) -> Transport:
    """A not-yet-started transport for `agent`; call `await transport.start()` before the first `send`.

    `env` is added to every out-of-process instance's environment, `env_for_instance(i)` to instance i's (the chaos
    proxy gives each instance its own listener URLs this way, rendering agent.env templates such as
    `{{ llm_proxy }}`). `bind_instance(i, case_id)` / `bind_instance(i, None)` bracket each case an out-of-process
    instance serves. Python agents ignore these: they are attributed through the `current_case` ContextVar.
    `services` (the run's environment and HTTP clients) is required by the out-of-process types; the python worker
    builds its in-process transport without one.
    """
    if agent.type == "python":
        from khaos_action.engine.transport.python import PythonTransport

        assert agent.entry
        return PythonTransport(agent.entry, base_dir=base_dir, reset=agent.reset, concurrency=concurrency,
                               context=agent.context)
    if agent.type == "http":
        from khaos_action.engine.transport.http import HttpTransport

        if agent.reset is not None:
            raise ConfigError("agent.reset is for python agents; an http agent resets through `reset_endpoint` "
                              "(a URL that is POSTed to before each isolation group).")
        return HttpTransport(agent, base_dir=base_dir, services=_needed(services, agent), env=env,
                             env_for_instance=env_for_instance, bind_instance=bind_instance)
    if agent.type == "command":
        from khaos_action.engine.transport.command import CommandTransport

        return CommandTransport(agent, base_dir=base_dir, services=_needed(services, agent), env=env,
                                env_for_instance=env_for_instance, bind_instance=bind_instance)
    if agent.type == "mcp":
        from khaos_action.mcp.transport import McpTransport

        if agent.reset is not None:
            raise ConfigError("agent.reset is not used by an mcp agent: name a tool that clears its state in "
                              "agent.mcp.reset_tool.")
        return McpTransport(agent, base_dir=base_dir, services=_needed(services, agent), env=env,
                            env_for_instance=env_for_instance, bind_instance=bind_instance)
    from khaos_action.engine.transport.frameworks import FRAMEWORK_TYPES, adapter_for

    if agent.type in FRAMEWORK_TYPES:
        from khaos_action.engine.transport.frameworks.base import FrameworkTransport

        assert agent.entry
        return FrameworkTransport(adapter_for(agent.type), agent.entry, base_dir=base_dir, reset=agent.reset,
                                  context=agent.context, stream=agent.stream, tracing=agent.tracing)
    raise ConfigError(f"agent.type {agent.type!r} is unknown: expected one of python, http, command, mcp, "
                      f"{', '.join(FRAMEWORK_TYPES)}.")


def _needed(services: Services | None, agent: AgentConfig) -> Services:
    if services is None:
        raise TypeError(f"build_transport: a {agent.type} agent runs in processes of its own and needs the run's "
                        "`services` (their environment comes from it)")
    return services
