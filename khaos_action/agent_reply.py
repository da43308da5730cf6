"""`AgentReply`: what the judge sees of one agent answer (bottom layer: the checkers, below config, read it as the
judge does)."""

from __future__ import annotations

from dataclasses import dataclass, field

from khaos_action.messages import ToolCall


@dataclass(slots=True)
class AgentReply:
    """What the judge sees of one agent answer: the text plus how the call went and which tools it used."""

    text: str
    error: str | None = None
    timed_out: bool = False
    latency_ms: float = 0.0
    tool_calls: list[ToolCall] = field(default_factory=list)
