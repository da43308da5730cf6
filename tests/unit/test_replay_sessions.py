"""The replay sessions JSONL file: documented format, per-line problems, unknown tools, recorded tool responses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from khaos_action.errors import ConfigError
from khaos_action.replay.sessions import RecordedTools, ToolResponse, load_sessions, parse_sessions

GOOD = {
    "id": "refund-double-charge",
    "input": "I was charged twice for order 7781, fix it",
    "history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello! How can I help?"}],
    "tool_responses": [
        {"tool": "lookup_order", "args": {"order_id": "7781"}, "response": {"charges": [19.99, 19.99]}},
        {"tool": "refund", "error": "HTTP 503: payments service unavailable"},
    ],
    "expect": {"invariants": [{"id": "mentions-refund", "type": "contains", "value": "refund"}],
               "output": "I've refunded the duplicate charge on order 7781.", "similarity": 0.8},
}
TOOLS = {"lookup_order", "refund"}


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "replay.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_documented_example_loads(tmp_path):
    sessions, problems = load_sessions(_write(tmp_path, [json.dumps(GOOD)]), known_tools=TOOLS)
    assert problems == []
    (s,) = sessions
    assert s.id == "refund-double-charge" and s.history[1].role == "assistant"
    assert s.tool_responses[0].response == {"charges": [19.99, 19.99]}
    assert s.tool_responses[1].error.startswith("HTTP 503")
    assert s.expect.invariants[0].type == "contains" and s.expect.similarity == 0.8


def test_a_malformed_line_is_reported_with_its_number_and_the_others_are_kept(tmp_path):
    second = dict(GOOD, id="second")
    path = _write(tmp_path, [json.dumps(GOOD), '{"id": "broken", "input": ', "", json.dumps(second)])
    sessions, problems = load_sessions(path, known_tools=TOOLS)
    assert [s.id for s in sessions] == ["refund-double-charge", "second"]
    (problem,) = problems
    assert problem.line == 2 and "not valid JSON" in problem.message
    assert str(problem).startswith("line 2:")


@pytest.mark.parametrize(
    "session, fragment",
    [
        (dict(GOOD, colour="blue"), "colour: Extra inputs are not permitted"),
        ({k: v for k, v in GOOD.items() if k != "input"}, "input: Field required"),
        (dict(GOOD, expect={}), "expect needs `invariants` or `output`"),
        (dict(GOOD, expect={"output": "x", "similarity": 1.5}), "expect.similarity"),
        (dict(GOOD, history=[{"role": "robot", "content": "x"}]), "history.0.role"),
        (dict(GOOD, expect={"invariants": [{"id": "r", "type": "regex"}]}), "needs `pattern`"),
        (dict(GOOD, expect={"invariants": [{"id": "a", "type": "completes"}, {"id": "a", "type": "completes"}]}),
         "duplicate invariant id 'a'"),
    ],
)
def test_invalid_sessions_say_what_is_wrong(session, fragment):
    sessions, problems = parse_sessions([json.dumps(session)], known_tools=TOOLS)
    assert sessions == []
    (problem,) = problems
    assert fragment in problem.message
    assert problem.session_id == session.get("id")


def test_non_object_lines_are_problems():
    _, problems = parse_sessions(["[1, 2]", '"text"'], known_tools=None)
    assert [(p.line, p.message) for p in problems] == [(1, "expected a JSON object, got list"),
                                                       (2, "expected a JSON object, got str")]


def test_a_session_naming_an_unknown_tool_names_it_and_the_known_ones():
    bad = dict(GOOD, id="bad", tool_responses=[{"tool": "delete_account", "response": "ok"}])
    sessions, problems = parse_sessions([json.dumps(GOOD), json.dumps(bad)], known_tools=TOOLS)
    assert [s.id for s in sessions] == ["refund-double-charge"]
    (problem,) = problems
    assert problem.line == 2 and "'delete_account'" in problem.message
    assert "known tools: lookup_order, refund" in problem.message


def test_tool_called_invariants_are_checked_against_the_agent_tools_too():
    bad = dict(GOOD, tool_responses=[], expect={"invariants": [{"id": "t", "type": "tool_called", "name": "escalate"}]})
    _, problems = parse_sessions([json.dumps(bad)], known_tools=set())
    assert "'escalate'" in problems[0].message and "none (agent.tools is empty)" in problems[0].message


def test_tool_check_is_skipped_when_the_tools_are_not_known():
    bad = dict(GOOD, tool_responses=[{"tool": "anything", "response": 1}])
    sessions, problems = parse_sessions([json.dumps(bad)], known_tools=None)
    assert len(sessions) == 1 and problems == []


def test_duplicate_ids_are_reported_on_the_later_line():
    sessions, problems = parse_sessions([json.dumps(GOOD), json.dumps(GOOD)], known_tools=TOOLS)
    assert len(sessions) == 1
    assert problems[0].line == 2 and "first used on line 1" in problems[0].message


def test_missing_file_is_a_config_error_that_says_how_to_create_one(tmp_path):
    with pytest.raises(ConfigError, match="replay export"):
        load_sessions(tmp_path / "nope.jsonl", known_tools=None)


def test_non_utf8_file_is_a_config_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="UTF-8"):
        load_sessions(path, known_tools=None)


def test_recorded_tools_are_served_in_order_and_respect_args():
    tools = RecordedTools([
        ToolResponse(tool="lookup_order", args={"order_id": "1"}, response="first"),
        ToolResponse(tool="lookup_order", response="any"),
        ToolResponse(tool="lookup_order", args={"order_id": "2"}, response="second"),
    ])
    assert tools.take("lookup_order", {"order_id": "2"}).response == "any"  # the args-free one comes first
    assert tools.take("lookup_order", {"order_id": "2"}).response == "second"
    assert tools.take("lookup_order", {"order_id": "3"}) is None
    assert tools.take("refund", {}) is None
    assert [r.response for r in tools.unused()] == ["first"]
