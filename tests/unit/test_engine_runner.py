"""The engine records every agent failure on its case and keeps going; events are written as cases finish."""

from __future__ import annotations

import asyncio
import json
import time

from khaos_action.config.fault_entries import parse_fault
from khaos_action.engine.context import current_case
from khaos_action.engine.events import EventLog, read_events
from khaos_action.engine.runner import Engine, EngineSettings
from khaos_action.engine.transport.base import response
from khaos_action.engine.transport.mock import MockTransport
from khaos_action.plan.cases import Case, case_id


def on_text(agent, **traits):
    """The package's MockTransport, its handler `agent(text)` (an async function of the turn's text)."""
    return MockTransport(lambda request: agent(request.text), **traits)


def cases(texts, group=None):
    return [Case(id=case_id(t), phase="baseline", input=t, group=group or t) for t in texts]


def run(transport, cs, tmp_path=None, **settings):
    events = EventLog(tmp_path / "events.jsonl") if tmp_path else None
    engine = Engine(transport, settings=EngineSettings(**settings), events=events)
    try:
        return asyncio.run(engine.run(cs))
    finally:
        if events:
            events.close()


def test_agent_exception_timeout_and_none_are_recorded_and_the_run_goes_on(tmp_path):
    async def agent(text):
        if text == "boom":
            raise RuntimeError("database is on fire")
        if text == "hang":
            await asyncio.sleep(10)
        if text == "none":
            return {"text": None}
        return {"text": f"ok {text}"}

    results = run(on_text(agent), cases(["boom", "hang", "none", "fine"]), tmp_path, timeout_s=0.2)
    by_input = {r.case.input: r for r in results}
    assert by_input["boom"].error == "RuntimeError: database is on fire"
    assert by_input["hang"].timed_out and "timed out" in by_input["hang"].error
    assert by_input["none"].text == "" and by_input["none"].error is None
    assert by_input["fine"].text == "ok fine"
    lines = read_events(tmp_path / "events.jsonl")
    assert sorted(e["input"] for e in lines) == ["boom", "fine", "hang", "none"]


def test_oversized_output_is_capped_and_says_so():
    async def agent(text):
        return {"text": "x" * 5_000_000}

    [result] = run(on_text(agent), cases(["big"]), max_output_bytes=1000)
    assert len(result.text) == 1000 and result.truncated
    assert any("cut to 1,000" in n for n in result.notes)


def test_events_are_on_disk_before_the_run_ends(tmp_path):
    seen_lines = []

    async def agent(text):
        if text == "last":
            seen_lines.append(len((tmp_path / "events.jsonl").read_text().splitlines()))
        return {"text": text}

    run(on_text(agent), cases(["a", "b", "c"]) + cases(["last"]), tmp_path, concurrency=1)
    assert seen_lines == [3]


def test_concurrency_is_bounded_and_used():
    active = peak = 0

    async def agent(text):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.05)
        active -= 1
        return {"text": text}

    started = time.perf_counter()
    run(on_text(agent), cases([str(i) for i in range(16)]), concurrency=4)
    assert peak == 4
    assert time.perf_counter() - started < 0.05 * 16 / 2


def test_each_case_sees_its_own_context():
    async def agent(text):
        await asyncio.sleep(0.01)
        return {"text": current_case.get().case_id}

    cs = cases([str(i) for i in range(10)])
    results = run(on_text(agent), cs, concurrency=10)
    assert [r.text for r in results] == [c.id for c in cs]


def test_reset_runs_once_per_isolation_group_when_the_agent_has_one():
    async def agent(text):
        return {"text": text}

    transport = on_text(agent, on_reset=lambda: None)
    cs = cases(["a", "b"], group="g1") + cases(["c"], group="g2")
    assert len(run(transport, cs)) == 3
    assert transport.resets == 2


def test_multi_turn_cases_send_history():
    transport = MockTransport(lambda request: f"reply to {request.text}")
    case = Case(id="m", phase="security", input="one", turns=("two", "three"))
    [result] = run(transport, [case])
    assert result.replies == ["reply to one", "reply to two", "reply to three"]
    seen = [json.loads(json.dumps(request.history)) for request in transport.requests]
    assert len(seen[2]) == 4 and seen[2][3]["content"] == "reply to two"


def test_faults_without_fault_machinery_are_noted_not_silently_passed():
    async def agent(text):
        return {"text": "fine"}

    fault = parse_fault({"id": "tool:error", "target": "tool", "mode": "error"})
    case = Case(id="f", phase="resilience", input="x", faults=(fault,))
    [result] = run(on_text(agent), [case])
    assert result.fault_hits == {}
    assert any("no fault machinery" in n for n in result.notes)


def test_a_failing_reset_hook_is_a_warning_and_the_cases_still_run():
    async def bad_reset():
        raise RuntimeError("reset endpoint returned 500")

    async def agent(text):
        return {"text": text}

    engine = Engine(on_text(agent, on_reset=bad_reset), settings=EngineSettings())
    results = asyncio.run(engine.run(cases(["a", "b"], group="g")))
    assert len(results) == 2
    assert engine.warnings == [
        "reset hook failed (RuntimeError: reset endpoint returned 500); cases after it may share state"
    ]


def test_the_results_of_tool_calls_an_agent_reports_are_kept():
    def agent(request):  # as a framework transport reports them: its reply made by itself, not normalise_reply
        return response({"text": "Your lab slot is 09:40", "tool_calls": [
            {"name": "find_slot", "args": {"lab": "B2"}, "result": {"slot": "09:40", "room": 12}},
            {"name": "notify", "args": {}}]})

    (result,) = run(MockTransport(agent), cases(["When is my lab slot?"]))
    calls = {c.name: c for c in result.tool_calls}
    assert calls["find_slot"].result == {"slot": "09:40", "room": 12}
    assert calls["notify"].result is None
