"""One chat call to the attacker model, through the run's cassette and budget meter, recorded in its telemetry."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from khaos_action.chat import content_text, cut_for_length, reply_content
from khaos_action.config.models import AttackerConfig
from khaos_action.engine.llm_calls import LlmRuntime
from khaos_action.errors import KhaosError
from khaos_action.llm.cassette import Recorded, cassette_request, credentials
from khaos_action.llm.pricing import cost_usd, price_for
from khaos_action.llm.usage import call_usage, parse_body

PURPOSE = "attacker"
"""The `purpose` of the attacker's calls in the run's LLM telemetry (the agent's own calls have none)."""


class AttackerUnavailable(KhaosError):
    """The attacker could not answer (endpoint down, replay miss, budget spent): the fixed corpus still runs."""


class AttackerCut(AttackerUnavailable):
    """This answer stopped at attacker.max_tokens (a model that does not stop): discarded, never sent to the agent;
    the attacker may still answer the next request."""


class AttackerClient:
    def __init__(self, config: AttackerConfig, http: httpx.AsyncClient, runtime: LlmRuntime,
                 environ: Mapping[str, str]) -> None:
        self.config = config
        self.http = http
        self.runtime = runtime
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self._path = urlsplit(self.url).path
        self._headers = {"content-type": "application/json"}
        if config.api_key_env:
            key = environ.get(config.api_key_env)
            if not key:
                raise AttackerUnavailable(f"attacker.api_key_env names {config.api_key_env!r} but that environment "
                                          "variable is not set; set it, or remove `api_key_env` for a local endpoint")
            self._headers["authorization"] = f"Bearer {key}"

    async def chat(self, messages: list[dict[str, str]]) -> str:
        """The attacker model's answer to `messages` (cassette first, then live); AttackerUnavailable otherwise."""
        meter = self.runtime.meter
        if meter is not None and (reason := meter.exhausted()) is not None:
            raise AttackerUnavailable(f"the run's budget is spent ({reason})")
        body = {"model": self.config.model, "temperature": self.config.temperature,
                "max_tokens": self.config.max_tokens, "messages": messages}
        raw = json.dumps(body, sort_keys=True).encode()
        request = cassette_request("POST", self._path, "", raw)
        cassette = self.runtime.cassette
        record: dict[str, Any] = {"purpose": PURPOSE, "provider": "openai", "model": self.config.model,
                                  "url": self.url, "cassette": request.key if cassette else None}
        started = time.perf_counter()
        found = cassette.lookup(request) if cassette is not None else None
        source, live = "cassette", False
        if found is None:
            if cassette is not None and cassette.mode == "replay":
                self._finish(record, started, None, "cassette_miss", live=False, body=body)
                raise AttackerUnavailable(f"llm_cache replay miss for the attacker: {request.describe()} is not in "
                                          f"{cassette.directory}; record the attacker's calls on the default branch")
            found, source, live = await self._live(raw, record, started, body), "live", True
            if cassette is not None and cassette.wants(found.status):
                cassette.store(request, found, credentials(self._headers, ""))
        self._finish(record, started, found, source, live=live, body=body)
        if found.status >= 400:
            raise AttackerUnavailable(f"attacker endpoint {self.url} answered HTTP {found.status}: "
                                      f"{found.body[:200]!r}; check attacker.model and the key")
        return _content(found.body, self.url, self.config.max_tokens)

    async def _live(self, raw: bytes, record: dict[str, Any], started: float, body: dict[str, Any]) -> Recorded:
        try:
            response = await self.http.post(self.url, content=raw, headers=self._headers,
                                            timeout=self.config.timeout_s)
        except httpx.HTTPError as exc:
            self._finish(record, started, None, "error", live=False, body=body)
            raise AttackerUnavailable(f"attacker endpoint {self.url} could not be reached ({type(exc).__name__}: "
                                      f"{exc}); check attacker.base_url or remove `attacker:`") from None
        headers = {k.lower(): v for k, v in response.headers.items() if k.lower() == "content-type"}
        return Recorded(response.status_code, headers, response.content)

    def _finish(self, record: dict[str, Any], started: float, reply: Recorded | None, source: str, *, live: bool,
                body: dict[str, Any]) -> None:
        tokens_in = tokens_out = 0
        estimated = False
        if reply is not None and reply.status < 400:
            usage = call_usage(body, parse_body(reply.body, reply.headers.get("content-type", "")))
            tokens_in, tokens_out, estimated = usage.input_tokens, usage.output_tokens, usage.estimated
        cost = cost_usd(price_for(self.config.model, self.runtime.prices), tokens_in, tokens_out)
        record.update(latency_ms=round((time.perf_counter() - started) * 1000, 3), source=source,
                      input_tokens=tokens_in, output_tokens=tokens_out, tokens_estimated=estimated,
                      cost_usd=None if cost is None else round(cost, 8),
                      status=reply.status if reply is not None else None)
        self.runtime.finished(record, tokens_in + tokens_out if live else None, cost)


def _content(body: bytes, url: str, max_tokens: int) -> str:
    try:
        completion = json.loads(body)
        content = content_text(reply_content(completion))
    except ValueError:  # not JSON, or NotAChatCompletion
        raise AttackerUnavailable(f"attacker endpoint {url} did not return an OpenAI-style chat completion "
                                  f"(choices[0].message.content); got {body[:200]!r}") from None
    if cut_for_length(completion):
        raise AttackerCut(f"the attacker model's answer was cut at attacker.max_tokens ({max_tokens}): raise "
                          "attacker.max_tokens, or use a model that stops when its answer is done")
    if not content or not content.strip():
        raise AttackerUnavailable(f"attacker endpoint {url} returned no text")
    return content.strip()
