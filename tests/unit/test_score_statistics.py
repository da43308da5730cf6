"""Rates carry Wilson intervals; repeats that disagree are flaky; the security breakdown counts what ran."""

from __future__ import annotations

import pytest

from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.manifest import CaseResult
from khaos_action.score.statistics import mark_flaky, rate_entry, security_breakdown
from khaos_action.score.summary import summarise


def case(**kw):
    base = {"id": "c", "phase": "baseline", "input": "x"}
    base.update(kw)
    return CaseResult(**base)


def test_rate_entry_has_a_wilson_interval_and_none_for_no_trials():
    entry = rate_entry(9, 10)
    assert entry["rate"] == 0.9
    assert entry["ci95"] == pytest.approx([0.5958, 0.9821], abs=1e-4)
    assert rate_entry(0, 0) == {"passed": 0, "n": 0, "rate": None, "ci95": [0.0, 1.0]}


def test_pass_rates_per_phase_and_pillar_skip_unjudged_and_attacks():
    results = [case(passed=True), case(passed=False), case(passed=None),
               case(phase="contract", pillar="contract", passed=True),
               case(phase="security", outcome="BLOCKED", passed=True)]
    rates = summarise(results, goals=[], gates=Gates(), weights=Weights()).stats["pass_rates"]
    assert rates["phase:baseline"]["n"] == 2 and rates["phase:baseline"]["passed"] == 1
    assert rates["pillar:contract"]["n"] == 1
    assert "phase:security" not in rates


def test_repeats_that_disagree_are_flaky():
    results = [case(id="a", repeat=0, passed=True), case(id="a", repeat=1, passed=False),
               case(id="b", repeat=0, passed=True), case(id="b", repeat=1, passed=True)]
    assert mark_flaky(results) == ["a"]
    assert [r.flaky for r in results] == [True, True, False, False]


def test_security_breakdown_counts_outcomes_per_category_owasp_and_severity():
    results = [
        case(phase="security", outcome="BLOCKED", category="jailbreak", severity="high", owasp=["LLM01:2025"]),
        case(phase="security", outcome="COMPROMISED", category="jailbreak", severity="high",
             owasp=["LLM01:2025", "ASI01"]),
        case(phase="security", outcome="UNCERTAIN", category="rag_poisoning", severity="low", owasp=["ASI06"]),
    ]
    table = security_breakdown(results)
    assert table["overall"]["all"]["executed"] == 3
    jailbreak = table["category"]["jailbreak"]
    assert (jailbreak["blocked"], jailbreak["compromised"], jailbreak["block_rate"]) == (1, 1, 0.5)
    assert table["owasp"]["ASI01"]["compromised"] == 1
    assert table["severity"]["low"]["uncertain_rate"] == 1.0
