"""SeededScheduler: (config, packs, seed) → an ordered list of Cases with stable ids (Khaos ADR 5).

Nothing here depends on concurrency, sharding or wall time: the same config_hash and seed give the same cases, the
same ids, the same payloads and the same fault schedule. Ids are digests of what a case does (phase, pack, input,
faults, scenario, attack, mutation), never of its position, so base and head runs pair up case by case.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.checkers import Invariant
from khaos_action.config.fault_entries import CaseFault, case_fault
from khaos_action.config.models import Contract, GoldenPrompt, Mutation, Pack, Replay, Scenario
from khaos_action.manifest import NotApplicableFault, SkippedAttack
from khaos_action.outcome import Phase
from khaos_action.plan.cases import Case, case_id

if TYPE_CHECKING:
    from khaos_action.config.corpus import Attack, Corpus

# The fault registry (which imports every built-in fault) is imported by the first fault entry read: a plan without
# faults does not build their models.


@dataclass(frozen=True, slots=True)
class PackSource:
    """A loaded pack and the digest of its content (so config_hash changes when a pack's content does)."""

    pack: Pack
    digest: str


@dataclass(frozen=True)
class Selection:
    """The security phase's attack selection (attacks/select.py makes it; the coverage table and the attacker's
    tailored attacks read it from the plan)."""

    applicable: list[Attack] = field(default_factory=list)
    """Attacks to run, sorted by id."""
    not_applicable: list[tuple[Attack, str]] = field(default_factory=list)
    """Selected attacks the agent has no channel for, with the reason, sorted by id."""

    @property
    def ids(self) -> list[str]:
        return [a.id for a in self.applicable]


@dataclass(slots=True)
class PlanPart:
    """What one planner contributes: its cases and what the later stages need to know about them."""

    cases: list[Case] = field(default_factory=list)
    invariants: dict[str, Invariant] = field(default_factory=dict)
    """Invariants this planner's cases are checked by besides the contract's (replay expectations, mutation's
    defaults), by id."""
    skipped: list[SkippedAttack] = field(default_factory=list)
    """Selected attacks not run (not applicable to this agent)."""
    selection: Selection | None = None
    """The security phase's attack selection (coverage table, the attacker's tailored attacks)."""
    notes: list[str] = field(default_factory=list)
    """Warnings for the report."""


@dataclass(slots=True)
class Plan:
    cases: list[Case]
    config_hash: str
    seed: int
    goals: list[tuple[Phase, Any]] = field(default_factory=list)
    """(phase type, Goal) for every goal of every pack."""
    notes: list[str] = field(default_factory=list)
    invariants: dict[str, Invariant] = field(default_factory=dict)
    """Invariants the planners added (replay, mutation), by id; the contract's own are read from the config."""
    skipped: list[SkippedAttack] = field(default_factory=list)
    """Attacks not run because they cannot apply to this agent (the run adds those it found not exercised)."""
    selection: Selection | None = None
    """The security phase's attack selection, when the packs have one."""
    faults_not_applicable: list[NotApplicableFault] = field(default_factory=list)
    """Faults set aside because they cannot apply to the agent (plan/applicable.py), with their case counts."""

    def add(self, part: PlanPart) -> None:
        """Combine one planner's contribution into the plan."""
        self.cases.extend(part.cases)
        self.invariants.update(part.invariants)
        self.skipped.extend(part.skipped)
        self.notes.extend(part.notes)
        if part.selection is not None:
            self.selection = part.selection


# A planner contributes the cases for one part of the run (security, contract, mutation, replay) and returns them
# with what it learnt (PlanPart); the scheduler calls each with the shared context and combines the parts. Keeping
# them as plain callables lets each pillar live in its own module.
Planner = Callable[["PlanContext"], PlanPart]


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """What planning reads of the config: the config stage makes it once (pipeline/config.py `plan_settings`)."""

    seed: int = 42
    packs: Sequence[PackSource] = ()
    golden_prompts: Sequence[GoldenPrompt] = ()
    contract: Contract | None = None
    chaos_matrix: Sequence[Scenario] = ()
    mutation: Mutation | None = None
    replay: Replay | None = None
    repeats: int = 1
    config_hash: str = ""
    """Of everything that decides what runs (`config_hash`)."""
    base_dir: Path = Path(".")
    """The config's folder: replay.sessions is relative to it."""
    tool_names: tuple[str, ...] = ()
    """The agent's declared tools (replay sessions naming another are reported)."""
    corpus: Corpus | None = None
    """The attacks the packs' security phases select from (the built-in corpus and the user's), when they have one."""

    def prompt_texts(self) -> list[str]:
        """The golden prompts' texts, in order."""
        return [prompt.text for prompt in self.golden_prompts]


@dataclass(frozen=True, slots=True)
class PlanContext:
    settings: PlanSettings
    seed: int

    @property
    def packs(self) -> Sequence[PackSource]:
        return self.settings.packs

    def rng(self, *parts: Any) -> random.Random:
        """An independent, reproducible random stream per purpose (never the global RNG, never hash())."""
        digest = hashlib.sha256(json.dumps([self.seed, *parts], default=str).encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))


