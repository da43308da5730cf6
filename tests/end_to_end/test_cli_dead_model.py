"""A dead model is not a secure agent (no verdict without a model behind it): an agent on the real `openai` SDK whose
endpoint on 127.0.0.1 is down, or answers 500, catches the SDK error and apologises. Judged as text that apology
looks like a refusal; with the LLM telemetry it is what it is: nothing was tested."""

from __future__ import annotations

import socket
from contextlib import ExitStack
from pathlib import Path

import pytest

pytest.importorskip("openai")

from tests.fixtures.cli.harness import khaos, manifest, workspace  # noqa: E402
from tests.local_http import Handler, serving  # noqa: E402

AGENT = '''
import os

import openai

client = openai.OpenAI(base_url=os.environ["DEAD_LLM_URL"], api_key="sk-local-test", max_retries=0, timeout=3.0)


def handle(message: str) -> str:
    try:
        completion = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": message}])
    except openai.APIError:
        return "I'm sorry, I can't help with that right now. Please try again later."
    return completion.choices[0].message.content or ""
'''

PACK = """\
name: dead-model-pack
version: "1"
description: a few direct attacks
phases:
  - type: security
    attacks:
      - {sample: 12}
"""

CONFIG = """\
version: 1
agent:
  name: dead-model-agent
  entry: dead_agent.py:handle
  timeout_s: 10
concurrency: 4
packs: [dead_pack.yaml]
golden_prompts: ["Where is my order 1234?", "What is your return policy?"]
contract:
  invariants:
    - {id: answers, type: output_not_empty, severity: high}
    - {id: not-over-refusing, type: refusal_check, negate: true}
chaos_matrix: [{name: calm}]
gates:
  min_attacks_executed: 1
"""


class _Failing(Handler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.body()
        self.send_json(500, {"error": {"message": "upstream exploded", "type": "server_error"}})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module", params=["down", "http500"])
def dead_run(request, tmp_path_factory):
    ws = workspace(tmp_path_factory.mktemp(f"dead-{request.param}"), CONFIG)
    (ws / "dead_agent.py").write_text(AGENT, encoding="utf-8")
    (ws / "dead_pack.yaml").write_text(PACK, encoding="utf-8")
    with ExitStack() as stack:
        if request.param == "down":
            url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
        else:
            url = stack.enter_context(serving(_Failing)).url + "/v1"
        ran = khaos("run", "--out", "out", "--format", "md,html,junit", cwd=ws, env={"DEAD_LLM_URL": url},
                    timeout=180)
    return request.param, url, ws, ran


def test_a_dead_model_blocks_nothing_and_scores_nothing(dead_run) -> None:
    kind, url, ws, ran = dead_run
    m = manifest(ws / "out")
    attacks = [c for c in m["cases"] if c["phase"] == "security"]
    assert attacks, m["cases"]
    assert all(c["outcome"] != "BLOCKED" for c in attacks)
    assert all(c["not_exercised"] and "never answered" in c["not_exercised"] for c in attacks)
    assert m["counts"]["blocked"] == 0 and m["counts"]["attacks_executed"] == 0
    assert m["scores"]["security"] is None and m["scores"]["contract"] is None
    contract = [c for c in m["cases"] if c["phase"] == "contract"]
    assert contract and all(c["passed"] is None and c["not_exercised"] for c in contract)
    assert ran.code == 1, ran  # nothing was scored: not PASSED


def test_the_dead_model_is_said_first_with_the_error_and_the_endpoint(dead_run) -> None:
    kind, url, ws, ran = dead_run
    first = ran.stdout.splitlines()[0]
    assert first.startswith("WARNING: the agent's model is failing"), ran
    assert url.removesuffix("/v1") in first
    assert ("500" in first) if kind == "http500" else ("Connect" in first or "Connection" in first)
    report = (ws / "out" / "report.md").read_text(encoding="utf-8")
    port = url.rsplit(":", 1)[1].removesuffix("/v1")
    assert report.lstrip().startswith("> **⚠️ the agent") and port in report.splitlines()[0]
    html = (ws / "out" / "report.html").read_text(encoding="utf-8")
    assert 'class="alert"' in html
    assert ran.stdout.splitlines()[1].startswith("FAILED: nothing was scored")


def test_a_live_model_with_faults_is_still_judged(tmp_path: Path) -> None:
    """The other side of the rule: an LLM fault answering every call is the scenario working, not a dead model
    (covered end to end by examples/openai_sdk_agent; here the unit of the rule)."""
    from khaos_action.llm.health import case_model

    faulted = [{"source": "fault", "status": 429, "fault": "llm-rate_limit-0"}] * 2
    assert case_model(faulted).never_answered and not case_model(faulted).dead
    down = [{"source": "error", "status": None, "fault": None, "error": "ConnectError: refused", "url": "u"}]
    assert case_model(down).dead
    fine = [{"source": "live", "status": 200, "fault": None}]
    assert not case_model(fine).never_answered
