"""One chat-completions request as the stand-in models see it, and the routing of a user's task to a lookup tool.

A request is OpenAI-shaped: `messages` (system, user, assistant with `tool_calls`, tool results) and `tools`
(function definitions whose descriptions the model reads). Both policies do the user's actual task the same way
(`route`); they differ in what they do with the rest of what they read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from reading import PII_REQUEST

FILE_NAME = re.compile(r"\b[\w.-]+\.(?:txt|md|csv|py|yaml|yml|json|log|svg|pdf|docx|xlsx|toml|cfg|ini)\b",
                       re.IGNORECASE)


@dataclass
class Request:
    system: str = ""
    user: str = ""
    """The latest user turn."""
    earlier_users: list[str] = field(default_factory=list)
    """Earlier user turns, oldest first."""
    history: list[str] = field(default_factory=list)
    """Assistant turns and injected history before the latest user turn (remembered exchanges land here)."""
    results: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, result text) for the calls made since the latest user turn."""
    called: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, JSON arguments) already called since the latest user turn."""
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    """name -> function definition (name, description, parameters)."""


def parse_request(body: dict[str, Any]) -> Request:
    messages = body.get("messages") or []
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    request = Request()
    names: dict[str, str] = {}
    for index, message in enumerate(messages):
        role, text = message.get("role"), content_text(message.get("content"))
        if role in ("system", "developer"):
            request.system += text
        elif role == "user":
            if index == last_user:
                request.user = text
            else:
                request.earlier_users.append(text)
        elif role == "assistant":
            if index < last_user:
                request.history.append(text)
            for call in message.get("tool_calls") or []:
                fn = call.get("function", {})
                names[call.get("id", "")] = fn.get("name", "")
                if index > last_user:
                    request.called.append((fn.get("name", ""), fn.get("arguments", "")))
        elif role == "tool" and index > last_user:
            request.results.append((names.get(message.get("tool_call_id", ""), "tool"), text))
    for tool in body.get("tools") or []:
        fn = tool.get("function", tool)
        if fn.get("name"):
            request.tools[fn["name"]] = fn
    return request


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def route(user: str, tools: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The read-only lookups the user's own request needs (what any helpful agent would call first)."""
    low = user.lower()
    calls: list[tuple[str, dict[str, Any]]] = []
    file_name = FILE_NAME.search(user)
    order = re.search(r"\border (?:id )?#?(\d{3,6})\b|\b(\d{4})\b", user)
    url = re.search(r"https?://\S+", user)
    if PII_REQUEST.search(user):
        calls.append(("find_customers", {"query": user[:200]}))
    elif file_name:
        calls.append(("read_file", {"path": file_name.group(0)}))
    elif re.search(r"documentation|docs\b|knowledge|policy|guide|faq|warranty", low) and not url:
        calls.append(("search_docs", {"query": user[:200]}))
    elif url and "fetch_url" in tools:
        calls.append(("fetch_url", {"url": url.group(0).rstrip("?.,")}))
    elif "remember" in low or "preferences" in low or "notes" in low or "planned" in low:
        calls.append(("recall", {"topic": user[:100]}))
    elif re.search(r"inbox|e-?mails?\b(?! my)", low) and "email my" not in low:
        calls.append(("check_inbox", {}))
    elif re.search(r"transactions|bills|invoice", low):
        calls.append(("get_transactions", {}))
    elif "inventory" in low or "sku" in low:
        sku = re.search(r"SKU-\d+", user)
        calls.append(("check_inventory", {"sku": sku.group(0) if sku else "unknown"}))
    elif re.search(r"\badd (\d+) and (\d+)", low):
        a, b = re.search(r"\badd (\d+) and (\d+)", low).groups()
        calls.append(("add", {"a": float(a), "b": float(b)}))
    elif re.search(r"\bagent\b|research|transcript|calendar|weather|issue|slack|channel|catch me up|review|"
                   r"customers say", low):
        calls.append(("ask_agent", {"agent": "research-agent", "question": user[:200]}))
    elif "deploy" in low:
        calls.append(("deployment_status", {"service": "web"}))
    elif order and re.search(r"order|refund|reconcil|status", low):
        calls.append(("lookup_order", {"order_id": order.group(1) or order.group(2)}))
    elif re.search(r"setup instructions|reconciliation|steps|workflow|summary", low):
        calls.append(("search_docs", {"query": user[:200]}))
    return [(name, args) for name, args in calls if name in tools]


def result_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
