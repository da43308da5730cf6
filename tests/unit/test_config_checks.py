"""Semantic checks of khaos.yaml: each problem found across entries, positioned at its line, with a fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from khaos_action.config.loader import load_config
from khaos_action.config.packs import load_pack_file
from khaos_action.preflight.config_checks import (
    check_semantics,
    declared_tools,
    semantic_warnings,
)

AGENT = """\
version: 1
agent:
  entry: agent.py:handle
  tools: [tools.py:lookup_order, pkg.api:Client.search_docs]
golden_prompts: ["Where is my order 1234?"]
"""

CONTRACT = """\
contract:
  invariants:
    - id: answers
      type: output_not_empty
      when: {when}
chaos_matrix:
{matrix}
"""


def _load(tmp_path: Path, text: str):
    path = tmp_path / "khaos.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def _line(text: str, fragment: str) -> int:
    """1-based line of the first line of `text` containing `fragment`."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


MATRIX_ERRORS = [
    # (chaos_matrix YAML, line fragment the error must point at, key path, words the message must contain)
    ("  - name: a\n    tool_faults: [{tool: lookup_order, mode: eror}]", "eror",
     "chaos_matrix[0].tool_faults[0].mode", ["Unknown fault mode 'eror'", "Did you mean `error`?"]),
    ("  - name: a\n    tool_faults:\n      - tool: lookup_order\n        mode: slow\n        delay: 300", "delay:",
     "chaos_matrix[0].tool_faults[0].delay", ["unknown parameter `delay`", "delay_ms"]),
    ("  - name: a\n    llm_faults:\n      - type: rate_limt", "rate_limt",
     "chaos_matrix[0].llm_faults[0].type", ["Unknown fault mode 'rate_limt'", "`rate_limit`"]),
    ("  - name: a\n    llm_faults: [{mode: http_latency}]", "http_latency",
     "chaos_matrix[0].llm_faults[0]", ["not a llm fault", "http"]),
    ("  - name: a\n  - name: b\n    http_faults:\n      - mode: http_error\n        status: 500", "status:",
     "chaos_matrix[1].http_faults[0].status", ["http fault 'http_error'", "unknown parameter `status`",
                                              "status_code"]),
    ("  - name: a\n    http_faults:\n      - mode: http_error\n        status_code: many", "status_code",
     "chaos_matrix[0].http_faults[0].status_code", ["`status_code`: Input should be a valid integer"]),
    ("  - name: a\n    context_attacks: [{mode: memory_poison}]", "memory_poison",
     "chaos_matrix[0].context_attacks[0].mode", ["Unknown fault mode", "`memory_poisoning`"]),
    ("  - name: a\n    tool_faults: [{tool: lookup_ordr, mode: error}]", "lookup_ordr",
     "chaos_matrix[0].tool_faults[0].tool", ["`lookup_ordr`, which the agent does not declare",
                                              "Did you mean `lookup_order`?"]),
    ("  - name: a\n    tool_faults: [{tool: send_email, mode: timeout}]", "send_email",
     "chaos_matrix[0].tool_faults[0].tool", ["`send_email`", "lookup_order, search_docs", "Add the tool"]),
]


@pytest.mark.parametrize(("matrix", "fragment", "key_path", "words"), MATRIX_ERRORS)
def test_bad_fault_entries_are_errors_at_their_line(tmp_path, matrix, fragment, key_path, words) -> None:
    text = AGENT + CONTRACT.format(when="always", matrix=matrix)
    issues = check_semantics(_load(tmp_path, text), [])
    assert len(issues) == 1, issues
    issue = issues[0]
    assert issue.key_path == key_path
    assert issue.line == _line(text, fragment)
    shown = str(issue)
    assert shown.startswith(f"{tmp_path / 'khaos.yaml'}:{issue.line}:")
    for word in words:
        assert word in shown


