"""Which tool call carries which indirect payload, and how the payload rides in a real result."""

from __future__ import annotations

from khaos_action.faults.injections import embed, injections_for

RAG = {"channel": "rag_document", "payload": "P-rag"}
MEMORY = {"channel": "memory", "payload": "P-mem"}
OUTPUT = {"channel": "tool_output", "payload": "P-out"}


def test_rag_payloads_go_to_retrieval_tools_when_the_agent_has_one():
    tools = ["lookup_order", "search_docs"]
    assert injections_for("search_docs", [RAG], tools) == [RAG]
    assert injections_for("lookup_order", [RAG], tools) == []


def test_rag_payloads_fall_back_to_any_tool_when_none_looks_like_retrieval():
    assert injections_for("lookup_order", [RAG], ["lookup_order"]) == [RAG]


def test_memory_payloads_only_ride_on_a_memory_tool():
    tools = ["lookup_order", "recall_notes"]
    assert injections_for("recall_notes", [MEMORY], tools) == [MEMORY]
    assert injections_for("lookup_order", [MEMORY], tools) == []
    assert injections_for("lookup_order", [MEMORY], ["lookup_order"]) == []


def test_tool_output_goes_to_any_tool_and_a_named_tool_only_to_that_one():
    assert injections_for("anything", [OUTPUT], []) == [OUTPUT]
    named = {**OUTPUT, "tool": "lookup_order"}
    assert injections_for("search_docs", [named], []) == []
    assert injections_for("lookup_order", [named], []) == [named]


def test_embedding_keeps_the_result_type():
    assert embed("order shipped", "P", "tool_output") == "order shipped\nP"
    assert embed({"status": "ok"}, "P", "memory") == {"status": "ok", "memory": "P"}
    assert embed({"documents": ["a"]}, "P", "rag_document") == {"documents": ["a", "P"]}
    assert embed([{"title": "t", "content": "c"}], "P", "rag_document")[-1] == {"title": "", "content": "P"}
    assert embed(None, "P") == "P"
