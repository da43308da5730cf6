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
    tally = _Tally()
    for call in calls:
        tally.add(call)
    purposes: dict[str, int] = {}
    for call in calls:
        purpose = str(call.get("purpose") or "agent")  # the attacker model's calls say so; the agent's say nothing
        purposes[purpose] = purposes.get(purpose, 0) + 1
    return Telemetry(
        calls=len(calls), by_source=tally.by_source, by_purpose=purposes,
        input_tokens=tally.tokens_in, output_tokens=tally.tokens_out, estimated_calls=tally.estimated,
        latency_p50_ms=_round(percentile(tally.latencies, 50)), latency_p95_ms=_round(percentile(tally.latencies, 95)),
        cost_usd=round(tally.spent, 6), cost_usd_replayed=round(tally.replayed_cost, 6),
        unpriced_models=sorted(tally.unpriced),
        models=[ModelUsage(**row) for row in sorted(tally.models.values(), key=lambda r: (-r["calls"], r["model"]))],
        cassette=cassette, budget=budget,
    )


class _Tally:
    """The sums `summarise_calls` reports, one call at a time."""

    def __init__(self) -> None:
        self.by_source = {source: 0 for source in SOURCES}
        self.models: dict[tuple[str, str], dict[str, Any]] = {}
        self.latencies: list[float] = []
        self.spent = self.replayed_cost = 0.0
        self.unpriced: set[str] = set()
        self.tokens_in = self.tokens_out = self.estimated = 0

    def add(self, call: dict[str, Any]) -> None:
        source = str(call.get("source") or "unfinished")
        self.by_source[source] = self.by_source.get(source, 0) + 1
        if isinstance(call.get("latency_ms"), (int, float)) and source in ("live", "cassette"):
            self.latencies.append(float(call["latency_ms"]))
        n_in, n_out = int(call.get("input_tokens") or 0), int(call.get("output_tokens") or 0)
        estimated = 1 if call.get("tokens_estimated") else 0
        self.tokens_in += n_in
        self.tokens_out += n_out
        self.estimated += estimated
        row = self._row(call)
        row["calls"] += 1
        row["input_tokens"] += n_in
        row["output_tokens"] += n_out
        row["estimated_calls"] += estimated
        self._cost(call.get("cost_usd"), row, source, tokens=bool(n_in or n_out))

    def _row(self, call: dict[str, Any]) -> dict[str, Any]:
        provider, model = str(call.get("provider") or "?"), str(call.get("model") or "?")
        return self.models.setdefault((provider, model), {
            "provider": provider, "model": model, "calls": 0, "input_tokens": 0, "output_tokens": 0,
            "estimated_calls": 0, "cost_usd": 0.0})

    def _cost(self, cost: float | None, row: dict[str, Any], source: str, *, tokens: bool) -> None:
        """A call without a price makes its model unpriced (when it used tokens): never counted as free."""
        if cost is None:
            if tokens:
                self.unpriced.add(row["model"])
                row["cost_usd"] = None
            return
        if row["cost_usd"] is not None:
            row["cost_usd"] += cost
        if source == "live":
            self.spent += cost
        elif source == "cassette":
            self.replayed_cost += cost


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
