"""The run's LLM usage: per-call records (on each case's `llm_calls`) → the manifest's `telemetry`.

Pure. Who answered a call is its `source`: `live` (the provider), `cassette` (replayed), `fault` (a chaos fault
answered without the provider), `error` (the provider could not be reached), `cassette_miss` (replay mode, not in
the cassette). Cost is split into what the run spent (live calls) and what the replayed calls would have cost;
a model without a price is listed as unpriced, never counted as free.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from khaos_action.manifest import BudgetState, CassetteStats, ModelUsage, Telemetry
from khaos_action.metrics import percentile

SOURCES = ("live", "cassette", "fault", "error", "cassette_miss")


def summarise_calls(calls: Iterable[dict[str, Any]], *, cassette: CassetteStats | None = None,
                    budget: BudgetState | None = None) -> Telemetry:
    calls = list(calls)
    by_source = {source: 0 for source in SOURCES}
    models: dict[tuple[str, str], dict[str, Any]] = {}
    latencies: list[float] = []
    spent = replayed_cost = 0.0
    unpriced: set[str] = set()
    tokens_in = tokens_out = estimated = 0
    for call in calls:
        source = str(call.get("source") or "unfinished")
        by_source[source] = by_source.get(source, 0) + 1
        if isinstance(call.get("latency_ms"), (int, float)) and source in ("live", "cassette"):
            latencies.append(float(call["latency_ms"]))
        n_in, n_out = int(call.get("input_tokens") or 0), int(call.get("output_tokens") or 0)
        tokens_in, tokens_out = tokens_in + n_in, tokens_out + n_out
        estimated += 1 if call.get("tokens_estimated") else 0
        model = str(call.get("model") or "?")
        row = models.setdefault((str(call.get("provider") or "?"), model), {
            "provider": str(call.get("provider") or "?"), "model": model, "calls": 0, "input_tokens": 0,
            "output_tokens": 0, "estimated_calls": 0, "cost_usd": 0.0})
        row["calls"] += 1
        row["input_tokens"] += n_in
        row["output_tokens"] += n_out
        row["estimated_calls"] += 1 if call.get("tokens_estimated") else 0
        cost = call.get("cost_usd")
        if cost is None:
            if n_in or n_out:
                unpriced.add(model)
                row["cost_usd"] = None
            continue
        if row["cost_usd"] is not None:
            row["cost_usd"] += cost
        if source == "live":
            spent += cost
        elif source == "cassette":
            replayed_cost += cost
    purposes: dict[str, int] = {}
    for call in calls:
        purpose = str(call.get("purpose") or "agent")  # the attacker model's calls say so; the agent's say nothing
        purposes[purpose] = purposes.get(purpose, 0) + 1
    return Telemetry(
        calls=len(calls), by_source=by_source, by_purpose=purposes,
        input_tokens=tokens_in, output_tokens=tokens_out, estimated_calls=estimated,
        latency_p50_ms=_round(percentile(latencies, 50)), latency_p95_ms=_round(percentile(latencies, 95)),
        cost_usd=round(spent, 6), cost_usd_replayed=round(replayed_cost, 6),
        unpriced_models=sorted(unpriced),
        models=[ModelUsage(**row) for row in sorted(models.values(), key=lambda r: (-r["calls"], r["model"]))],
        cassette=cassette, budget=budget,
    )


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def usage_line(telemetry: Telemetry) -> str:
    """One sentence for a report or a comment: calls, tokens, latency, cost and who answered."""
    by_source = telemetry.by_source
    parts = [f"{telemetry.calls} LLM calls"]
    answered = [f"{by_source[s]} {s.replace('_', ' ')}" for s in SOURCES if by_source.get(s)]
    if answered:
        parts[0] += f" ({', '.join(answered)})"
    tokens = f"{telemetry.input_tokens:,} in / {telemetry.output_tokens:,} out tokens"
    if telemetry.estimated_calls:
        tokens += f" ({telemetry.estimated_calls} calls estimated)"
    parts.append(tokens)
    if telemetry.latency_p50_ms is not None:
        parts.append(f"p50 {_ms(telemetry.latency_p50_ms)} / p95 {_ms(telemetry.latency_p95_ms or 0.0)}")
    cost = f"${telemetry.cost_usd:.4f} spent"
    if telemetry.cost_usd_replayed:
        cost += f" (${telemetry.cost_usd_replayed:.4f} replayed from the cassette)"
    if telemetry.unpriced_models:
        cost += f"; unpriced: {', '.join(telemetry.unpriced_models[:5])}"
    parts.append(cost)
    return " · ".join(parts)


def _ms(value: float) -> str:
    return f"{value:.0f} ms" if value >= 10 else f"{value:.2g} ms"
