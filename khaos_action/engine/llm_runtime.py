"""The run's LLM runtime from khaos.yaml (`llm_cache`, `budget`, `pricing`), and what the run reports from it:
the manifest's telemetry section and, when a budget stopped the run, the not-run cases and the verdict reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from khaos_action.config.models import Budget, LlmCache, TokenPrice
from khaos_action.errors import ConfigError
from khaos_action.llm.cassette import MODES, Cassette

if TYPE_CHECKING:  # the runtime and the manifest's models: imported while the agent starts (pipeline/preimport.py);
    # the session reads `worker_llm_setup` before it spawns the worker
    from khaos_action.engine.llm_calls import LlmRuntime
    from khaos_action.manifest import Telemetry

ENV_MODE = "KHAOS_LLM_CACHE"
"""Environment override of `llm_cache.mode` (record | replay | auto | off)."""


@dataclass(frozen=True, slots=True)
class LlmSettings:
    """What the run's LLM runtime reads of the config."""

    llm_cache: LlmCache | None = None
    budget: Budget | None = None
    pricing: Mapping[str, TokenPrice] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    """agent.secrets: the cassette masks them in what it records."""


def cache_mode(llm_cache: LlmCache | None, environ: Mapping[str, str]) -> str | None:
    """The cassette mode of this run, None when off. The environment wins, so one khaos.yaml can record on the
    default branch and replay on pull requests."""
    override = environ.get(ENV_MODE, "").strip().lower()
    if override:
        if override == "off":
            return None
        if override not in MODES:
            raise ConfigError(f"{ENV_MODE}={override!r} is not one of {', '.join(MODES)}, off")
        return override
    return llm_cache.mode if llm_cache is not None else None


def build_runtime(settings: LlmSettings, base_dir: Path, environ: Mapping[str, str]) -> LlmRuntime:
    from khaos_action.engine.llm_calls import LlmRuntime
    from khaos_action.llm.budget import Limits, Meter
    from khaos_action.llm.pricing import Price

    mode = cache_mode(settings.llm_cache, environ)
    cassette = None
    if mode is not None:
        path = settings.llm_cache.path if settings.llm_cache is not None else ".khaos/cassettes/"
        cassette = Cassette((base_dir / path).resolve(), mode, secrets=list(settings.secrets))  # type: ignore[arg-type]
    budget = settings.budget
    limits = Limits(**budget.model_dump()) if budget is not None else Limits()
    prices = {name: Price(p.input, p.output) for name, p in settings.pricing.items()}
    return LlmRuntime(cassette=cassette, meter=Meter(limits) if limits.any else None, prices=prices)


def worker_llm_setup(settings: LlmSettings, base_dir: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """What a python agent's worker process needs to answer LLM calls as `build_runtime` would: the cassette
    (folder, mode, the agent.secrets it masks) and the prices. The budget meter stays in the engine, fed from the
    records replies carry."""
    mode = cache_mode(settings.llm_cache, environ)
    path = settings.llm_cache.path if settings.llm_cache is not None else ".khaos/cassettes/"
    return {"cassette": [str((base_dir / path).resolve()), mode, list(settings.secrets)] if mode is not None
            else None,
            "prices": {name: [p.input, p.output] for name, p in settings.pricing.items()}}


@dataclass(slots=True)
class BudgetOutcome:
    not_run: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    """Verdict reasons: budget exhausted (and, in replay mode, requests missing from the cassette)."""
    warnings: list[str] = field(default_factory=list)


def outcome(runtime: LlmRuntime, planned: Sequence[str], ran: set[str]) -> BudgetOutcome:
    """Cases of the plan that did not run and why the verdict cannot pass on them."""
    result = BudgetOutcome(not_run=[key for key in planned if key not in ran])
    stopped = _stopped(runtime, len(result.not_run), len(planned))
    if stopped is not None:
        result.reasons.append(stopped)
    unpriced = _unpriced(runtime)
    if unpriced is not None:
        result.warnings.append(unpriced)
    cassette = runtime.cassette
    if cassette is not None and cassette.misses:
        result.reasons.append(f"llm_cache replay: {cassette.misses} LLM requests were not in the cassette "
                              f"({cassette.directory}); their cases failed. Record them on the default branch")
    return result


def telemetry_section(runtime: LlmRuntime) -> Telemetry:
    """The manifest's `telemetry`: totals of every LLM call of the run (retried attempts included)."""
    from khaos_action.llm.telemetry import summarise_calls
    from khaos_action.manifest import BudgetSpent, BudgetState

    meter = runtime.meter
    budget = None
    if meter is not None:
        spent = meter.spent()
        budget = BudgetState(
            limits={k: v for k, v in asdict(meter.limits).items() if v is not None},
            spent=BudgetSpent(llm_calls=spent.calls, tokens=spent.tokens, cost_usd=round(spent.cost_usd, 6),
                              unpriced_calls=spent.unpriced_calls, wall_s=round(spent.wall_s, 3)),
            exhausted=meter.reason)
    return summarise_calls(runtime.calls, cassette=runtime.cassette.stats() if runtime.cassette else None,
                           budget=budget)


def _stopped(runtime: LlmRuntime, not_run: int, planned: int) -> str | None:
    """Why cases did not run: the budget ran out (with how many were left), or they simply did not."""
    reason = runtime.meter.exhausted() if runtime.meter is not None else None
    if reason is not None:
        left = (f"; {not_run} of {planned} cases not run (manifest not_run)" if not_run
                else "; every planned case had already started")
        return f"budget exhausted: {reason}{left}"
    return f"{not_run} of {planned} cases did not run" if not_run else None


def _unpriced(runtime: LlmRuntime) -> str | None:
    """The warning when a cost budget could not count live calls to models with no price."""
    meter = runtime.meter
    if meter is None or meter.limits.max_cost_usd is None or not meter.spent().unpriced_calls:
        return None
    models = sorted({str(c.get("model")) for c in runtime.calls if c.get("source") == "live"
                     and c.get("cost_usd") is None})
    return (f"budget.max_cost_usd could not count {meter.spent().unpriced_calls} live calls to unpriced models "
            f"({', '.join(models[:5])}); add them to `pricing:` in khaos.yaml")
