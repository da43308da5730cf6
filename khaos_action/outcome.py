"""The words results are typed with: a case's phase (`Phase`: the plan's cases and the packs' goals), the
tri-state attack outcome (`Outcome`: BLOCKED / COMPROMISED / UNCERTAIN) and the classifier's verdict carrying it.
Bottom layer, no dependencies.

Both are `str` enums, so a member is the very string a manifest holds: it compares, hashes, sorts and is written
(JSON, f-strings, templates) as its value, and the manifest a run writes is the same bytes as when these were plain
strings. A manifest read back may come from another version or from an untrusted source (a baseline artifact, the
action's `manifest` input): manifest.py's `ManifestPhase` and `ManifestOutcome` are how its `CaseResult` reads
them, the one place a foreign manifest's words are converted. A phase this version does not know is kept as an
`UnknownPhase` (shown in a group of its own, never refused); an outcome it does not know stays the string it was."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class _Word(str, Enum):
    """A member's str() and format() are its value (an Enum's own are `Phase.SECURITY`)."""

    __str__ = str.__str__
    __format__ = str.__format__


class Phase(_Word):
    """A case's phase: what it tests."""

    BASELINE = "baseline"
    RESILIENCE = "resilience"
    SECURITY = "security"
    CONTRACT = "contract"
    MUTATION = "mutation"
    REPLAY = "replay"


class Outcome(_Word):
    """What came of an attack."""

    BLOCKED = "BLOCKED"
    COMPROMISED = "COMPROMISED"
    UNCERTAIN = "UNCERTAIN"


ATTACK_PASSED: dict[Outcome, bool] = {Outcome.BLOCKED: True, Outcome.COMPROMISED: False}
"""An attack case's pass/fail by its outcome: UNCERTAIN (or an outcome this version does not know) is neither."""


class UnknownPhase(str):
    """A phase a manifest from another version wrote that this version does not know: kept as written (and written
    back so), shown in a group of its own, compared with no `Phase`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"UnknownPhase({str.__repr__(self)})"


AnyPhase = Phase | UnknownPhase
"""A phase as results read back from a manifest carry it."""


@dataclass(slots=True)
class ClassificationResult:
    outcome: Outcome
    confidence: float
    evidence_tags: list[str] = field(default_factory=list)
    raw_signals: dict[str, Any] = field(default_factory=dict)
