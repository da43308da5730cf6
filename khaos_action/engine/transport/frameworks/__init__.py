"""Framework adapters: `type: pydantic-ai | langgraph | openai-agents` name an agent object, not a function.

Each adapter is one module that imports its framework lazily (each is an optional extra of khaos-action), so this
package is cheap to import. Which types are frameworks, and which module holds each one's adapter, is said by their
entries in the transport registry (khaos_action/transports.py `adapter`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from khaos_action.transports import TRANSPORTS, framework_types

if TYPE_CHECKING:
    from khaos_action.engine.transport.frameworks.adapter import FrameworkAdapter


def adapter_for(agent_type: str) -> FrameworkAdapter:
    """The adapter for `agent_type` (importing its module, not yet its framework)."""
    from khaos_action.errors import ConfigError

    entry = TRANSPORTS.get(agent_type)
    if entry is None or entry.adapter is None:
        raise ConfigError(f"agent.type {agent_type!r} is not a framework adapter. Expected one of "
                          f"{', '.join(framework_types())}.")
    return importlib.import_module(entry.adapter).ADAPTER
