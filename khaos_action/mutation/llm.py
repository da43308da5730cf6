"""Optional LLM rewriting of golden prompts over any OpenAI-compatible `/chat/completions` endpoint.

Off unless `mutation.llm` is set. A failing endpoint raises MutationLlmError; the run reports it and scores only the
built-in mutations (a broken rewriter must never turn into a mutation score of 0).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import httpx

from khaos_action.chat import content_text, reply_content
from khaos_action.config.models import LlmEndpoint
from khaos_action.errors import ExitCode, KhaosError

_SYSTEM = (
    "You rewrite a user's message to a customer-facing AI assistant the way different real users would type the "
    "same request: other words, other structure, other tone, typos allowed. Keep its meaning and keep every number, "
    "id, name and e-mail exactly. Answer with a JSON array of {n} strings and nothing else."
)


class MutationLlmError(KhaosError):
    """The LLM rewrite endpoint could not produce rewrites; the built-in mutations still run."""

    exit_code = ExitCode.CONFIG


async def llm_rewrite(
    endpoint: LlmEndpoint,
    client: httpx.AsyncClient,
    prompt: str,
    n: int,
    *,
    environ: Mapping[str, str],
) -> list[str]:
    """Up to `n` distinct rewrites of `prompt` (none equal to it); MutationLlmError with the cause otherwise.

    `environ` is where `endpoint.api_key_env` is looked up (the run's `Services.environ`).
    """
    if n < 1:
        return []
    url = endpoint.base_url.rstrip("/") + "/chat/completions"
    headers = _headers(endpoint, environ)
    body = {
        "model": endpoint.model,
        "temperature": 0,  # as reproducible as the endpoint allows
        "messages": [
            {"role": "system", "content": _SYSTEM.format(n=n)},
            {"role": "user", "content": prompt},
        ],
    }
    response = await _post(client, url, body, headers, endpoint.timeout_s)
    content = _message_content(response, url)
    rewrites = parse_rewrites(content)
    unique = [r for r in dict.fromkeys(r.strip() for r in rewrites) if r and r != prompt.strip()]
    if not unique:
        raise MutationLlmError(
            f"mutation.llm endpoint {url} returned no usable rewrite (expected a JSON array of strings, got "
            f"{content[:200]!r})"
        )
    return unique[:n]


def _headers(endpoint: LlmEndpoint, environ: Mapping[str, str]) -> dict[str, str]:
    """The request's headers, with the API key from the environment variable the config names."""
    headers = {"content-type": "application/json"}
    if endpoint.api_key_env:
        key = environ.get(endpoint.api_key_env)
        if not key:
            raise MutationLlmError(
                f"mutation.llm.api_key_env names {endpoint.api_key_env!r} but that environment variable is not set; "
                "set it, or remove `api_key_env` for an endpoint that needs no key"
            )
        headers["authorization"] = f"Bearer {key}"
    return headers


async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str],
                timeout_s: float) -> httpx.Response:
    """The endpoint's answer; MutationLlmError when it did not answer in time, could not be reached or refused."""
    try:
        response = await client.post(url, json=body, headers=headers, timeout=timeout_s)
    except httpx.TimeoutException:
        raise MutationLlmError(
            f"mutation.llm endpoint {url} did not answer within {timeout_s:g}s; "
            "raise mutation.llm.timeout_s or check the server"
        ) from None
    except httpx.HTTPError as exc:
        raise MutationLlmError(
            f"mutation.llm endpoint {url} could not be reached ({type(exc).__name__}: {exc}); "
            "check mutation.llm.base_url, or remove mutation.llm to run only the built-in mutations"
        ) from None
    if response.status_code >= 400:
        raise MutationLlmError(
            f"mutation.llm endpoint {url} answered HTTP {response.status_code}: {response.text[:200]!r}; "
            "check mutation.llm.model and the API key"
        )
    return response


def _message_content(response: httpx.Response, url: str) -> str:
    try:
        content = reply_content(response.json())
    except ValueError:  # not JSON, or NotAChatCompletion
        raise MutationLlmError(
            f"mutation.llm endpoint {url} did not return an OpenAI-style chat completion "
            f"(choices[0].message.content); got {response.text[:200]!r}"
        ) from None
    text = content_text(content)
    if text is None:
        raise MutationLlmError(f"mutation.llm endpoint {url} returned non-text content: {content!r:.200}")
    return text


_FENCE = re.compile(r"^```[\w-]*\s*|\s*```$")
_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")


def parse_rewrites(content: str) -> list[str]:
    """Strings from a model answer: a JSON array (possibly fenced), else one rewrite per numbered/bulleted line."""
    text = _FENCE.sub("", content.strip())
    start, end = text.find("["), text.rfind("]")
    if start != -1 and end > start:
        try:
            items = json.loads(text[start : end + 1])
        except json.JSONDecodeError:
            items = None
        if isinstance(items, list):
            return [item for item in items if isinstance(item, str)]
    lines = [_NUMBERED.sub("", line).strip().strip('"') for line in text.splitlines()]
    return [line for line in lines if line]
