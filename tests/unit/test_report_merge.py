"""merge: shards of one run combine into the run; anything else is refused (merging shard files, their digests:
tests/integration/test_report_merge_files.py)."""

from __future__ import annotations

import re

import pytest

from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.manifest import (
    BudgetState,
    ManifestError,
    Telemetry,
)
from khaos_action.report.headline import headline, headline_markdown
from khaos_action.report.markdown import render_markdown
from khaos_action.report.merge import merge
from tests.builders import contract_case, make_case, make_shard


def test_merged_shards_rescore_from_the_union_of_cases():
    merged = merge([make_shard("r-1", [contract_case("a", True)], shard="1/2"),
                    make_shard("r-2", [contract_case("b", False)], shard="2/2")], gates=Gates(), weights=Weights())
    assert sorted(c.id for c in merged.cases) == ["a", "b"]
    assert merged.scores.contract == 50.0
    assert not merged.verdict.passed and "critical invariant failed" in merged.verdict.reasons[0]
    assert merged.shard is None and merged.warnings == []


def test_a_missing_shard_fails_the_merged_run_and_says_which():
    merged = merge([make_shard("r-1", [contract_case("a", True)], shard="1/3"),
                    make_shard("r-3", [contract_case("c", True)], shard="3/3")], gates=Gates(), weights=Weights())
    assert not merged.verdict.passed and merged.verdict.exit_code == 1
    finding = merged.verdict.findings[0]
    assert finding.gate == "incomplete" and finding.text.startswith("the run is incomplete: shard 2/3 missing;")
    assert merged.verdict.partial == "merged 2 of 3 shards; missing: 2/3"
    assert headline(merged).startswith("FAILED (partial run: merged 2 of 3 shards; missing: 2/3): the run is "
                                       "incomplete")


def test_allow_partial_decides_on_the_shards_given_and_every_headline_says_so():
    merged = merge([make_shard("r-1", [contract_case("a", True)], shard="1/2")], gates=Gates(), weights=Weights(),
                   allow_partial=True)
    assert merged.verdict.passed and merged.verdict.findings == []
    assert merged.verdict.partial == "merged 1 of 2 shards; missing: 2/2 (--allow-partial)"
    assert headline(merged).startswith("PASSED (partial run: merged 1 of 2 shards; missing: 2/2 (--allow-partial))")
    assert "**partial run**: merged 1 of 2 shards" in headline_markdown(merged)
    assert "partial run" in render_markdown(merged).split("\n\n")[1]


def test_expect_names_the_split_even_when_the_last_shards_are_missing():
    merged = merge([make_shard("r-1", [contract_case("a", True)], shard="1/2"),
                    make_shard("r-2", [contract_case("b", True)], shard="2/2")], gates=Gates(), weights=Weights(),
                   expect=2)
    assert merged.verdict.passed and merged.verdict.partial is None
    with pytest.raises(ManifestError, match=r"r-1 is shard 1/2, but the run was split into 3 shards \(--expect\)"):
        merge([make_shard("r-1", [contract_case("a", True)], shard="1/2")], gates=Gates(), weights=Weights(), expect=3)


@pytest.mark.parametrize("shards, expect, error", [
    (["1/2", "1/2"], None, "r-0 and r-1 are both shard 1/2: give each shard once"),
    (["1/2", "2/3"], None, "r-1 is shard 2/3, but the run was split into 2 shards"),
    (["1/2", None], None, "r-1 is not a shard"),
    ([None, "2/2"], None, "r-0 is not a shard"),
    ([None], 1, "r-0 is not a shard"),
    (["2/1"], None, "`shard` is '2/1', not I/N"),
    (["x/2"], None, "`shard` is 'x/2', not I/N"),
])
def test_shards_of_no_one_split_are_refused_naming_the_manifest(shards, expect, error):
    manifests = [make_shard(f"r-{i}", [], shard=s) for i, s in enumerate(shards)]
    with pytest.raises(ManifestError, match=re.escape(error)):
        merge(manifests, gates=Gates(), weights=Weights(), expect=expect)


def test_runs_that_are_not_shards_merge_without_a_split():
    merged = merge([make_shard("r-1", [contract_case("a", True)]), make_shard("r-2", [contract_case("b", True)])],
                   gates=Gates(), weights=Weights())
    assert merged.verdict.passed and merged.verdict.partial is None


def test_shards_of_different_configs_or_seeds_are_refused():
    with pytest.raises(ManifestError, match="one config and seed"):
        merge([make_shard("r-1", [], config_hash="h1"), make_shard("r-2", [], config_hash="h2")],
              gates=Gates(), weights=Weights())


def test_the_same_case_twice_is_refused():
    with pytest.raises(ManifestError, match="more than one manifest"):
        merge([make_shard("r-1", [contract_case("a", True)]), make_shard("r-2", [contract_case("a", True)])],
              gates=Gates(), weights=Weights())


def test_an_outcome_this_version_cannot_score_is_refused_by_name():
    odd = make_case("atk-1", phase="security", pillar="security", passed=None, outcome="PARTIAL")
    known = make_case("atk-2", phase="security", pillar="security", passed=True, outcome="BLOCKED")
    with pytest.raises(ManifestError, match=r"case atk-1 has the outcome 'PARTIAL', which this khaos-action cannot "
                                            r"score \(it knows BLOCKED, COMPROMISED, UNCERTAIN\)"):
        merge([make_shard("r-1", [known, odd])], gates=Gates(), weights=Weights())
    assert merge([make_shard("r-1", [known])], gates=Gates(), weights=Weights()).verdict.passed


def test_coverage_executed_counts_add_up_across_shards():
    def table(executed):
        row = {"selected": 4, "executed": executed, "not_executed": 3 - executed, "not_applicable": 1}
        return {"totals": row, "categories": {"jailbreak": row},
                "owasp": {"ASI01": row, "ASI02": dict(row, executed=0)},
                "not_applicable_reasons": {}, "uncovered_owasp": []}

    merged = merge([make_shard("r-1", [contract_case("a", True)], shard="1/2", coverage=table(1)),
                    make_shard("r-2", [contract_case("b", True)], shard="2/2", coverage=table(2))],
                   gates=Gates(), weights=Weights())
    assert merged.coverage["totals"] == {"selected": 4, "executed": 3, "not_applicable": 1, "not_executed": 0}
    assert merged.coverage["uncovered_owasp"] == ["ASI02"]


def test_not_run_cases_and_llm_usage_are_merged_from_every_shard():
    def shard(name, cid, calls, not_run):
        case = contract_case(cid, True)
        case.llm_calls = [{"source": "live", "model": "m", "provider": "openai", "latency_ms": 10.0,
                           "input_tokens": 5, "output_tokens": 7, "cost_usd": 0.001}] * calls
        m = make_shard(name, [case], shard=f"{name[-1]}/2")
        m.not_run = not_run
        m.telemetry = Telemetry(budget=BudgetState(exhausted=None))
        return m

    merged = merge([shard("r-1", "a", 2, ["x"]), shard("r-2", "b", 3, ["y"])], gates=Gates(), weights=Weights())
    assert merged.not_run == ["x", "y"] and merged.counts.not_run == 2
    assert merged.telemetry is not None and merged.telemetry.calls == 5
    assert merged.telemetry.shard_budgets is not None and len(merged.telemetry.shard_budgets) == 2
