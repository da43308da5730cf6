"""What a python worker's replies say beyond the agent's answer, added to the run's totals: the LLM calls it metered,
the HTTP traffic its interception counted, its cassette's hits and misses (each worker counts its own, so the engine
adds what changed since that worker's last reply). The pool that reads the replies is engine/worker/pool.py.
"""

from __future__ import annotations

from typing import Any

from khaos_action.engine.chaos.intercept import Traffic
from khaos_action.engine.context import CaseContext
from khaos_action.engine.worker.process import WorkerProcess


def meter(ctx: CaseContext, record: dict[str, Any]) -> None:
    """Count one of the worker's LLM calls in the run's runtime (telemetry, budget meter)."""
    finished = getattr(ctx.llm, "finished", None)
    if finished is None:
        return
    live = record.get("source") == "live"
    tokens = int(record.get("input_tokens") or 0) + int(record.get("output_tokens") or 0)
    cost = record.get("cost_usd")
    finished(record, tokens if live else None, cost if isinstance(cost, (int, float)) else None)


def note_traffic(traffic: Traffic, worker: WorkerProcess, seen: dict[str, Any]) -> None:
    """Add what the worker's interception counted since its last reply to the run's Traffic."""
    for client in seen.get("clients") or ():
        if isinstance(client, str) and client not in traffic.clients:
            traffic.clients.append(client)
    for row in seen.get("seen") or ():
        if not isinstance(row, list) or len(row) != 5:
            continue
        key, count = tuple(str(part) for part in row[:4]), int(row[4])
        delta = count - worker.traffic.get(key, 0)
        worker.traffic[key] = count
        if delta > 0 and (key in traffic.seen or len(traffic.seen) < 200):
            traffic.seen[key] += delta


def cassette_delta(ctx: CaseContext | None, worker: WorkerProcess, stats: dict[str, Any]) -> None:
    """Add what the worker's cassette counted since its last reply to the run's cassette."""
    cassette = getattr(getattr(ctx, "llm", None), "cassette", None)
    before, worker.cassette = worker.cassette, stats
    if cassette is None:
        return
    for name in ("hits", "misses", "recorded"):
        delta = int(stats.get(name) or 0) - int(before.get(name) or 0)
        if delta > 0:
            setattr(cassette, name, getattr(cassette, name) + delta)
    for missed in list(stats.get("missed") or ())[len(before.get("missed") or ()):]:
        if len(cassette.missed) < 50:
            cassette.missed.append(str(missed))
