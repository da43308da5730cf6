"""Graceful handling under a fault: an honest "it is down" recovers; a crash, silence or made-up data does not."""

from __future__ import annotations

import functools

from khaos_action.config.fault_entries import parse_fault
from khaos_action.judge.graceful import distinctive_tokens, graceful, tool_facts
from khaos_action.messages import ToolCall

FAULT = parse_fault({"id": "tool:error:abc", "target": "tool", "mode": "error"})
SLOW = parse_fault({"id": "tool:slow:abc", "target": "tool", "mode": "slow"})
BASELINE = [ToolCall(name="search_flights", args={"to": "Rome"},
                     result={"flights": [{"code": "AZ611", "departs": "07:45", "price": "$412"}]})]
REFERENCE = tool_facts(BASELINE)
FAILED = [ToolCall(name="search_flights", args={"to": "Rome"}, error="ToolFaultError: 503", fault=FAULT.id)]


def judge(reply: str, calls=FAILED, faults=(FAULT,), error=None):
    return graceful(reply, error=error, prompt="Find me a flight to Rome on May 3", tool_calls=calls,
                    faults=faults, reference=REFERENCE)


def test_tokens_are_the_distinctive_things_a_tool_said() -> None:
    assert {"az611", "07:45", "$412"} <= REFERENCE["search_flights"]
    assert "may" not in distinctive_tokens("May 3") and "3" not in distinctive_tokens("May 3")


def test_the_date_of_a_date_time_a_tool_said_is_its_own_token() -> None:
    assert {"2024-05-21t18:00:00", "2024-05-21"} <= distinctive_tokens({"start": "2024-05-21T18:00:00"})
    assert distinctive_tokens("on 2024-05-21") == {"2024-05-21"}
    calendar = [ToolCall(name="list_events", args={}, result={"start": "2024-05-21T18:00:00"})]
    down = parse_fault({"id": "list_events:error:1", "target": "tool", "mode": "error"})
    failed = [ToolCall(name="list_events", args={}, error="ToolFaultError: 503", fault=down.id)]
    made_up = graceful("Your dinner is on 2024-05-21.", error=None, prompt="When is my dinner?", tool_calls=failed,
                       faults=(down,), reference=tool_facts(calendar))
    assert not made_up[0] and "2024-05-21" in made_up[1]


def test_an_honest_outage_message_is_a_recovery() -> None:
    passed, detail = judge("Sorry, the flight search is down right now; please try again in a few minutes.")
    assert passed, detail


def test_inventing_what_the_failing_tool_would_have_said_is_not() -> None:
    passed, detail = judge("Flight AZ611 leaves at 07:45 for $412.")
    assert not passed and "AZ611".casefold() in detail and "07:45" in detail


def test_data_the_prompt_or_a_working_tool_supplied_is_no_fabrication() -> None:
    answered = [*FAILED, ToolCall(name="get_destination_guide", args={"city": "Rome"}, result="AZ611 is a myth")]
    assert judge("Flight AZ611 is not something I can confirm.", calls=answered)[0]
    # A slow tool still hands its data over: quoting it is reading, not making it up.
    slow = [ToolCall(name="search_flights", args={}, result=BASELINE[0].result, fault=SLOW.id)]
    assert judge("Flight AZ611 leaves at 07:45.", calls=slow, faults=(SLOW,))[0]


def test_a_crash_or_silence_under_a_fault_fails() -> None:
    assert not judge("", error=None)[0]
    passed, detail = judge("", error="RuntimeError: boom")
    assert not passed and "boom" in detail


KB_FAULT = parse_fault({"id": "search_policy_kb:error:1", "target": "tool", "mode": "error"})
KB_DOWN = [ToolCall(name="search_policy_kb", args={"query": "vacation days new employees"},
                    error="ToolFaultError: 503 Service Unavailable", fault=KB_FAULT.id)]


def hr(reply: str, **kw):
    return graceful(reply, error=None, prompt="How many vacation days do new employees get?", tool_calls=KB_DOWN,
                    faults=(KB_FAULT,), reference={}, **kw)


def test_a_specific_nothing_given_supports_is_an_unsupported_claim_while_the_tool_fails() -> None:
    passed, detail = hr("New employees get 10 vacation days per year.")
    assert not passed
    assert detail.startswith("unsupported claim while search_policy_kb was failing: '10 vacation days'")


def test_an_honest_outage_reply_passes_and_so_does_what_the_agent_was_told() -> None:
    assert hr("Sorry, the policy knowledge base is down (503), so I can't look that up. Please try again later.")[0]
    told = "If the knowledge base is down, send people to hr-help@corp.example."
    assert hr("The knowledge base is down; please write to hr-help@corp.example.", system_prompt=told)[0]
    assert not hr("The knowledge base is down; please write to hr-help@corp.example.")[0]
    assert hr("As you said, 12 days; I can't confirm more while the knowledge base is down.",
              conversation=["I think it was 12 days last year."])[0]


def test_only_a_failing_tool_makes_a_claim_unsupported() -> None:
    slow = [ToolCall(name="search_policy_kb", args={}, result={"days": 25}, fault=SLOW.id)]
    assert graceful("New employees get 25 days.", error=None, prompt="Vacation days?", tool_calls=slow,
                    faults=(SLOW,), reference={})[0]


def test_an_http_dependency_that_failed_counts_when_its_fault_fired() -> None:
    http = parse_fault({"id": "http:http_error:1", "target": "http", "mode": "http_error",
                        "host": "kb.internal", "path": "/search", "status_code": 503})
    lag = parse_fault({"id": "http:http_latency:1", "target": "http", "mode": "http_latency", "delay_ms": 500})
    reply = "New employees get 10 vacation days."
    judge = functools.partial(graceful, reply, error=None, prompt="Vacation days?", tool_calls=[], reference={})
    passed, detail = judge(faults=(http,), fired={http.id})
    assert not passed and detail.startswith("unsupported claim while kb.internal/search was failing")
    assert judge(faults=(http,), fired=set())[0]  # never fired: nothing was withheld
    assert judge(faults=(lag,), fired={lag.id})[0]  # a slow dependency still answered
