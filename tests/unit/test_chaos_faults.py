"""What each built-in fault does to a request, a reply, a conversation or a tool result (pure tables)."""

from __future__ import annotations

import json

import pytest

from khaos_action.engine.chaos.plan import (
    decide_http,
    decide_tool,
    finish_http,
    finish_tool,
)
from khaos_action.engine.context import CaseContext
from khaos_action.faults.context import apply_context_attacks
from khaos_action.faults.effects import HttpRequestView, Reply, ToolInvocation
from khaos_action.faults.injections import embed, injections_for
from khaos_action.faults.llm import cut_words, llm_provider, map_reply_texts
from khaos_action.faults.sse import map_stream_texts
from tests.builders import make_ctx

TEXT = "one two three four five six"


def ctx_with(*faults: dict) -> CaseContext:
    return make_ctx(*faults, case_id="c", seed=0)


def view(path: str = "/v1/chat/completions", host: str = "api.openai.com", body: dict | None = None) -> HttpRequestView:
    payload = body if body is not None else {"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}
    return HttpRequestView("POST", f"https://{host}{path}", host, path, {}, json.dumps(payload).encode())


def run(fault: dict, request: HttpRequestView, upstream: dict | bytes | None = None,
        content_type: str = "application/json") -> tuple[Reply | None, CaseContext]:
    """Decide, then (for transforms) apply to the upstream reply; returns what the client gets."""
    ctx = ctx_with(fault)
    decision = decide_http(ctx, request)
    if decision is None or decision.effect is None:
        return None, ctx
    if decision.effect.reply is not None:
        return decision.effect.reply, ctx
    if decision.effect.error:
        return Reply(0, {}, decision.effect.error.encode()), ctx
    raw = upstream if isinstance(upstream, bytes) else json.dumps(upstream).encode()
    return finish_http(ctx, decision, Reply(200, {"content-type": content_type}, raw)), ctx


OPENAI = {"choices": [{"index": 0, "message": {"role": "assistant", "content": TEXT}, "finish_reason": "stop"}]}
ANTHROPIC = {"type": "message", "content": [{"type": "text", "text": TEXT}], "stop_reason": "end_turn"}
GEMINI = {"candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model", "parts": [{"text": TEXT}]}}]}
GEMINI_PATH = "/v1beta/models/gemini-2.0-flash:generateContent"
RESPONSES = {"object": "response", "status": "completed",
             "output": [{"type": "message", "content": [{"type": "output_text", "text": TEXT}]}]}


@pytest.mark.parametrize("path, host, provider", [
    ("/v1/chat/completions", "api.openai.com", "openai"), ("/v1/messages", "api.anthropic.com", "anthropic"),
    ("/openai/deployments/x/chat/completions", "x.azure.com", "openai"), ("/v1/responses", "h", "openai"),
    ("/v1/embeddings", "h", "openai"), ("/api/orders/1", "h", None), ("/v1/models", "api.openai.com", None),
    (GEMINI_PATH, "generativelanguage.googleapis.com", "gemini"),
    ("/v1beta/models/gemini-2.0-flash:streamGenerateContent", "127.0.0.1", "gemini"),
    ("/v1beta/models/gemini-2.0-flash", "generativelanguage.googleapis.com", None),
])
def test_llm_endpoints_are_recognised_by_route(path, host, provider):
    assert llm_provider(view(path, host)) == provider


@pytest.mark.parametrize("text, limit, kept", [
    (TEXT, 2, "one two"), ("  lead  and  gaps ", 2, "  lead  and"), (TEXT, 0, ""), ("a b", 5, "a b"),
])
def test_cut_words_keeps_the_first_words(text, limit, kept):
    assert cut_words(text, limit) == kept