def scenario_faults(scenario: Scenario) -> tuple[CaseFault, ...]:
    faults = [case_fault(f, "tool") for f in scenario.tool_faults]
    faults += [case_fault(f, "llm") for f in scenario.llm_faults]
    faults += [case_fault(f, "http") for f in scenario.http_faults]
    faults += [case_fault(f, "context") for f in scenario.context_attacks]
    faults += [case_fault(f, "mcp") for f in scenario.mcp_faults]
    return tuple(faults)


class SeededScheduler:
    def __init__(self, settings: PlanSettings, *, seed: int | None = None, planners: Sequence[Planner] = ()) -> None:
        self.settings = settings
        self.seed = settings.seed if seed is None else seed
        self.planners = list(planners)

    def plan(self) -> Plan:
        settings = self.settings
        plan = Plan(cases=[], config_hash=settings.config_hash, seed=self.seed)
        ctx = PlanContext(settings=settings, seed=self.seed)
        for source in settings.packs:
            for phase in source.pack.phases:
                plan.goals.extend((Phase(phase.type), goal) for goal in phase.goals)
        plan.cases = [*pack_cases(settings.packs, settings.golden_prompts)]
        for planner in self.planners:
            plan.add(planner(ctx))
        plan.cases = with_repeats(dedupe_ids(plan.cases), settings.repeats)
        return plan


def pack_inputs(pack: Pack, golden: Sequence[Any] = ()) -> list[Any]:
    """A pack's own inputs, or, for a pack without any (every built-in pack), the config's golden prompts: the
    user's agent defines what an everyday request is, not the pack."""
    return list(pack.inputs) if pack.inputs else list(golden)


def pack_cases(packs: Sequence[PackSource], golden: Sequence[Any] = ()) -> Iterable[Case]:
    """Baseline cases (inputs, no faults) and resilience cases (each input under each fault of the phase).

    A resilience case carries no happy-path expectation: under a fault the agent must handle it gracefully (answer,
    not crash, not fabricate what the failing dependency would have said), which the judge checks."""
    for source in packs:
        pack = source.pack
        inputs = pack_inputs(pack, golden)
        for phase in pack.phases:
            if phase.type == Phase.BASELINE:
                for item in inputs:
                    # The loader's validated model; one that checks nothing (every key null) is no expectation.
                    expect = item.expect if item.expect and item.expect.model_dump(exclude_none=True) else None
                    key = case_id("input", pack.name, item.text)
                    yield Case(
                        id=case_id("baseline", pack.name, item.text), phase=Phase.BASELINE, input=item.text,
                        expect=expect, prompt_key=key, group=f"baseline:{pack.name}",
                    )
            elif phase.type == Phase.RESILIENCE:
                from khaos_action.faults.registry import fault_target

                for spec in phase.faults:
                    fault = case_fault(spec, fault_target(spec))
                    for item in inputs:
                        yield Case(
                            id=case_id("resilience", pack.name, item.text, fault.as_dict()),
                            phase=Phase.RESILIENCE, pillar="chaos", input=item.text,
                            faults=(fault,), scenario=fault.id, prompt_key=case_id("input", pack.name, item.text),
                            group=f"resilience:{pack.name}:{fault.id}",
                        )


def dedupe_ids(cases: list[Case]) -> list[Case]:
    """Two identical cases (e.g. the same input listed twice in a pack) get distinct, still stable ids."""
    seen: Counter[str] = Counter()
    out = []
    for case in cases:
        seen[case.id] += 1
        if seen[case.id] > 1:
            case = _replace(case, id=case_id(case.id, seen[case.id]))
        out.append(case)
    return out


def with_repeats(cases: list[Case], repeats: int) -> list[Case]:
    if repeats <= 1:
        return cases
    return [_replace(case, repeat=r) for case in cases for r in range(repeats)]


def _replace(case: Case, **changes: Any) -> Case:
    from dataclasses import replace

    return replace(case, **changes)


def select_shard(cases: Sequence[Case], index: int, total: int) -> list[Case]:
    """Shard `index` (1-based) of `total`. Cases that share a prompt stay together (behavior_unchanged compares a
    chaos reply with the no-chaos reply to the same prompt), and the slice does not depend on plan order."""
    def bucket(case: Case) -> int:
        key = case.prompt_key or case.id
        return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % total

    return [case for case in cases if bucket(case) == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    from khaos_action.errors import UsageError

    try:
        index_s, total_s = text.split("/")
        index, total = int(index_s), int(total_s)
    except ValueError:
        raise UsageError(f"--shard {text!r}: expected I/N, e.g. 1/4") from None
    if not (1 <= index <= total):
        raise UsageError(f"--shard {text!r}: I must be between 1 and N")
    return index, total
