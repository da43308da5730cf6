"""A dependency-free agent, the way many are first written: the standard library's urllib (or http.client) calls its
model (an OpenAI-compatible server on 127.0.0.1) and its recipe API. Its faults fire in urllib's own errors (and
http.client's own responses), its model calls are recorded, and the gate follows what it did: one that handles the
429 and the 503 passes, one that lets the error escape fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli.harness import khaos, manifest
from tests.local_http import Handler, chat_completion, serving

AGENT = '''
import json
import os
import urllib.error
import urllib.request

MODEL = os.environ["RECIPE_LLM_URL"]
API = os.environ["RECIPE_API_URL"]


def _post(url, payload):
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer sk-local"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.loads(reply.read())


def suggest(message):
    with urllib.request.urlopen(API + "/pantry", timeout=5) as reply:
        pantry = json.loads(reply.read())["items"]
    answer = _post(MODEL + "/chat/completions", {"model": "gpt-4o-mini", "messages": [
        {"role": "system", "content": "Suggest a dinner from: " + ", ".join(pantry)},
        {"role": "user", "content": message}]})
    return answer["choices"][0]["message"]["content"]


def graceful(message):
    try:
        return suggest(message)
    except urllib.error.URLError:
        return "The kitchen assistant is unavailable right now; please ask again in a minute."


def fragile(message):
    return suggest(message)
'''

# The same agent on http.client: no exception for a 4xx/5xx, so the fragile one fails reading the error's body.
HTTP_CLIENT_AGENT = '''
import http.client
import json
import os
from urllib.parse import urlsplit

MODEL = urlsplit(os.environ["RECIPE_LLM_URL"])
API = urlsplit(os.environ["RECIPE_API_URL"])


class Unavailable(Exception):
    pass


def _call(where, method, path, payload=None):
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
    body = None if payload is None else json.dumps(payload)
    connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
    reply = connection.getresponse()
    return reply.status, json.loads(reply.read())


def suggest(message, check):
    status, pantry = _call(API, "GET", "/pantry")
    check(status)
    status, answer = _call(MODEL, "POST", MODEL.path + "/chat/completions", {"model": "gpt-4o-mini", "messages": [
        {"role": "system", "content": "Suggest a dinner from: " + ", ".join(pantry["items"])},
        {"role": "user", "content": message}]})
    check(status)
    return answer["choices"][0]["message"]["content"]


def _raise_unless_ok(status):
    if status != 200:
        raise Unavailable(status)


def graceful(message):
    try:
        return suggest(message, _raise_unless_ok)
    except Unavailable:
        return "The kitchen assistant is unavailable right now; please ask again in a minute."


def fragile(message):
    return suggest(message, lambda status: None)
'''

PACK = """\
name: kitchen-outages
version: "1"
description: the model rate-limits, the pantry API is down
phases:
  - type: baseline
  - type: resilience
    faults: [{target: llm, mode: rate_limit, retry_after_s: 1}]
    goals: [{metric: recovery_rate, operator: gte, threshold: 1.0}]
  - type: resilience
    faults: [{target: http, mode: http_error, status_code: 503, path: "^/pantry"}]
    goals: [{metric: recovery_rate, operator: gte, threshold: 1.0}]
"""

DINNER = "A tomato and basil pasta: boil the pasta, toss it with the tomatoes, the basil and olive oil."


class _Kitchen(Handler):
    """The model (POST /v1/chat/completions) and the pantry API (GET /pantry) on one server."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.send_json(200, {"items": ["pasta", "tomatoes", "basil", "olive oil"]})

    def do_POST(self) -> None:  # noqa: N802
        self.body()
        self.send_json(200, chat_completion(DINNER))


@pytest.fixture(scope="module")
def kitchen():
    with serving(_Kitchen) as served:
        yield served.url


def _run(root: Path, kitchen: str, entry: str, agent: str = AGENT) -> tuple[Any, dict[str, Any]]:
    (root / "kitchen.py").write_text(agent, encoding="utf-8")
    (root / "kitchen_pack.yaml").write_text(PACK, encoding="utf-8")
    (root / "khaos.yaml").write_text(f"""\
version: 1
agent:
  name: kitchen-helper
  entry: kitchen.py:{entry}
  timeout_s: 20
packs: [kitchen_pack.yaml]
golden_prompts: ["What can I cook tonight?"]
""", encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=root, env={"RECIPE_LLM_URL": kitchen + "/v1", "RECIPE_API_URL": kitchen},
                timeout=150)
    return ran, manifest(root / "out")


def test_a_urllib_agent_that_handles_its_outages_passes_with_every_fault_fired(tmp_path: Path, kitchen: str) -> None:
    ran, m = _run(tmp_path, kitchen, "graceful")
    assert ran.code == 0, ran
    [baseline] = [c for c in m["cases"] if c["phase"] == "baseline"]
    assert baseline["output"] == DINNER and [c["status"] for c in baseline["llm_calls"]] == [200], baseline
    resilience = [c for c in m["cases"] if c["phase"] == "resilience"]
    assert len(resilience) == 2 and all(c["faults_fired"] == c["fault_ids"] for c in resilience), resilience
    assert all(c["passed"] and "unavailable" in c["output"] for c in resilience), resilience
    [limited] = [c for c in resilience if c["llm_calls"]]
    assert [(c["status"], bool(c["fault"])) for c in limited["llm_calls"]] == [(429, True)], limited


def test_a_urllib_agent_that_lets_the_error_escape_fails_the_gate(tmp_path: Path, kitchen: str) -> None:
    ran, m = _run(tmp_path, kitchen, "fragile")
    assert ran.code == 1, ran
    resilience = [c for c in m["cases"] if c["phase"] == "resilience"]
    assert all(c["faults_fired"] == c["fault_ids"] and c["passed"] is False for c in resilience), resilience
    assert sorted(c["error"] for c in resilience) == [
        "AgentCallError: agent raised HTTPError: HTTP Error 429: Too Many Requests",
        "AgentCallError: agent raised HTTPError: HTTP Error 503: Service Unavailable"], resilience


def test_an_http_client_agent_meets_the_same_faults_and_the_gate_follows_what_it_did(tmp_path: Path,
                                                                                     kitchen: str) -> None:
    (tmp_path / "graceful").mkdir()
    ran, m = _run(tmp_path / "graceful", kitchen, "graceful", HTTP_CLIENT_AGENT)
    assert ran.code == 0, ran
    resilience = [c for c in m["cases"] if c["phase"] == "resilience"]
    assert all(c["faults_fired"] == c["fault_ids"] and c["passed"] for c in resilience), resilience
    [limited] = [c for c in resilience if c["llm_calls"]]
    assert [(c["status"], bool(c["fault"])) for c in limited["llm_calls"]] == [(429, True)], limited
    (tmp_path / "fragile").mkdir()
    ran, m = _run(tmp_path / "fragile", kitchen, "fragile", HTTP_CLIENT_AGENT)
    assert ran.code == 1, ran
    resilience = [c for c in m["cases"] if c["phase"] == "resilience"]
    assert all(c["faults_fired"] == c["fault_ids"] and c["passed"] is False for c in resilience), resilience
