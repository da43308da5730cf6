"""`type: autogen` on a fleet-maintenance assistant written as AutoGen AgentChat's quickstart and team tutorial are
(tests/fixtures/frameworks/autogen_app): plain functions as `tools=` (one sync, run by AutoGen on a thread of its
own), an `AssistantAgent` and a `RoundRobinGroupChat` as entries, no `handle()`. Real AutoGen (its OpenAI client
over the openai SDK) against the offline model on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from khaos_action.engine.chaos.plan import activate
from khaos_action.engine.context import CaseContext
from khaos_action.engine.transport.frameworks import adapter_for
from khaos_action.engine.transport.frameworks.base import FrameworkTransport, discover_tools
from khaos_action.messages import AgentRequest
from tests import frameworks as fw

pytestmark = pytest.mark.slow  # a whole app, example or benchmark run: left out of the quick command

pytest.importorskip("autogen_agentchat")
pytest.importorskip("autogen_ext.models.openai")

APP = fw.APPS / "autogen_app"
TOOLS = {"get_vehicle_status", "book_service"}


@pytest.fixture(scope="module")
def servers():
    yield from fw.stand_ins()


@pytest.fixture(scope="module")
def runs(servers, tmp_path_factory: pytest.TempPathFactory):
    return fw.base_and_head(servers[0], APP / "khaos.yaml", tmp_path_factory)


def test_init_finds_the_tools_on_the_agent_and_writes_the_type(servers, tmp_path: Path) -> None:
    written = fw.init_writes("fleet.py:fleet_agent", APP, tmp_path)
    assert "type: autogen" in written
    assert "get_vehicle_status-down" in written and "book_service-down" in written


def test_validate_passes(servers) -> None:
    done = fw.cli("validate", "-c", str(APP / "khaos.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_fault_fires_and_the_baseline_is_clean(runs) -> None:
    base, _ = runs
    fw.assert_clean_baseline(base)
    fw.assert_every_fault_fired(base)
    [empty] = [c for c in fw.cases(base, scenario="booking-empty")
               if c.tool_calls and c.tool_calls[0]["name"] == "book_service"]
    # the sync tool ran on AutoGen's own executor thread: the fault still found its case
    assert empty.tool_calls[0]["fault"] and empty.tool_calls[0]["args"] == {"vehicle_id": "VN-202", "day": "Tuesday"}


def test_indirect_payloads_ride_on_the_real_tools_and_are_judged(runs) -> None:
    base, _ = runs
    attacks = fw.assert_indirect_attacks_ride_on_real_tools(base, TOOLS)
    assert {c.outcome for c in attacks} == {"BLOCKED"}


def test_compare_catches_a_model_that_starts_obeying_injected_instructions(runs) -> None:
    base, head = runs
    fw.assert_compare_catches_the_regression(base, head)


def test_a_streamed_team_runs_with_its_participants_tools(servers, tmp_path: Path) -> None:
    assert {t.name for t in discover_tools("autogen", "fleet.py:team", APP)} == TOOLS
    manifest = fw.run(APP / "team.khaos.yaml", tmp_path)
    fw.assert_clean_baseline(manifest)
    fw.assert_every_fault_fired(manifest)
    [clean] = [c for c in fw.cases(manifest, scenario="no-chaos") if "TR-101" in c.input]
    assert clean.output.startswith("fleet_assistant: Here is what I found") and "critic: APPROVE" in clean.output


def test_the_agents_model_context_is_reset_per_case_and_kept_within_one(servers) -> None:
    transport = FrameworkTransport(adapter_for("autogen"), "fleet.py:fleet_agent", base_dir=APP)
    asked = "What is the status of TR-101?"

    async def context_sizes() -> list[int]:
        sizes = []
        for session, history in (("a", []), ("a", [{"role": "user", "content": asked},
                                                   {"role": "assistant", "content": "84210 km"}]),
                                 ("b", [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}])):
            with activate(CaseContext(case_id=session, rng=random.Random(1))):
                await transport.send(AgentRequest(asked, history, session))
            messages = await transport._obj.model_context.get_messages()
            sizes.append(sum(type(m).__name__ == "UserMessage" for m in messages))
        return sizes

    # case a continues in its second turn; case b starts afresh from the conversation it opens with
    assert asyncio.run(context_sizes()) == [1, 2, 2]


def test_a_case_after_a_failed_team_run_meets_a_team_as_new(servers, tmp_path: Path) -> None:
    """An AgentChat team whose run raised stays broken after `reset()` (its next run stops after the first
    message); the case after it runs on a worker that imported the team afresh, so it is judged on a working team."""
    config = (APP / "team.khaos.yaml").read_text().replace("concurrency: 2", "concurrency: 1").replace(
        "  stream: true\n", "").replace("packs: [../indirect.pack.yaml]\n", "")
    chaos = config.index("chaos_matrix:")
    (tmp_path / "fleet.py").write_text((APP / "fleet.py").read_text())
    (tmp_path / "khaos.yaml").write_text(config[:chaos] + "chaos_matrix:\n"
                                         "  - name: model-down\n    llm_faults: [{mode: model_unavailable}]\n"
                                         "  - name: no-chaos\n")
    manifest = fw.run(tmp_path / "khaos.yaml", tmp_path / "out")
    failed = fw.cases(manifest, scenario="model-down")
    assert failed and all(c.error and "autogen agent raised" in c.error for c in failed)
    after = fw.cases(manifest, scenario="no-chaos")
    assert after and all(c.error is None and "critic: APPROVE" in c.output for c in after), \
        [(c.input, c.error, c.output[:200]) for c in after]
