"""Chaos machinery: the fault registry, tool wrappers, in-process HTTP interception and the chaos proxy.

Import the pieces from their modules (`registry`, `plan`, `tools`, `intercept`, `proxy`); this package only makes
sure the built-in faults are registered and re-exports what custom fault plugins need.
"""

from khaos_action.engine.chaos.effects import (
    HttpEffect,
    HttpRequestView,
    Reply,
    ToolEffect,
    ToolInvocation,
)
from khaos_action.engine.chaos.faults_context import ContextFaultBase
from khaos_action.engine.chaos.faults_http import HttpFaultBase, HttpParams
from khaos_action.engine.chaos.faults_llm import LlmFaultBase
from khaos_action.engine.chaos.faults_tool import ToolFaultBase, ToolParams
from khaos_action.engine.chaos.registry import (
    FAULTS,
    Fault,
    FaultParams,
    register_fault,
    validate_fault,
)

__all__ = [
    "FAULTS", "ContextFaultBase", "Fault", "FaultParams", "HttpEffect", "HttpFaultBase", "HttpParams",
    "HttpRequestView", "LlmFaultBase", "Reply", "ToolEffect", "ToolFaultBase", "ToolInvocation", "ToolParams",
    "register_fault", "validate_fault",
]