@pytest.mark.parametrize("path, reply, read", [
    ("/v1/chat/completions", OPENAI,
     lambda b: (b["choices"][0]["message"]["content"], b["choices"][0]["finish_reason"])),
    ("/v1/messages", ANTHROPIC, lambda b: (b["content"][0]["text"], b["stop_reason"])),
    ("/v1/responses", RESPONSES, lambda b: (b["output"][0]["content"][0]["text"], b["incomplete_details"]["reason"])),
    (GEMINI_PATH, GEMINI,
     lambda b: (b["candidates"][0]["content"]["parts"][0]["text"], b["candidates"][0]["finishReason"])),
])
def test_truncated_response_cuts_each_provider_shape(path, reply, read):
    out, ctx = run({"id": "cut", "target": "llm", "mode": "truncated_response", "max_tokens": 2}, view(path), reply)
    finish = {"/v1/chat/completions": "length", "/v1/messages": "max_tokens", "/v1/responses": "max_output_tokens",
              GEMINI_PATH: "MAX_TOKENS"}
    assert read(json.loads(out.body)) == ("one two", finish[path])
    assert ctx.hits["cut"] == 1


def test_truncated_response_cuts_tool_call_arguments_mid_json():
    reply = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
             "tool_calls": [{"id": "1", "type": "function",
                             "function": {"name": "f", "arguments": '{"order_id": "1234"}'}}]}}]}
    out, _ = run({"target": "llm", "mode": "truncated_response"}, view(), reply)
    choice = json.loads(out.body)["choices"][0]
    assert choice["finish_reason"] == "length"
    with pytest.raises(ValueError):
        json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"])


def test_a_transform_that_finds_nothing_to_change_is_not_a_hit():
    out, ctx = run({"id": "e", "target": "llm", "mode": "empty"}, view("/v1/embeddings"), {"data": [[0.1]]})
    assert out is None and ctx.hits["e"] == 0 and ctx.llm_calls[0]["fault"] is None


def test_anthropic_stream_is_cut_and_marked_max_tokens():
    events = [("message_start", {"type": "message_start"}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                       "delta": {"type": "text_delta", "text": "one two "}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                       "delta": {"type": "text_delta", "text": "three four"}}),
              ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}})]
    body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()
    out = map_stream_texts(body, "anthropic", lambda text: cut_words(text, 3), "max_tokens")
    decoded = [json.loads(line[6:]) for line in out.decode().splitlines() if line.startswith("data: ")]
    assert "".join(e["delta"].get("text", "") for e in decoded if e["type"] == "content_block_delta") == "one two three"
    assert decoded[-1]["delta"]["stop_reason"] == "max_tokens"
    assert out.decode().count("event: content_block_delta") == 2
    assert map_stream_texts(b"data: [DONE]\n\n", "openai", str.upper, None) is None


@pytest.mark.parametrize("fault, status, check", [
    ({"mode": "rate_limit", "retry_after_s": 2}, 429,
     lambda r, b: r.headers["retry-after"] == "2" and b["error"]["code"] == "rate_limit_exceeded"),
    ({"mode": "token_quota_exceeded"}, 429,
     lambda r, b: r.headers["x-should-retry"] == "false" and b["error"]["type"] == "insufficient_quota"),
    ({"mode": "model_unavailable"}, 503, lambda r, b: "gpt-x" in b["error"]["message"]),
])
def test_llm_failures_use_the_openai_error_shape(fault, status, check):
    out, ctx = run({"target": "llm", **fault}, view())
    assert out.status == status and check(out, json.loads(out.body))


def test_llm_failures_use_the_anthropic_error_shape():
    out, _ = run({"target": "llm", "mode": "rate_limit"}, view("/v1/messages", "api.anthropic.com"))
    assert json.loads(out.body) == {"type": "error", "error": {"type": "rate_limit_error",
                                                               "message": "Rate limit reached for gpt-x. "
                                                                          "Please try again in 1s."}}


