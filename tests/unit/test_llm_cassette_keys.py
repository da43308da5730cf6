"""Tables: cassette keys (what changes them, what does not), credentials never written, modes, entry files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from khaos_action.config.models import AgentConfig, KhaosConfig, LlmCache
from khaos_action.engine.llm_runtime import cache_mode
from khaos_action.errors import ConfigError
from khaos_action.llm.cassette import (
    Cassette,
    CassetteError,
    Recorded,
    cassette_request,
    credentials,
    endpoint_of,
    redact,
)

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


def key(body: dict, path: str = "/v1/chat/completions", query: str = "") -> str:
    return cassette_request("POST", path, query, json.dumps(body).encode()).key


@pytest.mark.parametrize("variant", [
    {**BODY, "user": "alice"},
    {**BODY, "metadata": {"user_id": "u-1"}},
    {**BODY, "stream_options": {"include_usage": True}},
    {**BODY, "store": False},
    dict(reversed(list(BODY.items()))),  # key order
])
def test_fields_that_do_not_change_the_answer_do_not_change_the_key(variant):
    assert key(variant) == key(BODY)


@pytest.mark.parametrize("variant", [
    {**BODY, "model": "gpt-4o"},
    {**BODY, "temperature": 1},
    {**BODY, "stream": True},
    {**BODY, "messages": [{"role": "user", "content": "hi!"}]},
    {**BODY, "tools": [{"type": "function", "function": {"name": "lookup"}}]},
])
def test_anything_that_changes_the_question_changes_the_key(variant):
    assert key(variant) != key(BODY)


def test_the_endpoint_counts_but_the_host_and_credentials_in_the_query_do_not():
    assert key(BODY, "/v1/responses") != key(BODY)
    assert key(BODY, query="api-version=2024&key=SECRET") == key(BODY, query="key=OTHER&api-version=2024")
    assert key(BODY, query="api-version=2025") != key(BODY, query="api-version=2024")
    assert endpoint_of("/v1/x", "b=2&key=s&a=1&api_key=t") == "/v1/x?a=1&b=2"


def test_a_body_that_is_not_json_is_keyed_by_its_hash():
    one = cassette_request("POST", "/v1/completions", "", b"\x00binary")
    assert one.body == {"sha256": one.body["sha256"]} and one.model is None
    assert one.key != cassette_request("POST", "/v1/completions", "", b"\x00other").key


def test_credentials_are_collected_from_headers_bearer_tokens_and_query():
    found = credentials({"authorization": "Bearer sk-live-123456", "x-api-key": "ant-abcdef", "accept": "json"},
                        "key=AIza987654&x=1")
    assert set(found) == {"Bearer sk-live-123456", "sk-live-123456", "ant-abcdef", "AIza987654"}
    assert redact('{"a": "token sk-live-123456 here"}', found) == '{"a": "token [REDACTED] here"}'


def test_entries_are_reviewable_files_without_secrets_and_replay_the_same_bytes(tmp_path: Path):
    request = cassette_request("POST", "/v1/chat/completions", "", json.dumps(BODY).encode())
    reply = Recorded(200, {"content-type": "application/json", "set-cookie": "s=1", "openai-organization": "org"},
                     json.dumps({"echo": "sk-live-123456", "n": 1}).encode())
    path = Cassette(tmp_path, "record").store(request, reply, ["sk-live-123456"])
    document = json.loads(path.read_text())
    assert path.name == f"gpt-4o-mini-{request.key}.json"
    assert document["request"] == {"method": "POST", "endpoint": "/v1/chat/completions", "model": "gpt-4o-mini",
                                   "body": BODY}
    assert document["response"] == {"status": 200, "headers": {"content-type": "application/json"},
                                    "json": {"echo": "[REDACTED]", "n": 1}}
    replayed = Cassette(tmp_path, "replay").lookup(request)
    assert replayed is not None and json.loads(replayed.body) == {"echo": "[REDACTED]", "n": 1}


def test_modes_decide_what_is_looked_up_and_what_is_recorded(tmp_path: Path):
    request = cassette_request("POST", "/v1/chat/completions", "", json.dumps(BODY).encode())
    Cassette(tmp_path, "record").store(request, Recorded(200, {"content-type": "text/event-stream"}, b"data: x\n\n"),
                                       [])
    record, replay, auto = (Cassette(tmp_path, m) for m in ("record", "replay", "auto"))
    assert record.lookup(request) is None  # record asks the provider again (refreshes the entry)
    assert replay.lookup(request).body == b"data: x\n\n" and auto.lookup(request) is not None
    other = cassette_request("POST", "/v1/chat/completions", "", b"{}")
    assert replay.lookup(other) is None and replay.misses == 1 and replay.missed == [other.describe()]
    assert auto.lookup(other) is None and auto.misses == 0
    assert [replay.wants(200), auto.wants(200), auto.wants(400), auto.wants(429), auto.wants(503)] == \
        [False, True, True, False, False]


def test_a_broken_entry_says_how_to_fix_it(tmp_path: Path):
    request = cassette_request("POST", "/v1/chat/completions", "", json.dumps(BODY).encode())
    (tmp_path / request.filename).write_text("<<<<<<< HEAD\n")
    with pytest.raises(CassetteError, match="not valid JSON .* record again"):
        Cassette(tmp_path, "replay").lookup(request)
    with pytest.raises(CassetteError, match="not one of record, replay, auto"):
        Cassette(tmp_path, "live")  # type: ignore[arg-type]


def test_the_environment_overrides_the_configured_mode():
    config = KhaosConfig(agent=AgentConfig(entry="a.py:f"), llm_cache=LlmCache(mode="replay"))
    assert cache_mode(config.llm_cache, {}) == "replay"
    assert cache_mode(config.llm_cache, {"KHAOS_LLM_CACHE": "record"}) == "record"
    assert cache_mode(config.llm_cache, {"KHAOS_LLM_CACHE": "off"}) is None
    assert cache_mode(KhaosConfig(agent=AgentConfig(entry="a.py:f")).llm_cache, {}) is None
    assert cache_mode(KhaosConfig(agent=AgentConfig(entry="a.py:f")).llm_cache, {"KHAOS_LLM_CACHE": "auto"}) == "auto"
    with pytest.raises(ConfigError, match="KHAOS_LLM_CACHE='live' is not one of"):
        cache_mode(config.llm_cache, {"KHAOS_LLM_CACHE": "live"})
