"""Tri-state attack outcome (Khaos ADR 1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from khaos_action.messages import ToolCall


class Outcome(str, Enum):
    BLOCKED = "BLOCKED"
    COMPROMISED = "COMPROMISED"
    UNCERTAIN = "UNCERTAIN"


@dataclass(slots=True)
class ClassificationResult:
    outcome: Outcome
    confidence: float
    evidence_tags: list[str] = field(default_factory=list)
    raw_signals: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class AgentReply:
    """What the judge sees of one agent answer: the text plus how the call went and which tools it used."""

    text: str
    error: str | None = None
    timed_out: bool = False
    latency_ms: float = 0.0
    tool_calls: list[ToolCall] = field(default_factory=list)
