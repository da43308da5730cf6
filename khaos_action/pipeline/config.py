"""The config stage: khaos.yaml (read once), its packs and attack files and the request's overrides, checked as far
as they can be without calling the agent, made into each later stage's settings (`RunConfig`). Nothing runs here.

This is the one module of the pipeline that holds the whole validated config (`LoadedConfig`, `KhaosConfig`): every
later stage gets the small settings object made for it here, and the shells what they print (`ContractSummary`), so
no stage can reach a key it was not given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from khaos_action.errors import ConfigError
from khaos_action.extensions import Extension, load_extensions
from khaos_action.run_api import EvaluateRequest

# The models are imported where they are used: the config stage runs while the python worker's zygote boots.
if TYPE_CHECKING:
    from khaos_action.config.corpus import Corpus
    from khaos_action.config.loader import LoadedConfig
    from khaos_action.config.models import AttackerConfig, KhaosConfig
    from khaos_action.config.packs import LoadedPack
    from khaos_action.config.user_attacks import UserAttacks
    from khaos_action.config.yaml_file import ConfigSource
    from khaos_action.engine.agent_code import AgentCode, CodeToCheck
    from khaos_action.engine.llm_runtime import LlmSettings
    from khaos_action.judge.stage import JudgeSettings
    from khaos_action.pipeline.manifest import ManifestSettings
    from khaos_action.plan.scheduler import PackSource, PlanSettings
    from khaos_action.session import AgentSetup

AgentCodeCheck = Callable[["CodeToCheck", Sequence[Extension]], "AgentCode"]
"""`validate`'s look at the agent's importable code (engine/agent_check.py, in a sandboxed worker)."""


@dataclass(frozen=True, slots=True)
class ContractSummary:
    """What `contract validate` prints of the contract."""

    name: str
    invariants: int
    scenarios: int
    """Entries of `chaos_matrix`."""


@dataclass(frozen=True, slots=True)
class RunConfig:
    """What the config stage hands on: each later stage's settings, made once (never the config itself)."""

    agent: AgentSetup
    """Starting the agent."""
    plan: PlanSettings
    """Planning."""
    judge: JudgeSettings
    """Judging."""
    manifest: ManifestSettings
    """Scoring and the manifest."""
    attacker: AttackerConfig | None = None
    """The attacker model, when one is configured."""
    probe_prompt: str | None = None
    """The prompt the stateful-agent probe sends twice, when the run needs the probe (engine/state_probe.py)."""
    similarity_backend: str = "lexical"
    warnings: list[str] = field(default_factory=list)
    """Semantic findings that do not stop a run (printed by `validate`, kept in the manifest)."""
    contract: ContractSummary | None = None
    """The contract, when there is one (for the shells to print)."""


def load_run(request: EvaluateRequest, source: ConfigSource | None = None, *,
             agent_code: AgentCodeCheck | None = None) -> RunConfig:
    """The run's config, checked: `source` is khaos.yaml as the run read it (read here when None). With
    `agent_code` (validate), also what it finds in the agent's code."""
    from khaos_action.config.loader import read_config, validate_config

    extensions = load_extensions(request.extensions, base_dir=Path.cwd())  # they register what the config names
    loaded = validate_config(source if source is not None else read_config(request.config_path))
    refs = [] if request.contract_only else list(request.packs) or list(loaded.config.packs)
    packs = _load_packs(refs, loaded, from_request=bool(request.packs))
    user_attacks = user_attacks_of(loaded, packs)
    code = agent_code(_code_to_check(loaded), extensions) if agent_code else None
    warnings = _check(loaded, packs, user_attacks, code)
    run = _with_overrides(loaded, request)  # khaos.yaml as written is what was checked
    _check_runnable(run, packs, request)
    return _settings(run, packs, user_attacks, extensions, warnings, request.config_path)


def _with_overrides(loaded: LoadedConfig, request: EvaluateRequest) -> LoadedConfig:
    """The config with the request's overrides (seed, concurrency, `--min-score` as gates.min_overall, and a
    contract-only run's mutation and replay left out): the one place they are applied."""
    from dataclasses import replace

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
    return replace(loaded, config=config.model_copy(update=updates)) if updates else loaded


