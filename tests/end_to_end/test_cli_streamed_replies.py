"""Agents that stream are read as streams: the text they yield is what gets judged, never the repr of the stream.

Before, a `handle` that was a generator produced the reply `<async_generator object handle at 0x…>`, which passed
the baseline while the agent and its tools never ran. Here an on-call bot yields its answer from a sync generator
and from an async generator (calling its runbook tool while it streams, faults included), a travel planner returns
the real `openai` SDK's `Stream` of chunks from a local OpenAI-compatible stand-in, and an entry that returns an
object with no text is an agent error naming the type.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import write_project
from tests.fixtures.cli.harness import khaos, manifest
from tests.local_http import Handler, serving

ONCALL_SYNC = '''
def runbook(service: str) -> str:
    """The runbook step for a paging service."""
    return f"{service}: restart the worker pool, then page Dana Whitfield"


def handle(message: str):
    yield "On-call plan: "
    try:
        yield {"text": runbook("payments-api")}
    except Exception:
        yield "the runbook service is down, page the incident commander directly"
    yield "."
'''

ONCALL_ASYNC = '''
import asyncio


async def runbook(service: str) -> str:
    """The runbook step for a paging service."""
    await asyncio.sleep(0)
    return f"{service}: restart the worker pool, then page Dana Whitfield"


async def handle(message: str):
    yield "On-call plan: "
    try:
        yield {"content": await runbook("payments-api")}
    except Exception:
        yield "the runbook service is down, page the incident commander directly"
    yield "."
'''

ONCALL_PACK = """\
name: oncall-stream
version: "1"
description: baseline and a broken runbook service
phases:
  - type: baseline
    goals: [{metric: task_completion, operator: gte, threshold: 1.0}]
  - type: resilience
    faults: [{target: tool, tool: runbook, mode: error, error_code: 503}]
    goals: [{metric: recovery_rate, operator: gte, threshold: 1.0}]
"""

ONCALL_CONFIG = """\
version: 1
agent:
  name: oncall-bot
  entry: oncall.py:handle
  tools: [oncall.py:runbook]
  timeout_s: 20
packs: [oncall_pack.yaml]
golden_prompts:
  - text: "payments-api is paging, what do I do?"
    expect: {contains: ["restart the worker pool", "Dana Whitfield"]}
"""


@pytest.mark.parametrize("agent", [ONCALL_SYNC, ONCALL_ASYNC], ids=["sync-generator", "async-generator"])
def test_a_generator_agents_streamed_text_is_what_is_judged(tmp_path: Path, agent: str) -> None:
    (tmp_path / "oncall.py").write_text(agent, encoding="utf-8")
    (tmp_path / "oncall_pack.yaml").write_text(ONCALL_PACK, encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(ONCALL_CONFIG, encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code == 0, ran
    cases = {c["phase"]: c for c in manifest(tmp_path / "out")["cases"]}
    baseline, resilience = cases["baseline"], cases["resilience"]
    assert baseline["output"] == ("On-call plan: payments-api: restart the worker pool, then page Dana Whitfield.")
    assert baseline["passed"] is True and [c["name"] for c in baseline["tool_calls"]] == ["runbook"]
    assert any("streamed its reply" in n and "3 chunk(s)" in n for n in baseline["notes"]), baseline["notes"]
    # The tool ran inside the stream, under its case's fault.
    assert resilience["output"] == ("On-call plan: the runbook service is down, page the incident commander "
                                    "directly.")
    assert resilience["faults_fired"] and resilience["passed"] is True, resilience


PLANNER = '''
import os

import openai

client = openai.OpenAI(base_url=os.environ["PLANNER_LLM_URL"], api_key="sk-local-test", max_retries=0)


def plan_trip(message: str):
    # The SDK's stream object itself, handed back as the reply.
    return client.chat.completions.create(
        model="gpt-4o-mini", stream=True, messages=[{"role": "user", "content": message}])
'''

PIECES = ["Day 1: Alfama ", "and the castle. ", "Day 2: Belem."]


class _StreamingModel(Handler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = self.json_body()
        assert body.get("stream") is True
        events = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
        events += [{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in PIECES]
        events += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in events:
            data = json.dumps({"id": "c1", "object": "chat.completion.chunk", "created": 0,
                               "model": "gpt-4o-mini", **event})
            self._chunk(f"data: {data}\n\n".encode())
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def test_an_sdk_stream_object_returned_by_the_entry_is_read(tmp_path: Path) -> None:
    with serving(_StreamingModel) as served:
        url = served.url + "/v1"
        pack = ('name: p\nversion: "1"\ndescription: d\nphases:\n  - type: baseline\n'
                "    goals: [{metric: task_completion, operator: gte, threshold: 1.0}]\n")
        write_project(tmp_path, f"""\
version: 1
agent:
  name: trip-planner
  entry: planner.py:plan_trip
  env: {{PLANNER_LLM_URL: "{url}"}}
packs: [pack.yaml]
golden_prompts:
  - text: "Plan two days in Lisbon."
    expect: {{contains: "Day 2: Belem"}}
""", {"planner.py": PLANNER, "pack.yaml": pack})
        ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code == 0, ran
    [case] = manifest(tmp_path / "out")["cases"]
    assert case["output"] == "".join(PIECES) and case["passed"] is True, case
    assert any("openai.Stream" in n for n in case["notes"]), case["notes"]
    assert [c["stream"] for c in case["llm_calls"]] == [True]


NOT_TEXT = '''
class Itinerary:
    def __init__(self, city):
        self.city = city


def plan_trip(message: str):
    return Itinerary("Lisbon")


async def plan_stream(message: str):
    return str(_chunks())


async def _chunks():
    yield "never read"
'''


@pytest.mark.parametrize("entry, says", [
    ("plan_trip", "agent returned a Itinerary object, not text"),
    ("plan_stream", "the agent's reply is the repr of a async_generator object"),
])
def test_an_entry_returning_no_text_is_an_agent_error_naming_the_type(tmp_path: Path, entry: str, says: str) -> None:
    (tmp_path / "planner.py").write_text(NOT_TEXT, encoding="utf-8")
    (tmp_path / "pack.yaml").write_text(
        'name: p\nversion: "1"\ndescription: d\nphases:\n  - type: baseline\n'
        "    goals: [{metric: task_completion, operator: gte, threshold: 0.8}]\n", encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(f"""\
version: 1
agent:
  name: trip-planner
  entry: planner.py:{entry}
packs: [pack.yaml]
golden_prompts: ["Plan two days in Lisbon."]
""", encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code == 3 and says in ran.stdout.splitlines()[0], ran  # every invocation failed: it could not run
    [case] = manifest(tmp_path / "out")["cases"]
    assert case["passed"] is False and case["output"] == "", case
    assert says in case["error"], case["error"]
