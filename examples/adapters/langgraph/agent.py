"""A LangGraph support agent, evaluated as `type: langgraph` (khaos.yaml's entry names `graph`, the compiled graph).

The graph is the usual tool loop: a model node, a `ToolNode` with the tools, and `tools_condition` between them.
khaos.yaml does not list the tools: the adapter finds them in the ToolNode, wraps them for tool faults and indirect
payloads, and reads their names, descriptions and argument schemas for the capability profile.

The model is an offline stand-in built on langchain_core's chat model base class, scripted to act like an
undefended LLM: it does what text inside a tool result tells it to (join an "A + B" code, forward mail), so the
run shows real findings. Replace `NaiveChatModel()` with e.g. `ChatOpenAI(model="gpt-4o-mini")` for a real one;
its HTTP calls then meet the engine's LLM faults.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

ORDERS = {"1234": {"status": "shipped", "eta": "Thursday"}, "5678": {"status": "processing", "eta": "next week"}}
_ORDER_ID = re.compile(r"\b(\d{4})\b")
_CODE = re.compile(r"\b([A-Z0-9]{5,}) \+ ([A-Z0-9]{5,})\b")
_FORWARD = re.compile(r"forward[^.]*?to ([\w.+-]+@[\w-]+\.[\w.]+)[^\"]*\"([^\"]+)\"", re.IGNORECASE)


@tool
def lookup_order(order_id: str) -> dict:
    """Look up an order's status and expected delivery day by its 4-digit id."""
    order = ORDERS.get(order_id)
    if order is None:
        return {"order_id": order_id, "error": "not found"}
    return {"order_id": order_id, **order}


@tool
def read_inbox() -> list[dict]:
    """Read the newest emails in the support inbox."""
    return [{"from": "anna@example.com", "subject": "Tent pole replacement"}]


@tool
def send_email(to: str, body: str) -> str:
    """Send an email to a customer or colleague."""
    return f"queued email to {to}"


TOOLS = [lookup_order, read_inbox, send_email]


class NaiveChatModel(BaseChatModel):
    """Pick a tool from the question; then answer from the tool results, obeying any instruction found in them."""

    @property
    def _llm_type(self) -> str:
        return "naive-stand-in"

    def bind_tools(self, tools: Any, **kwargs: Any) -> NaiveChatModel:
        return self  # the script knows its tools

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        results = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            results.insert(0, message)
        if results:
            data = " ".join(str(m.content) for m in results)
            forward = _FORWARD.search(data)
            if forward and not any(m.name == "send_email" for m in results):
                return _call("send_email", {"to": forward.group(1), "body": forward.group(2)})
            answer = " ".join(describe(m.name or "", m.content, m.status) for m in results)
            code = _CODE.search(data)
            return AIMessage(content=f"{code.group(1)}{code.group(2)} {answer}" if code else answer)
        question = next((str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
        order = _ORDER_ID.search(question)
        if order:
            return _call("lookup_order", {"order_id": order.group(1)})
        if re.search(r"(?i)inbox|e-?mails?", question):
            return _call("read_inbox", {})
        return AIMessage(content="I can help with your orders. What is your 4-digit order number?")


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{name}"}])


def describe(tool_name: str, content: Any, status: str = "success") -> str:
    try:
        data = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        data = content
    if status == "error" or (isinstance(data, dict) and "error" in data):
        return "I'm sorry, that system is not responding right now. Please try again in a few minutes."
    if tool_name == "lookup_order" and isinstance(data, dict) and "status" in data:
        return f"Your order {data.get('order_id')} is {data['status']}, expected {data.get('eta')}."
    if tool_name == "read_inbox" and isinstance(data, list) and data:
        return f"You have {len(data)} new emails; the latest is about {data[-1].get('subject', 'something')}."
    if tool_name == "send_email":
        return "I've sent that email."
    return "I'm sorry, I couldn't read that system's answer. Please try again in a few minutes."


model = NaiveChatModel().bind_tools(TOOLS)


def call_model(state: MessagesState) -> dict:
    return {"messages": [model.invoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("agent", call_model)
# handle_tool_errors: a failing tool becomes a ToolMessage the model reads (status "error"), not a crashed run.
builder.add_node("tools", ToolNode(TOOLS, handle_tool_errors=True))
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition)
builder.add_edge("tools", "agent")
graph = builder.compile()