def _load_packs(refs: Sequence[str], loaded: LoadedConfig, *, from_request: bool) -> list[LoadedPack]:
    if not refs:
        return []
    from khaos_action.config.packs import load_packs

    return load_packs(refs, loaded.base_dir, origin=None if from_request else loaded)


def _check(loaded: LoadedConfig, packs: Sequence[LoadedPack], user_attacks: UserAttacks | None,
           code: AgentCode | None) -> list[str]:
    """Every error the config, its packs and the agent's code (when looked at) have, raised together; the
    warnings that do not stop a run, returned."""
    from khaos_action.config.errors import ConfigFileError
    from khaos_action.preflight.config_checks import check_semantics, semantic_warnings

    issues = [*(code.issues if code else []),
              *check_semantics(loaded, packs, code.broken_tools if code else (), code.wrapped_tools if code else None)]
    if issues:
        raise ConfigFileError(issues)
    warnings = [str(issue) for issue in semantic_warnings(loaded)]
    if packs:
        warnings += check_selectors(packs, user_attacks)
    backend = loaded.config.similarity.backend
    if backend != "lexical":  # the semantic extra is optional: say how to install it, up front
        from khaos_action.judge.embeddings import check_backend

        check_backend(backend)
    return warnings


def _check_runnable(loaded: LoadedConfig, packs: Sequence[LoadedPack], request: EvaluateRequest) -> None:
    """Something to run, and a contract that can run."""
    config = loaded.config
    if not packs and config.contract is None and config.mutation is None and config.replay is None:
        raise ConfigError(f"{loaded.path}: nothing to run: add `packs: [quickstart]`, a `contract` with a "
                          f"`chaos_matrix`, `mutation`, or `replay`")
    if request.contract_only and config.contract is None:
        raise ConfigError(f"{request.config_path}: no `contract` section; add `contract: {{invariants: [...]}}` "
                          f"and a `chaos_matrix`")
    if config.contract is not None:
        from khaos_action.preflight.config_checks import check_contract

        check_contract(config)


def _settings(loaded: LoadedConfig, packs: Sequence[LoadedPack], user_attacks: UserAttacks | None,
              extensions: Sequence[Extension], warnings: list[str], config_path: Path) -> RunConfig:
    from khaos_action.config.selectors import security_selectors
    from khaos_action.plan.scheduler import PackSource

    config = loaded.config
    sources = [PackSource(pack=p.pack, digest=p.digest) for p in packs]
    corpus, hash_extra = None, []
    if security_selectors(p.pack for p in packs):  # only a pack's security phase selects attacks
        corpus = corpus_of(user_attacks)
        hash_extra.append(f"corpus:{corpus.version}:{corpus.digest}")
        if user_attacks is not None and user_attacks.named_digest:
            hash_extra.append(f"attack-files:{user_attacks.named_digest}")  # what a verdict's checks mean
    contract = config.contract
    return RunConfig(
        agent=agent_setup(config, loaded.base_dir, extensions),
        plan=plan_settings(config, sources, base_dir=loaded.base_dir, corpus=corpus, hash_extra=hash_extra),
        judge=judge_settings(config),
        manifest=manifest_settings(loaded, [p.pack.name for p in packs], config_path),
        attacker=config.attacker, probe_prompt=probe_prompt(config), similarity_backend=config.similarity.backend,
        warnings=warnings,
        contract=None if contract is None else ContractSummary(contract.name, len(contract.invariants),
                                                               len(config.chaos_matrix)))


# ---- each later stage's settings, from the config --------------------------------------------------------------------


def agent_setup(config: KhaosConfig, base_dir: Path, extensions: Sequence[Extension] = ()) -> AgentSetup:
    """Starting the agent (session.py)."""
    from khaos_action.session import AgentSetup

    return AgentSetup(agent=config.agent, base_dir=base_dir, concurrency=config.concurrency,
                      llm=llm_settings(config), extensions=tuple(extensions))


