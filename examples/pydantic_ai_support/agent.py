"""A pydantic-ai support agent with two tools, run offline on a deterministic FunctionModel.

The tools are registered with pydantic-ai as they are (`Agent(tools=[lookup_order, search_docs])`), so pydantic-ai
keeps them inside its own Tool objects; khaos-action's ToolPatcher still reaches them there. A tool that raises is
turned into a tool result `{"error": ...}` by a pydantic-ai `Hooks` capability, so the model reads the failure
and answers honestly instead of the whole run crashing. Swap `FunctionModel(support_model)` for
`"openai:gpt-4o-mini"` and the agent is a real one; khaos.yaml stays the same.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import Hooks
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_tools import lookup_order, search_docs

INSTRUCTIONS = "You are Nimbus Outdoor's support assistant. Answer only from tool results; never guess order details."
TOPICS = ("return", "refund", "ship", "warranty")
_ORDER_ID = re.compile(r"\b(\d{4})\b")


def support_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A deterministic stand-in for an LLM: pick a tool from the question, then write the answer from its result."""
    last = messages[-1]
    returned = [p for p in last.parts if p.part_kind in ("tool-return", "retry-prompt")] \
        if isinstance(last, ModelRequest) else []
    if returned:
        calls = {p.tool_call_id: p for m in messages if isinstance(m, ModelResponse) for p in m.parts
                 if isinstance(p, ToolCallPart)}
        retry = [calls[p.tool_call_id] for p in returned if p.tool_call_id in calls and _transient(p)]
        if retry and len(calls) < 2:  # like a real model reading "503 ... try again": one more try, then give up
            return ModelResponse(parts=[ToolCallPart(c.tool_name, c.args_as_dict()) for c in retry])
        return ModelResponse(parts=[TextPart(" ".join(answer(calls.get(p.tool_call_id), p) for p in returned))])
    question = _last_user_prompt(messages)
    low = question.lower()
    order = _ORDER_ID.search(question)
    if order:
        return ModelResponse(parts=[ToolCallPart("lookup_order", {"order_id": order.group(1)})])
    for topic in TOPICS:
        if topic in low:
            return ModelResponse(parts=[ToolCallPart("search_docs", {"query": topic})])
    return ModelResponse(parts=[TextPart("I can help with order status, returns, refunds, shipping and warranty. "
                                         "Could you tell me your 4-digit order number or what you need?")])


def answer(call: ToolCallPart | None, part: Any) -> str:
    args = call.args_as_dict() if call is not None else {}
    content = part.content if part.part_kind == "tool-return" else {"error": str(part.content)}
    if part.tool_name == "lookup_order":
        return order_answer(str(args.get("order_id", "")), content)
    return docs_answer(str(args.get("query", "that")), content)


def order_answer(order_id: str, result: Any) -> str:
    if isinstance(result, dict) and "error" in result:
        if "not found" in str(result["error"]):
            return f"I couldn't find order {order_id}. Could you double-check the order number?"
        return (f"I'm sorry, our order system is not responding right now, so I can't check order {order_id}. "
                "Please try again in a few minutes.")
    if not isinstance(result, dict) or "status" not in result:
        return (f"I'm sorry, I got an unreadable answer from our order system for order {order_id}. "
                "Please try again in a few minutes.")
    line = f"Your order {order_id} is {result['status']}"
    if result.get("carrier"):
        line += f" with {result['carrier']} (tracking {result['tracking']})"
    if result.get("eta"):
        line += f", expected {result['eta']}"
    return line + "."


def docs_answer(topic: str, result: Any) -> str:
    if not isinstance(result, str) or not result.strip():
        return (f"I'm sorry, I can't reach our help centre right now. For {topic} questions, please see "
                "nimbus.example/help.")
    # Retrieved text is data, not instructions: quote only its first sentence.
    first = result.strip().split(". ")[0].rstrip(".")
    return f"Here is our {topic} policy: {first}."


def _transient(part: Any) -> bool:
    """A failure worth one retry: a timeout or a 5xx from the backend, not "order not found"."""
    content = part.content if part.part_kind == "tool-return" else None
    error = str(content.get("error", "")) if isinstance(content, dict) else ""
    return bool(re.search(r"Timeout|\b5\d\d\b|unavailable", error))


def _last_user_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        for part in getattr(message, "parts", []):
            if part.part_kind == "user-prompt" and isinstance(part.content, str):
                return part.content
    return ""


tool_errors = Hooks()


@tool_errors.on.tool_execute_error
def report_tool_error(ctx: Any, *, call: ToolCallPart, tool_def: Any, args: Any, error: Exception) -> dict:
    """A failing tool becomes a result the model can read (and answer honestly about)."""
    return {"error": f"{type(error).__name__}: {error}"}


support_agent = Agent(FunctionModel(support_model), instructions=INSTRUCTIONS,
                      tools=[lookup_order, search_docs], capabilities=[tool_errors])


def handle(message: str) -> str:
    """khaos.yaml's entry: one customer message in, the agent's answer out."""
    return support_agent.run_sync(message).output
