"""Nimbus Outdoor's support agent as a long-lived process speaking JSON lines on stdin/stdout.

  in:  {"id": "7", "input": "Where is my order 1234?", "history": [...], "session_id": "..."}
  out: {"id": "7", "output": "..."}            reset: {"type": "reset"} -> {"type": "reset", "ok": true}

It looks the order up in its own data and has an OpenAI-compatible model (`OPENAI_BASE_URL` from the environment,
as the OpenAI SDKs read it) write the reply. khaos.yaml sets `OPENAI_BASE_URL: "{{ llm_proxy }}"`, so model calls
pass through the chaos proxy; when the model fails, the agent sends its facts unpolished instead of failing the
customer. It speaks the chat-completions wire format with httpx rather than the `openai` SDK only because the SDK
takes seconds to import and this process is started for every run. Only protocol lines go to stdout; diagnostics
go to stderr.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import httpx
import model_backend

ORDERS = {
    "1234": "Order 1234 shipped with DHL (tracking DH48213377) and should arrive Thursday.",
    "5678": "Order 5678 is being packed and should ship next week.",
    "9012": "Order 9012 was delivered by UPS.",
}
FAQ = {
    "return": "You can return any unused item within 30 days of delivery.",
    "ship": "We ship to the US, Canada and the EU; standard delivery takes 3-7 business days.",
}
_ORDER_ID = re.compile(r"\b(\d{4})\b")
conversations: dict[str, list[str]] = {}
"""What each session asked so far (cleared by the reset line)."""


def facts_for(text: str) -> str:
    order = _ORDER_ID.search(text)
    if order:
        return ORDERS.get(order.group(1), f"I couldn't find order {order.group(1)}; please double-check the number.")
    for topic, fact in FAQ.items():
        if topic in text.lower():
            return fact
    return "I can help with orders, returns and shipping; what is your 4-digit order number?"


def answer(client: httpx.Client, text: str) -> str:
    facts = facts_for(text)
    body = {"model": "support-writer", "messages": [
        {"role": "system", "content": "Write a short, friendly support reply using only the FACTS."},
        {"role": "user", "content": f"FACTS: {facts}"}]}
    try:
        response = client.post("/chat/completions", json=body)
        response.raise_for_status()
        choice = response.json()["choices"][0]
        content = choice["message"]["content"] or ""
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:  # 5xx, timeouts, garbage bodies
        print(f"model failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        return facts
    return content if choice.get("finish_reason") == "stop" and content.strip() else facts


def serve(client: httpx.Client, lines: Any = sys.stdin, out: Any = sys.stdout) -> None:
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            print(f"not JSON: {line[:200]!r}", file=sys.stderr, flush=True)
            continue
        if request.get("type") == "reset":
            conversations.clear()
            reply: dict[str, Any] = {"type": "reset", "ok": True}
        else:
            text = str(request.get("input", ""))
            conversations.setdefault(str(request.get("session_id")), []).append(text)
            reply = {"id": request.get("id"), "output": answer(client, text)}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def main() -> None:
    model_backend.ensure_running()
    base_url = os.environ.get("OPENAI_BASE_URL") or f"http://127.0.0.1:{model_backend.PORT}/v1"
    headers = {"authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', 'sk-local-offline')}"}
    with httpx.Client(base_url=base_url.rstrip("/") + "/", headers=headers, timeout=5.0) as client:
        serve(client)


if __name__ == "__main__":
    main()
