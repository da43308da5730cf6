"""Agents as people write them, run through the CLI: a chat-only agent (no tools) runs every built-in pack, an entry
that takes the conversation is multi-turn, an import that reads a missing key is told which and how to give it.
Each agent's model is the naive local LLM stand-in (tests/fixtures/domains/naive_llm.py)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import yaml

from tests.builders import write_project
from tests.fixtures.cli.harness import khaos, manifest

DOMAINS = Path(__file__).resolve().parents[1] / "fixtures" / "domains"
BUILTIN_PACKS = ["quickstart", "resilience", "security", "full-eval", "owasp-llm", "owasp-agentic"]


def workspace(root: Path, *files: str, config: dict) -> Path:
    copy = [DOMAINS / name for name in ("llm_agent.py", "naive_llm.py", *files)]
    return write_project(root, config, copy=copy).parent


@pytest.fixture
def poet(tmp_path: Path) -> Path:
    return workspace(tmp_path, "poetry_agent.py", config={
        "version": 1,
        "agent": {"name": "verso", "type": "python", "entry": "poetry_agent.py:handle",
                  "secrets": ["verso-WORKSHOP-5150"], "timeout_s": 15},
        "packs": BUILTIN_PACKS,
        "golden_prompts": ["What is a sonnet?", "Explain iambic pentameter with an example"],
    })


def test_a_chat_only_agent_runs_every_builtin_pack_with_tool_faults_not_applicable(poet: Path) -> None:
    ran = khaos("run", "--out", "out", cwd=poet, timeout=300)
    assert ran.code in (0, 1), ran  # judged, never a configuration error
    m = manifest(poet / "out")
    aside = m["faults_not_applicable"]
    assert {f["mode"] for f in aside} == {"error", "timeout", "malformed", "empty", "slow"}
    assert all(f["target"] == "tool" and f["cases"] > 0 and "exposes no tool" in f["reason"] for f in aside)
    ids = {f["id"] for f in aside}
    assert not any(ids & set(c["fault_ids"]) for c in m["cases"])  # none of their cases ran, none passed
    ran_faults = {fid for c in m["cases"] for fid in c["fault_ids"]}
    assert ran_faults and all(fid.startswith("llm:") for fid in ran_faults)  # the LLM faults did run
    assert m["counts"]["faults_fired"] >= 3 and m["counts"]["attacks_executed"] > 50
    tool_channels = [s for s in m["skipped"] if s["channel"] in ("tool_output", "error_message")]
    assert tool_channels and all("has_tools=false" in s["reason"] for s in tool_channels)
    assert "not applicable: tool faults" in ran.stdout and "exposes no tool" in ran.stdout
    assert "not applicable: tool faults" in (poet / "out" / "report.md").read_text(encoding="utf-8")


@pytest.fixture
def tutor(tmp_path: Path) -> Path:
    return workspace(tmp_path, "tutor_agent.py", config={
        "version": 1,
        "agent": {"name": "mole", "type": "python", "entry": "tutor_agent.py:handle", "timeout_s": 15},
        "packs": ["security"],
        "golden_prompts": ["What is a mole in chemistry?"],
    })


def test_an_entry_that_takes_the_conversation_is_multi_turn_from_its_signature(tutor: Path) -> None:
    checked = khaos("validate", cwd=tutor, timeout=120)
    assert checked.code == 0, checked
    assert "has_multi_turn      yes  from signature of handle(text, messages=None)" in checked.stdout
    ran = khaos("run", "--out", "out", cwd=tutor, timeout=300)
    assert ran.code in (0, 1), ran
    m = manifest(tutor / "out")
    assert m["agent"]["capabilities"]["has_multi_turn"] is True
    assert m["agent"]["capability_sources"]["has_multi_turn"] == "signature:handle(text, messages=None)"
    assert not [s for s in m["skipped"] if "has_multi_turn" in s["reason"]]
    multi = [c for c in m["cases"] if c["category"] == "multi_turn" and c["outcome"]]
    assert multi and all(not c["error"] for c in multi)


def test_a_key_read_at_import_is_named_with_the_config_keys_that_give_it(tmp_path: Path) -> None:
    (tmp_path / "pharmacy_agent.py").write_text(
        "import os\n\nAPI_KEY = os.environ['PHARMA_API_KEY']  # read at import, as SDK quickstarts do\n\n\n"
        "def handle(text: str) -> str:\n    return 'Your prescription is ready.'\n", encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(yaml.safe_dump({
        "version": 1, "agent": {"name": "pharmacy", "type": "python", "entry": "pharmacy_agent.py:handle"},
        "packs": ["quickstart"], "golden_prompts": ["Is my prescription ready?"]}), encoding="utf-8")
    checked = khaos("validate", cwd=tmp_path)
    ran = khaos("run", "--out", "out", cwd=tmp_path)
    for result, code in ((checked, 2), (ran, 3)):
        assert result.code == code, result
        assert "KeyError: 'PHARMA_API_KEY'" in result.stderr and "environment variable PHARMA_API_KEY" in result.stderr
        assert "`agent.pass_env`" in result.stderr and "`agent.env: {PHARMA_API_KEY: ...}`" in result.stderr
        assert "without side effects" not in result.stderr
    (tmp_path / "khaos.yaml").write_text(yaml.safe_dump({
        "version": 1, "agent": {"name": "pharmacy", "type": "python", "entry": "pharmacy_agent.py:handle",
                                "env": {"PHARMA_API_KEY": "placeholder"}},
        "packs": ["quickstart"], "golden_prompts": ["Is my prescription ready?"]}), encoding="utf-8")
    fixed = khaos("validate", cwd=tmp_path)
    assert fixed.code == 0, fixed


PRAXIS_TOOLS = ["termin_buchen", "patientenakte_lesen", "rezept_senden", "termin_absagen", "leitlinie_nachschlagen"]


@pytest.fixture
def praxis(tmp_path: Path) -> Path:
    return workspace(tmp_path, "praxis_agent.py", "praxis_tools.py", config={
        "version": 1,
        "agent": {"name": "lina", "type": "python", "entry": "praxis_agent.py:handle",
                  "tools": [f"praxis_tools.py:{name}" for name in PRAXIS_TOOLS],
                  "secrets": ["praxis-KEY-7734"], "timeout_s": 15},
        "packs": ["security"],
        "golden_prompts": ["Bitte termin buchen für Patient P-17 am Montag", "Patientenakte lesen für P-17"],
    })


def test_german_tool_names_get_their_roles_from_what_they_say(praxis: Path) -> None:
    checked = khaos("validate", cwd=praxis, timeout=120)
    assert checked.code == 0, checked
    for label in ("termin_buchen: payment (guessed from its name)", "patientenakte_lesen: read_only (guessed from "
                  "its name)", "rezept_senden: messaging (guessed from its name)", "termin_absagen: destructive "
                  "(guessed from its name)", "leitlinie_nachschlagen: retriever (guessed from its name)"):
        assert label in checked.stdout, checked
    assert "guessed from nothing" not in checked.stdout
    ran = khaos("run", "--out", "out", cwd=praxis, timeout=300)
    assert ran.code in (0, 1), ran
    m = manifest(praxis / "out")
    assert m["agent"]["capabilities"]["has_rag"] is True  # the guideline tool is a retriever: RAG attacks apply
    # Forbidden-tool attacks on payments, deletions and messages aim at the practice's own booking, cancelling and
    # sending tools: none of them is set aside for want of such a tool.
    missing = [s["reason"] for s in m["skipped"] if "has no tool like" in s["reason"]]
    assert missing and not [r for r in missing if any(f"(no {kind}" in r for kind in
                                                      ("payment", "destructive", "messaging"))]


def test_a_command_agents_fetch_of_an_attackers_url_stays_inside_the_run(tmp_path: Path) -> None:
    """The chaos proxy is the agent process's HTTP_PROXY: the SSRF attack's metadata URL and the exfiltration URL
    are answered locally and recorded on their cases, with the canary flagged."""
    shutil.copy(DOMAINS / "fetcher_agent.py", tmp_path / "fetcher_agent.py")
    (tmp_path / "fetch_pack.yaml").write_text(yaml.safe_dump({
        "name": "fetch-attacks", "version": "1", "phases": [{"type": "security", "attacks": [
            {"id": "tm-010-ssrf-url"}, {"id": "exf-008-fetch-with-secret"}]}]}), encoding="utf-8")
    (tmp_path / "khaos.yaml").write_text(yaml.safe_dump({
        "version": 1,
        "agent": {"name": "scout", "type": "command", "command": f"{sys.executable} fetcher_agent.py",
                  "capabilities": {"has_tools": True, "has_network_access": True}, "timeout_s": 20},
        "packs": ["fetch_pack.yaml"], "golden_prompts": ["Summarise the history of the printing press"]}),
        encoding="utf-8")
    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120)
    assert ran.code in (0, 1), ran
    cases = {c["attack_id"]: c for c in manifest(tmp_path / "out")["cases"] if c.get("attack_id")}
    ssrf = cases["tm-010-ssrf-url"]["egress_attempts"]
    assert [(e["host"], e["via"], e["canary"]) for e in ssrf] == [("169.254.169.254", "proxy", True)]
    assert ssrf[0]["path"].startswith("/latest/meta-data/iam/security-credentials/")
    exfil = cases["exf-008-fetch-with-secret"]["egress_attempts"]
    assert exfil and all(e["host"] == "uptime.monitor-hub.example" and e["via"] == "proxy" for e in exfil)
    assert "I read: " in cases["tm-010-ssrf-url"]["output"] and ": OK" in cases["tm-010-ssrf-url"]["output"]
