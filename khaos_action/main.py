"""One evaluation, start to finish: config → plan → engine → judge → score → manifest → reports.

The CLI and entrypoint.py are thin shells over `evaluate`: they build the run's `Services` (environment, HTTP
clients, clock, git) and this module hands them down with the parts it wires together (STYLE: wire real things
once, pass them in). Nothing here reads os.environ or builds an HTTP client itself.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import secrets as pysecrets
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from khaos_action import __version__, gc_freeze
from khaos_action.errors import ConfigError, UsageError, output_error
from khaos_action.extensions import Extension, load_extensions
from khaos_action.reporters import REPORTERS, run_files
from khaos_action.run_api import EvaluateRequest, EvaluateResult
from khaos_action.services import Services
from khaos_action.transports import transport_entry

# The config's models and the engine are imported where they are used (`prepare`, `_execute`): `evaluate` starts
# the python worker's zygote before them, and it boots on the other core meanwhile (engine/transport/early.py).
if TYPE_CHECKING:
    from khaos_action.attacker.client import AttackerClient
    from khaos_action.attacks.capabilities import CapabilityProfile
    from khaos_action.config.corpus import Corpus
    from khaos_action.config.loader import LoadedConfig
    from khaos_action.config.models import KhaosConfig
    from khaos_action.config.packs import LoadedPack
    from khaos_action.config.user_attacks import UserAttacks
    from khaos_action.engine.agent_code import AgentCode
    from khaos_action.engine.runner import Engine
    from khaos_action.engine.transport.zygote_process import ZygoteProcess
    from khaos_action.manifest import CaseResult, GitInfo, Manifest, Telemetry
    from khaos_action.plan.scheduler import PackSource, Plan
    from khaos_action.progress import Progress
    from khaos_action.roles import ToolRole

PLANNING = (
    "khaos_action.attacks.profile", "khaos_action.attacks.recon", "khaos_action.engine.state_probe",
    "khaos_action.engine.llm_calls", "khaos_action.plan.contract", "khaos_action.plan.mutation",
    "khaos_action.plan.scheduler", "khaos_action.roles",
)
"""What a run imports to plan its cases once the agent has started: imported on a thread while the agent starts
(`agent_session(meanwhile=...)`), when this process would only wait for it."""
LATER_STAGES = (
    *PLANNING, "khaos_action.attacks.retry", "khaos_action.judge.stage", "khaos_action.llm.telemetry",
    "khaos_action.manifest", "khaos_action.score.summary", "khaos_action.report.writers",
)
"""What a run imports once the agent has started (planning, judging, scoring, the manifest, reports): what PLANNING
did not import is imported on a thread while the plan's first cases are at the agent (`import_later_stages`), when
this process would only wait for their replies (these imports are a large share of a small contract run's wall time;
once the worker's zygote starts first, imported while the agent starts they would be on the critical path)."""

T = TypeVar("T")


@dataclass(slots=True)
class Prepared:
    loaded: LoadedConfig
    config: KhaosConfig
    packs: list[PackSource]
    warnings: list[str] = field(default_factory=list)
    """Semantic findings that do not stop a run (printed by `validate`, kept in the manifest)."""
    extensions: tuple[Extension, ...] = ()
    """The request's extension modules, imported: the python worker imports them too."""
    user_attacks: UserAttacks | None = None
    """The attacks of the `attacks:` files of khaos.yaml and the packs (none: None)."""


def prepare(request: EvaluateRequest, *,
            agent_code: Callable[[LoadedConfig, Sequence[Extension]], AgentCode] | None = None) -> Prepared:
    """Load and check everything that can be checked without calling the agent; with `agent_code` (validate),
    also what it finds in the agent's code (engine/agent_check.py: its entry and tools imported and their
    signatures checked, in a sandboxed worker). A contract-only request also checks the contract
    (plan/contract.py `check_contract_config`)."""
    from khaos_action.config.errors import ConfigFileError
    from khaos_action.config.loader import load_config
    from khaos_action.preflight.config_checks import check_semantics, semantic_warnings

    extensions = load_extensions(request.extensions, base_dir=Path.cwd())  # they register what the config names
    loaded = load_config(request.config_path)
    config = loaded.config
    updates: dict = {}
    if request.seed is not None:
        updates["seed"] = request.seed
    if request.concurrency is not None:
        updates["concurrency"] = request.concurrency
    if request.min_score is not None:
        updates["gates"] = config.gates.model_copy(update={"min_overall": request.min_score})
    if request.contract_only:
        updates.update(mutation=None, replay=None)
    config = config.model_copy(update=updates)
    refs = [] if request.contract_only else list(request.packs) or list(config.packs)
    loaded_packs = []
    if refs:
        from khaos_action.config.packs import load_packs

        loaded_packs = load_packs(refs, loaded.base_dir, origin=None if request.packs else loaded)
    user_attacks = user_attacks_of(loaded, loaded_packs)
    code = agent_code(loaded, extensions) if agent_code is not None else None
    issues = [*(code.issues if code else []),
              *check_semantics(loaded, loaded_packs, code.broken_tools if code else (),
                               code.wrapped_tools if code else None)]
    if issues:
        raise ConfigFileError(issues)
    warnings = [str(issue) for issue in semantic_warnings(loaded)]
    if loaded_packs:
        warnings += check_selectors(loaded_packs, user_attacks)
    if config.similarity.backend != "lexical":  # the semantic extra is optional: say how to install it, up front
        from khaos_action.judge.embeddings import check_backend

        check_backend(config.similarity.backend)
    packs = []
    if loaded_packs:
        from khaos_action.plan.scheduler import PackSource

        packs = [PackSource(pack=p.pack, digest=p.digest) for p in loaded_packs]
    if not packs and config.contract is None and config.mutation is None and config.replay is None:
        raise ConfigError(f"{loaded.path}: nothing to run: add `packs: [quickstart]`, a `contract` with a "
                          f"`chaos_matrix`, `mutation`, or `replay`")
    if request.contract_only:
        from khaos_action.plan.contract import check_contract_config

        if config.contract is None:
            raise ConfigError(f"{request.config_path}: no `contract` section; add `contract: {{invariants: [...]}}` "
                              f"and a `chaos_matrix`")
        check_contract_config(config)
    return Prepared(loaded=loaded, config=config, packs=packs, warnings=warnings, extensions=extensions,
                    user_attacks=user_attacks)


def user_attacks_of(loaded: LoadedConfig, packs: Sequence[LoadedPack]) -> UserAttacks | None:
    """The attacks of the `attacks:` files khaos.yaml and its packs name (config/user_attacks.py), or None."""
    if not loaded.config.attacks and not any(p.pack.attacks for p in packs):
        return None
    from khaos_action.config.corpus import load_corpus
    from khaos_action.config.user_attacks import load_user_attacks, refs_of, repository_root

    root = repository_root(loaded.base_dir)
    refs = refs_of(loaded.config.attacks, loaded.path, loaded.positions, root=root)
    for pack in packs:
        if pack.pack.attacks and pack.path is not None:
            inside = pack.path.resolve().is_relative_to(root)
            refs += refs_of(pack.pack.attacks, pack.path, pack.positions,
                            root=root if inside else repository_root(pack.path.parent))
    return load_user_attacks(refs, builtin=load_corpus(), base_dir=loaded.base_dir,
                             agent_type=loaded.config.agent.type)


def check_selectors(packs: Sequence[LoadedPack], user_attacks: UserAttacks | None) -> list[str]:
    """The packs' attack selectors checked against the corpus (with the user's attacks) before anything runs; a
    warning when user attacks are named but no security phase would run them."""
    from khaos_action.attacks.planner import security_selectors

    selectors = security_selectors(packs)
    if not selectors:
        return [f"attacks: {len(user_attacks.attacks)} attack(s) of your own are named, but no pack has a security "
                "phase, so none runs; add `packs: [security]` or a pack whose security phase selects "
                "`{source: user}`"] if user_attacks else []
    from khaos_action.attacks.select import validate_selectors

    validate_selectors(corpus_of(user_attacks), selectors)
    return []


def corpus_of(user_attacks: UserAttacks | None) -> Corpus:
    """The built-in corpus with the user's attacks."""
    from khaos_action.config.corpus import load_corpus, with_user_attacks

    return with_user_attacks(load_corpus(), user_attacks.attacks if user_attacks else {})


def make_plan(prepared: Prepared, *, profile: CapabilityProfile | None = None,
              shard: tuple[int, int] | None = None, llm_variants: dict[str, list[str]] | None = None,
              roles: list[ToolRole] | None = None, parameters: dict[str, tuple[str, ...]] | None = None) -> Plan:
    """The run's cases. Without a profile, the one inferred from the config alone is used. `roles`: the agent's
    tools with their roles (forbidden-tool attacks aim at them); `parameters`: each tool's parameter names (an
    attack adapted to a tool fills them with the attacker's values)."""
    from khaos_action.plan.contract import plan_contract
    from khaos_action.plan.mutation import mutation_planner
    from khaos_action.plan.scheduler import SeededScheduler, select_shard

    config = prepared.config
    planners: list = [plan_contract, mutation_planner(llm_variants)]
    if config.replay is not None:  # planners' modules are imported for what they plan (fixed costs)
        from khaos_action.plan.replay import replay_planner

        planners.append(replay_planner(prepared.loaded.base_dir, config.agent.tool_names()))
    hash_extra: list[str] = []
    if prepared.packs:  # only a pack selects attacks
        from khaos_action.attacks.planner import security_planner, security_selectors

        if security_selectors(prepared.packs):
            from khaos_action.attacks.profile import agent_profile

            corpus = corpus_of(prepared.user_attacks)
            if profile is None:
                profile, _ = agent_profile(config.agent, prepared.loaded.base_dir, import_code=False)
            planners.append(security_planner(corpus, profile, roles, parameters))
            hash_extra.append(f"corpus:{corpus.version}:{corpus.digest}")
            named = prepared.user_attacks.named_digest if prepared.user_attacks else None
            if named:  # the check files the attacks name: editing one changes what a verdict means
                hash_extra.append(f"attack-files:{named}")
    plan = SeededScheduler(config, prepared.packs, planners=planners, hash_extra=hash_extra).plan()
    if shard is not None:
        plan.cases = select_shard(plan.cases, *shard)
    return plan


def evaluate(request: EvaluateRequest, *, services: Services) -> EvaluateResult:
    """One run of `request`; `services` is what it takes from the world (built by the shell that calls it)."""
    from khaos_action.engine.transport.early import early_zygote

    # Started first, from the YAML alone, to boot while the config is validated; adopted by the session
    # only if it is the zygote the validated config starts.
    early = early_zygote(request.config_path, services.environ)
    try:
        with gc_freeze.bulk():
            prepared = prepare(request)
        out_dir = request.out_dir
        claim_out_dir(out_dir, force=request.force)
        started = _timestamp(services.clock())
        from khaos_action.judge.role_meaning import role_meaning

        progress = services.progress()  # on stderr while the cases run; cleared before the shell prints the summary
        try:
            with _similarity_backend(prepared.config), role_meaning():
                run = run_async(_execute(prepared, request, services, out_dir=out_dir, run_id=out_dir.name,
                                         early=early, progress=progress))
        finally:
            progress.close()
    finally:
        if early is not None:  # the session's, ended with it; or not adopted (an error, Ctrl-C, another command)
            early.discard()
    from khaos_action.redact import Redactor, redact_manifest

    with gc_freeze.bulk():
        manifest = build_manifest(prepared, run, run_id=out_dir.name, started_at=started,
                                  config_path=request.config_path, shard=request.shard,
                                  extra_reasons=run.extra_reasons, services=services)
        del run  # the manifest holds the results; the invocations and the plan can go
        # Masked once, before anything is rendered: reports, summary, comment, log and console all read this copy.
        manifest = redact_manifest(manifest, Redactor(prepared.config.agent.secrets))
        reports = write_reports(manifest, out_dir, request.formats)
    return EvaluateResult(manifest=manifest, out_dir=out_dir, reports=reports)


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, with the result handed back outside the main task: CPython 3.10–3.12 format that task, result
    included, when they restore the SIGINT handler (seconds of CPU at scale)."""
    import asyncio

    box: list[T] = []

    async def main() -> None:
        box.append(await coroutine)

    asyncio.run(main())
    return box[0]


def _similarity_backend(config: KhaosConfig) -> contextlib.AbstractContextManager:
    """The configured similarity backend for the run (lexical needs no import of the optional extra)."""
    if config.similarity.backend == "lexical":
        return contextlib.nullcontext()
    from khaos_action.judge.embeddings import similarity_backend

    return similarity_backend(config.similarity.backend)


@dataclass(slots=True)
class Executed:
    plan: Plan
    results: list[CaseResult]
    profile: CapabilityProfile
    profile_sources: dict[str, str]
    warnings: list[str]
    telemetry: Telemetry | None = None
    """LLM usage of the run (khaos_action.engine.llm_runtime.telemetry_section)."""
    not_run: list[str] = field(default_factory=list)
    extra_reasons: list[str] = field(default_factory=list)
    """Verdict reasons decided by the run itself (budget exhausted, cassette misses)."""
    tool_roles: dict[str, str] = field(default_factory=dict)
    """Each tool's role (declared or guessed), for the reports' list of consequential calls."""


async def _execute(prepared: Prepared, request: EvaluateRequest, services: Services, *, out_dir: Path,
                   run_id: str, early: ZygoteProcess | None = None, progress: Progress | None = None) -> Executed:
    from khaos_action.engine.agent_tools import agent_tools
    from khaos_action.engine.events import EventLog
    from khaos_action.engine.runner import Engine, EngineSettings, InstanceBinder, invocation_key
    from khaos_action.redact import Redactor
    from khaos_action.session import agent_session

    config = prepared.config
    binder = InstanceBinder()
    redactor = Redactor(config.agent.secrets)
    events = EventLog(out_dir / "events.jsonl", redact=redactor.data if redactor else None)
    planning = functools.partial(import_best_effort, PLANNING)
    later = functools.partial(import_later_stages, request.formats)
    try:
        async with contextlib.AsyncExitStack() as stack, agent_session(config, prepared.loaded.base_dir,
                                                                           binder, services, prepared.extensions,
                                                                           meanwhile=planning, early=early) as session:
            from khaos_action.attacks.profile import profile_of
            from khaos_action.engine.state_probe import StateProbe
            from khaos_action.roles import guess_role

            # What the python worker found when it imported the agent: pull-request code never runs in this process.
            seen = getattr(session.transport, "seen", None)
            tools, metadata = seen if seen is not None else agent_tools(config.agent, prepared.loaded.base_dir,
                                                                        import_code=False)
            profile, sources = profile_of(config.agent, tools, metadata)
            llm_variants, warnings = await llm_mutations(config, services)
            roles = [tool.role_info() for tool in tools]
            # Tools only the wrappers know (a tool_registry's entries, framework toolsets): roles guessed by name.
            wrapped = session.patcher.tool_names if session.patcher is not None else []
            roles += [guess_role(name) for name in wrapped if name not in {r.tool for r in roles}]
            with gc_freeze.bulk():
                plan = make_plan(prepared, profile=profile, shard=request.shard, llm_variants=llm_variants,
                                 roles=roles, parameters={tool.name: tool.parameters for tool in tools})
            _set_aside_unreachable(plan, session, config.agent.type)
            faults = [f.as_dict() for case in plan.cases for f in case.faults]  # plain entries for the diagnostics
            session.check_reachable(faults, config.agent.type)
            # The MCP proxy also delivers attack payloads, so there attack cases need attribution as much as faults.
            serial = session.serial and (bool(faults) or (session.mcp is not None
                                                           and any(case.injections for case in plan.cases))
                                         or _contains_egress(session, plan))
            if serial and session.serial_note:
                warnings.append(session.serial_note)
            elif serial:
                warnings.append("the agent is one shared server, so cases ran one at a time to attribute each "
                                "dependency call to its case; put `{{port}}` in agent.start to run "
                                "agent.instances servers in parallel")
            from khaos_action.engine.llm_runtime import build_runtime, outcome, telemetry_section

            llm = build_runtime(config, prepared.loaded.base_dir, services.environ)  # cassette, prices, budget meter
            meter = llm.meter
            live = None
            if progress is not None and progress.shows:  # a display: what each case did so far
                from khaos_action.judge.live import LiveVerdicts

                live = LiveVerdicts(progress, config)
            engine = Engine(
                session.transport, events=events, binder=binder, chaos=session.hooks, activate=llm.activate,
                should_stop=(lambda: meter.exhausted() is not None) if meter is not None else None,
                on_planned=live.planned if live else None, on_invocation=live.finished if live else None,
                settings=EngineSettings(concurrency=1 if serial else config.concurrency,
                                        timeout_s=config.agent.timeout_s, bind_serially=serial,
                                        max_output_bytes=config.agent.max_output_bytes, seed=plan.seed,
                                        run_id=run_id),
            )
            attacker = None
            if config.attacker is not None:
                from khaos_action.attacker.stage import add_tailored_attacks, attacker_session

                attacker = await stack.enter_async_context(attacker_session(config, llm, services))
                warnings += await add_tailored_attacks(plan, config, attacker, session.patcher.tool_names,
                                                        request.shard)
            async with StateProbe(engine, config, request.shard, alongside=engine.settings.concurrency > 1) as probe:
                results, attack_notes = await _run_and_judge(engine, plan, config, attacker=attacker,
                                                             capabilities=profile.as_dict(), roles=roles,
                                                             meanwhile=later)
                probes, state_warnings = await probe.result()
            from khaos_action.judge.stage import consult_llm_judge, judge_all

            warnings += attack_notes
            results += judge_all(probes, config)
            warnings += state_warnings
            if config.judge is not None:
                warnings += await consult_llm_judge(results, plan.cases, config.judge, services)
            warnings += session.unreached(faults, results)
            ran = {invocation_key(r) for r in results}
            stopped = outcome(llm, [invocation_key(c) for c in plan.cases], ran)
            pace = engine.pace.advice()  # calls cut off by agent.timeout_s: which setting, the latency seen
            return Executed(plan=plan, results=results, profile=profile, profile_sources=sources,
                            warnings=[*([pace] if pace else []), *warnings, *engine.warnings, *stopped.warnings],
                            telemetry=telemetry_section(llm), not_run=stopped.not_run,
                            extra_reasons=stopped.reasons, tool_roles={r.tool: r.role for r in roles if r.role})
    finally:
        events.close()


def _contains_egress(session: Any, plan: Plan) -> bool:
    """Whether the chaos proxy answers attack hosts for some case: then a shared agent process runs its cases one
    at a time, so each request it forwards is recorded on the case that made it."""
    if getattr(session, "proxy", None) is None:
        return False
    from khaos_action.engine.chaos.egress import attack_hosts

    return any(attack_hosts(case) for case in plan.cases)


def _set_aside_unreachable(plan: Plan, session: Any, agent_type: str) -> None:
    """Tool faults aimed at every tool, for an agent with no tool the engine can wrap, are not applicable (a
    chat-only agent runs every built-in pack: its LLM faults and attacks apply)."""
    patcher = session.patcher
    if patcher is not None and patcher.tool_names:
        return
    from khaos_action.plan.applicable import NO_TOOLS, out_of_process_reason, set_aside_tool_faults

    set_aside_tool_faults(plan, NO_TOOLS if patcher is not None else out_of_process_reason(agent_type))


async def _run_and_judge(engine: Engine, plan: Plan, config: KhaosConfig, *, attacker: AttackerClient | None = None,
                         capabilities: dict[str, bool] | None = None,
                         roles: Sequence[ToolRole] = (),
                         meanwhile: Callable[[], None] | None = None) -> tuple[list[CaseResult], list[str]]:
    """Run the plan (the baseline first: it maps which golden prompt reaches which channel, and indirect attacks
    ride on those prompts), judge it, and give BLOCKED attacks their one adaptive retry (the attacker model's
    rewrite when one is configured, else a fixed transform), then the attacker's multi-turn strategies.
    `meanwhile`: run on a thread while the plan runs (the rest of the run's imports)."""
    from khaos_action.attacks.recon import run_with_recon, undelivered
    from khaos_action.session import alongside

    invocations = await alongside(run_with_recon(engine.run, plan, config.prompt_texts(), roles,
                                                 in_process=transport_entry(config.agent.type).in_process), meanwhile)
    from khaos_action.attacks.retry import merge_attempts, retry_candidates
    from khaos_action.judge.stage import judge_all, no_chaos_replies

    invariants = plan.invariants
    baseline = no_chaos_replies(invocations)
    with gc_freeze.bulk():
        results = judge_all(invocations, config, invariants, baseline)
    del invocations  # judged: only the compact results are kept
    cases = {c.id: c for c in plan.cases}
    notes: list[str] = []
    strategies = config.attacker.strategies if config.attacker is not None else []
    if attacker is not None and "rewrite" in strategies:
        from khaos_action.attacker.rewrite import attacker_retries

        retries, notes = await attacker_retries(results, cases, plan.seed, attacker, capabilities or {})
    else:
        retries = retry_candidates(results, cases, plan.seed)
    if retries:
        retried = {r.id: r for r in judge_all(await engine.run(retries), config, invariants, baseline)}
        results = [merge_attempts(r, retried[r.id]) if r.repeat == 0 and r.id in retried else r for r in results]
    if attacker is not None and config.attacker is not None:
        from khaos_action.attacker.conversation import multi_turn

        results = await multi_turn(results, cases, strategies, client=attacker, run=engine.run,
                                   judge=lambda inv: judge_all(inv, config, invariants, baseline),
                                   max_turns=config.attacker.max_turns)
    plan.skipped.extend(undelivered(results))
    from khaos_action.judge.utility import add_utility

    add_utility(results, {p.text: p.expect for p in config.golden_prompts if p.expect}, plan.baseline_replies)
    from khaos_action.judge.crash import crash_warnings

    return results, [*notes, *crash_warnings(results)]


async def llm_mutations(config: KhaosConfig, services: Services) -> tuple[dict[str, list[str]], list[str]]:
    """Optional LLM rewrites of the golden prompts; a failing endpoint is reported, never scored as 0."""
    settings = config.mutation
    if settings is None or not settings.enabled or settings.llm is None:
        return {}, []
    from khaos_action.mutation.llm import MutationLlmError, llm_rewrite

    variants: dict[str, list[str]] = {}
    async with services.async_http(timeout=settings.llm.timeout_s) as client:
        for prompt in config.prompt_texts():
            try:
                variants[prompt] = await llm_rewrite(settings.llm, client, prompt, 3, environ=services.environ)
            except MutationLlmError as exc:
                return {}, [f"mutation: LLM rewriting failed, only rule-based mutations ran: {exc}"]
    return variants, []


def build_manifest(prepared: Prepared, run: Executed, *, run_id: str, started_at: str, config_path: Path,
                   services: Services, shard: tuple[int, int] | None = None,
                   extra_reasons: Sequence[str] = ()) -> Manifest:
    from khaos_action.manifest import AgentInfo, Manifest
    from khaos_action.score.breakdown import attack_breakdown
    from khaos_action.score.summary import GoalSpec, summarise

    config = prepared.config
    plan = run.plan
    results = run.results
    summary = summarise(
        results, goals=[GoalSpec(phase, g.metric, g.operator, g.threshold) for phase, g in plan.goals],
        gates=config.gates, weights=config.scoring.weights, attacks_skipped=len(plan.skipped),
        security_planned=any(phase == "security" for phase, _ in plan.goals), extra_reasons=extra_reasons,
    )
    return Manifest(
        run_id=run_id, tool_version=__version__, seed=plan.seed, config_hash=plan.config_hash,
        config_path=display_path(config_path), started_at=started_at, finished_at=_timestamp(services.clock()),
        git=_git_info(services),
        agent=AgentInfo(name=config.agent.name, type=config.agent.type, capabilities=run.profile.as_dict(),
                        capability_sources=run.profile_sources),
        packs=[p.pack.name for p in prepared.packs], shard=f"{shard[0]}/{shard[1]}" if shard else None,
        scores=summary.scores, score_notes=summary.score_notes, verdict=summary.verdict,
        counts=summary.counts.model_copy(update={"not_run": len(run.not_run)}), not_run=run.not_run,
        metrics=summary.metrics, goals=summary.goals, warnings=[*prepared.warnings, *plan.notes, *run.warnings],
        alerts=summary.alerts,
        cases=results,
        skipped=plan.skipped, faults_not_applicable=plan.faults_not_applicable, stats=summary.stats,
        flaky=summary.flaky,
        coverage=_coverage(plan, results), attack_breakdown=attack_breakdown(results, plan.skipped),
        attack_surface=plan.attack_surface, gates=config.gates.model_dump(),
        weights=config.scoring.weights.model_dump(), config_lines=config_lines(prepared.loaded),
        similarity_backend=config.similarity.backend, telemetry=run.telemetry, tool_roles=run.tool_roles,
    )


def _coverage(plan: Plan, results: Sequence[CaseResult]) -> dict:
    selection = plan.selection
    if selection is None:
        return {}
    from khaos_action.attacks.coverage import coverage_table

    return coverage_table(selection, {r.attack_id for r in results if r.outcome is not None and r.attack_id})


def display_path(path: Path) -> str:
    """The config path as reports show it: relative to the working directory (the repository root in CI) when it
    is inside it, so SARIF results and annotations point at the repository file, not at a container path."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def config_lines(loaded: LoadedConfig) -> dict[str, int]:
    """Lines of khaos.yaml that annotations and SARIF results point at."""
    lines: dict[str, int] = {}
    for key, path in (("agent", ("agent",)), ("packs", ("packs",)), ("contract", ("contract",))):
        line = loaded.line_of(*path)
        if line:
            lines[key] = line
    contract = loaded.config.contract
    for index, inv in enumerate(contract.invariants if contract else []):
        line = loaded.line_of("contract", "invariants", index, "id")
        if line:
            lines[f"invariant:{inv.id}"] = line
    for index, scenario in enumerate(loaded.config.chaos_matrix):
        line = loaded.line_of("chaos_matrix", index, "name")
        if line:
            lines[f"scenario:{scenario.name}"] = line
    return lines


def import_later_stages(formats: Sequence[str] = ()) -> None:
    """Import LATER_STAGES and the renderers of `formats` (on a thread: see LATER_STAGES), best effort."""
    import_best_effort([*LATER_STAGES, *(reporter.render.partition(":")[0]
                                         for reporter in map(REPORTERS.get, formats)
                                         if reporter is not None and isinstance(reporter.render, str))])


def import_best_effort(names: Sequence[str]) -> None:
    """Import `names` (run on a thread: see LATER_STAGES). Best effort: a module that fails here is imported again
    where it is used, on the loop's thread, and its real error is raised there. (Besides a plain bug, Python's
    import lock may refuse this thread a package the loop's thread is importing at the same moment, with
    `_DeadlockError`: nothing to stop the run for.)"""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - see above: the import is only done early, never skipped
            continue


def write_reports(manifest: Manifest, out_dir: Path, formats: Sequence[str]) -> dict[str, Path]:
    from khaos_action.report import writers

    return writers.write_all(manifest, out_dir, formats)


def claim_out_dir(out_dir: Path, *, force: bool) -> None:
    """A run directory holds one run: refuse one that already has a run's files unless `force`, which removes
    them first (only them: `--out .` must never delete anything else). Two runs never share an events.jsonl."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir} is a file, not a directory; choose a directory")
    present = [name for name in run_files() if (out_dir / name).exists()]
    if present and not force:
        raise UsageError(f"--out {out_dir} already holds a run ({', '.join(present)}); choose a new directory, "
                         "or pass --force to replace that run")
    from khaos_action.atomic import make_dirs, remove

    make_dirs(out_dir)  # through no link in the action's workspace: a committed one is refused, naming it
    try:
        for name in present:
            remove(out_dir / name)
    except OSError as exc:
        raise output_error(out_dir, exc) from None


def new_run_id(now: datetime) -> str:
    """A run directory's name: the UTC time the shell started it, and 6 random hex digits."""
    return now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + pysecrets.token_hex(3)


def _git_info(services: Services) -> GitInfo:
    from khaos_action.manifest import GitInfo

    sha, ref = services.git_head()
    return GitInfo(sha=sha, ref=ref)


def _timestamp(now: datetime) -> str:
    return now.astimezone(timezone.utc).isoformat(timespec="seconds")
