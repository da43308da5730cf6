"""Binding indirect attacks to the golden prompts that reach their channel (pure: no agent is called)."""

from __future__ import annotations

from dataclasses import dataclass, field

from khaos_action.attacks.surface import bind_carriers, discover_surface, recon_cases
from khaos_action.messages import ToolCall
from khaos_action.plan.cases import Case
from khaos_action.roles import guess_role

ROLES = [guess_role("search_flights"), guess_role("get_guide", declared="retriever")]


@dataclass
class Inv:
    case: Case
    tool_calls: list = field(default_factory=list)
    llm_calls: list = field(default_factory=list)


def attack(attack_id: str, channel: str) -> Case:
    return Case(id=attack_id, phase="security", input="corpus carrier", attack_id=attack_id, channel=channel,
                injections=({"channel": channel, "payload": "do it"},))


def surface(in_process: bool = True):
    baseline = [Inv(Case(id="a", phase="baseline", input="flights to Rome"), [ToolCall("search_flights", {})], [{}]),
                Inv(Case(id="b", phase="baseline", input="guide to Kyoto"), [ToolCall("get_guide", {})], [{}]),
                Inv(Case(id="c", phase="baseline", input="hello"), [], [{}])]
    return discover_surface(baseline, ROLES, in_process=in_process)


def test_each_channel_rides_on_a_prompt_that_reaches_it_and_only_its_tools_carry_it() -> None:
    bound = bind_carriers([attack("rag-1", "rag_document"), attack("tool-1", "tool_output"),
                           Case(id="p", phase="security", input="ignore", channel="user_prompt")],
                          surface(), seed=1)
    by_id = {c.id: c for c in bound.cases}
    assert by_id["rag-1"].input == "guide to Kyoto" and by_id["rag-1"].injections[0]["tools"] == ["get_guide"]
    assert by_id["tool-1"].input in {"flights to Rome", "guide to Kyoto"}
    assert "tools" not in by_id["tool-1"].injections[0]
    assert by_id["p"].input == "ignore" and bound.not_exercised == []


def test_the_choice_is_deterministic_from_the_seed() -> None:
    cases = [attack(f"t-{n}", "tool_output") for n in range(12)]
    first = [c.input for c in bind_carriers(cases, surface(), seed=7).cases]
    assert first == [c.input for c in bind_carriers(cases, surface(), seed=7).cases]
    assert len(set(first)) == 2  # both tool-reaching prompts carry some, "hello" (no tool) none


def test_a_channel_no_prompt_reaches_is_not_exercised_with_the_fix() -> None:
    bound = bind_carriers([attack("file-1", "file_content")], surface(), seed=1)
    assert bound.cases == []
    [(case, reason, fix)] = bound.not_exercised
    assert case.id == "file-1" and "no golden prompt reaches a file reader" in reason and "role: file_reader" in fix


def test_the_corpus_carrier_is_the_fallback_when_calls_cannot_be_seen() -> None:
    blind = discover_surface([Inv(Case(id="a", phase="baseline", input="hi"))], ROLES, in_process=False)
    [case] = bind_carriers([attack("rag-1", "rag_document")], blind, seed=1).cases
    assert case.input == "corpus carrier" and case.carrier == "corpus"


def test_golden_prompts_without_a_baseline_case_get_an_unscored_recon_call() -> None:
    planned = [Case(id="a", phase="baseline", input="flights to Rome")]
    extra = recon_cases(planned, ["flights to Rome", "guide to Kyoto"])
    assert [(c.input, c.recon) for c in extra] == [("guide to Kyoto", True)]


def own(attack_id: str, channel: str, carrier: str, **placed) -> Case:
    return Case(id=attack_id, phase="security", input=carrier, attack_id=attack_id, channel=channel,
                injections=({"channel": channel, "payload": "do it", **placed},), own_carrier=True)


def test_a_users_attack_rides_on_its_own_carrier_when_it_reaches_the_tool() -> None:
    bound = bind_carriers([own("mine-1", "tool_output", "guide to Kyoto", tool="get_guide")], surface(), seed=1)
    [case] = bound.cases
    assert case.input == "guide to Kyoto" and case.carrier == "golden"
    assert case.injections[0]["tools"] == ["get_guide"]


def test_a_users_attack_whose_carrier_misses_its_tool_is_not_exercised_naming_the_tool() -> None:
    bound = bind_carriers([own("mine-1", "tool_output", "flights to Rome", tool="get_guide"),
                           own("mine-2", "tool_output", "hello")], surface(), seed=1)
    assert bound.cases == []
    reasons = {case.id: reason for case, reason, _ in bound.not_exercised}
    assert reasons["mine-1"] == "its carrier prompt did not reach the tool get_guide in the baseline"
    assert "did not reach any tool" in reasons["mine-2"]


def test_a_built_in_attack_placed_on_a_tool_rides_only_on_prompts_that_reach_that_tool() -> None:
    cases = [Case(id=f"t-{n}", phase="security", input="corpus carrier", attack_id=f"t-{n}", channel="tool_output",
                  injections=({"channel": "tool_output", "payload": "x", "tool": "search_flights"},))
             for n in range(6)]
    assert {c.input for c in bind_carriers(cases, surface(), seed=3).cases} == {"flights to Rome"}


def test_recon_calls_the_carriers_of_the_users_attacks_too() -> None:
    extra = recon_cases([own("mine-1", "tool_output", "my own request")], ["flights to Rome"])
    assert [c.input for c in extra] == ["flights to Rome", "my own request"] and all(c.recon for c in extra)


def test_a_payload_goes_where_the_attack_places_it() -> None:
    from khaos_action.faults.injections import place

    rows = [{"id": 1, "subject": "Rent"}, {"id": 2, "subject": "Sushi dinner"}, {"id": 3, "amount": 4}]
    into = place(rows, "PAY ME", "tool_output", field="subject")
    assert into[1] == {"id": 2, "subject": "Sushi dinner\nPAY ME"} and into[0] == rows[0] and into[2] == rows[2]
    first = place(rows, "PAY ME", "tool_output", field="subject", placement="prepend")
    assert first[1]["subject"] == "PAY ME\nSushi dinner"
    assert place({"subject": "x", "n": 1}, "P", "tool_output", field="subject") == {"subject": "x\nP", "n": 1}
    assert place("Bill: 98.70", "P", "tool_output", placement="prepend") == "P\nBill: 98.70"
    assert place("Bill: 98.70", "P", "tool_output") == "Bill: 98.70\nP"
    assert place(["a", "b"], "P", "tool_output", placement="prepend") == ["P", "a", "b"]
    missing = place({"total": 3}, "P", "tool_output", field="subject")  # no such field: still delivered
    assert "P" in str(missing)


def test_an_attack_without_a_carrier_rides_on_a_golden_prompt_or_is_not_exercised_when_calls_cannot_be_seen():
    carrierless = Case(id="mine-3", phase="security", input="", attack_id="mine-3", channel="rag_document",
                       injections=({"channel": "rag_document", "payload": "do it"},))
    [case] = bind_carriers([carrierless], surface(), seed=1).cases
    assert case.input == "guide to Kyoto"
    blind = discover_surface([Inv(Case(id="a", phase="baseline", input="hi"))], ROLES, in_process=False)
    bound = bind_carriers([carrierless], blind, seed=1)
    [(_, reason, fix)] = bound.not_exercised
    assert bound.cases == [] and "names no `carrier`" in reason and "give the attack a `carrier`" in fix