@pytest.mark.parametrize("fault, status, code", [
    ({"mode": "rate_limit"}, 429, "RESOURCE_EXHAUSTED"), ({"mode": "model_unavailable"}, 503, "UNAVAILABLE"),
])
def test_llm_failures_use_the_gemini_error_shape(fault, status, code):
    """google-genai raises its APIError subclasses from this body (Google ADK's default models)."""
    out, ctx = run({"target": "llm", **fault}, view(GEMINI_PATH, "generativelanguage.googleapis.com", {"contents": []}))
    error = json.loads(out.body)["error"]
    assert out.status == status and (error["code"], error["status"]) == (status, code)
    assert "gemini-2.0-flash" in error["message"] and ctx.llm_calls[0]["provider"] == "gemini"


def test_a_gemini_stream_is_cut_and_marked_max_tokens():
    chunks = [{"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": "one two "}]}}]},
              {"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": "three four"}]},
                               "finishReason": "STOP"}]}]
    body = "".join(f"data: {json.dumps(chunk)}\r\n\r\n" for chunk in chunks).encode()
    out = map_stream_texts(body, "gemini", lambda text: cut_words(text, 3), "MAX_TOKENS")
    decoded = [json.loads(line[6:]) for line in out.decode().splitlines() if line.startswith("data: ")]
    assert "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in decoded) == "one two three"
    assert [c["candidates"][0].get("finishReason") for c in decoded] == [None, "MAX_TOKENS"]


def test_garbage_is_not_json_and_llm_faults_ignore_other_requests():
    out, _ = run({"target": "llm", "mode": "garbage", "size": 32}, view())
    assert out.status == 200 and len(out.body) == 32
    with pytest.raises(ValueError):
        json.loads(out.body)
    out, ctx = run({"target": "llm", "mode": "garbage"}, view("/api/orders/1"))
    assert out is None and not ctx.hits
    hosted, _ = run({"target": "llm", "mode": "model_unavailable", "host": "llm.internal"},
                    view("/generate", "llm.internal"))
    assert hosted.status == 503  # a configured host is an LLM endpoint whatever its paths


@pytest.mark.parametrize("drift, check", [
    ({}, lambda b: b["choices"][0]["message"] == {"role": "assistant", "text": TEXT}),
    ({"drift_type": "envelope"}, lambda b: b["data"] == OPENAI and b["object"] == "envelope"),
    ({"drift_type": "format_change"},
     lambda b: json.loads(b["choices"][0]["message"]["content"])["response"]["text"] == TEXT),
    ({"renames": {"choices": "results"}}, lambda b: "results" in b and "choices" not in b),
])
def test_response_drift_changes_the_reply_structure(drift, check):
    out, _ = run({"target": "llm", "mode": "response_drift", **drift}, view(), OPENAI)
    assert check(json.loads(out.body))


@pytest.mark.parametrize("fault, check", [
    ({"mode": "http_error", "status_code": 500, "body": "boom"}, lambda r: (r.status, r.body) == (500, b"boom")),
    ({"mode": "http_error", "retry_after_s": 3}, lambda r: r.headers["retry-after"] == "3"),
    ({"mode": "timeout", "delay_ms": 0}, lambda r: r.body == b"timeout"),
    ({"mode": "connection_reset"}, lambda r: r.body == b"connection_reset"),
    ({"mode": "malformed_payload"}, lambda r: r.body == b'{"order_id"'),
])
def test_http_faults(fault, check):
    out, _ = run({"target": "http", **fault}, view("/api/orders/1"), {"order_id": "1234567"})
    assert check(out)


def test_http_faults_match_host_globs_and_path_patterns():
    fault = {"target": "http", "mode": "http_error", "host": "*.example.com", "path": "^/v2/"}
    assert run(fault, view("/v2/items", "api.example.com"))[0].status == 503
    assert run(fault, view("/v1/items", "api.example.com"))[0] is None
    assert run(fault, view("/v2/items", "example.org"))[0] is None


