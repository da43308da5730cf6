"""What the engine sends an agent is an `AgentRequest`; its dicts are the ones the wire carried before it had a type,
and a request still written as a `TransportMessage` reads as the same request. A reply's payload reads as an
`AgentResponse`."""

from __future__ import annotations

from khaos_action.engine.textsafe import MAX_NOTES
from khaos_action.engine.transport.base import normalise_reply
from khaos_action.messages import CHECK_KEY, AgentRequest, AgentResponse, TransportMessage, as_request


def turn() -> AgentRequest:
    return AgentRequest("and now?", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
                        "case-1", case_id="case-1", phase="security", run_id="run-7")


def test_a_turn_shows_the_payload_and_metadata_a_transport_hands_on() -> None:
    request = turn()
    assert request.name == "invoke"
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


def test_a_transport_message_request_reads_as_the_request_it_describes() -> None:
    message = TransportMessage("invoke", {"text": "hi"}, {"case_id": "c9"})
    request = as_request(message)
    assert (request.text, request.history, request.session_id, request.case_id, request.checks) == (
        "hi", [], "", "c9", None)
    assert as_request(request) is request


def test_a_reply_payload_reads_as_the_response_fields_the_engine_knows() -> None:
    payload = normalise_reply({"output": "done", "notes": [f"n{i}" for i in range(MAX_NOTES + 5)], "error": "late",
                               "tool_calls": [{"name": "refund", "args": {"id": 3}}], "trace": "kept aside"})
    answer = AgentResponse.of(payload)
    assert (answer.text, answer.error, answer.notes_dropped) == ("done", "late", 5)
    assert answer.tool_calls == [{"name": "refund", "args": {"id": 3}}] and len(answer.notes) == MAX_NOTES
    assert AgentResponse.of({CHECK_KEY: {"r": {"passed": True}}}).checks == {"r": {"passed": True}}
    assert AgentResponse.of({}) == AgentResponse()
