"""A fault entry is validated by the fault registry once, when the config is loaded; the cases carry that result
and binding a case's faults for a run does not validate them again."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import model_validator

from khaos_action.engine.chaos.plan import bind_faults
from khaos_action.faults.registry import FAULTS, Fault, FaultParams, register_fault
from khaos_action.pipeline.config import load_run
from khaos_action.pipeline.plan import make_plan
from khaos_action.run_api import EvaluateRequest

VALIDATIONS: list[int] = []


class CountedParams(FaultParams):
    retry_after_s: int = 1

    @model_validator(mode="after")
    def _count(self) -> CountedParams:
        VALIDATIONS.append(self.retry_after_s)
        return self


@pytest.fixture
def counted_fault():
    @register_fault("counted_outage", target="llm")
    class CountedOutage(Fault):
        Params = CountedParams

    VALIDATIONS.clear()
    yield CountedOutage
    FAULTS.pop("llm:counted_outage")


def test_each_fault_entry_is_validated_once_at_load_and_cases_share_it(tmp_path: Path, counted_fault) -> None:
    config = tmp_path / "khaos.yaml"
    config.write_text(
        "agent: {type: python, entry: agent.py:handle}\n"
        "golden_prompts: [Where is my order?, Can I return it?]\n"
        "contract: {invariants: [{id: answers, type: output_not_empty}]}\n"
        "chaos_matrix:\n"
        "  - name: no-chaos\n"
        "  - name: model-down\n"
        "    llm_faults: [{mode: counted_outage, retry_after_s: 7}]\n", encoding="utf-8")
    run = load_run(EvaluateRequest(config_path=config, out_dir=tmp_path / "out"))
    assert VALIDATIONS == [7]  # the load-time check validated the entry
    cases = [c for c in make_plan(run.plan).cases if c.faults]
    assert len(cases) == 2 and cases[0].faults[0] is cases[1].faults[0]
    assert cases[0].faults[0].params == {"probability": 1.0, "after_calls": 0, "retry_after_s": 7}
    [fault] = bind_faults(cases[0].faults)
    assert isinstance(fault, counted_fault) and fault.params.retry_after_s == 7 and fault.id == cases[0].faults[0].id
    assert VALIDATIONS == [7]  # planning and binding reused it
    bind_faults([cases[0].faults[0].as_dict()])  # a plain entry (what the worker pipe carries) is parsed again
    assert VALIDATIONS == [7, 7]


def test_a_bad_fault_entry_is_a_load_error_naming_the_key(tmp_path: Path, counted_fault) -> None:
    from khaos_action.config.errors import ConfigFileError

    config = tmp_path / "khaos.yaml"
    config.write_text(
        "agent: {type: python, entry: agent.py:handle}\n"
        "golden_prompts: [Where is my order?]\n"
        "contract: {invariants: [{id: answers, type: output_not_empty}]}\n"
        "chaos_matrix:\n"
        "  - name: model-down\n"
        "    llm_faults: [{mode: counted_outage, retry_after: 7}]\n", encoding="utf-8")
    with pytest.raises(ConfigFileError) as caught:
        load_run(EvaluateRequest(config_path=config, out_dir=tmp_path / "out"))
    text = str(caught.value)
    assert f"{config}:6:" in text
    assert "chaos_matrix[0].llm_faults[0].retry_after: llm fault 'counted_outage': unknown parameter" in text