GOOD_MATRICES = [
    "  - name: a\n    tool_faults: [{tool: lookup_order, mode: error, error_code: 503}]",
    "  - name: a\n    tool_faults: [{tool: '*', mode: timeout}]",
    "  - name: a\n    tool_faults: [{tool: 'lookup_*', mode: call_failure}]",  # glob and Khaos alias
    "  - name: a\n    tool_faults: [{tool: search_docs, mode: slow, delay_ms: 5}]",  # dotted entry: method name
    "  - name: a\n    llm_faults: [{type: truncated_response, max_tokens: 4}]",
    "  - name: a\n    http_faults: [{mode: http_error, host: 'api.*'}]",
]


@pytest.mark.parametrize("matrix", GOOD_MATRICES)
def test_valid_fault_entries_pass(tmp_path, matrix) -> None:
    assert check_semantics(_load(tmp_path, AGENT + CONTRACT.format(when="always", matrix=matrix)), []) == []


WHEN_TABLE = [
    # (when, matrix, never true?)
    ("llm_faults_active", "  - name: a\n  - name: b\n    tool_faults: [{tool: '*', mode: error}]", True),
    ("llm_faults_active", "  - name: a\n  - name: b\n    llm_faults: [{mode: rate_limit}]", False),
    ("tool_faults_active", "  - name: a\n  - name: b\n    llm_faults: [{mode: rate_limit}]", True),
    ("tool_faults_active", "  - name: b\n    tool_faults: [{tool: '*', mode: error}]", False),
    ("any_chaos_active", "  - name: a\n  - name: b", True),
    ("any_chaos_active", "  - name: a\n  - name: b\n    http_faults: [{mode: connection_reset}]", False),
    ("no_chaos", ("  - name: b\n    tool_faults: [{tool: '*', mode: error}]\n  - name: c\n"
                 "    llm_faults: [{mode: rate_limit}]"), True),
    ("no_chaos", "  - name: a\n  - name: b\n    llm_faults: [{mode: rate_limit}]", False),
    ("always", "  - name: a", False),
]


@pytest.mark.parametrize(("when", "matrix", "never"), WHEN_TABLE)
def test_when_that_no_scenario_can_make_true_is_an_error(tmp_path, when, matrix, never) -> None:
    text = AGENT + CONTRACT.format(when=when, matrix=matrix)
    issues = check_semantics(_load(tmp_path, text), [])
    if not never:
        assert issues == []
        return
    assert [i.key_path for i in issues] == ["contract.invariants[0].when"]
    assert issues[0].line == _line(text, f"when: {when}")
    assert f"invariant `answers` has `when: {when}`" in issues[0].message
    assert "could never be checked" in issues[0].message


MUTATION_TABLE = [
    ("types: all", None, None),
    ("types: [typos, casing]", None, None),
    ("types: [typos, casng]", "mutation.types[1]", "Did you mean `casing`?"),
    ("types: [leetspeek]", "mutation.types[0]", "Did you mean `leetspeak`?"),
    ("types: []", "mutation.types", "mutation.types is empty"),
]


@pytest.mark.parametrize(("types", "key_path", "words"), MUTATION_TABLE)
def test_unknown_mutation_types_are_errors(tmp_path, types, key_path, words) -> None:
    text = AGENT + f"mutation:\n  {types}\n"
    issues = check_semantics(_load(tmp_path, text), [])
    if key_path is None:
        assert issues == []
        return
    assert [i.key_path for i in issues] == [key_path]
    assert issues[0].line == _line(text, types)
    assert words in str(issues[0])


def test_pack_phase_faults_are_checked_at_the_pack_files_line(tmp_path) -> None:
    pack_text = ("name: mine\nversion: '1'\ninputs: [{text: hi}]\nphases:\n  - type: resilience\n    faults:\n"
                 "      - {mode: rate_limit}\n      - {mode: slow, tool: lookup_order, delay_ms: 5}\n"
                 "      - {mode: latency_spike, tool: lookup_order, delay_s: 3}\n"
                 "      - {mode: error, tool: refund}\n")
    pack_path = tmp_path / "mine.yaml"
    pack_path.write_text(pack_text)
    pack = load_pack_file(pack_path)
    issues = check_semantics(_load(tmp_path, AGENT), [pack])
    assert [(i.file, i.key_path) for i in issues] == [
        (str(pack_path), "phases[0].faults[2].delay_s"), (str(pack_path), "phases[0].faults[3].tool")]
    assert issues[0].line == _line(pack_text, "delay_s")
    assert issues[1].line == _line(pack_text, "refund")


