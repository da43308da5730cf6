"""The python worker's start (engine/worker/child_setup.py): before an agent is called, its worker imports what
calling it takes, and the rest when the agent needs it. An agent with no tools, no HTTP client and no faults runs
without the config's models, the faults and the tool wrappers ever being imported; a tool the sdk decorates is still
wrapped and recorded at its first call, and a case with faults still gets them."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

from khaos_action.config.fault_entries import parse_fault
from khaos_action.config.models import AgentConfig
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.transport.base import AgentCallError
from khaos_action.engine.worker.pool import WorkerTransport
from khaos_action.messages import AgentRequest

HEAVY = ("pydantic", "khaos_action.config.models", "khaos_action.faults", "khaos_action.engine.chaos.tools",
         "khaos_action.engine.chaos.plan", "khaos_action.engine.chaos.intercept_httpx")

# Standard library only: its worker's zygote preloads no HTTP library (engine/transport/preload.py).
PLAIN = f'''
import sys

HEAVY = {HEAVY!r}


def plain(text: str) -> str:
    return " ".join(name for name in HEAVY if name in sys.modules) or "none"
'''

SDK = '''
def with_sdk_tool(text: str) -> str:
    from khaos_action.sdk import tool

    @tool(name="lookup")
    def lookup(order: str) -> str:
        return f"order {order} ships Monday"

    return lookup(text)
'''


def _call(tmp_path: Path, entry: str, faults: list[dict] | None = None) -> tuple[str, CaseContext]:
    """One case through a real worker; `faults`: plain entries, parsed as the planner does."""
    (tmp_path / "agent.py").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "sdk_agent.py").write_text(SDK, encoding="utf-8")

    async def go() -> tuple[str, CaseContext]:
        transport = WorkerTransport(AgentConfig(type="python", entry=entry), base_dir=tmp_path,
                                    environ=dict(os.environ), concurrency=1)
        await transport.start()
        ctx = CaseContext(case_id="c1", rng=random.Random(0), fault_specs=[parse_fault(f) for f in faults or ()])
        current_case.set(ctx)  # as the engine does around a case: the request names it
        try:
            async with transport.case_scope(ctx):
                try:
                    reply = await transport.send(AgentRequest("1234", [], "c1", case_id="c1"))
                except AgentCallError as exc:  # the case's error, as the engine records it
                    return str(exc), ctx
            return reply.text, ctx
        finally:
            await transport.close()

    return asyncio.run(go())


def test_an_agent_without_tools_http_or_faults_is_called_before_any_heavy_module_is_imported(tmp_path) -> None:
    text, _ = _call(tmp_path, "agent.py:plain")
    assert text == "none"


def test_an_sdk_tool_is_wrapped_at_its_first_call_and_recorded(tmp_path) -> None:
    text, ctx = _call(tmp_path, "sdk_agent.py:with_sdk_tool")
    assert text == "order 1234 ships Monday"
    assert [call.name for call in ctx.tool_calls] == ["lookup"]


def test_a_case_with_faults_gets_them_in_a_lean_worker(tmp_path) -> None:
    fault = {"id": "tool:error:1", "target": "tool", "mode": "error", "tool": "lookup", "probability": 1.0}
    text, ctx = _call(tmp_path, "sdk_agent.py:with_sdk_tool", faults=[fault])
    assert ctx.hits == {"tool:error:1": 1} and text == "agent raised ToolFaultError: Internal error", (text, ctx.hits)
