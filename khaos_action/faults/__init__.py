"""Faults: what a dependency (tool, LLM, HTTP API, the model's context, an MCP server) answers instead, for a case.

The one place for everything a fault is made of: the registry (`registry.py`: `FAULTS`, `@register_fault`,
`validate_fault`, `fault_target`), the effects a fault returns (`effects.py`), the target base classes and the
built-in faults (`tool`, `llm`, `http`, `context`, `mcp`), and the indirect payloads that ride on real results
(`injections.py`). The engine (engine/chaos, the MCP proxy) imports from here and carries effects out; nothing here
imports the engine, so a fault is written and tested without it. Importing this package registers the built-ins;
the registry module itself imports none of them.
"""

from khaos_action.faults import context, http, llm, mcp, tool  # noqa: F401  # the built-ins register themselves
from khaos_action.faults.context import ContextFaultBase
from khaos_action.faults.effects import HttpEffect, HttpRequestView, Reply, ToolEffect, ToolInvocation
from khaos_action.faults.http import HttpFaultBase, HttpParams
from khaos_action.faults.llm import LlmFaultBase
from khaos_action.faults.mcp import McpCall, McpEffect, McpFaultBase, McpParams
from khaos_action.faults.registry import FAULTS, Fault, FaultParams, fault_target, register_fault, validate_fault
from khaos_action.faults.tool import ToolFaultBase, ToolParams

__all__ = [
    "FAULTS", "ContextFaultBase", "Fault", "FaultParams", "HttpEffect", "HttpFaultBase", "HttpParams",
    "HttpRequestView", "LlmFaultBase", "McpCall", "McpEffect", "McpFaultBase", "McpParams", "Reply", "ToolEffect",
    "ToolFaultBase", "ToolInvocation", "ToolParams", "fault_target", "register_fault", "validate_fault",
]
