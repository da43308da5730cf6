"""The python transport against real agent functions: call styles, bad replies, threads, contexts, bad entries."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

import pytest

from khaos_action.config.models import AgentConfig
from khaos_action.engine.code_ref import load_callable
from khaos_action.engine.context import CaseContext, current_case
from khaos_action.engine.transport.base import AgentCallError
from khaos_action.engine.transport.factory import build_transport
from khaos_action.engine.transport.python import PythonTransport
from khaos_action.errors import AgentError
from khaos_action.messages import AgentRequest, AgentResponse

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"


def invoke(text: str, case_id: str = "case-1", history: list | None = None) -> AgentRequest:
    return AgentRequest(text, list(history or []), case_id, case_id=case_id)


def call(func: str, text: str = "hello", **payload) -> AgentResponse:
    async def go() -> AgentResponse:
        transport = PythonTransport(f"py_agents.py:{func}", base_dir=AGENTS)
        await transport.start()
        try:
            reply = await transport.send(invoke(text, **payload))
        finally:
            await transport.close()
        assert type(reply) is AgentResponse
        return reply

    return asyncio.run(go())


def test_str_to_str_agent_needs_no_boilerplate():
    assert call("echo").text == "echo: hello"
    assert call("plain").text == "HELLO"


def test_async_agent_is_awaited():
    assert call("async_echo").text == "async: hello"


def test_agent_taking_the_message_dict_gets_the_payload_and_may_return_tool_calls():
    reply = call("with_message", "1234")
    assert reply.text == "got 1234"
    assert reply.extra == {"session": "case-1"}
    assert reply.tool_calls == [{"name": "lookup_order", "args": {"order": "1234"}}]


def test_parameter_named_payload_gets_the_dict_with_history():
    history = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    reply = call("named_payload", "hi", history=history)
    assert reply.text == "hi" and reply.extra == {"turns": 2}


def test_history_and_session_id_keywords_are_filled():
    reply = call("async_with_history", "hi", history=[{"role": "user", "content": "a"}])
    assert reply.text == "hi after 1 turns in case-1"


def test_raising_agent_is_a_call_error_naming_the_exception():
    with pytest.raises(AgentCallError, match="ValueError: upstream exploded"):
        call("raises")


def test_none_bytes_and_objects_become_text_with_a_note():
    none = call("returns_none")
    assert none.text == "" and "agent returned None" in none.notes
    raw = call("returns_bytes")
    assert raw.text == "café \ufffd" and "decoded as UTF-8" in raw.notes[0]
    number = call("returns_object")
    assert number.text == "42" and "int" in number.notes[0]


def test_five_megabyte_reply_comes_back_whole():
    assert len(call("big").text) == 5_000_000  # capping is the engine's job


def test_sync_agent_runs_in_a_worker_thread_that_sees_the_case_context():
    async def go() -> list[AgentResponse]:
        transport = PythonTransport("py_agents.py:who_am_i", base_dir=AGENTS)
        await transport.start()

        async def one(case: str) -> AgentResponse:
            current_case.set(CaseContext(case_id=case, rng=random.Random(0)))
            return await transport.send(invoke("x", case))

        try:
            return await asyncio.gather(*(asyncio.create_task(one(f"case-{i}")) for i in range(4)))
        finally:
            await transport.close()

    replies = asyncio.run(go())
    assert [r.text for r in replies] == ["case-0", "case-1", "case-2", "case-3"]
    assert all(r.extra["thread"].startswith("khaos-agent") for r in replies)
    assert all(r.extra["thread"] != threading.main_thread().name for r in replies)


def test_sync_pool_has_concurrency_workers():
    # The agent waits on an 8-party barrier: it only answers if 8 calls run at once (the default executor has
    # cpu+4 workers, 6 on a 2-core runner, and would break the barrier after its 5 s timeout).
    async def go() -> list[str]:
        transport = PythonTransport("py_agents.py:meet", base_dir=AGENTS, concurrency=8)
        await transport.start()
        try:
            replies = await asyncio.gather(*(transport.send(invoke("x", f"c{i}")) for i in range(8)))
        finally:
            await transport.close()
        return [r.text for r in replies]

    assert asyncio.run(go()) == ["met"] * 8


def test_hanging_sync_agent_is_abandoned_by_the_engine_timeout_and_other_calls_go_on():
    hang = load_callable("py_agents.py:hang", AGENTS)

    async def go() -> str:
        transport = PythonTransport("py_agents.py:hang", base_dir=AGENTS)
        echo = PythonTransport("py_agents.py:echo", base_dir=AGENTS)
        await transport.start()
        await echo.start()
        try:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(transport.send(invoke("x")), 0.2)
            return (await asyncio.wait_for(echo.send(invoke("still here")), 2)).text
        finally:
            hang.__globals__["HANG"].set()  # let the abandoned thread finish
            await transport.close()
            await echo.close()

    assert asyncio.run(go()) == "echo: still here"


def test_reset_calls_the_configured_function_sync_or_async():
    resets = load_callable("py_agents.py:reset", AGENTS).__globals__["RESETS"]
    resets.clear()

    async def go() -> None:
        for spec in ("py_agents.py:reset", "py_agents.py:async_reset"):
            transport = PythonTransport("py_agents.py:echo", base_dir=AGENTS, reset=spec)
            assert transport.has_reset
            await transport.start()
            await transport.reset()
            await transport.close()

    asyncio.run(go())
    assert resets == ["sync", "async"]
    assert not PythonTransport("py_agents.py:echo", base_dir=AGENTS).has_reset


def test_file_entry_with_sibling_import_and_string_annotations():
    async def go() -> str:
        transport = build_transport(AgentConfig(type="python", entry="sibling_agent.py:handle"), base_dir=AGENTS)
        await transport.start()
        try:
            return (await transport.send(invoke("1234"))).text
        finally:
            await transport.close()

    assert asyncio.run(go()) == "order 1234 ships tomorrow"


def test_file_already_imported_by_the_agent_is_shared_not_reloaded():
    handle = load_callable("sibling_agent.py:handle", AGENTS)
    tool = load_callable("sibling_helper.py:lookup_order", AGENTS)
    # The tool the engine loads must be the very object the agent calls, or wrapping it would miss the agent.
    assert handle.__globals__["lookup_order"] is tool


def test_module_entry_with_relative_import():
    async def go() -> str:
        transport = PythonTransport("khaos_fixture_pkg.agent:handle", base_dir=AGENTS)
        await transport.start()
        try:
            return (await transport.send(invoke("hi"))).text
        finally:
            await transport.close()

    assert asyncio.run(go()) == "pkg: hi"


@pytest.mark.parametrize("entry, message", [
    ("missing_file.py:handle", r"file .*missing_file\.py does not exist"),
    ("py_agents.py:nope", r"has no attribute 'nope'.*echo"),
    ("py_agents.py:NOT_CALLABLE", "not a function"),
    ("broken_import.py:handle",
     r"could not be imported: ModuleNotFoundError.*definitely_not_installed_khaos_dep.*Hint: install"),
    ("no_such_pkg_khaos.agent:handle", r"'no_such_pkg_khaos.agent:handle' could not be imported.*Hint"),
    ("py_agents.py:two_required", "requires more than one argument"),
    ("py_agents.py:no_args", "takes no positional argument"),
    ("no-colon-here", "is not an entry"),
])
def test_bad_entry_is_an_agent_error_naming_it(entry, message):
    async def go() -> None:
        await PythonTransport(entry, base_dir=AGENTS).start()

    with pytest.raises(AgentError, match=message) as info:
        asyncio.run(go())
    assert info.value.exit_code == 3


def test_a_str_annotation_wins_over_a_payload_like_parameter_name(tmp_path):
    import asyncio

    from khaos_action.engine.transport.python import PythonTransport

    (tmp_path / "named.py").write_text(
        "from __future__ import annotations\n\ndef handle(message: str) -> str:\n    return message.upper()\n")
    transport = PythonTransport("named.py:handle", base_dir=tmp_path)

    async def go():
        await transport.start()
        reply = await transport.send(AgentRequest("hi", case_id="c"))
        await transport.close()
        return reply.text

    assert asyncio.run(go()) == "HI"
