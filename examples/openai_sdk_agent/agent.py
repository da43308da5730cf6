"""A support agent written against the real `openai` SDK: a chat-completions tool loop with honest fallbacks.

The model is `chat_server.py`, a local OpenAI-compatible server the agent starts itself, so the example runs
offline; point `OPENAI_BASE_URL` at a real endpoint and it is a real agent. Every way the model can fail is
handled: the SDK's typed errors (rate limit, 5xx, timeouts — after its own retry), a completion cut for length,
an unreadable tool call. When the model fails after a tool already answered, the customer still gets the tool's
facts; when it fails before, an honest "try again".
"""

from __future__ import annotations

import json
import os
from typing import Any

import chat_server
import openai
import openai_tools

SYSTEM_PROMPT = "You are Nimbus Outdoor's support assistant. Answer only from tool results; never guess order details."
MODEL = "local-support-model"
TOOL_SPECS = [
    {"type": "function", "function": {
        "name": "lookup_order", "description": openai_tools.lookup_order.__doc__,
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
    {"type": "function", "function": {
        "name": "search_docs", "description": openai_tools.search_docs.__doc__,
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
]
TOOLS = {"lookup_order": openai_tools.lookup_order, "search_docs": openai_tools.search_docs}
"""The tools the model may call, by name (khaos-action's tool patcher rewrites the functions in this dict too)."""

# One client for the process (its connection pool is reused); max_retries=1: one SDK retry, then our fallback.
client = openai.OpenAI(base_url=os.environ.get("OPENAI_BASE_URL") or chat_server.base_url(),
                       api_key=os.environ.get("OPENAI_API_KEY", "sk-local-offline"), max_retries=1, timeout=5.0)


def handle(message: str) -> str:
    """khaos.yaml's entry: one customer message in, the answer out."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                      {"role": "user", "content": message}]
    facts: list[tuple[str, dict[str, Any], Any]] = []
    for _ in range(3):
        try:
            completion = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOL_SPECS)
        except (openai.APIError, ValueError):  # 429/5xx/timeouts after the SDK's retry; a body that is not JSON
            return fallback(facts)
        choice = completion.choices[0]
        calls = choice.message.tool_calls or []
        if choice.finish_reason == "length" or (not calls and not (choice.message.content or "").strip()):
            return fallback(facts)  # a cut or empty answer is not sent to a customer
        if not calls:
            return choice.message.content
        messages.append(choice.message.model_dump(exclude_none=True))
        for call in calls:
            try:
                args = json.loads(call.function.arguments)
            except ValueError:
                return fallback(facts)
            result = run_tool(call.function.name, args)
            facts.append((call.function.name, args, result))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, default=str)})
    return fallback(facts)


def run_tool(name: str, args: dict[str, Any]) -> Any:
    """Run the tool the model asked for; a failure is reported to the model as data, not raised."""
    if name not in TOOLS:
        return {"error": f"unknown tool {name}"}
    try:
        return TOOLS[name](**args)
    except Exception as exc:  # noqa: BLE001 - any tool failure is something the model must hear about
        return {"error": f"{type(exc).__name__}: {exc}"}


def fallback(facts: list[tuple[str, dict[str, Any], Any]]) -> str:
    """The answer without the model: the tools' facts verbatim if there are any, else an honest apology."""
    for name, args, result in facts:
        if name == "lookup_order" and isinstance(result, dict) and "status" in result:
            details = ", ".join(f"{key} {result[key]}" for key in ("carrier", "tracking", "eta") if result.get(key))
            return (f"Our assistant is unavailable, but the order system says order {args.get('order_id')} is "
                    f"{result['status']}" + (f" ({details})." if details else "."))
        if name == "search_docs" and isinstance(result, str) and result.strip():
            return f"Our assistant is unavailable, but here is the help-centre article: {result.strip()}"
    return "I'm sorry, I'm having trouble answering right now. Please try again in a minute."
