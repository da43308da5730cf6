"""Built-in LLM faults: provider-shaped failures (rate_limit, timeout, model_unavailable, token_quota_exceeded,
garbage) and reply mutations (truncated_response, empty, response_drift) on OpenAI-, Anthropic- and Gemini-style
endpoints.

A request is an LLM call when its path ends with an LLM API route (LLM_PATHS), is a Gemini generateContent call
(`/models/<model>:generateContent`, `:streamGenerateContent`: google-genai, which Google ADK's default models use),
or, for a fault with `host`, when it goes to that host. Error bodies follow each provider's documented error shape
so SDKs raise their own typed errors (openai.RateLimitError, anthropic.RateLimitError, google.genai's
errors.ClientError...) and run their own retry logic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from khaos_action.faults.effects import (
    HttpEffect,
    HttpRequestView,
    Reply,
    rebuilt_headers,
)
from khaos_action.faults.http import HttpFaultBase, HttpParams
from khaos_action.faults.registry import register_fault
from khaos_action.faults.sse import map_gemini_texts, map_stream_texts

LLM_PATHS = ("/chat/completions", "/completions", "/responses", "/messages", "/embeddings")
GEMINI_METHODS = (":generateContent", ":streamGenerateContent")

# Gemini's error `status` for each kind of failure (google.rpc codes, as its API returns them).
_GEMINI_STATUS = {"rate_limit": "RESOURCE_EXHAUSTED", "quota": "RESOURCE_EXHAUSTED", "unavailable": "UNAVAILABLE",
                  "timeout": "DEADLINE_EXCEEDED"}


def llm_provider(view: HttpRequestView) -> str | None:
    """"anthropic" / "openai" / "gemini" when the request goes to an LLM API route, else None."""
    path = view.path.rstrip("/")
    if "/models/" in path and path.endswith(GEMINI_METHODS):
        return "gemini"
    if not path.endswith(LLM_PATHS):
        return None
    return "anthropic" if path.endswith("/messages") or "anthropic" in view.host else "openai"


class LlmFaultBase(HttpFaultBase):
    """LLM faults match LLM API routes; with `host` they match every request to that host."""

    def applies_to(self, view: HttpRequestView, provider: str | None) -> bool:
        if self.params.host is None and provider is None:
            return False
        return self.matches_location(view)


def error_reply(provider: str | None, status: int, kind: str, message: str,
                headers: dict[str, str] | None = None, code: str | None = None) -> Reply:
    """An error response in the provider's shape (OpenAI `{"error": {...}}`, Anthropic `{"type": "error", ...}`,
    Gemini `{"error": {"code", "message", "status"}}`)."""
    if provider == "gemini":
        return Reply.json_reply(status, {"error": {"code": status, "message": message,
                                                   "status": _GEMINI_STATUS.get(kind, "INTERNAL")}}, headers)
    if provider == "anthropic":
        anthropic_type = {"rate_limit": "rate_limit_error", "unavailable": "overloaded_error",
                          "quota": "rate_limit_error", "timeout": "timeout_error"}.get(kind, "api_error")
        body: dict[str, Any] = {"type": "error", "error": {"type": anthropic_type, "message": message}}
    else:
        openai_type = {"rate_limit": "requests", "unavailable": "server_error", "quota": "insufficient_quota",
                       "timeout": "timeout"}.get(kind, "server_error")
        body = {"error": {"message": message, "type": openai_type, "param": None, "code": code}}
    return Reply.json_reply(status, body, headers)


def _model(view: HttpRequestView) -> str:
    body = view.json
    if isinstance(body, dict) and body.get("model"):
        return str(body["model"])
    if "/models/" in view.path:  # Gemini names it in the path: /v1beta/models/<model>:generateContent
        return view.path.rsplit("/models/", 1)[1].split(":", 1)[0]
    return "the model"


class RateLimitParams(HttpParams):
    retry_after_s: float = Field(1.0, ge=0)
    """Sent as `retry-after` and `retry-after-ms`; SDKs wait this long before retrying."""


@register_fault("rate_limit", target="llm")
class RateLimit(LlmFaultBase):
    Params = RateLimitParams
    params: RateLimitParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        wait = self.params.retry_after_s
        headers = {"retry-after": f"{wait:g}", "retry-after-ms": str(int(wait * 1000)),
                   "x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-tokens": "0"}
        message = f"Rate limit reached for {_model(view)}. Please try again in {wait:g}s."
        return HttpEffect(reply=error_reply(provider, 429, "rate_limit", message, headers, "rate_limit_exceeded"))


@register_fault("token_quota_exceeded", target="llm", aliases=("quota_exceeded",))
class TokenQuotaExceeded(LlmFaultBase):
    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        message = "You exceeded your current quota, please check your plan and billing details."
        # Quota does not come back in seconds: tell SDKs not to retry (OpenAI/Anthropic honour x-should-retry).
        reply = error_reply(provider, 429, "quota", message, {"x-should-retry": "false"}, "insufficient_quota")
        return HttpEffect(reply=reply)


class UnavailableParams(HttpParams):
    status_code: int = Field(503, ge=500, le=599)


@register_fault("model_unavailable", target="llm", aliases=("llm_unavailable",))
class ModelUnavailable(LlmFaultBase):
    Params = UnavailableParams
    params: UnavailableParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        message = f"The model {_model(view)} is currently unavailable. Please retry later."
        return HttpEffect(reply=error_reply(provider, self.params.status_code, "unavailable", message,
                                            code="model_not_available"))


class LlmTimeoutParams(HttpParams):
    delay_ms: float = Field(50.0, ge=0)
    """How long the call hangs before the client sees a timeout (the proxy then answers 504)."""


@register_fault("timeout", target="llm")
class LlmTimeout(LlmFaultBase):
    Params = LlmTimeoutParams
    params: LlmTimeoutParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        return HttpEffect(delay_s=self.params.delay_ms / 1000, error="timeout")


class GarbageParams(HttpParams):
    size: int = Field(256, ge=1, le=1_000_000)


@register_fault("garbage", target="llm")
class Garbage(LlmFaultBase):
    """A 200 whose body is random bytes labelled as JSON."""

    Params = GarbageParams
    params: GarbageParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        body = self.rng.randbytes(self.params.size)
        return HttpEffect(reply=Reply(200, {"content-type": "application/json"}, b"\x00" + body[1:]))


# ---- reply mutations ---------------------------------------------------------------------------------------------

def cut_words(text: str, limit: int) -> str:
    """The first `limit` whitespace-separated words of `text`, whitespace kept."""
    count, end = 0, 0
    for index, char in enumerate(text):
        if not char.isspace() and (index == 0 or text[index - 1].isspace()):
            count += 1
            if count > limit:
                return text[:end].rstrip()
        if not char.isspace():
            end = index + 1
    return text


def map_reply_texts(body: Any, provider: str, fn: Callable[[str], str], finish: str | None) -> bool:
    """Apply `fn` to every assistant text in a non-streaming reply; set the finish reason. False if none found."""
    if not isinstance(body, dict):
        return False
    if provider == "gemini":
        return map_gemini_texts(body, fn, finish)
    if provider == "anthropic" and isinstance(body.get("content"), list):
        return _map_anthropic(body, fn, finish)
    if isinstance(body.get("output"), list):  # OpenAI Responses API
        return _map_responses(body, fn, finish)
    return _map_choices(body, fn, finish)


def _map_text_parts(parts: Any, fn: Callable[[str], str]) -> bool:
    found = False
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            part["text"], found = fn(part["text"]), True
    return found


def _map_anthropic(body: dict[str, Any], fn: Callable[[str], str], finish: str | None) -> bool:
    found = _map_text_parts(body["content"], fn)
    if found and finish:
        body["stop_reason"] = "max_tokens"
    return found


def _map_responses(body: dict[str, Any], fn: Callable[[str], str], finish: str | None) -> bool:
    found = False
    for item in body["output"]:
        if isinstance(item, dict):
            found = _map_text_parts(item.get("content") or [], fn) or found
    if found and finish:
        body["status"] = "incomplete"
        body["incomplete_details"] = {"reason": "max_output_tokens"}
    return found


def _map_choices(body: dict[str, Any], fn: Callable[[str], str], finish: str | None) -> bool:
    """Chat completions (and legacy completions): a choice gets the finish reason once any text so far was found."""
    found = False
    for choice in body.get("choices") or []:
        if not isinstance(choice, dict):
            continue
        found = _map_choice(choice, fn, finish) or found
        if found and finish:
            choice["finish_reason"] = finish
    return found


def _map_choice(choice: dict[str, Any], fn: Callable[[str], str], finish: str | None) -> bool:
    message = choice.get("message")
    if isinstance(message, dict):
        found = False
        if isinstance(message.get("content"), str):
            message["content"], found = fn(message["content"]), True
        return (bool(finish) and _cut_tool_calls(message)) or found
    if isinstance(choice.get("text"), str):  # legacy completions
        choice["text"] = fn(choice["text"])
        return True
    return False


def _cut_tool_calls(message: dict[str, Any]) -> bool:
    """A length-cut tool call ends mid-JSON, as real truncated arguments do."""
    found = False
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("arguments"), str):
            args = function["arguments"]
            function["arguments"], found = args[: max(1, len(args) // 2)], True
    return found


def _mutating(provider: str | None, fn: Callable[[str], str], finish: str | None,
              streams: bool = True) -> Callable[[Reply], Reply | None]:
    """A transform that rewrites assistant texts of a 2xx JSON or SSE reply; None when there is no text.

    For streams `fn` sees the cumulative text of each choice and must return a prefix-stable rewrite of it."""

    def transform(reply: Reply) -> Reply | None:
        if not 200 <= reply.status < 300:
            return None
        if reply.is_event_stream:
            if not streams:
                return None
            body = map_stream_texts(reply.body, provider or "openai", fn, finish)
        else:
            try:
                data = json.loads(reply.body)
            except ValueError:
                return None
            body = json.dumps(data).encode() if map_reply_texts(data, provider or "openai", fn, finish) else None
        return None if body is None else Reply(reply.status, rebuilt_headers(reply.headers), body)

    return transform


class TruncateParams(HttpParams):
    max_tokens: int = Field(5, ge=0)
    """Words kept (whitespace-separated words stand in for tokens)."""


@register_fault("truncated_response", target="llm", aliases=("truncated",))
class TruncatedResponse(LlmFaultBase):
    """Calls upstream, keeps the first `max_tokens` words, and marks the reply cut for length."""

    Params = TruncateParams
    params: TruncateParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        limit = self.params.max_tokens
        finish = {"anthropic": "max_tokens", "gemini": "MAX_TOKENS"}.get(provider or "", "length")
        return HttpEffect(transform=_mutating(provider, lambda text: cut_words(text, limit), finish))


@register_fault("empty", target="llm", aliases=("empty_response",))
class EmptyResponse(LlmFaultBase):
    """Calls upstream and blanks every assistant text (status and structure intact)."""

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        return HttpEffect(transform=_mutating(provider, lambda text: "", None))


class DriftParams(HttpParams):
    drift_type: Literal["json_field_rename", "format_change", "envelope"] = "json_field_rename"
    """json_field_rename: rename reply keys; format_change: the text arrives wrapped in JSON;
    envelope: the whole body is nested under `data`."""
    renames: dict[str, str] | None = None
    """json_field_rename: old key -> new key (default content->text; for Anthropic text->value)."""


@register_fault("response_drift", target="llm", aliases=("schema_drift",))
class ResponseDrift(LlmFaultBase):
    Params = DriftParams
    params: DriftParams

    def on_request(self, view: HttpRequestView, provider: str | None) -> HttpEffect:
        kind = self.params.drift_type
        if kind == "format_change":
            def wrap(text: str) -> str:
                return json.dumps({"response": {"format": "v2", "text": text}})

            # A stream cannot be wrapped after its first chunk went out; format_change applies to whole replies.
            return HttpEffect(transform=_mutating(provider, wrap, None, streams=False))
        renames = self.params.renames or ({"text": "value"} if provider == "anthropic" else {"content": "text"})
        return HttpEffect(transform=lambda reply: _restructure(reply, kind, renames))


def _restructure(reply: Reply, kind: str, renames: dict[str, str]) -> Reply | None:
    if not 200 <= reply.status < 300 or reply.is_event_stream:
        return None
    try:
        data = json.loads(reply.body)
    except ValueError:
        return None
    changed = {"data": data, "object": "envelope", "version": 2} if kind == "envelope" else _rename(data, renames)
    if changed == data:
        return None
    return Reply(reply.status, rebuilt_headers(reply.headers), json.dumps(changed).encode())


def _rename(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {renames.get(k, k): _rename(v, renames) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, renames) for v in value]
    return value

