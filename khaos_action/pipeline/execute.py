"""The execute stage: the plan's cases run through the engine, in one loop that owns what follows from a verdict.

Reconnaissance first (the baseline maps which prompt reaches which channel; indirect attacks then ride on those
prompts: attacks/recon.py), each case judged as the loop needs it (judge/stage.py judges; this stage asks), a
BLOCKED attack's one adaptive retry (the attacker model's rewrite when configured, else a fixed transform), then the
attacker's multi-turn conversations; the stateful-agent probe runs beside the plan or after it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from khaos_action import gc_freeze

if TYPE_CHECKING:
    from khaos_action.attacker.client import AttackerClient
    from khaos_action.checkers import Invariant
    from khaos_action.config.models import AgentConfig
    from khaos_action.engine.events import EventLog
    from khaos_action.engine.llm_calls import LlmRuntime
    from khaos_action.engine.runner import Engine, InstanceBinder
    from khaos_action.judge.stage import JudgeSettings
    from khaos_action.manifest import CaseResult, SkippedAttack
    from khaos_action.pipeline.recon import Recon
    from khaos_action.plan.cases import Case, Invocation
    from khaos_action.plan.scheduler import Plan
    from khaos_action.progress import Progress
    from khaos_action.session import AgentSession


@dataclass(slots=True)
class Executed:
    """What the execute stage ran and what each case's verdict was as the loop judged it."""

    results: list[CaseResult]
    """One per case and repeat (a retried or conversed attack's turns in its attempts), the probe's last."""
    cases: list[Case]
    """The cases as they ran (indirect attacks on their carriers, those nothing reaches left out)."""
    not_exercised: list[SkippedAttack] = field(default_factory=list)
    """Indirect attacks no golden prompt reaches."""
    attack_surface: dict[str, Any] | None = None
    baseline_replies: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """The attacker's notes on its retries."""
    state_warnings: list[str] = field(default_factory=list)
    """The stateful-agent probe's warning, when its two answers differ."""


@dataclass(frozen=True, slots=True)
class Attack:
    """The attacker side of the loop: the attacker model (None: fixed transforms only), and what it adapts to."""

    client: AttackerClient | None = None
    strategies: Sequence[str] = ()
    max_turns: int = 0
    capabilities: Mapping[str, bool] = field(default_factory=dict)


def engine_for(session: AgentSession, plan: Plan, *, agent: AgentConfig, concurrency: int, llm: LlmRuntime,
               events: EventLog, binder: InstanceBinder, judge: JudgeSettings, progress: Progress | None,
               run_id: str) -> tuple[Engine, str | None]:
    """The engine for `plan` on this session's agent, and why its cases run one at a time, when they must."""
    from khaos_action.engine.runner import Engine, EngineSettings

    faults = [f.as_dict() for case in plan.cases for f in case.faults]  # plain entries for the diagnostics
    session.check_reachable(faults, agent.type)
    serial = session.one_at_a_time(plan.cases)
    meter = llm.meter
    live = None
    if progress is not None and progress.shows:  # a display: what each case did so far
        from khaos_action.judge.live import LiveVerdicts

        live = LiveVerdicts(progress, judge)
    engine = Engine(
        session.transport, events=events, binder=binder, chaos=session.hooks, activate=llm.activate,
        should_stop=(lambda: meter.exhausted() is not None) if meter is not None else None,
        on_planned=live.planned if live else None, on_invocation=live.finished if live else None,
        settings=EngineSettings(concurrency=1 if serial else concurrency, timeout_s=agent.timeout_s,
                                bind_serially=serial is not None, max_output_bytes=agent.max_output_bytes,
                                seed=plan.seed, run_id=run_id),
    )
    return engine, serial


async def execute(engine: Engine, plan: Plan, judge: JudgeSettings, recon: Recon, *, golden: Sequence[str],
                  in_process: bool, attack: Attack = Attack(), probe_prompt: str | None = None,
                  shard: tuple[int, int] | None = None, meanwhile: Callable[[], None] | None = None) -> Executed:
    """Run `plan`, reconnaissance first, each case judged once it ran; BLOCKED attacks retried, then conversed with.
    `meanwhile`: run on a thread while the plan's first cases are at the agent (the rest of the run's imports)."""
    from khaos_action.attacks.recon import run_with_recon
    from khaos_action.engine.state_probe import StateProbe
    from khaos_action.session import alongside

    async with StateProbe(engine, probe_prompt, shard, alongside=engine.settings.concurrency > 1) as probe:
        ran = await alongside(run_with_recon(engine.run, plan.cases, golden, recon.roles, plan.seed,
                                             in_process=in_process), meanwhile)
        verdicts = _Verdicts(judge, plan.invariants, ran.invocations)
        with gc_freeze.bulk():
            results = verdicts(ran.invocations)
        ran.invocations = []  # judged: only the compact results are kept
        cases = {c.id: c for c in ran.cases}
        results, notes = await _retry_blocked(results, cases, engine, verdicts, attack, seed=plan.seed)
        results = await _converse(results, cases, engine, verdicts, attack)
        probes, state_warnings = await probe.result()
    from khaos_action.judge.stage import judge_all

    return Executed(results=[*results, *judge_all(probes, judge)], cases=ran.cases, not_exercised=ran.not_exercised,
                    attack_surface=ran.surface, baseline_replies=ran.baseline_replies, notes=notes,
                    state_warnings=state_warnings)


class _Verdicts:
    """The judge as the loop asks it: the plan's invariants, and the no-chaos replies of the plan's own first run
    (behavior_unchanged compares a retry or a turn with those too)."""

    def __init__(self, settings: JudgeSettings, invariants: Mapping[str, Invariant],
                 first: Sequence[Invocation]) -> None:
        from khaos_action.judge.stage import no_chaos_replies

        self.settings, self.invariants, self.baseline = settings, invariants, no_chaos_replies(first)

    def __call__(self, invocations: Sequence[Invocation]) -> list[CaseResult]:
        from khaos_action.judge.stage import judge_all

        return judge_all(invocations, self.settings, self.invariants, self.baseline)


async def _retry_blocked(results: list[CaseResult], cases: dict[str, Case], engine: Engine, verdicts: _Verdicts,
                         attack: Attack, *, seed: int) -> tuple[list[CaseResult], list[str]]:
    """Each BLOCKED attack's one adaptive retry: the attacker model's rewrite when it rewrites, else a seeded
    transform; the result carries both attempts."""
    from khaos_action.attacks.retry import merge_attempts, retry_candidates

    notes: list[str] = []
    if attack.client is not None and "rewrite" in attack.strategies:
        from khaos_action.attacker.rewrite import attacker_retries

        retries, notes = await attacker_retries(results, cases, seed, attack.client, dict(attack.capabilities))
    else:
        retries = retry_candidates(results, cases, seed)
    if not retries:
        return results, notes
    retried = {r.id: r for r in verdicts(await engine.run(retries))}
    return [merge_attempts(r, retried[r.id]) if r.repeat == 0 and r.id in retried else r for r in results], notes


async def _converse(results: list[CaseResult], cases: dict[str, Case], engine: Engine, verdicts: _Verdicts,
                    attack: Attack) -> list[CaseResult]:
    """The attacker model's multi-turn strategies against the attacks still BLOCKED (none without one)."""
    if attack.client is None:
        return results
    from khaos_action.attacker.conversation import multi_turn

    return await multi_turn(results, cases, attack.strategies, client=attack.client, run=engine.run,
                            judge=verdicts, max_turns=attack.max_turns)
