"""Capability inference, attack selection and coverage."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from khaos_action.attacks.capabilities import CapabilityProfile, flags_from_tool, infer_capabilities
from khaos_action.attacks.coverage import coverage_table
from khaos_action.attacks.select import select_attacks
from khaos_action.config.corpus import Corpus, corpus_digest, load_corpus
from khaos_action.config.models import AgentConfig, AttackSelector, Pack
from khaos_action.config.selectors import SelectorError
from khaos_action.errors import ConfigError
from khaos_action.tool_info import ToolInfo, tool_info_from_callable

CORPUS = load_corpus()
PACKS = Path(__file__).resolve().parents[2] / "packs"
NOTHING = CapabilityProfile()
EVERYTHING = CapabilityProfile(**{flag: True for flag in CapabilityProfile.model_fields})


def agent(**capabilities) -> AgentConfig:
    return AgentConfig(entry="agent.py:handle", capabilities=capabilities)


def sel(**fields) -> AttackSelector:
    return AttackSelector(**fields)


# ---- capabilities ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        (ToolInfo("send_email"), {"has_network_access"}),
        (ToolInfo("http_post"), {"has_network_access"}),
        (ToolInfo("fetch_url"), {"has_network_access"}),
        (ToolInfo("read_file"), {"has_file_access"}),
        (ToolInfo("get_status", parameters=("path",)), set()),  # `path` is a weak word: only counts in the name
        (ToolInfo("write_report"), {"has_file_access"}),
        (ToolInfo("load", parameters=("filename",)), {"has_file_access"}),
        (ToolInfo("search_docs"), {"has_rag"}),
        (ToolInfo("lookup", description="Retrieves passages from the vector store."), {"has_rag"}),
        (ToolInfo("remember_fact"), {"has_memory"}),
        (ToolInfo("run_python"), {"has_code_execution"}),
        (ToolInfo("runShellCommand"), {"has_code_execution"}),
        (ToolInfo("mcp__github__list_issues"), {"has_mcp"}),
        (ToolInfo("lookup_order", "Fetch the order status for a customer email.", ("order_id", "email")), set()),
        (ToolInfo("apply_promo", parameters=("promo_code",)), set()),
    ],
)
def test_tool_names_docstrings_and_parameters_map_to_flags(tool, expected):
    assert flags_from_tool(tool) == {"has_tools"} | expected


def test_tool_info_from_callable_reads_name_docstring_and_parameters():
    def read_file(path: str, encoding: str = "utf-8") -> str:
        """Read a file from the workspace."""
        return path

    info = tool_info_from_callable(read_file)
    assert info == ToolInfo("read_file", "Read a file from the workspace.", ("path", "encoding"))

    class FrameworkTool:  # LangChain/pydantic-ai style tool object
        name = "kb_search"
        description = "Search the knowledge base."
        args = {"query": {"type": "string"}}

    assert tool_info_from_callable(FrameworkTool()) == ToolInfo("kb_search", "Search the knowledge base.", ("query",))


def test_defaults_are_all_false_without_evidence():
    profile, sources = infer_capabilities(agent=agent(), tools=[], metadata=None)
    assert profile == NOTHING
    assert set(sources.values()) == {"default"}


def test_tools_beat_defaults_and_name_their_source():
    profile, sources = infer_capabilities(agent=agent(), tools=[ToolInfo("lookup_order"), ToolInfo("search_docs")])
    assert profile.has_tools and profile.has_rag and not profile.has_memory
    assert sources["has_tools"] == "tool:lookup_order"
    assert sources["has_rag"] == "tool:search_docs"
    assert sources["has_memory"] == "default"


def test_metadata_beats_tools():
    profile, sources = infer_capabilities(
        agent=agent(), tools=[ToolInfo("search_docs")],
        metadata={"capabilities": {"has_rag": False, "memory": True}},
    )
    assert not profile.has_rag and profile.has_memory and profile.has_tools
    assert sources["has_rag"] == sources["has_memory"] == "metadata"
    assert sources["has_tools"] == "tool:search_docs"
    listed, _ = infer_capabilities(agent=agent(), tools=[], metadata={"capabilities": ["multi_turn", "has_mcp"]})
    assert listed.has_multi_turn and listed.has_mcp and not listed.has_tools


def test_khaosagent_record_without_capabilities_is_no_evidence():
    from khaos_action.sdk import khaosagent

    @khaosagent(name="bot")
    def handle(message):
        return message

    profile, sources = infer_capabilities(agent=agent(), tools=[ToolInfo("search_docs")],
                                          metadata=handle.__khaos_agent__)
    assert profile.has_rag and sources["has_rag"] == "tool:search_docs"

    @khaosagent(name="bot", capabilities={"has_rag": False, "has_multi_turn": True})
    def declared(message):
        return message

    profile, sources = infer_capabilities(agent=agent(), tools=[ToolInfo("search_docs")],
                                          metadata=declared.__khaos_agent__)
    assert not profile.has_rag and profile.has_multi_turn and sources["has_multi_turn"] == "metadata"


def test_config_beats_metadata_and_tools():
    profile, sources = infer_capabilities(
        agent=agent(has_rag=True, has_tools=False), tools=[ToolInfo("search_docs")],
        metadata={"has_rag": False},
    )
    assert profile.has_rag and not profile.has_tools
    assert sources["has_rag"] == sources["has_tools"] == "config"


def test_unknown_metadata_capability_lists_the_valid_ones():
    with pytest.raises(ConfigError, match="Expected one of: has_tools"):
        infer_capabilities(agent=agent(), tools=[], metadata={"capabilities": {"telepathy": True}})


# ---- selection ---------------------------------------------------------------------------------

def test_selection_by_tier_category_id_severity_and_owasp_prefix():
    tier = select_attacks(CORPUS, [sel(tier="tool")], EVERYTHING, seed=1)
    assert tier.applicable and all(a.tier == "tool" for a in tier.applicable)
    cat = select_attacks(CORPUS, [sel(category="rag_poisoning")], EVERYTHING, seed=1)
    assert {a.category for a in cat.applicable} == {"rag_poisoning"} and len(cat.applicable) >= 10
    one = select_attacks(CORPUS, [sel(id="pi-001-ignore-previous")], NOTHING, seed=1)
    assert one.ids == ["pi-001-ignore-previous"]
    asi = select_attacks(CORPUS, [sel(owasp="ASI0")], EVERYTHING, seed=1)
    assert asi.applicable and all(any(o.startswith("ASI0") for o in a.owasp) for a in asi.applicable)
    llm07 = select_attacks(CORPUS, [sel(owasp="llm07")], EVERYTHING, seed=1)
    assert llm07.applicable and all("LLM07:2025" in a.owasp for a in llm07.applicable)
    both = select_attacks(CORPUS, [sel(tier="model", severity="critical")], EVERYTHING, seed=1)
    assert all(a.tier == "model" and a.severity == "critical" for a in both.applicable)


def test_selectors_union_without_duplicates_in_id_order():
    union = select_attacks(CORPUS, [sel(category="jailbreak"), sel(tier="model"), sel(owasp="LLM01")],
                           EVERYTHING, seed=3)
    assert union.ids == sorted(set(union.ids))
    assert {a.id for a in CORPUS.attacks if a.category == "jailbreak"} <= set(union.ids)


def test_whole_corpus_security_pack_selects_everything_for_a_fully_capable_agent():
    pack = Pack.model_validate(yaml.safe_load((PACKS / "security.yaml").read_text(encoding="utf-8")))
    selectors = next(p for p in pack.phases if p.type == "security").attacks
    full = select_attacks(CORPUS, selectors, EVERYTHING, seed=42)
    assert len(full.applicable) == len(CORPUS) and not full.not_applicable


def test_missing_capability_is_not_applicable_with_a_reason():
    result = select_attacks(CORPUS, [sel(category="rag_poisoning"), sel(category="jailbreak")], NOTHING, seed=1)
    assert all(a.category == "jailbreak" for a in result.applicable)
    reasons = dict((a.id, r) for a, r in result.not_applicable)
    assert reasons["rag-001-policy-doc"] == "agent has no RAG (has_rag=false)"
    assert "agent has no tools (has_tools=false)" in reasons["rag-006-tool-call"]
    assert [a.id for a, _ in result.not_applicable] == sorted(reasons)
    partial = select_attacks(CORPUS, [sel(category="rag_poisoning")], CapabilityProfile(has_rag=True), seed=1)
    assert dict((a.id, r) for a, r in partial.not_applicable) == {
        "rag-006-tool-call": "agent has no tools (has_tools=false)"}


def test_sample_is_seeded_deterministic_and_stable_under_corpus_reordering():
    selector = [sel(sample=10)]
    first = select_attacks(CORPUS, selector, EVERYTHING, seed=42)
    assert len(first.applicable) == 10
    assert select_attacks(CORPUS, selector, EVERYTHING, seed=42).ids == first.ids
    shuffled = list(CORPUS.attacks)
    random.Random(5).shuffle(shuffled)
    reordered = Corpus(version=CORPUS.version, attacks=tuple(shuffled), digest=CORPUS.digest,
                       by_id={a.id: a for a in shuffled})
    assert select_attacks(reordered, selector, EVERYTHING, seed=42).ids == first.ids
    assert select_attacks(CORPUS, selector, EVERYTHING, seed=43).ids != first.ids


def test_sample_draws_only_from_applicable_attacks():
    result = select_attacks(CORPUS, [sel(sample=10)], NOTHING, seed=42)
    assert len(result.applicable) == 10
    assert all(not a.requires for a in result.applicable)
    assert result.not_applicable  # the skipped ones are still reported


def test_adding_an_attack_moves_at_most_one_sampled_attack():
    base = select_attacks(CORPUS, [sel(sample=20)], EVERYTHING, seed=9).ids
    extra = CORPUS.attacks[0].model_copy(update={"id": "zz-new-attack"})
    attacks = tuple(sorted((*CORPUS.attacks, extra), key=lambda a: a.id))
    bigger = Corpus(version="x", attacks=attacks, digest=corpus_digest("x", attacks), by_id={a.id: a for a in attacks})
    grown = select_attacks(bigger, [sel(sample=20)], EVERYTHING, seed=9).ids
    assert len(set(base) - set(grown)) <= 1


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (sel(category="prompt_injections"), "Expected one of: code_execution"),
        (sel(id="pi-999-nope"), "ids like it: pi-001"),
        (sel(owasp="OWASP"), "no attack is mapped"),
    ],
)
def test_a_selector_naming_nothing_is_a_config_error(selector, message):
    with pytest.raises(SelectorError, match=message):
        select_attacks(CORPUS, [selector], EVERYTHING, seed=1)


# ---- coverage ----------------------------------------------------------------------------------

def test_coverage_counts_executed_unrun_and_not_applicable_per_category_and_owasp():
    selection = select_attacks(CORPUS, [sel(category="rag_poisoning"), sel(category="jailbreak")],
                               CapabilityProfile(has_rag=True), seed=1)
    executed = [a.id for a in selection.applicable if a.category == "jailbreak"][:-1]
    table = coverage_table(selection, executed)
    jb = table["categories"]["jailbreak"]
    assert jb == {"selected": 20, "executed": 19, "not_executed": 1, "not_applicable": 0}
    rag = table["categories"]["rag_poisoning"]
    assert rag["not_applicable"] == 1 and rag["executed"] == 0 and rag["selected"] == 15
    assert table["totals"]["selected"] == 35 and table["totals"]["executed"] == 19
    assert table["owasp"]["LLM08:2025"]["not_applicable"] == 1
    assert table["owasp"]["LLM01:2025"]["executed"] == 19
    assert table["not_applicable_reasons"] == {"agent has no tools (has_tools=false)": 1}
    assert {"ASI05", "ASI07", "LLM08:2025"} <= set(table["uncovered_owasp"])  # selected, none executed
    assert "LLM01:2025" not in table["uncovered_owasp"] and "ASI01" not in table["uncovered_owasp"]


def test_coverage_of_an_empty_selection_marks_everything_uncovered():
    from khaos_action.plan.scheduler import Selection

    table = coverage_table(Selection(), [])
    assert table["totals"] == {"selected": 0, "executed": 0, "not_executed": 0, "not_applicable": 0}
    assert len(table["uncovered_owasp"]) == 20 and table["categories"] == {}


def test_attacks_are_immutable_so_later_stages_cannot_edit_the_corpus():
    with pytest.raises(ValidationError):
        CORPUS.attacks[0].id = "changed"  # type: ignore[misc]
