"""The python worker reports what a case observed as it happens (engine/worker/reports.py), so a case that ends
without a reply keeps its fault hits, tool calls and LLM records: the engine's time limit (a sync agent's worker is
killed, an async agent's call cancelled) or the worker's death right after a fault fired."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest

from khaos_action.config.fault_entries import parse_fault
from khaos_action.config.models import AgentConfig
from khaos_action.engine.context import CallClock, CaseContext, current_case
from khaos_action.engine.transport.base import AgentCallError
from khaos_action.engine.worker.pool import WorkerTransport
from khaos_action.messages import AgentRequest

AGENT = '''
import asyncio
import os


def flight_status(flight: str) -> str:
    """The departure board's status for a flight."""
    return f"{flight}: on time, gate B12"


async def aflight_status(flight: str) -> str:
    """The departure board's status for a flight."""
    await asyncio.sleep(0)
    return f"{flight}: on time, gate B12"


def sync_agent(text: str) -> str:
    return "Status: " + flight_status("TP1234")


async def async_agent(text: str) -> str:
    return "Status: " + await aflight_status("TP1234")


def dies_on_error(text: str) -> str:
    try:
        return flight_status("TP1234")
    except Exception:
        os._exit(3)  # a hard crash right after the fault answered
'''


def fault(tool: str, mode: str, **params):
    return parse_fault({"id": f"{tool}:{mode}:a1b2c3", "target": "tool", "mode": mode, "tool": tool, **params})


async def _case(transport: WorkerTransport, spec, timeout_s: float) -> tuple[CaseContext, str]:
    ctx = CaseContext(case_id="trip-1", rng=random.Random(0), fault_specs=[spec], clock=CallClock(timeout_s))
    message = AgentRequest("Is TP1234 on time?", [], "trip-1", case_id="trip-1")
    outcome = "replied"
    current_case.set(ctx)  # as the engine does around a case: the transport finds the case there
    async with transport.case_scope(ctx):
        try:
            await asyncio.wait_for(transport.send(message), timeout_s)
        except asyncio.TimeoutError:
            outcome = "timed out"
        except AgentCallError as exc:
            outcome = f"failed: {exc}"
    return ctx, outcome


def _run(tmp_path: Path, entry: str, tool: str, spec, timeout_s: float = 2.0) -> tuple[CaseContext, str, int]:
    (tmp_path / "flights.py").write_text(AGENT, encoding="utf-8")

    async def go():
        agent = AgentConfig(type="python", entry=f"flights.py:{entry}", tools=[f"flights.py:{tool}"])
        transport = WorkerTransport(agent, base_dir=tmp_path, environ=dict(os.environ), concurrency=2)
        await transport.start()
        try:
            ctx, outcome = await _case(transport, spec, timeout_s)
            left = sum(len(w.observed) for w in transport._workers)
            return ctx, outcome, left
        finally:
            await transport.close()

    return asyncio.run(go())


@pytest.mark.parametrize("entry, tool", [("sync_agent", "flight_status"), ("async_agent", "aflight_status")])
def test_a_case_that_times_out_keeps_the_hit_and_the_call_its_fault_was_answering(tmp_path: Path, entry: str,
                                                                                 tool: str) -> None:
    spec = fault(tool, "slow", delay_ms=20_000)
    ctx, outcome, left = _run(tmp_path, entry, tool, spec)
    assert outcome == "timed out"
    assert dict(ctx.hits) == {spec.id: 1}
    assert [(c.name, c.fault) for c in ctx.tool_calls] == [(tool, spec.id)]
    assert left == 0  # the report was taken with its case, nothing of it left on the worker


def test_a_worker_that_dies_right_after_a_fault_fired_still_reports_the_hit(tmp_path: Path) -> None:
    spec = fault("flight_status", "error", error_code=503)
    ctx, outcome, _ = _run(tmp_path, "dies_on_error", "flight_status", spec)
    assert outcome.startswith("failed: the agent's worker process exited with code 3"), outcome
    assert dict(ctx.hits) == {spec.id: 1}


def test_a_case_that_replies_is_merged_once(tmp_path: Path) -> None:
    spec = fault("flight_status", "error", error_code=503)
    (tmp_path / "flights.py").write_text(AGENT + '''

def polite(text: str) -> str:
    try:
        return flight_status("TP1234")
    except Exception:
        return "The departure board is down; please check the airport's site."
''', encoding="utf-8")

    async def go():
        agent = AgentConfig(type="python", entry="flights.py:polite", tools=["flights.py:flight_status"])
        transport = WorkerTransport(agent, base_dir=tmp_path, environ=dict(os.environ), concurrency=1)
        await transport.start()
        try:
            return await _case(transport, spec, 5.0)
        finally:
            await transport.close()

    ctx, outcome = asyncio.run(go())
    assert outcome == "replied"
    assert dict(ctx.hits) == {spec.id: 1} and len(ctx.tool_calls) == 1  # report and reply: counted once
