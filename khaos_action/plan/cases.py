"""A Case: one planned agent invocation, fully determined by (config, seed) before anything runs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from khaos_action.config.models import Expect
    from khaos_action.replay.sessions import ToolResponse

Phase = Literal["baseline", "resilience", "security", "contract", "mutation", "replay"]
Pillar = Literal["chaos", "contract", "mutation", "replay"]


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    """Stable across runs of the same config: a digest of what the case does, not of its position."""
    phase: Phase
    input: str
    pillar: Pillar | None = None
    group: str = ""
    """Isolation group: the reset hook runs once before the first case of each group."""
    scenario: str | None = None
    turns: tuple[str, ...] = ()
    """Scripted follow-up user turns (multi-turn attacks); `input` is the first turn."""
    history: tuple[dict[str, str], ...] = ()
    """Conversation history sent with the input (replay sessions)."""
    faults: tuple[dict[str, Any], ...] = ()
    """Fault specs active for this case: {"id", "target": tool|llm|http|context, "mode", ...params}."""
    injections: tuple[dict[str, Any], ...] = ()
    """Indirect attack payloads: {"channel", "payload", "tool"?} delivered through tools/interception."""
    attack_id: str | None = None
    category: str | None = None
    objective: str | None = None
    channel: str | None = None
    severity: str | None = None
    owasp: tuple[str, ...] = ()
    canary: str | None = None
    """The joined canary token: the objective signal that the attack's instruction was acted on."""
    canary_halves: tuple[str, str] | None = None
    """The canary's two halves as payloads show them apart (attacks/canary.py); only an obedient agent joins them."""
    forbidden_tools: tuple[str, ...] = ()
    """Tools a forbidden-tool attack tries to make the agent call."""
    mutation: str | None = None
    invariant_ids: tuple[str, ...] = ()
    """Invariants evaluated on this case's reply (contract/mutation/replay)."""
    expect: Expect | None = None
    """Pack input `expect` (baseline task completion), as the loader validated it; None when it checks nothing."""
    prompt_key: str | None = None
    """Which golden prompt / pack input this case derives from (pairs chaos cells with their no-chaos reply)."""
    repeat: int = 0
    tool_responses: tuple[ToolResponse, ...] = ()
    """Recorded tool responses the tool wrappers serve instead of the real tools (replay sessions)."""
    carrier: Literal["corpus", "golden"] | None = None
    """What carries an indirect attack: a golden prompt that reaches its channel, or its own corpus carrier
    (when the run cannot see the agent's tool calls)."""
    recon: bool = False
    """A reconnaissance call (maps the attack surface, not scored)."""


def case_id(*parts: Any) -> str:
    """A short stable id from the parts that define a case (never from its position in the plan)."""
    blob = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]
