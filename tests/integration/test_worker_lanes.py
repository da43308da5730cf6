"""An async agent's workers take cases ahead of their lanes (engine/worker/serve.py, engine/worker/pool.py AHEAD),
against real worker processes through the engine: the agent never runs more than `concurrency` calls at once, a
case's time limit and latency do not count its wait for a lane, a call the engine gave up on frees its lane even when
the agent's code ignores the cancellation, and a crash with cases waiting is still only the crashing case's error."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from khaos_action.config.models import AgentConfig
from khaos_action.engine.runner import Engine, EngineSettings
from khaos_action.engine.worker.pool import WorkerTransport
from khaos_action.plan.cases import Case, Invocation, case_id

AGENT = '''
import asyncio, os, time

async def handle(text: str) -> str:
    kind, _, seconds = text.partition(":")
    start = time.monotonic()
    if kind == "crash":
        await asyncio.sleep(0.2)
        os._exit(3)
    if kind == "exit_later":  # the worker dies after answering, while no case holds it
        import threading
        threading.Thread(target=lambda: (time.sleep(0.3), os._exit(5))).start()
    if kind == "stubborn":  # ignores the engine's cancellation: its task never ends
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass
    await asyncio.sleep(float(seconds))
    return f"{start} {time.monotonic()} {os.getpid()}"
'''


def _run(tmp_path: Path, texts: list[str], *, concurrency: int, lanes: int, timeout_s: float = 30.0,
         then: list[str] = (), engine_concurrency: int | None = None) -> tuple[dict[str, Invocation], int]:
    """Run `texts` through the engine at once (then, a second later, `then`); each invocation keyed by its input and
    its place in `texts + then`."""
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    agent = AgentConfig(type="python", entry="agent.py:handle", timeout_s=timeout_s)

    async def go() -> tuple[list[Invocation], int]:
        transport = WorkerTransport(agent, base_dir=tmp_path, environ=dict(os.environ), concurrency=concurrency,
                                    lanes=lanes)
        await transport.start()
        try:
            engine = Engine(transport, settings=EngineSettings(concurrency=engine_concurrency or concurrency,
                                                               timeout_s=timeout_s))
            cases = [Case(id=case_id(f"{i}-{t}"), phase="baseline", input=t) for i, t in enumerate([*texts, *then])]
            # A run that hangs fails here instead of stalling the suite.
            done = await asyncio.wait_for(engine.run(cases[:len(texts)]), 60)
            if then:
                await asyncio.sleep(1.0)
                done += await asyncio.wait_for(engine.run(cases[len(texts):]), 60)
            return done, transport.ahead
        finally:
            await transport.close()

    invocations, ahead = asyncio.run(go())  # in the order of `texts`
    return {f"{i.case.input}#{n}": i for n, i in enumerate(invocations)}, ahead


def _spans(invocations: dict[str, Invocation]) -> list[tuple[float, float]]:
    return [(float(i.text.split()[0]), float(i.text.split()[1])) for i in invocations.values() if i.text]


def _peak(invocations: dict[str, Invocation]) -> int:
    """The most calls the agent ran at once."""
    running = peak = 0
    for _, step in sorted([(s, 1) for s, _ in _spans(invocations)] + [(e, -1) for _, e in _spans(invocations)]):
        running += step
        peak = max(peak, running)
    return peak


def test_cases_sent_ahead_wait_for_a_lane_and_the_agent_never_runs_more_than_concurrency(tmp_path: Path) -> None:
    done, ahead = _run(tmp_path, ["ok:0.15"] * 24, concurrency=5, lanes=2)  # workers of 2 + 2 + 1 lanes
    assert ahead == 2, ahead  # one ahead per worker of 2 lanes
    assert all(not i.error for i in done.values()), [i.error for i in done.values() if i.error]
    assert _peak(done) == 5
    # The latency is the agent's own time (and the pipe's): no case counts the up to 0.15 s it waited for a lane
    # (about a third of these cases waited for one).
    beyond = sorted(i.latency_ms - (end - start) * 1000 for i, (start, end) in zip(done.values(), _spans(done)))
    assert beyond[len(beyond) * 3 // 4] < 60, beyond


def test_a_case_waiting_for_a_lane_does_not_spend_its_time_limit_there(tmp_path: Path) -> None:
    # One worker of 2 lanes and 1 place ahead: the third case waits 0.9 s for a lane, then runs 0.9 s; its limit
    # (1.5 s) would be over before it answered if the wait counted.
    done, ahead = _run(tmp_path, ["ok:0.9", "ok:0.9", "ok:0.9"], concurrency=2, lanes=2, timeout_s=1.5)
    assert ahead == 1
    assert [i.error for i in done.values()] == [None, None, None]
    starts = sorted(s for s, _ in _spans(done))
    assert starts[2] - starts[0] > 0.8, starts  # the third did wait for a lane


def test_a_call_the_engine_gave_up_on_frees_its_lane_even_if_the_agent_ignores_the_cancellation(
                                                                                            tmp_path: Path) -> None:
    done, _ = _run(tmp_path, ["stubborn", "stubborn", "ok:0.1", "ok:0.1"], concurrency=2, lanes=2, timeout_s=1.0)
    errors = {name: i.error for name, i in done.items()}
    assert all("timed out" in (errors[f"stubborn#{n}"] or "") for n in (0, 1)), errors
    assert errors["ok:0.1#2"] is None and errors["ok:0.1#3"] is None, errors


def test_a_crash_with_cases_waiting_for_a_lane_is_only_the_crashing_cases_error(tmp_path: Path) -> None:
    texts = ["crash", "ok:0.4", "ok:0.4", "ok:0.4", "ok:0.4"]  # 2 lanes + 1 ahead in flight when it crashes
    done, _ = _run(tmp_path, texts, concurrency=2, lanes=2)
    errors = {name: i.error for name, i in done.items()}
    assert "exited with code 3" in (errors["crash#0"] or ""), errors
    assert [errors[f"ok:0.4#{n}"] for n in range(1, 5)] == [None] * 4, errors


def test_a_worker_that_dies_while_no_case_holds_it_gives_its_lanes_back(tmp_path: Path) -> None:
    # One worker holds every lane (concurrency 2, 2 lanes); it dies idle, and the next cases need a new one.
    done, _ = _run(tmp_path, ["exit_later:0"], concurrency=2, lanes=2, then=["ok:0.1", "ok:0.1", "ok:0.1"])
    assert [i.error for i in done.values()] == [None] * 4, {name: i.error for name, i in done.items()}


def test_an_engine_given_a_lower_concurrency_than_the_workers_sends_nothing_ahead(tmp_path: Path) -> None:
    # As when cases are bound one at a time to a shared server (EngineSettings.bind_serially, concurrency 1).
    done, ahead = _run(tmp_path, ["ok:0.1"] * 6, concurrency=4, lanes=2, engine_concurrency=1)
    assert ahead == 2 and _peak(done) == 1, (ahead, _peak(done))
