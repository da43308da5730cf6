"""The words results are typed with: a case's phase (`Phase`: the plan's cases and the packs' goals), the
tri-state attack outcome (BLOCKED / COMPROMISED / UNCERTAIN) and the classifier's verdict carrying it. Bottom layer,
no dependencies.

A manifest's `CaseResult` keeps phase and outcome as plain strings on purpose: manifests are read from other
versions and from untrusted sources (a baseline artifact, the action's `manifest` input), and a phase this version
does not know is shown in a group of its own, never refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

Phase = Literal["baseline", "resilience", "security", "contract", "mutation", "replay"]
"""A case's phase: what it tests."""


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
