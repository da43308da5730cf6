"""A fault that fired stays fired however the case ends: an agent that never answers while a fault is answering its
dependency failed to handle that fault. It is never "not exercised", and the run is not green.

An on-call bot whose pager directory hangs past `agent.timeout_s` (a sync and an async agent in the python worker,
which the engine kills or cancels at the time limit), and a travel planner on the real `openai` SDK whose model
answers 429 with `retry-after: 60` (the SDK's default retries then sleep 60 s; served in the python worker by the
interception, and to an http and a command agent by the chaos proxy)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli.harness import khaos, manifest
from tests.local_http import Handler, chat_completion, serving

ONCALL_SYNC = '''
def page_lookup(service: str) -> str:
    """Who is on call for a service, from the pager directory."""
    return f"{service}: on call is Dana Whitfield (pager 555-0142)"


def handle(message: str) -> str:
    return "Paging now. " + page_lookup("payments-api")
'''

ONCALL_ASYNC = '''
import asyncio


async def page_lookup(service: str) -> str:
    """Who is on call for a service, from the pager directory."""
    await asyncio.sleep(0)
    return f"{service}: on call is Dana Whitfield (pager 555-0142)"


async def handle(message: str) -> str:
    return "Paging now. " + await page_lookup("payments-api")
'''

ONCALL_PACK = """\
name: pager-outage
version: "1"
description: the pager directory hangs
phases:
  - type: baseline
  - type: resilience
    faults: [{target: tool, tool: page_lookup, mode: slow, delay_ms: 20000}]
    goals: [{metric: recovery_rate, operator: gte, threshold: 0.7}]
"""

ONCALL_CONFIG = """\
version: 1
agent:
  name: oncall-bot
  entry: oncall.py:handle
  tools: [oncall.py:page_lookup]
  timeout_s: 5
packs: [pager_pack.yaml]
golden_prompts: ["Who is on call for payments-api?"]
"""

PLANNER = '''
import os

import openai

# The SDK's defaults: 2 retries, honouring `retry-after` (up to 60 s).
client = openai.OpenAI(base_url=os.environ["PLANNER_LLM_URL"], api_key="sk-local-test")


def plan_trip(message: str) -> str:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": "You plan short city trips."}, {"role": "user", "content": message}])
    return completion.choices[0].message.content or ""
'''

PLANNER_HTTP = PLANNER + '''

if __name__ == "__main__":
    import sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    import json

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            data = json.dumps({"output": plan_trip(body["input"])}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
'''

PLANNER_COMMAND = PLANNER + '''

if __name__ == "__main__":
    import json
    import sys

    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.write(json.dumps({"id": request["id"], "output": plan_trip(request["input"])}) + "\\n")
        sys.stdout.flush()
'''

PLANNER_PACK = """\
name: model-rate-limited
version: "1"
description: the model answers 429 and asks for a minute's wait
phases:
  - type: baseline
  - type: resilience
    faults: [{target: llm, mode: rate_limit, retry_after_s: 60}]
    goals: [{metric: recovery_rate, operator: gte, threshold: 0.7}]
"""

PROMPT = "Plan two days in Lisbon for a first-time visitor."
ITINERARY = "Day 1: Alfama and the castle at sunset. Day 2: Belem, the tower and pasteis de nata."

AGENTS = {
    "python": ("""\
  entry: planner.py:plan_trip
  env: {PLANNER_LLM_URL: "%(url)s"}
""", PLANNER),
    "http": ("""\
  type: http
  start: "python planner.py {{port}}"
  url: "http://127.0.0.1:{{port}}/plan"
  llm_upstream: "%(url)s"
  env: {PLANNER_LLM_URL: "{{ llm_proxy }}"}
""", PLANNER_HTTP),
    "command": ("""\
  type: command
  command: "python planner.py"
  llm_upstream: "%(url)s"
  env: {PLANNER_LLM_URL: "{{ llm_proxy }}"}
""", PLANNER_COMMAND),
}


class _Model(Handler):
    """An OpenAI-compatible stand-in that always answers with the itinerary."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.body()
        self.send_json(200, chat_completion(ITINERARY))


@pytest.fixture(scope="module")
def model_url():
    with serving(_Model) as served:
        yield served.url + "/v1"


def _cases(out: Path, phase: str) -> list[dict[str, Any]]:
    return [c for c in manifest(out)["cases"] if c["phase"] == phase]


