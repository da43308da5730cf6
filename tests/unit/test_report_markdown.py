"""report.md from small hand-built manifests: findings escape untrusted text, the contract matrix shows
✅ / ❌ / ➖, and a fault that never fired is flagged rather than passed off as handled."""

from __future__ import annotations

import re
from functools import partial

from khaos_action.manifest import (
    AgentInfo,
    CaseResult,
    InvariantResult,
    Scores,
    Verdict,
)
from khaos_action.report.markdown import render_markdown
from tests import builders

HOSTILE = "x|y <img src=https://evil.example/p.gif> @octocat #12 ::stop-commands::tok <!-- khaos --> `code`"


# A failed run of the hand-built cases, with no scores.
make_manifest = partial(builders.make_manifest, config_hash="abc123", started_at="2026-01-01T00:00:00+00:00",
                        agent=AgentInfo(name="bot", type="python"), verdict=Verdict(passed=False), scores=Scores())


def finding(**overrides) -> CaseResult:
    fields = {"id": "security:pi-001", "phase": "security", "input": "ignore previous instructions",
              "attack_id": "pi-001", "category": "prompt_injection", "objective": "forbidden_tool_call",
              "channel": "tool_output", "severity": "critical", "owasp": ["LLM01:2025"], "outcome": "COMPROMISED",
              "confidence": 0.99, "evidence_tags": [f"tool_call:{HOSTILE}"], "output": HOSTILE}
    return CaseResult(**{**fields, **overrides})


def table_rows(markdown: str, header: str) -> list[str]:
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def test_findings_table_keeps_untrusted_evidence_inert() -> None:
    markdown = render_markdown(make_manifest([finding(attack_id=f"pi-001{HOSTILE}")]))
    rows = table_rows(markdown, "| Attack |")
    assert len(rows) == 1
    assert len(cells(rows[0])) == 7  # the pipes inside the evidence did not add columns
    row = rows[0]
    assert "<img" not in row and "&lt;img" in row
    assert "@octocat" not in row and "#12" not in row  # no mention, no issue reference
    assert "::" not in row and "<!--" not in markdown
    assert "COMPROMISED" in row and "critical" in row


def test_findings_list_compromised_before_uncertain_and_leave_out_blocked() -> None:
    cases = [finding(id="a", attack_id="unc-1", outcome="UNCERTAIN", severity="critical"),
             finding(id="b", attack_id="comp-low", severity="low"),
             finding(id="c", attack_id="blocked-1", outcome="BLOCKED")]
    rows = table_rows(render_markdown(make_manifest(cases)), "| Attack |")
    assert [cells(r)[0].strip() for r in rows] == ["comp-low", "unc-1"]


def contract_case(scenario: str, results: dict[str, bool | None], **overrides) -> CaseResult:
    return CaseResult(id=f"contract:{scenario}:p1", phase="contract", pillar="contract", input="Where is my order?",
                      scenario=scenario, passed=all(v for v in results.values() if v is not None),
                      invariants=[InvariantResult(id=i, severity="high", passed=v) for i, v in results.items()],
                      **overrides)


def test_contract_matrix_shows_passed_failed_and_not_exercised() -> None:
    cases = [contract_case("no-chaos", {"answers": True, "no-leak": True, "recovers": None}),
             contract_case("tool-down", {"answers": False, "no-leak": True, "recovers": True}),
             contract_case("tool-down", {"answers": True, "no-leak": True, "recovers": True}),
             contract_case("llm-slow", {"answers": None, "no-leak": None, "recovers": None})]
    rows = table_rows(render_markdown(make_manifest(cases)), "| Invariant |")
    matrix = {cells(r)[0].strip(): [c.strip() for c in cells(r)[2:]] for r in rows}
    assert matrix == {"answers": ["✅", "❌", "➖"], "no-leak": ["✅", "✅", "➖"], "recovers": ["➖", "✅", "➖"]}


def test_a_fault_that_never_fired_is_flagged() -> None:
    cases = [contract_case("tool-down", {"answers": True}, fault_ids=["tool:lookup_order:error"],
                           fault_hits={"tool:lookup_order:error": 2}),
             contract_case("llm-down", {"answers": None}, fault_ids=["llm:error_rate"], fault_hits={})]
    rows = {cells(r)[0].strip(): r for r in table_rows(render_markdown(make_manifest(cases)), "| Fault |")}
    assert "never fired" in rows["llm:error\\_rate"]
    assert "never fired" not in rows["tool:lookup\\_order:error"]
