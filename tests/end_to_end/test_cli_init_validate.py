"""`khaos-action init` writes a starter khaos.yaml from the agent's code; `validate` imports the entry and tools
(never calls the agent), points at typos in their own line, and prints the profile `run` will use."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.fixtures.cli.harness import khaos

DOMAINS = Path(__file__).resolve().parents[1] / "fixtures" / "domains"


@pytest.fixture
def travel(tmp_path: Path) -> Path:
    for name in ("travel_agent.py", "travel_tools.py", "llm_agent.py", "naive_llm.py"):
        shutil.copy(DOMAINS / name, tmp_path / name)
    return tmp_path


def test_init_inspects_the_agent_and_writes_its_tools_roles_and_chaos_matrix(travel: Path) -> None:
    ran = khaos("init", "--entry", "travel_agent.py:handle", cwd=travel)
    assert ran.code == 0, ran
    assert "get_destination_guide: retriever (guessed from its name)" in ran.stdout
    config = yaml.safe_load((travel / "khaos.yaml").read_text(encoding="utf-8"))
    assert config["agent"]["entry"] == "travel_agent.py:handle"
    assert {"ref": "travel_tools.py:book_flight", "role": "payment"} in config["agent"]["tools"]
    assert {"ref": "travel_tools.py:get_destination_guide", "role": "retriever"} in config["agent"]["tools"]
    faulted = {f["tool"] for s in config["chaos_matrix"] for f in s.get("tool_faults", [])}
    assert faulted == {"search_flights", "get_destination_guide", "book_flight"}
    assert any(s.get("llm_faults") for s in config["chaos_matrix"])
    assert config["packs"] == ["quickstart"] and config["contract"]["invariants"]
    # An honest "the search is down, I can't..." under a fault is no refusal to fail on.
    refusal = next(i for i in config["contract"]["invariants"] if i["type"] == "refusal_check")
    assert refusal["when"] == "no_chaos"
    # A second init does not overwrite the file.
    again = khaos("init", "--entry", "travel_agent.py:handle", cwd=travel)
    assert again.code == 2 and "already exists" in again.stderr


def test_validate_asks_for_the_placeholders_then_shows_the_real_profile(travel: Path) -> None:
    assert khaos("init", "--entry", "travel_agent.py:handle", cwd=travel).code == 0
    ran = khaos("validate", cwd=travel)
    assert ran.code == 2 and "golden prompt 1 is still a placeholder" in ran.stderr, ran
    path = travel / "khaos.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("TODO: ", ""), encoding="utf-8")
    ran = khaos("validate", cwd=travel)
    assert ran.code == 0, ran
    assert "has_rag             yes  from declared role of tool get_destination_guide" in ran.stdout
    assert "attacks:" in ran.stdout and "not applicable" in ran.stdout
    assert not (travel / ".khaos").exists()


def test_a_tool_typo_is_blamed_on_its_own_line_never_on_the_correct_fault(travel: Path) -> None:
    (travel / "khaos.yaml").write_text(
        "agent:\n  entry: travel_agent.py:handle\n  tools: [travel_tools.py:serch_flights]\n"
        "golden_prompts: [\"Flights to Rome?\"]\n"
        "contract: {invariants: [{id: a, type: output_not_empty}]}\n"
        "chaos_matrix: [{name: x, tool_faults: [{tool: search_flights, mode: error}]}]\n", encoding="utf-8")
    ran = khaos("validate", cwd=travel)
    assert ran.code == 2
    assert "khaos.yaml:3" in ran.stderr and "Did you mean `travel_tools.py:search_flights`?" in ran.stderr
    assert "serch_flights`?" not in ran.stderr and "tool fault targets" not in ran.stderr


def test_validate_checks_the_entry_signature(travel: Path) -> None:
    (travel / "bad.py").write_text("def handle():\n    return 'hi'\n", encoding="utf-8")
    (travel / "khaos.yaml").write_text("agent: {entry: bad.py:handle}\ngolden_prompts: [hi]\npacks: [quickstart]\n",
                                       encoding="utf-8")
    ran = khaos("validate", cwd=travel)
    assert ran.code == 2 and "takes no positional argument" in ran.stderr, ran


def test_init_without_an_agent_names_both_kinds_of_entry(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text("def add(a, b):\n    return a + b\n")
    ran = khaos("init", cwd=tmp_path)
    assert ran.code == 2 and "no agent found" in ran.stderr and "framework agent object" in ran.stderr, ran
    assert "--entry" in ran.stderr and not (tmp_path / "khaos.yaml").exists()


def test_init_into_another_folder_writes_paths_relative_to_it(travel: Path) -> None:
    ran = khaos("init", "--entry", "travel_agent.py:handle", "-o", "ci/khaos.yaml", cwd=travel)
    assert ran.code == 0, ran
    config = yaml.safe_load((travel / "ci" / "khaos.yaml").read_text(encoding="utf-8"))
    # Relative to khaos.yaml's own folder, never this machine's absolute checkout path.
    assert config["agent"]["entry"] == "../travel_agent.py:handle"
    assert {"ref": "../travel_tools.py:book_flight", "role": "payment"} in config["agent"]["tools"]
    checked = khaos("validate", "-c", "ci/khaos.yaml", cwd=travel)
    assert "golden prompt 1 is still a placeholder" in checked.stderr, checked
    assert "entry" not in checked.stderr and "ref" not in checked.stderr, checked
