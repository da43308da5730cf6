"""A LangGraph ReAct agent (model node ⇄ ToolNode) with two LangChain tools, driven by a tiny deterministic chat model.

`ScriptedSupportModel` is a real LangChain `BaseChatModel`: it reads the conversation, asks for a tool call, and
writes the answer from the `ToolMessage` it gets back, retrying a 503 / timeout once like a real model would. The
tools are `StructuredTool`s built from the plain functions in langgraph_tools.py; khaos-action's tool patcher reaches
those functions inside the tool objects. `ToolNode(handle_tool_errors=True)` turns a failing tool into an error
`ToolMessage`, so a fault changes the answer instead of crashing the graph. Replace the model with
`ChatOpenAI(...)` and the graph is a real agent; khaos.yaml stays the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph_tools import lookup_order, search_docs

SYSTEM_PROMPT = "You are Nimbus Outdoor's support assistant. Answer only from tool results; never guess order details."
TOPICS = ("return", "refund", "ship", "warranty")
_ORDER_ID = re.compile(r"\b(\d{4})\b")


class ScriptedSupportModel(BaseChatModel):
    """A deterministic stand-in for a tool-calling chat model (offline, no key)."""

    @property
    def _llm_type(self) -> str:
        return "scripted-support"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedSupportModel:
        return self  # it already knows its two tools

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.reply(messages))])

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        turn = _current_turn(messages)
        calls = {c["id"]: c for m in turn if isinstance(m, AIMessage) for c in m.tool_calls}
        latest = _trailing_tool_messages(turn)
        if latest:
            retry = [calls[m.tool_call_id] for m in latest if _transient(m)]
            if retry and len(calls) < 2:  # "503 ... try again": one more try, then answer honestly
                return _call(retry[0]["name"], retry[0]["args"], len(calls))
            return AIMessage(content=" ".join(answer(calls[m.tool_call_id], m) for m in latest))
        question = str(turn[0].content) if turn else ""
        order = _ORDER_ID.search(question)
        if order:
            return _call("lookup_order", {"order_id": order.group(1)}, 0)
        for topic in TOPICS:
            if topic in question.lower():
                return _call("search_docs", {"query": topic}, 0)
        return AIMessage(content="I can help with order status, returns, refunds, shipping and warranty. "
                                 "Could you tell me your 4-digit order number or what you need?")


def _call(name: str, args: dict[str, Any], n: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{name}_{n}"}])


def _current_turn(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Messages from the latest customer message on."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return messages[index:]
    return []


def _trailing_tool_messages(turn: list[BaseMessage]) -> list[ToolMessage]:
    """The tool results the model has not answered yet (everything after its last tool call)."""
    out: list[ToolMessage] = []
    for message in reversed(turn):
        if not isinstance(message, ToolMessage):
            break
        out.insert(0, message)
    return out


def _transient(message: ToolMessage) -> bool:
    return message.status == "error" and bool(re.search(r"Timeout|\b5\d\d\b|unavailable", str(message.content)))


def _content(message: ToolMessage) -> Any:
    """The tool's result: JSON parsed back when it is JSON, an `{"error"}` dict when the tool failed."""
    if message.status == "error":
        return {"error": str(message.content)}
    try:
        return json.loads(message.content) if isinstance(message.content, str) else message.content
    except ValueError:
        return message.content


def answer(call: dict[str, Any], message: ToolMessage) -> str:
    result = _content(message)
    if call["name"] == "lookup_order":
        return order_answer(str(call["args"].get("order_id", "")), result)
    return docs_answer(str(call["args"].get("query", "that")), result)


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
    first = result.strip().split(". ")[0].rstrip(".")  # retrieved text is data: quote only its first sentence
    return f"Here is our {topic} policy: {first}."


TOOLS = [StructuredTool.from_function(lookup_order), StructuredTool.from_function(search_docs)]
model = ScriptedSupportModel().bind_tools(TOOLS)


def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
    return {"messages": [model.invoke([SystemMessage(content=SYSTEM_PROMPT), *state["messages"]])]}


# The ReAct loop: the model answers or asks for tools; tool results go back to the model.
builder = StateGraph(MessagesState)
builder.add_node("agent", call_model)
builder.add_node("tools", ToolNode(TOOLS, handle_tool_errors=True))
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition)
builder.add_edge("tools", "agent")
graph = builder.compile()


def handle(message: str) -> str:
    """khaos.yaml's entry: one customer message in, the graph's final answer out."""
    state = graph.invoke({"messages": [HumanMessage(content=message)]})
    return str(state["messages"][-1].content)
