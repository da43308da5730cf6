"""Consequential calls in the baseline: which calls are listed, and how they are shown on one console line."""

from __future__ import annotations

from khaos_action.manifest import CaseResult
from khaos_action.score.actions import consequential_calls, console_lines, one_line

ROLES = {"issue_refund": "payment", "send_sms": "messaging", "lookup": "retriever", "drop_table": "destructive"}


def case(cid, calls, **kw):
    return CaseResult(**{"id": cid, "phase": "baseline", "input": f"prompt {cid}", "tool_calls": calls, **kw})


def test_only_consequential_roles_of_first_fault_free_baseline_runs_are_listed():
    cases = [
        case("a", [{"name": "lookup", "args": {}}, {"name": "issue_refund", "args": {"amount": 40}}]),
        case("b", [{"name": "send_sms", "args": {"to": "+44 7700 900123"}, "error": "boom"}]),
        case("a", [{"name": "issue_refund", "args": {"amount": 40}}], repeat=1),         # a repeat: once is enough
        case("c", [{"name": "drop_table", "args": {}}], fault_ids=["f"]),                  # under a fault
        case("d", [{"name": "drop_table", "args": {}}], phase="security"),                 # an attack case
        case("e", [{"name": "unknown_tool", "args": {}}]),                                 # no role known
    ]
    found = consequential_calls(cases, ROLES)
    assert [(c.case_id, c.tool, c.role, c.args, c.failed) for c in found] == [
        ("a", "issue_refund", "payment", "amount=40", False),
        ("b", "send_sms", "messaging", "to='+44 7700 900123'", True)]
    lines = console_lines(found)
    assert lines[1] == "    'prompt a': issue_refund [payment](amount=40)"
    assert lines[2].endswith("(raised)")


def test_arguments_stay_on_one_line_and_are_cut():
    text = one_line({"body": "line one\n::error::injected\r\n" + "x" * 400})
    assert "\n" not in text and "\r" not in text and len(text) == 160 and text.endswith("…")
