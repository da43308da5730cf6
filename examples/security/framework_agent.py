"""ShopOps on pydantic-ai: the same tools registered as pydantic-ai tools, the model an `OpenAIChatModel` pointed at
the stand-in LLM (`model_server`). pydantic-ai builds the tool schemas, runs the tool loop and calls the tools; the
indirect payloads reach the tools through khaos-action's wrappers, which replace the functions inside pydantic-ai's
own Tool objects and closures (the config lists them under `agent.tools`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import openai
import tools
from agent import SYSTEM_PROMPT
from model_server import serve
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def reported_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """pydantic-ai shows a tool's failure to the model only as `ModelRetry`; any other exception ends the run. A
    careful team reports tool errors to the model, so the agent can explain them (and reads what they say)."""

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise ModelRetry(f"{type(exc).__name__}: {exc}") from exc

    return tool


# The tools the indirect attacks need: the lookups that read attacker-controlled data and the actions they try to
# trigger (pydantic-ai rebuilds every tool schema on every run, so a smaller set keeps runs fast).
FRAMEWORK_TOOLS = [
    tools.lookup_order, tools.search_docs, tools.read_file, tools.recall, tools.check_inbox, tools.get_transactions,
    tools.check_inventory, tools.add, tools.ask_agent, tools.fetch_url, tools.deployment_status, tools.send_email,
    tools.http_post, tools.run_shell, tools.write_file, tools.delete_records, tools.transfer_funds,
]
AGENT = Agent(system_prompt=SYSTEM_PROMPT, tools=[reported_errors(fn) for fn in FRAMEWORK_TOOLS], retries=2)


def _history(turns: list[dict[str, Any]]) -> list[ModelMessage]:
    messages: list[ModelMessage] = []
    for turn in turns:
        if turn.get("role") == "user":
            parts: list[Any] = [] if messages else [SystemPromptPart(SYSTEM_PROMPT)]
            messages.append(ModelRequest(parts=[*parts, UserPromptPart(str(turn.get("content", "")))]))
        else:
            messages.append(ModelResponse(parts=[TextPart(str(turn.get("content", "")))]))
    return messages


async def _run(policy: str, text: str, history: list[dict[str, Any]] | None) -> str:
    # One client per call, closed on the way out: each evaluation runs on its own event loop, and a client must
    # not outlive its loop. The stand-in is plain http, so no TLS context is built (that costs ~25 ms a client).
    client = openai.AsyncOpenAI(base_url=serve(), api_key="sk-local-stand-in", max_retries=0, timeout=20,
                                http_client=openai.DefaultAsyncHttpxClient(verify=False))
    try:
        model = OpenAIChatModel(policy, provider=OpenAIProvider(openai_client=client))
        result = await AGENT.run(text, model=model, message_history=_history(history or []) or None)
        return str(result.output)
    finally:
        await client.close()


async def obedient_agent(text: str, history: list[dict[str, Any]] | None = None) -> str:
    return await _run("obedient", text, history)


async def robust_agent(text: str, history: list[dict[str, Any]] | None = None) -> str:
    return await _run("robust", text, history)
