"""The transport seam is typed both ways: the engine sends an agent an `AgentRequest` (its dicts are the ones the
wire carried before it had a type) and a transport returns an `AgentResponse`, built from the reply dict
`normalise_reply` makes; a transport that returns anything else fails the call, saying what to return."""

from __future__ import annotations

import asyncio

import pytest

from khaos_action.engine.runner import Engine, EngineSettings
from khaos_action.engine.textsafe import MAX_NOTES
from khaos_action.engine.transport.base import answered, normalise_reply, response
from khaos_action.engine.transport.mock import MockTransport
from khaos_action.messages import CHECK_KEY, AgentRequest, AgentResponse
from khaos_action.plan.cases import Case


def turn() -> AgentRequest:
    return AgentRequest("and now?", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
                        "case-1", case_id="case-1", phase="security", run_id="run-7")


def test_a_turn_shows_the_payload_and_metadata_a_transport_hands_on() -> None:
    request = turn()
    assert request.payload == {"text": "and now?", "history": request.history, "session_id": "case-1"}
    assert list(request.payload) == ["text", "history", "session_id"]
    assert request.metadata == {"case_id": "case-1", "phase": "security", "run_id": "run-7"}


def test_a_payload_and_its_metadata_read_back_into_the_same_request() -> None:
    request = turn()
    assert AgentRequest.of(request.payload, request.metadata) == request


def test_keys_a_context_fault_adds_and_a_state_check_request_survive_the_round_trip() -> None:
    checks = {"refs": ["checks/bank.py:paid"], "case": {"id": "c"}, "reply": "", "tool_calls": []}
    payload = {"text": "", "history": [], "session_id": "c", "messages": [{"role": "system", "content": "x"}],
               CHECK_KEY: checks}
    request = AgentRequest.of(payload, {"case_id": "c"})
    assert request.checks == checks and request.extra == {"messages": [{"role": "system", "content": "x"}]}
    assert request.payload == payload


def test_a_reply_payload_reads_as_the_response_fields_the_engine_knows() -> None:
    payload = normalise_reply({"output": "done", "notes": [f"n{i}" for i in range(MAX_NOTES + 5)], "error": "late",
                               "tool_calls": [{"name": "refund", "args": {"id": 3}}], "trace": "kept aside"})
    answer = response(payload)
    assert type(answer) is AgentResponse and answer == AgentResponse.of(payload)
    assert (answer.text, answer.error, answer.notes_dropped) == ("done", "late", 5)
    assert answer.tool_calls == [{"name": "refund", "args": {"id": 3}}] and len(answer.notes) == MAX_NOTES
    assert answer.extra == {"trace": "kept aside"}  # the agent's own keys, carried beside the ones the engine reads
    assert response({CHECK_KEY: {"r": {"passed": True}}}).checks == {"r": {"passed": True}}
    assert response({}) == AgentResponse()


def test_a_transport_s_answer_is_an_agent_response_and_anything_else_is_a_type_error() -> None:
    answer = AgentResponse(text="hi")
    assert answered(answer) is answer
    for wrong in ({"text": "hi"}, "hi", None):
        with pytest.raises(TypeError, match=f"returned {type(wrong).__name__}, not an AgentResponse: a transport "
                                            r"returns `response\(normalise_reply\(value\)\)`"):
            answered(wrong)


def test_a_transport_answering_with_a_dict_fails_that_call_and_the_run_goes_on() -> None:
    class DictTransport(MockTransport):
        async def send(self, message: AgentRequest) -> AgentResponse:
            reply = await super().send(message)
            return reply.extra if message.text == "old" else reply  # type: ignore[return-value]

    transport = DictTransport(lambda request: {"text": f"echo {request.text}", "shape": "dict"})
    old, new = asyncio.run(Engine(transport, settings=EngineSettings()).run(
        [Case(id="o", phase="baseline", input="old"), Case(id="n", phase="baseline", input="new")]))
    assert old.error == ("TypeError: the transport's send returned dict, not an AgentResponse: a transport returns "
                         "`response(normalise_reply(value))` (khaos_action.plugins)") and old.replies == []
    assert new.error is None and new.replies == ["echo new"]
