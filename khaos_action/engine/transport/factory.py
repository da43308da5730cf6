"""Builds the transport an `agent:` block asks for: its `agent.type` entry in the transport registry builds it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from khaos_action.engine.transport.base import BindInstance, EnvForInstance, Transport
from khaos_action.services import Services
from khaos_action.transports import BuildOptions, transport_entry

if TYPE_CHECKING:  # the python worker builds its transport without the config's models (engine/worker_child.py)
    from khaos_action.config.models import AgentConfig


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
    options = BuildOptions(base_dir=base_dir, services=services, env=env, concurrency=concurrency,
                           bind_instance=bind_instance, env_for_instance=env_for_instance)
    return transport_entry(agent.type).builder()(agent, options)
