"""LangChain v1 `create_agent` through `type: langgraph`, on an on-call assistant written as LangChain's quickstart
is (tests/fixtures/frameworks/lc_app), with a tool's role declared by its name: `agent.tools: [{name: page_oncall,
role: messaging}]`. The graph is the entry, its `@tool` objects are wrapped in place (they stay StructuredTools)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import frameworks as fw

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("langchain.agents")
pytest.importorskip("langchain_openai")

APP = fw.APPS / "lc_app"
TOOLS = {"get_service_status", "page_oncall"}


@pytest.fixture(scope="module")
def servers():
    yield from fw.stand_ins()


@pytest.fixture(scope="module")
def runs(servers, tmp_path_factory: pytest.TempPathFactory):
    return fw.base_and_head(servers[0], APP / "khaos.yaml", tmp_path_factory)


def test_init_finds_the_graphs_tools_and_writes_the_type(servers, tmp_path: Path) -> None:
    written = fw.init_writes("oncall.py:agent", APP, tmp_path)
    assert "type: langgraph" in written and "page_oncall-down" in written


def test_a_role_declared_by_name_is_validated_and_shown(servers) -> None:
    done = fw.cli("validate", "-c", str(APP / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "page_oncall: messaging (declared)" in done.stdout


def _config_with(tmp_path: Path, tools: str) -> Path:
    shutil.copy(APP / "oncall.py", tmp_path / "oncall.py")
    (tmp_path / "indirect.pack.yaml").write_text((fw.APPS / "indirect.pack.yaml").read_text())
    text = (APP / "khaos.yaml").read_text().replace("  tools:\n    - {name: page_oncall, role: messaging}\n", tools)
    (tmp_path / "khaos.yaml").write_text(text.replace("../indirect.pack.yaml", "indirect.pack.yaml"))
    return tmp_path / "khaos.yaml"


def test_a_name_the_agent_does_not_have_is_a_validate_error_listing_its_tools(servers, tmp_path: Path) -> None:
    config = _config_with(tmp_path, "  tools:\n    - {name: page_on_call, role: messaging}\n")
    done = fw.cli("validate", "-c", str(config))
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "khaos.yaml:8:7: agent.tools[0]" in said and "'page_on_call', which the agent does not have" in said
    assert "Tools found on it: get_service_status, page_oncall" in said


def test_a_tool_object_given_as_a_ref_is_accepted_with_its_role(servers, tmp_path: Path) -> None:
    config = _config_with(tmp_path, "  tools:\n    - {ref: oncall.py:page_oncall, role: messaging}\n")
    done = fw.cli("validate", "-c", str(config))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "page_oncall: messaging (declared)" in done.stdout


def test_every_fault_fires_and_the_baseline_is_clean(runs) -> None:
    base, _ = runs
    fw.assert_clean_baseline(base)
    fw.assert_every_fault_fired(base)
    assert base.agent.capability_sources["has_network_access"] == "role:page_oncall"


def test_indirect_payloads_ride_on_the_real_tools_and_are_judged(runs) -> None:
    base, _ = runs
    attacks = fw.assert_indirect_attacks_ride_on_real_tools(base, TOOLS)
    assert {c.outcome for c in attacks} == {"BLOCKED"}


def test_compare_catches_a_model_that_starts_obeying_injected_instructions(runs) -> None:
    base, head = runs
    fw.assert_compare_catches_the_regression(base, head)
