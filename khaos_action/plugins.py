"""Everything an extension imports, from one module: the decorators that add a fault, an invariant type, an agent
type (its transport), a report format or a mutation type; the base classes those extend; and the helpers a
transport answers with (docs/architecture.md, "Extensions").

```python
from khaos_action.plugins import HttpEffect, LlmFaultBase, Reply, register_fault
```

Each name is imported from the module that owns it on first use, so an extension that adds one fault imports the
fault registry and not the report renderers (the python worker imports the run's extensions before the agent).
The registries behind the decorators are plain dicts of name -> entry (`khaos_action/registry.py`): a name taken
twice is an error at import, and an unknown name in khaos.yaml or on the command line lists the registered ones.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_OWNERS: dict[str, tuple[str, ...]] = {
    # faults: the decorator, the target bases, their parameter models and the effects a fault returns
    "khaos_action.faults": (
        "register_fault", "Fault", "FaultParams", "ToolFaultBase", "ToolParams", "LlmFaultBase", "HttpFaultBase",
        "HttpParams", "ContextFaultBase", "McpFaultBase", "McpParams", "ToolEffect", "ToolInvocation", "HttpEffect",
        "HttpRequestView", "Reply", "McpEffect", "McpCall"),
    # invariant types: the decorator, the base, what a check reads
    "khaos_action.checkers": ("register_checker", "Invariant", "CheckContext", "NotExercised"),
    "khaos_action.agent_reply": ("AgentReply",),
    "khaos_action.messages": ("AgentRequest", "AgentResponse", "ToolCall"),
    # agent types: the decorator and what a builder is given, the agent models, the reply helpers
    "khaos_action.transports": ("register_transport", "BuildOptions"),
    "khaos_action.config.agent_block": ("AgentConfig", "InProcessAgent", "ProcessAgent"),
    "khaos_action.engine.transport.base": ("AgentCallError", "TransportBase", "normalise_reply", "response"),
    "khaos_action.engine.transport.mock": ("MockTransport",),
    "khaos_action.engine.code_ref": ("load_object",),
    "khaos_action.errors": ("KhaosError", "ConfigError", "AgentError"),
    # report formats: the decorator, what a renderer reads, the escaping of agent text in Markdown
    "khaos_action.reporters": ("register_reporter",),
    "khaos_action.manifest": ("Manifest", "CaseResult"),
    "khaos_action.report.escape": ("md_escape", "md_span", "md_code"),
    # mutation types
    "khaos_action.mutation": ("register_mutator",),
}
_OWNER = {name: module for module, names in _OWNERS.items() for name in names}

__all__ = [
    "AgentCallError", "AgentConfig", "AgentError", "AgentReply", "AgentRequest", "AgentResponse", "BuildOptions",
    "CaseResult", "CheckContext", "ConfigError", "ContextFaultBase", "Fault", "FaultParams", "HttpEffect",
    "HttpFaultBase", "HttpParams", "HttpRequestView", "InProcessAgent", "Invariant", "KhaosError", "LlmFaultBase",
    "Manifest", "McpCall", "McpEffect", "McpFaultBase", "McpParams", "MockTransport", "NotExercised",
    "ProcessAgent", "Reply", "ToolCall", "ToolEffect", "ToolFaultBase", "ToolInvocation", "ToolParams",
    "TransportBase", "load_object", "md_code", "md_escape", "md_span", "normalise_reply", "register_checker",
    "register_fault", "register_mutator", "register_reporter", "register_transport", "response",
]
"""Every name an extension imports from here (each is in `_OWNERS`: tests/unit/test_plugins.py checks both)."""


_REMOVED = {
    "TransportMessage": "a transport's `send(request)` is given an `AgentRequest` and returns an `AgentResponse`: "
                        "`return response(normalise_reply(value))`",
    "as_request": "a transport's `send(request)` is always given an `AgentRequest`: read its fields "
                  "(`request.text`, `request.history`, ...) directly",
}
"""Names extensions imported before the transport seam was typed in both directions, and what replaces each."""


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        if name in _REMOVED:  # `from khaos_action.plugins import X` fails with the way to migrate, not a bare name
            raise ImportError(f"khaos_action.plugins.{name} is gone: {_REMOVED[name]} (docs/architecture.md, "
                              "\"Add a transport\")", name=name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next read is a plain global
    return value


if TYPE_CHECKING:  # what a type checker and an editor see: the same names, imported from where they live
    from khaos_action.agent_reply import AgentReply
    from khaos_action.checkers import CheckContext, Invariant, NotExercised, register_checker
    from khaos_action.config.agent_block import AgentConfig, InProcessAgent, ProcessAgent
    from khaos_action.engine.code_ref import load_object
    from khaos_action.engine.transport.base import AgentCallError, TransportBase, normalise_reply, response
    from khaos_action.engine.transport.mock import MockTransport
    from khaos_action.errors import AgentError, ConfigError, KhaosError
    from khaos_action.faults import (
        ContextFaultBase,
        Fault,
        FaultParams,
        HttpEffect,
        HttpFaultBase,
        HttpParams,
        HttpRequestView,
        LlmFaultBase,
        McpCall,
        McpEffect,
        McpFaultBase,
        McpParams,
        Reply,
        ToolEffect,
        ToolFaultBase,
        ToolInvocation,
        ToolParams,
        register_fault,
    )
    from khaos_action.manifest import CaseResult, Manifest
    from khaos_action.messages import AgentRequest, AgentResponse, ToolCall
    from khaos_action.mutation import register_mutator
    from khaos_action.report.escape import md_code, md_escape, md_span
    from khaos_action.reporters import register_reporter
    from khaos_action.transports import BuildOptions, register_transport
