"""What goes to and comes back from an agent (Khaos ADR 3's TransportMessage envelope)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class TransportMessage:
    """`name` is "invoke" going out and "response" coming back.

    invoke payload: {"text": str, "history": [{"role", "content"}], "session_id": str}
    response payload: {"text": str, "tool_calls": [{"name", "args"}], ...anything the agent returned}
    metadata: {"case_id", "phase", "run_id", ...}
    """

    name: str
    payload: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ToolCall:
    """A tool invocation, as reported by the agent or observed by a tool wrapper."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    fault: str | None = None
    """The fault id that answered this call, if any."""
    error_source: str | None = None
    """Whose error `error` is: "fault" (injected as planned) or "tool" (the tool itself broke)."""