def test_tool_names_are_not_checked_when_the_agent_cannot_declare_them_statically(tmp_path) -> None:
    matrix = "  - name: a\n    tool_faults: [{tool: anything_at_all, mode: error}]"
    registry = AGENT.replace("  tools:", "  tool_registry: tools.py:REGISTRY\n  tools:")
    assert declared_tools(_load(tmp_path, registry).config) is None
    assert check_semantics(_load(tmp_path, registry + CONTRACT.format(when="always", matrix=matrix)), []) == []
    no_tools = AGENT.replace("  tools: [tools.py:lookup_order, pkg.api:Client.search_docs]\n", "")
    assert declared_tools(_load(tmp_path, no_tools).config) is None
    # Not an error here: the run itself reports tool faults that can reach no tool (engine/chaos/reach.py).
    assert check_semantics(_load(tmp_path, no_tools + CONTRACT.format(when="always", matrix=matrix)), []) == []


def test_several_problems_are_reported_together(tmp_path) -> None:
    text = AGENT + CONTRACT.format(
        when="llm_faults_active", matrix="  - name: a\n    tool_faults: [{tool: nope, mode: eror}]"
    ) + "mutation: {types: [typo]}\n"
    issues = check_semantics(_load(tmp_path, text), [])
    assert [i.key_path for i in issues] == [
        "chaos_matrix[0].tool_faults[0].mode", "chaos_matrix[0].tool_faults[0].tool", "contract.invariants[0].when",
        "mutation.types[0]"]


TOOL_INVARIANTS = [
    ("tool_called", "lookup_order", None),
    ("tool_not_called", "search_docs", None),
    ("tool_called", "lookup_ordr", "Did you mean `lookup_order`?"),
    ("tool_not_called", "delete_account", "Check the name"),
]


@pytest.mark.parametrize(("kind", "name", "hint"), TOOL_INVARIANTS)
def test_tool_invariants_about_undeclared_tools_are_warnings_not_errors(tmp_path, kind, name, hint) -> None:
    text = AGENT + (f"contract:\n  invariants:\n    - id: t\n      type: {kind}\n      name: {name}\n"
                    "chaos_matrix: [{name: a}]\n")
    loaded = _load(tmp_path, text)
    assert check_semantics(loaded, []) == []
    warnings = semantic_warnings(loaded)
    if hint is None:
        assert warnings == []
        return
    assert len(warnings) == 1
    assert warnings[0].key_path == "contract.invariants[0].name"
    assert warnings[0].line == _line(text, f"name: {name}")
    assert f"names tool `{name}`, which the agent does not declare" in str(warnings[0])
    assert hint in str(warnings[0])


def test_the_bundled_demo_config_is_semantically_clean() -> None:
    from khaos_action.config.packs import load_packs
    from khaos_action.demo import demo_config_path

    loaded = load_config(demo_config_path())
    packs = load_packs(loaded.config.packs, loaded.base_dir, origin=loaded)
    assert check_semantics(loaded, packs) == []
    assert semantic_warnings(loaded) == []


def test_expect_tools_must_be_tools_the_agent_declares(tmp_path):
    text = AGENT.replace('golden_prompts: ["Where is my order 1234?"]', """\
golden_prompts:
  - text: "Where is my order 1234?"
    expect: {tools_called: [lookup_order], tools_not_called: [refund_ordr]}
  - {text: "Search the docs", expect: {tools_called: [search_docs, "lookup_*"]}}""")
    loaded = _load(tmp_path, text)
    issues = check_semantics(loaded)
    assert len(issues) == 1
    (issue,) = issues
    assert issue.line == _line(text, "refund_ordr")
    assert ".".join(map(str, issue.path)) == "golden_prompts.0.expect.tools_not_called.0"
    assert "`refund_ordr`, which the agent does not declare" in issue.message
    assert issue.hint is None or "lookup_order" in issue.hint or "Use one of" in issue.hint