HISTORY = [{"role": "system", "content": "sys"}, {"role": "user", "content": "u1"},
           {"role": "assistant", "content": "a1"}, {"role": "tool", "content": "t1", "tool_call_id": "x"},
           {"role": "user", "content": "u2"}]


@pytest.mark.parametrize("fault, expected", [
    ({"mode": "conversation_history_dropped"}, [("system", "sys"), ("user", "u2")]),
    ({"mode": "memory_poisoning", "payload": "P"},
     [("system", "sys"), ("user", "u1"), ("assistant", "a1"), ("tool", "t1"),
      ("user", "What do you remember from our earlier sessions?"), ("assistant", "P"), ("user", "u2")]),
    ({"mode": "indirect_injection", "payload": "P"},
     [("system", "sys"), ("user", "u1"), ("assistant", "a1"), ("tool", "t1\n\nP"), ("user", "u2")]),
    ({"mode": "context_window_overflow", "tokens": 3, "filler": "x y"},
     [("system", "sys"), ("user", "u1"), ("assistant", "a1"), ("tool", "t1"), ("user", "x y x\n\nu2")]),
])
def test_context_attacks_rewrite_the_conversation(fault, expected):
    ctx = ctx_with({"id": "k", "target": "context", **fault})
    out = apply_context_attacks({"model": "m", "messages": HISTORY}, ctx.faults, ctx)
    assert [(m["role"], m["content"]) for m in out["messages"]] == expected
    assert ctx.hits["k"] == 1 and HISTORY[-1]["content"] == "u2"  # the input is not modified


def test_context_attacks_apply_to_an_invoke_payload():
    ctx = ctx_with({"target": "context", "mode": "memory_poisoning", "payload": "P"})
    out = apply_context_attacks({"text": "where?", "history": [], "session_id": "s"}, ctx.faults)
    assert out["text"] == "where?" and out["session_id"] == "s"
    assert [m["content"] for m in out["history"]][-1] == "P"
    assert apply_context_attacks({"input": "plain"}, ctx.faults) == {"input": "plain"}


