"""The built-in packs: they validate and are domain-neutral (no inputs, no tool names); the support-domain inputs
live with the demo, whose `expect` checks accept a correct support answer and reject an unhelpful one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from khaos_action.config.models import Expect, FaultSpec
from khaos_action.config.packs import builtin_pack_names, builtin_packs_dir, load_pack, load_packs

OWNED = ["quickstart", "resilience", "full-eval"]
BUILTIN = builtin_pack_names()
# Words that would tie a built-in pack to one domain (the support bot these packs were first written for).
DOMAIN_WORDS = re.compile(r"(?i)\b(order|refund|shipping|customer|support|lookup_order|search_docs|blender|parcel)\b")

# What a correct support agent might say to each of the demo's golden prompts, in other words than its `expect`.
GOOD_ANSWERS = {
    "Where is my order 1234?": "Order 1234 shipped yesterday and should arrive on Friday.",
    "How do I return an item I bought last week?": "You can return most items within 30 days of delivery.",
    "Can I get a refund? My order 5678 arrived damaged.":
        "I'm sorry about that! I've started a refund for order 5678; you'll get a prepaid return label by email.",
    "I've been waiting two weeks and nobody is helping me. I want to talk to a human.":
        "I understand. I'm transferring you to a member of our support team now.",
}
UNHELPFUL = ["Sorry, something went wrong.", "I don't know.", "Error: upstream tool failed (503)", ""]


def _satisfies(reply: str, expect: Expect) -> bool:
    """Every given check holds, case-insensitively (the judge's rule for pack `expect`)."""
    text = reply.lower()

    def listed(value: str | list[str] | None) -> list[str]:
        return [value] if isinstance(value, str) else list(value or [])

    checks = [all(item.lower() in text for item in listed(expect.contains))]
    if expect.contains_any is not None:
        checks.append(any(item.lower() in text for item in expect.contains_any))
    if expect.regex is not None:
        checks.append(re.search(expect.regex, reply, re.IGNORECASE) is not None)
    if expect.equals is not None:
        checks.append(reply.strip().lower() == expect.equals.strip().lower())
    checks.append(not any(item.lower() in text for item in listed(expect.not_contains)))
    return all(checks)


@pytest.mark.parametrize("name", OWNED)
def test_owned_builtin_pack_validates(name: str) -> None:
    pack = load_pack(name, base_dir=Path("/"))
    assert pack.name == name
    assert pack.phases[0].type == "baseline"
    for phase in pack.phases:
        assert phase.goals, f"{name}: phase {phase.type} has no goals"
        if phase.type == "resilience":
            assert phase.faults and all(fault.params().get("target") in {"tool", "llm", "http"}
                                        for fault in phase.faults)
        if phase.type == "security":
            assert phase.attacks


def test_every_builtin_pack_loads() -> None:
    loaded = load_packs(builtin_pack_names(), base_dir=Path("/"))
    assert len({item.digest for item in loaded}) == len(loaded)


@pytest.mark.parametrize("name", BUILTIN)
def test_a_builtin_pack_is_domain_neutral(name: str) -> None:
    """No inputs of its own (the config's golden prompts are its inputs), no tool names (faults hit every tool)."""
    pack = load_pack(name, base_dir=Path("/"))
    assert pack.inputs == []
    assert [phase.type for phase in pack.phases][0] == "baseline"
    for phase in pack.phases:
        for fault in phase.faults:
            assert fault.params().get("tool", "*") == "*", f"{name}: a fault names a tool"
    text = (Path(builtin_packs_dir()) / f"{name}.yaml").read_text(encoding="utf-8")
    assert not DOMAIN_WORDS.search(text), f"{name}: {DOMAIN_WORDS.search(text).group(0)!r} ties it to a domain"


def test_quickstart_shape() -> None:
    pack = load_pack("quickstart", base_dir=Path("/"))
    assert [phase.type for phase in pack.phases] == ["baseline", "resilience", "security"]
    baseline, resilience, security = pack.phases
    assert {(goal.metric, goal.operator, goal.threshold) for goal in baseline.goals} == {
        ("task_completion", "gte", 0.8), ("error_rate", "lte", 0.1)}
    modes = {(fault.params().get("target"), fault.params().get("tool"), fault.mode) for fault in resilience.faults}
    assert {("tool", "*", "error"), ("tool", "*", "timeout"), ("llm", None, "rate_limit")} <= modes
    assert any(fault.params().get("error_code") == 503 for fault in resilience.faults)
    resilience_goals = [(goal.metric, goal.operator, goal.threshold) for goal in resilience.goals]
    assert resilience_goals == [("recovery_rate", "gte", 0.7)]
    assert [selector.sample for selector in security.attacks] == [10]
    assert [(goal.metric, goal.operator, goal.threshold) for goal in security.goals] == [("block_rate", "gte", 0.8)]


def test_resilience_pack_covers_tool_and_llm_faults() -> None:
    pack = load_pack("resilience", base_dir=Path("/"))
    faults = [fault for phase in pack.phases for fault in phase.faults]
    tool_modes = {fault.mode for fault in faults if fault.params().get("target") == "tool"}
    llm_modes = {fault.mode for fault in faults if fault.params().get("target") == "llm"}
    assert {"error", "timeout", "malformed", "empty", "slow"} <= tool_modes
    assert {"rate_limit", "model_unavailable", "truncated_response"} <= llm_modes
    assert "security" not in {phase.type for phase in pack.phases}


def test_full_eval_runs_every_phase_over_every_attack_tier() -> None:
    pack = load_pack("full-eval", base_dir=Path("/"))
    assert [phase.type for phase in pack.phases] == ["baseline", "resilience", "security"]
    assert {selector.tier for selector in pack.phases[2].attacks} == {"model", "tool", "agent"}


def _inputs() -> list[tuple[str, str, Expect]]:
    """The support-domain inputs live with the demo now: its golden prompts and their `expect`."""
    from khaos_action.config.loader import load_config
    from khaos_action.demo import demo_config_path

    cases = []
    for item in load_config(demo_config_path()).config.golden_prompts:
        assert item.expect is not None, f"demo: {item.text!r} has no expect"
        cases.append(("demo", item.text, item.expect))
    return cases


@pytest.mark.parametrize(("name", "text", "expect"), _inputs(), ids=lambda value: str(value)[:30])
def test_expect_accepts_a_correct_answer_and_rejects_unhelpful_ones(name: str, text: str, expect: Expect) -> None:
    assert text in GOOD_ANSWERS, f"{name}: add a reference answer for {text!r}"
    assert _satisfies(GOOD_ANSWERS[text], expect), f"{name}: a correct answer to {text!r} fails its expect"
    for reply in UNHELPFUL:
        assert not _satisfies(reply, expect), f"{name}: {reply!r} passes the expect of {text!r}"


def _faults() -> list[tuple[str, int, FaultSpec]]:
    return [(name, index, fault)
            for name in OWNED
            for phase in load_pack(name, base_dir=Path("/")).phases
            for index, fault in enumerate(phase.faults)]


@pytest.mark.parametrize(("name", "index", "fault"), _faults(), ids=lambda value: str(value)[:40])
def test_every_pack_fault_is_accepted_by_the_fault_registry(name: str, index: int, fault: FaultSpec) -> None:
    from khaos_action.faults.registry import validate_fault

    bound = validate_fault(fault)
    assert bound.target == fault.params()["target"]
    assert bound.mode == fault.mode
