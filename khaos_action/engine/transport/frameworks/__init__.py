"""Framework adapters: `type: pydantic-ai | langgraph | openai-agents` name an agent object, not a function.

Each adapter is one module that imports its framework lazily (each is an optional extra of khaos-action), so this
package is cheap to import: the session and the profile ask it which types are frameworks and for an adapter.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from khaos_action.engine.transport.frameworks.base import FrameworkAdapter

ADAPTER_MODULES: dict[str, str] = {
    "pydantic-ai": "khaos_action.engine.transport.frameworks.pydantic_ai",
    "langgraph": "khaos_action.engine.transport.frameworks.langgraph",
    "openai-agents": "khaos_action.engine.transport.frameworks.openai_agents",
}
FRAMEWORK_TYPES: tuple[str, ...] = tuple(ADAPTER_MODULES)
"""agent.type values served by a framework adapter; these agents run in-process like `type: python`."""


def adapter_for(agent_type: str) -> FrameworkAdapter:
    """The adapter for `agent_type` (importing its module, not yet its framework)."""
    from khaos_action.errors import ConfigError

    module = ADAPTER_MODULES.get(agent_type)
    if module is None:
        raise ConfigError(f"agent.type {agent_type!r} is not a framework adapter. Expected one of "
                          f"{', '.join(FRAMEWORK_TYPES)}.")
    return importlib.import_module(module).ADAPTER
