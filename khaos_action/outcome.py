"""The tri-state attack outcome (BLOCKED / COMPROMISED / UNCERTAIN) and the classifier's verdict carrying it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


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
