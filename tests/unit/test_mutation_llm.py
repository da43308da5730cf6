"""Optional LLM rewriting: an OpenAI-compatible call whose failures are reported, never scored as 0."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from khaos_action.config.models import LlmEndpoint
from khaos_action.mutation import MutationLlmError, llm_rewrite
from khaos_action.mutation.llm import parse_rewrites

PROMPT = "Where is my order 1234?"


def _completion(content: str) -> dict:
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }


def _run(handler, endpoint: LlmEndpoint | None = None, n: int = 3, environ=None):
    endpoint = endpoint or LlmEndpoint(base_url="http://llm.test/v1", model="tiny")

    async def go():
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await llm_rewrite(endpoint, client, PROMPT, n, environ=environ or {})

    return asyncio.run(go())


def test_rewrites_come_from_a_json_array_and_the_request_is_openai_shaped():
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["body"] = json.loads(request.content)
        return httpx.Response(
            200, json=_completion(json.dumps(["where's order 1234??", "Order 1234 status pls", PROMPT]))
        )

    out = _run(handler)
    assert out == ["where's order 1234??", "Order 1234 status pls"]  # the unchanged prompt is not a rewrite
    assert seen["url"] == "http://llm.test/v1/chat/completions"
    assert seen["body"]["model"] == "tiny"
    assert seen["body"]["messages"][-1] == {"role": "user", "content": PROMPT}
    assert "3" in seen["body"]["messages"][0]["content"]


def test_at_most_n_rewrites_are_returned():
    def handler(request):
        return httpx.Response(200, json=_completion(json.dumps([f"v{i} 1234" for i in range(10)])))

    assert _run(handler, n=2) == ["v0 1234", "v1 1234"]


def test_api_key_is_read_from_the_named_variable_and_sent_as_bearer():
    endpoint = LlmEndpoint(base_url="http://llm.test/v1", model="tiny", api_key_env="REWRITE_KEY")

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer sk-local"
        return httpx.Response(200, json=_completion('["order 1234 where"]'))

    assert _run(handler, endpoint, environ={"REWRITE_KEY": "sk-local"}) == ["order 1234 where"]


def test_missing_api_key_variable_says_which_one_to_set():
    endpoint = LlmEndpoint(base_url="http://llm.test/v1", model="tiny", api_key_env="REWRITE_KEY")
    with pytest.raises(MutationLlmError, match="REWRITE_KEY"):
        _run(lambda r: httpx.Response(200), endpoint, environ={})


def test_http_error_status_is_reported_with_status_and_body():
    with pytest.raises(MutationLlmError, match="HTTP 503.*overloaded"):
        _run(lambda r: httpx.Response(503, text="overloaded"))


def test_non_chat_completion_answer_is_reported():
    with pytest.raises(MutationLlmError, match=r"choices\[0\]\.message\.content"):
        _run(lambda r: httpx.Response(200, json={"error": "nope"}))


def test_answer_with_no_usable_rewrite_is_reported():
    with pytest.raises(MutationLlmError, match="no usable rewrite"):
        _run(lambda r: httpx.Response(200, json=_completion(json.dumps([PROMPT, ""]))))


def test_timeout_names_the_setting_to_raise():
    def handler(request):
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(MutationLlmError, match="timeout_s"):
        _run(handler)


@pytest.mark.parametrize(
    "content, expected",
    [
        ('```json\n["a 1234", "b 1234"]\n```', ["a 1234", "b 1234"]),
        ('Here you go: ["a", 3, "b"]', ["a", "b"]),
        ("1. first one\n2) second one\n- third one", ["first one", "second one", "third one"]),
    ],
)
def test_parse_rewrites_accepts_the_usual_answer_shapes(content, expected):
    assert parse_rewrites(content) == expected
