"""The stateful-agent warning: with no reset configured, the first golden prompt is sent twice after the contract;
different replies warn (Flakestorm's exact words) without failing the run, and the two probes are never scored."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from khaos_action.engine.state_probe import PROBE_SCENARIO, STATE_WARNING
from tests.fixtures.cli.harness import events, khaos, manifest, workspace

CONFIG = """\
version: 1
agent:
  entry: agents.py:{entry}
{reset}concurrency: 1
golden_prompts: ["order 1234", "a refund"]
contract:
  invariants:
    - {{id: answers, type: output_not_empty, severity: critical}}
    - {{id: helps, type: contains, value: "help", severity: high}}
    # Cells make calls 1-4 of the counter agent; the probes make calls 5 and 6 and would fail this if scored.
    - {{id: not-the-probes, type: excludes_pattern, pattern: "call #[56]", severity: low}}
chaos_matrix: [{{name: first}}, {{name: second}}]
"""


def _contract_run(tmp_path, entry: str, reset: str = ""):
    ws = workspace(tmp_path, CONFIG.format(entry=entry, reset=reset))
    ran = khaos("contract", "run", "--out", "out", cwd=ws)
    return ran, ws / "out"


def test_an_agent_that_remembers_gets_the_warning_and_still_passes(tmp_path) -> None:
    ran, out = _contract_run(tmp_path, "counter")
    assert ran.code == 0, ran
    assert f"warning: {STATE_WARNING}" in ran.stdout
    m = manifest(out)
    assert m["warnings"].count(STATE_WARNING) == 1
    probes = [c for c in m["cases"] if c["scenario"] == PROBE_SCENARIO]
    assert [(c["phase"], c["pillar"], c["passed"], c["invariants"]) for c in probes] == [
        ("contract", None, None, [])
    ] * 2
    assert [c["input"] for c in probes] == ["order 1234", "order 1234"]
    # One after the other, after every scored cell: the counter saw them as calls 5 and 6.
    assert [c["output"].split(":")[0] for c in probes] == ["call #5", "call #6"]
    cells = [c for c in m["cases"] if c["pillar"] == "contract"]
    assert len(cells) == 4 and all(c["passed"] for c in cells)
    assert m["scores"]["contract"] == 100.0
    assert len(events(out)) == 6


def test_an_agent_that_answers_the_same_way_twice_gets_no_warning(tmp_path) -> None:
    ran, out = _contract_run(tmp_path, "stateless")
    assert ran.code == 0, ran
    m = manifest(out)
    assert STATE_WARNING not in m["warnings"] and "reset_endpoint" not in ran.stdout
    probes = [c for c in m["cases"] if c["scenario"] == PROBE_SCENARIO]
    assert len(probes) == 2 and probes[0]["output"] == probes[1]["output"]


def test_with_a_reset_hook_there_is_no_probe(tmp_path) -> None:
    ran, out = _contract_run(tmp_path, "counter", reset="  reset: agents.py:reset_counter\n")
    assert ran.code == 0, ran
    m = manifest(out)
    assert STATE_WARNING not in m["warnings"]
    assert [c for c in m["cases"] if c["scenario"] == PROBE_SCENARIO] == []
    assert len(m["cases"]) == 4


TIMED_AGENT = '''
import asyncio, json, time

_calls = 0

async def handle(prompt: str, session_id: str = "") -> str:
    global _calls
    _calls += 1
    started = time.monotonic()
    await asyncio.sleep(0.3)
    with open("calls.jsonl", "a") as log:
        log.write(json.dumps({"case": session_id, "start": started, "end": time.monotonic()}) + "\\n")
    return f"call #{_calls}: I can help with {prompt}"
'''


def test_at_concurrency_above_one_the_probe_runs_alongside_the_cells_one_call_after_the_other(tmp_path) -> None:
    # Cells already share the agent in no fixed order there: the probe's two calls need not wait for the plan.
    ws = workspace(tmp_path, CONFIG.format(entry="handle", reset="").replace("agents.py:", "timed.py:")
                   .replace("concurrency: 1", "concurrency: 4").split("    # Cells make")[0]
                   + "chaos_matrix: [{name: first}, {name: second}]\n")
    (ws / "timed.py").write_text(TIMED_AGENT, encoding="utf-8")
    ran = khaos("contract", "run", "--out", "out", cwd=ws)
    m = manifest(ws / "out")
    probes = [c["id"] for c in m["cases"] if c["scenario"] == PROBE_SCENARIO]
    cells = [c for c in m["cases"] if c["pillar"] == "contract"]
    assert len(probes) == 2 and len(cells) == 4, ran
    assert m["warnings"].count(STATE_WARNING) == 1  # the async counter's four workers are one: replies differ
    assert {c["id"] for c in m["cases"]} == {c["case"] for c in map(json.loads, (ws / "calls.jsonl").open())}
    calls = {c["case"]: c for c in map(json.loads, (ws / "calls.jsonl").open())}
    first, second = calls[probes[0]], calls[probes[1]]
    assert second["start"] >= first["end"]  # one after the other, as at concurrency 1
    assert first["start"] < min(calls[c["id"]]["end"] for c in cells)  # started with the cells, not after them
    assert [(c["pillar"], c["passed"]) for c in m["cases"] if c["id"] in probes] == [(None, None)] * 2
    assert m["scores"]["contract"] == 100.0 and ran.code == 0, ran
    assert len(events(ws / "out")) == 6


PEAK_AGENT = '''
import asyncio, json, sys

held = peak = 0

async def serve(reader, writer):
    global held, peak
    while line := await reader.readline():
        length = 0
        while (header := await reader.readline()) not in (b"\\r\\n", b""):
            name, _, value = header.decode().partition(":")
            length = int(value) if name.strip().lower() == "content-length" else length
        await reader.readexactly(length)
        held += 1
        peak = max(peak, held)
        await asyncio.sleep(0.2)
        held -= 1
        with open("peak.txt", "w") as out:
            out.write(str(peak))
        body = json.dumps({"output": "I can help with that"}).encode()
        writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: %d\\r\\n\\r\\n"
                     % len(body) + body)
        await writer.drain()

async def main():
    async with await asyncio.start_server(serve, "127.0.0.1", int(sys.argv[1])) as server:
        await server.serve_forever()

asyncio.run(main())
'''


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_the_probe_alongside_the_cells_shares_their_concurrency_not_one_more(tmp_path) -> None:
    # An HTTP agent we did not start: nothing but the engine bounds the calls in flight. Two cells at concurrency 2
    # and the probe's first call are ready at the same moment: the agent must never hold three.
    (tmp_path / "peak_agent.py").write_text(PEAK_AGENT, encoding="utf-8")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "peak_agent.py", str(port)], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 10
        while not _accepts(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        config = (f"version: 1\nagent: {{type: http, url: 'http://127.0.0.1:{port}/chat'}}\nconcurrency: 2\n"
                  'golden_prompts: ["order 1", "order 2", "order 3", "order 4"]\n'
                  "contract:\n  invariants:\n    - {id: helps, type: contains, value: help, severity: high}\n"
                  "chaos_matrix: [{name: calm}]\n")
        ws = workspace(tmp_path, config)
        ran = khaos("contract", "run", "--out", "out", cwd=ws)
    finally:
        server.kill()
        server.wait()
    assert ran.code == 0, ran
    m = manifest(ws / "out")
    assert len([c for c in m["cases"] if c["scenario"] == PROBE_SCENARIO]) == 2
    assert (tmp_path / "peak.txt").read_text() == "2"