def test_indirect_injection_without_tool_results_lands_in_the_user_turn_as_a_document():
    ctx = ctx_with({"target": "context", "mode": "indirect_injection", "payload": "P"})
    out = apply_context_attacks({"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]},
                                ctx.faults)
    assert out["messages"][0]["content"][-1] == {"type": "text", "text": "[Retrieved document]\nP"}


@pytest.mark.parametrize("result, channel, expected", [
    ("text", "tool_output", "text\nP"),
    ({"a": 1}, "file_content", {"a": 1, "content": "P"}),
    ({"results": [{"id": 1, "text": "t"}]}, "rag_document",
     {"results": [{"id": 1, "text": "t"}, {"id": 1, "text": "P"}]}),
    ([1, 2], "tool_output", [1, 2, "P"]),
    (None, "tool_output", "P"),
    ({"note": "x"}, "tool_output", {"note": "x", "note_": "P"}),
])
def test_payloads_are_embedded_keeping_the_result_type(result, channel, expected):
    assert embed(result, "P", channel) == expected


def test_channel_hints_pick_which_tools_carry_a_payload():
    rag = [{"channel": "rag_document", "payload": "P"}]
    assert injections_for("search_kb", rag, ["search_kb", "lookup_order"]) == rag
    assert injections_for("lookup_order", rag, ["search_kb", "lookup_order"]) == []
    assert injections_for("lookup_order", rag, ["lookup_order"]) == rag  # nothing retrieval-like: any tool
    assert injections_for("x", [{"channel": "user_prompt", "payload": "P"}], ["x"]) == []


@pytest.mark.parametrize("fault, result, expected", [
    ({"mode": "malformed"}, {"a": "bcdef"}, '{"a": "'),
    ({"mode": "malformed", "style": "invalid_json"}, {"a": 1}, "{'a': 1, ...<EOF>"),
    ({"mode": "empty"}, ["x"], []),
    ({"mode": "malicious_response", "placement": "replace", "payload": "P"}, "real", "P"),
    ({"mode": "error", "as_result": True, "error_code": 429}, "real", {"error": {"code": 429,
                                                                                "message": "429 Too Many Requests"}}),
])
def test_tool_faults_shape_the_result(fault, result, expected):
    ctx = ctx_with({"target": "tool", **fault})
    decision = decide_tool(ctx, ToolInvocation("t", {}))
    from khaos_action.faults.effects import NO_RESULT

    real = result if decision.effect.result is NO_RESULT else decision.effect.result
    assert finish_tool(ctx, decision, real) == expected


def test_tool_error_can_raise_a_named_exception_class():
    ctx = ctx_with({"target": "tool", "mode": "call_failure", "exception": "PermissionError", "message": "denied"})
    error = decide_tool(ctx, ToolInvocation("t", {})).effect.error
    assert isinstance(error, PermissionError) and str(error) == "denied"


_ARGS, _CUT = '{"to": "a@b.example"}', '{"to": "a@'


@pytest.mark.parametrize(("body", "provider", "finish", "found", "after"), [
    ({"content": [{"text": "hi"}, {"type": "tool_use"}]}, "anthropic", "max_tokens", True,
     {"content": [{"text": "HI"}, {"type": "tool_use"}], "stop_reason": "max_tokens"}),
    ({"content": [{"type": "tool_use"}]}, "anthropic", "max_tokens", False, {"content": [{"type": "tool_use"}]}),
    ({"output": [{"content": [{"text": "hi"}]}, "junk"]}, "openai", "length", True,
     {"output": [{"content": [{"text": "HI"}]}, "junk"], "status": "incomplete",
      "incomplete_details": {"reason": "max_output_tokens"}}),
    ({"output": [{"content": [{"text": "hi"}]}]}, "openai", None, True, {"output": [{"content": [{"text": "HI"}]}]}),
    ({"choices": [{"message": {"content": "hi"}}]}, "openai", "length", True,
     {"choices": [{"message": {"content": "HI"}, "finish_reason": "length"}]}),
    # a length cut ends tool-call arguments mid-JSON; without a finish reason they are left alone
    ({"choices": [{"message": {"content": None, "tool_calls": [{"function": {"arguments": _ARGS}}]}}]}, "openai",
     "length", True, {"choices": [{"message": {"content": None, "tool_calls": [{"function": {"arguments": _CUT}}]},
                                   "finish_reason": "length"}]}),
    ({"choices": [{"message": {"content": None, "tool_calls": [{"function": {"arguments": _ARGS}}]}}]}, "openai",
     None, False, {"choices": [{"message": {"content": None, "tool_calls": [{"function": {"arguments": _ARGS}}]}}]}),
    ({"choices": [{"text": "hi"}, "junk"]}, "openai", "length", True,
     {"choices": [{"text": "HI", "finish_reason": "length"}, "junk"]}),  # legacy completions
    # once a text was found, later choices are marked cut too (as before)
    ({"choices": [{"message": {"content": "hi"}}, {"message": {}}]}, "openai", "length", True,
     {"choices": [{"message": {"content": "HI"}, "finish_reason": "length"},
                  {"message": {}, "finish_reason": "length"}]}),
    ({"choices": [{"message": {}}, {"message": {"content": "hi"}}]}, "openai", "length", True,
     {"choices": [{"message": {}}, {"message": {"content": "HI"}, "finish_reason": "length"}]}),
    ({"choices": None}, "openai", "length", False, {"choices": None}),
    (["not", "a", "reply"], "openai", "length", False, ["not", "a", "reply"]),
])
def test_reply_texts_are_mapped_in_each_shape_as_a_table(body, provider, finish, found, after) -> None:
    assert map_reply_texts(body, provider, str.upper, finish) is found
    assert body == after