def plan_settings(config: KhaosConfig, packs: Sequence[PackSource] = (), *, base_dir: Path = Path("."),
                  corpus: Corpus | None = None, hash_extra: Sequence[str] = ()) -> PlanSettings:
    """Planning (plan/scheduler.py)."""
    from khaos_action.plan.scheduler import PlanSettings

    return PlanSettings(seed=config.seed, packs=tuple(packs), golden_prompts=tuple(config.golden_prompts),
                        contract=config.contract, chaos_matrix=tuple(config.chaos_matrix), mutation=config.mutation,
                        replay=config.replay, repeats=config.repeats,
                        config_hash=config_hash(config, packs, hash_extra), base_dir=base_dir,
                        tool_names=tuple(config.agent.tool_names()), corpus=corpus)


def config_hash(config: KhaosConfig, packs: Sequence[PackSource], extra: Sequence[str] = ()) -> str:
    """Hash of everything that decides what runs: the normalised config, pack contents, corpus version.

    The seed and concurrency are left out: they are recorded separately and do not change what a case is; nor do
    the run's LLM economics (cassette, budget, prices), which change how calls are answered, not what runs.
    Values equal to their defaults are left out too, so a newer khaos-action that adds a setting (with a default)
    does not make base and head runs of the same khaos.yaml look like different configurations.
    """
    import hashlib
    import json

    normal = config.model_dump(mode="json", exclude_defaults=True,
                               exclude={"seed", "concurrency", "llm_cache", "budget", "pricing"})
    blob = json.dumps(
        {"config": normal, "packs": [p.digest for p in packs], "extra": list(extra)},
        sort_keys=True, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def llm_settings(config: KhaosConfig) -> LlmSettings:
    """The run's LLM runtime: cassette, budget, prices (engine/llm_runtime.py)."""
    from khaos_action.engine.llm_runtime import LlmSettings

    return LlmSettings(llm_cache=config.llm_cache, budget=config.budget, pricing=dict(config.pricing),
                       secrets=tuple(config.agent.secrets))


def judge_settings(config: KhaosConfig) -> JudgeSettings:
    """Judging (judge/stage.py)."""
    from khaos_action.judge.stage import JudgeSettings

    contract = config.contract
    return JudgeSettings(invariants={i.id: i for i in contract.invariants} if contract else {},
                         secrets=tuple(config.agent.secrets), system_prompt=config.agent.system_prompt,
                         seed=config.seed, expects={p.text: p.expect for p in config.golden_prompts if p.expect},
                         llm_judge=config.judge)


def manifest_settings(loaded: LoadedConfig, packs: Sequence[str], config_path: Path) -> ManifestSettings:
    """Scoring and the manifest (pipeline/manifest.py); `config_path` as the run was asked for it (a folder stays a
    folder)."""
    from khaos_action.pipeline.manifest import ManifestSettings, display_path

    config = loaded.config
    return ManifestSettings(agent_name=config.agent.name, agent_type=config.agent.type,
                            config_path=display_path(config_path), gates=config.gates,
                            weights=config.scoring.weights, packs=tuple(packs), config_lines=config_lines(loaded),
                            similarity_backend=config.similarity.backend, secrets=tuple(config.agent.secrets))


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


def probe_prompt(config: KhaosConfig) -> str | None:
    """The prompt the stateful-agent probe (engine/state_probe.py) sends twice (the first golden prompt), when the
    run needs the probe: a contract runs over golden prompts and nothing resets the agent between cells. None
    otherwise."""
    if config.contract is None or not config.golden_prompts or config.agent.resets():
        return None
    return config.golden_prompts[0].text


def _code_to_check(loaded: LoadedConfig) -> CodeToCheck:
    from khaos_action.engine.agent_code import CodeToCheck

    return CodeToCheck(agent=loaded.config.agent, base_dir=loaded.base_dir, issue=loaded.issue)


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
    from khaos_action.config.selectors import security_selectors, validate_selectors

    selectors = security_selectors(p.pack for p in packs)
    if not selectors:
        return [f"attacks: {len(user_attacks.attacks)} attack(s) of your own are named, but no pack has a security "
                "phase, so none runs; add `packs: [security]` or a pack whose security phase selects "
                "`{source: user}`"] if user_attacks else []
    validate_selectors(corpus_of(user_attacks), selectors)
    return []


def corpus_of(user_attacks: UserAttacks | None) -> Corpus:
    """The built-in corpus with the user's attacks."""
    from khaos_action.config.corpus import load_corpus, with_user_attacks

    return with_user_attacks(load_corpus(), user_attacks.attacks if user_attacks else {})
