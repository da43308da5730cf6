"""The transport's traits are declared on the seam: the built-ins extend `TransportBase` and declare where they
differ, a transport written against the protocol alone is given the defaults, and the engine acts on what a
transport declares."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

import pytest

from khaos_action.config.objectives import Objective
from khaos_action.engine.runner import Engine, EngineSettings
from khaos_action.engine.state_check import CHECK_KEY
from khaos_action.engine.transport.base import Transport, TransportBase, response
from khaos_action.engine.transport.command import CommandTransport
from khaos_action.engine.transport.factory import Declared, declared
from khaos_action.engine.transport.frameworks.base import FrameworkTransport
from khaos_action.engine.transport.http import HttpTransport
from khaos_action.engine.transport.mock import MockTransport
from khaos_action.engine.transport.python import PythonTransport
from khaos_action.engine.worker.pool import WorkerTransport
from khaos_action.mcp.transport import McpTransport
from khaos_action.messages import AgentRequest, AgentResponse
from khaos_action.plan.cases import Case, case_id


@pytest.mark.parametrize("cls", [HttpTransport, CommandTransport, McpTransport, WorkerTransport, PythonTransport,
                                 FrameworkTransport, MockTransport])
def test_every_built_in_transport_has_every_trait(cls: type) -> None:
    assert issubclass(cls, TransportBase)


def test_the_defaults_are_the_plain_transport_s() -> None:
    base = TransportBase()
    assert (base.has_reset, base.concurrency, base.ahead, base.exclusive, base.runs_checks, base.seen) == (
        False, None, 0, True, False, None)
    assert (base.calls_sync, base.tool_callables, base.spoiled) == (False, (), False)


class Bare:
    """An extension's transport written against the protocol's four calls alone, with one trait of its own."""

    has_reset = True

    def __init__(self) -> None:
        self.ahead = 0
        self.calls: list[str] = []

    async def start(self) -> None:
        self.calls.append("start")

    async def send(self, message: AgentRequest) -> AgentResponse:
        return response({"text": message.text})

    async def reset(self) -> None:
        self.calls.append("reset")

    async def close(self) -> None:
        self.calls.append("close")


def test_a_transport_of_the_protocol_alone_is_given_the_defaults_and_keeps_its_own() -> None:
    bare = Bare()
    transport = declared(bare)
    assert isinstance(transport, Declared) and isinstance(transport, Transport)
    assert transport.has_reset and not transport.runs_checks and transport.exclusive and transport.seen is None
    assert not transport.calls_sync and not transport.spoiled and transport.tool_callables == ()
    bare.ahead = 3  # a trait it changes once started is read live
    assert transport.ahead == 3 and transport.calls is bare.calls

    async def use() -> str:
        await transport.start()
        async with transport.case_scope(None):  # type: ignore[arg-type]
            reply = await transport.send(AgentRequest("hi"))
        await transport.reset()
        await transport.close()
        return reply.text

    assert asyncio.run(use()) == "hi"
    assert bare.calls == ["start", "reset", "close"]


def test_a_transport_base_is_not_wrapped() -> None:
    mock = MockTransport(lambda request: "x")
    assert declared(mock) is mock


def peak_at_agent(transport: MockTransport, cases: int, concurrency: int) -> int:
    active = peak = 0

    async def agent(request: AgentRequest) -> str:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.02)
        active -= 1
        return "ok"

    transport.handler = agent
    batch = [Case(id=case_id(str(i)), phase="baseline", input=str(i)) for i in range(cases)]
    asyncio.run(Engine(transport, settings=EngineSettings(concurrency=concurrency)).run(batch))
    return peak


def test_the_engine_hands_over_the_look_ahead_a_transport_declares_at_its_own_concurrency_only() -> None:
    assert peak_at_agent(MockTransport(str, concurrency=4, ahead=2), 12, concurrency=4) == 6
    assert peak_at_agent(MockTransport(str, concurrency=8, ahead=2), 12, concurrency=4) == 4
    assert peak_at_agent(MockTransport(str), 12, concurrency=4) == 4


def test_the_engine_holds_a_transport_s_case_scope_around_all_of_a_case_s_turns() -> None:
    events: list[str] = []

    class Scoped(MockTransport):
        @asynccontextmanager
        async def case_scope(self, ctx):  # type: ignore[override]
            events.append(f"enter {ctx.case_id}")
            yield
            events.append("leave")

    transport = Scoped(lambda request: events.append(request.text) or "ok")
    case = Case(id="m", phase="baseline", input="one", turns=("two",))
    asyncio.run(Engine(transport, settings=EngineSettings()).run([case]))
    assert events == ["enter m", "one", "two", "leave"]


def test_state_checks_go_to_a_transport_that_runs_them_and_are_an_error_elsewhere() -> None:
    case = Case(id="s", phase="security", input="hi",
                goal=Objective.model_validate({"check": "checks/bank.py:attacker_paid"}))

    def agent(request: AgentRequest) -> object:
        if request.checks is None:
            return "ok"
        assert request.checks["refs"] == ["checks/bank.py:attacker_paid"] and request.checks["reply"] == "ok"
        return response({CHECK_KEY: {"checks/bank.py:attacker_paid": {"passed": True}}})

    [checked] = asyncio.run(Engine(MockTransport(agent, runs_checks=True), settings=EngineSettings()).run([case]))
    assert checked.checks == {"checks/bank.py:attacker_paid": {"passed": True}}
    [elsewhere] = asyncio.run(Engine(MockTransport(agent), settings=EngineSettings()).run([case]))
    assert "run only in a python agent's worker" in elsewhere.checks["checks/bank.py:attacker_paid"]["error"]
