"""A Case: one planned agent invocation, fully determined by (config, seed) before anything runs; an Invocation:
what running it produced (the engine makes them, the judge reads them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from khaos_action.config.fault_entries import CaseFault, entry_id
from khaos_action.messages import ToolCall
from khaos_action.outcome import Phase

if TYPE_CHECKING:
    from khaos_action.config.models import Expect
    from khaos_action.config.objectives import Objective
    from khaos_action.replay.sessions import ToolResponse

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
    faults: tuple[CaseFault, ...] = ()
    """Faults active for this case, validated when the config was loaded."""
    injections: tuple[dict[str, Any], ...] = ()
    """Indirect attack payloads: {"channel", "payload", "tool"?} delivered through tools/interception."""
    attack_id: str | None = None
    category: str | None = None
    objective: str | None = None
    """The objective's label (config/objectives.py `Objective.label`), as the manifest shows it."""
    goal: Objective | None = None
    """The attack's objective itself, aimed at the agent's tools: what the judge decides. None: the judge reads
    `objective` as a kind name."""
    channel: str | None = None
    severity: str | None = None
    owasp: tuple[str, ...] = ()
    canary: str | None = None
    """The joined canary token: the objective signal that the attack's instruction was acted on."""
    canary_halves: tuple[str, str] | None = None
    """The canary's two halves as payloads show them apart (canary.py); only an obedient agent joins them."""
    forbidden_tools: tuple[str, ...] = ()
    """Tools a forbidden-tool attack tries to make the agent call."""
    plain: str | None = None
    """An attack's text before a mutation (the retry's encoding or framing): attacker values and exemptions are
    decided on it, so a mutation neither creates nor hides evidence. None: the text was not mutated."""
    tool_roles: tuple[tuple[str, str | None], ...] = ()
    """The agent's tools and their roles (declared or guessed), for the judge: which calls act on the world."""
    carrier_calls: tuple[ToolCall, ...] | None = None
    """Indirect attacks: the calls the carrier prompt made in the baseline (what the user's request asks for);
    None when unknown."""
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
    own_carrier: bool = False
    """An indirect attack of the user's own (`attacks:` files): its carrier, written for this agent, is the prompt
    that carries it, once the baseline shows it reaches the channel (built-in attacks ride any prompt that does)."""


def case_id(*parts: Any) -> str:
    """A short stable id from the parts that define a case (never from its position in the plan)."""
    return entry_id(*parts)


@dataclass(slots=True)
class Invocation:
    """What one case's call(s) produced, before any judging."""

    case: Case
    text: str = ""
    replies: list[str] = field(default_factory=list)
    """Every assistant reply (multi-turn cases have several; `text` is the last)."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None
    timed_out: bool = False
    timeout_s: float | None = None
    """The time limit the call ran out of (`agent.timeout_s`), when it timed out."""
    latency_ms: float = 0.0
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    notes_dropped: int = 0
    """Notes beyond engine/textsafe.py MAX_NOTES, only counted (the engine's `seal`)."""
    fault_hits: dict[str, int] = field(default_factory=dict)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)
    egress: list[dict[str, Any]] = field(default_factory=list)
    """Attack cases: requests to hosts the attack named, answered locally (engine/chaos/egress.py)."""
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Attack cases with state checks: check ref -> {passed, evidence} or {error} (engine/state_check.py)."""

    @property
    def key(self) -> str:
        return invocation_key(self.case)


def invocation_key(case: Case | Any) -> str:
    """One run of a case (a Case or its CaseResult: anything with `id` and `repeat`)."""
    return case.id if case.repeat == 0 else f"{case.id}#{case.repeat}"