@pytest.mark.parametrize("agent", [ONCALL_SYNC, ONCALL_ASYNC], ids=["sync", "async"])
def test_a_tool_that_hangs_past_the_time_limit_fired_its_fault_and_fails_the_run(tmp_path: Path, agent: str) -> None:
    (tmp_path / "oncall.py").write_text(agent, encoding="utf-8")
    (tmp_path / "pager_pack.yaml").write_text(ONCALL_PACK, encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(ONCALL_CONFIG, encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code == 1, ran
    assert ran.stdout.startswith("FAILED: resilience goal recovery_rate"), ran
    [case] = _cases(tmp_path / "out", "resilience")
    assert case["error"] == "timed out after 5s (agent.timeout_s)"
    assert case["faults_fired"] == case["fault_ids"] and case["fault_hits"] == {case["fault_ids"][0]: 1}, case
    assert case["passed"] is False and not case.get("not_exercised"), case
    assert "no answer within timeout_s (5s) while page_lookup:slow was active" in case["notes"], case
    assert [c["name"] for c in case["tool_calls"]] == ["page_lookup"], case  # the call in flight, its fault
    assert manifest(tmp_path / "out")["counts"]["faults_fired"] == 1
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "not exercised" not in report and "while page\\_lookup:slow was active" in report


@pytest.mark.parametrize("kind", ["python", "http", "command"])
def test_a_rate_limit_the_sdk_waits_out_past_the_time_limit_fired_and_fails(tmp_path: Path, model_url: str,
                                                                            kind: str) -> None:
    agent_keys, code = AGENTS[kind]
    (tmp_path / "planner.py").write_text(code, encoding="utf-8")
    (tmp_path / "planner_pack.yaml").write_text(PLANNER_PACK, encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(
        "version: 1\nagent:\n  name: trip-planner\n" + agent_keys % {"url": model_url}
        + "  timeout_s: 5\npacks: [planner_pack.yaml]\n" + f"golden_prompts: [{PROMPT!r}]\n", encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=150)
    assert ran.code == 1, ran
    [baseline] = _cases(tmp_path / "out", "baseline")
    assert baseline["passed"] is True and baseline["output"] == ITINERARY, baseline
    [case] = _cases(tmp_path / "out", "resilience")
    assert case["error"] == "timed out after 5s (agent.timeout_s)", case
    assert case["faults_fired"] and case["passed"] is False and not case.get("not_exercised"), case
    assert any(re.fullmatch(r"no answer within timeout_s \(5s\) while llm:rate_limit was active", n)
               for n in case["notes"]), case
    # The LLM telemetry of the case outlived it too: the one call, answered 429 by the fault.
    assert [(c["status"], bool(c["fault"])) for c in case["llm_calls"]] == [(429, True)], case


CONTRACT_CONFIG = """\
version: 1
agent:
  name: trip-planner
  entry: planner.py:plan_trip
  env: {PLANNER_LLM_URL: "%(url)s"}
  timeout_s: 5
golden_prompts: [%(prompt)r]
contract:
  invariants:
    - {id: answers, type: output_not_empty, severity: critical}
    - {id: names-a-day, type: contains, value: "Day 1", severity: high}
chaos_matrix:
  - name: calm
  - name: model-rate-limited
    llm_faults: [{mode: rate_limit, retry_after_s: 60}]
"""


def test_a_contract_cell_that_timed_out_under_its_fault_is_a_failed_cell(tmp_path: Path, model_url: str) -> None:
    (tmp_path / "planner.py").write_text(PLANNER, encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(CONTRACT_CONFIG % {"url": model_url, "prompt": PROMPT}, encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code == 1, ran
    m = manifest(tmp_path / "out")
    cell = next(c for c in m["cases"] if c["scenario"] == "model-rate-limited")
    verdicts = {i["id"]: (i["passed"], i["detail"]) for i in cell["invariants"]}
    failure = "no answer within timeout_s (5s) while llm:rate_limit was active"
    assert verdicts == {"answers": (False, failure), "names-a-day": (False, failure)}, cell
    assert m["scores"]["contract"] == 50.0 and m["counts"]["not_exercised"] == 0, m["scores"]
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    cells = re.findall(r'<td class="cell ([a-z-]+)" title="answers in ([\w-]+)', html)
    assert ("fail-critical", "model-rate-limited") in cells and ("pass", "calm") in cells, cells
