"""The fault registry: lookups, aliases, parameter validation, custom plugins, binding and firing rules."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from khaos_action.config.models import FaultSpec, HttpFault, ToolFault
from khaos_action.engine.chaos.plan import bind_faults, decide_tool
from khaos_action.errors import ConfigError
from khaos_action.faults.effects import ToolEffect, ToolInvocation
from khaos_action.faults.registry import (
    FAULTS,
    fault_names,
    register_fault,
    validate_fault,
)
from khaos_action.faults.tool import ToolFaultBase, ToolParams
from tests.builders import make_ctx


@pytest.mark.parametrize("alias, canonical", [
    ("tool:call_failure", "tool:error"), ("tool:response_corruption", "tool:malformed"),
    ("tool:latency_spike", "tool:slow"), ("tool:output_injection", "tool:malicious_response"),
])
def test_khaos_aliases_map_to_the_same_class(alias, canonical):
    fault_names()  # loads the built-ins
    assert FAULTS[alias] is FAULTS[canonical]
    assert validate_fault({"mode": alias.split(":")[1]}, "tool").mode == canonical.split(":")[1]


def test_every_issue_fault_is_registered():
    fault_names()
    expected = {
        "tool": ["error", "timeout", "slow", "malformed", "empty", "malicious_response"],
        "llm": ["rate_limit", "timeout", "model_unavailable", "truncated_response", "empty", "garbage",
                "response_drift", "token_quota_exceeded"],
        "http": ["http_latency", "http_error", "timeout", "malformed_payload", "connection_reset"],
        "context": ["context_window_overflow", "conversation_history_dropped", "memory_poisoning",
                    "indirect_injection"],
    }
    for target, names in expected.items():
        for name in names:
            assert FAULTS[f"{target}:{name}"].target == target


@pytest.mark.parametrize("spec, target, message", [
    ({"mode": "explode"}, None, "Unknown fault mode 'explode'. Expected one of .*rate_limit"),
    ({"mode": "rate_limit"}, "tool", "'rate_limit' is not a tool fault .*Expected one of .*call_failure"),
    ({"mode": "error", "eror_code": 503}, "tool", "unknown parameter `eror_code` .*error_code"),
    ({"mode": "slow", "delay_ms": -5}, "tool", "`delay_ms`: .*greater than or equal to 0"),
    ({"mode": "error", "exception": "NoSuchError"}, "tool", "not an Exception class"),
    ({"mode": "error", "match": "(unclosed"}, "tool", "invalid regular expression"),
    ({"mode": "timeout"}, None, "several targets .*target: tool"),
    ({"probability": 0.5}, "tool", "needs `mode`"),
    ({"mode": "rate_limit", "probability": 2}, "llm", "`probability`"),
])
def test_bad_fault_entries_are_config_errors_that_say_what_to_do(spec, target, message):
    with pytest.raises(ConfigError, match=message):
        validate_fault(spec, target)


def test_config_models_validate_through_the_registry():
    tool = validate_fault(ToolFault(tool="lookup_order", mode="error", error_code=503), "tool")
    assert (tool.target, tool.params.tool, tool.params.error_code) == ("tool", "lookup_order", 503)
    http = validate_fault(HttpFault(mode="http_error", host="api.example.com"), "http")
    assert http.params.host == "api.example.com" and http.params.status_code == 503
    pack = validate_fault(FaultSpec(type="http_latency", delay_ms=1000))
    assert (pack.target, pack.params.delay_ms) == ("http", 1000)
    assert validate_fault({"mode": "timeout", "tool": "search"}).target == "tool"  # `tool:` says which one
    assert validate_fault({"mode": "timeout", "host": "x"}).target == "http"


def test_a_custom_fault_registers_validates_and_fires():
    class StockParams(ToolParams):
        stock: int = 0

    @register_fault("out_of_stock", target="tool", aliases=("sold_out",))
    class OutOfStock(ToolFaultBase):
        Params = StockParams

        def on_call(self, call: ToolInvocation) -> ToolEffect:
            return ToolEffect(result={"sku": call.args.get("sku"), "stock": self.params.stock})

    try:
        assert FAULTS["tool:sold_out"] is OutOfStock
        with pytest.raises(ConfigError, match="unknown parameter `stok`"):
            validate_fault({"mode": "out_of_stock", "stok": 1}, "tool")
        ctx = make_ctx({"target": "tool", "mode": "sold_out", "stock": 0}, case_id="c", seed=0)
        decision = decide_tool(ctx, ToolInvocation("check", {"sku": "A1"}))
        assert decision.effect.result == {"sku": "A1", "stock": 0}
        assert ctx.hits == Counter({"tool:out_of_stock": 1})
    finally:
        FAULTS.pop("tool:out_of_stock"), FAULTS.pop("tool:sold_out")


def test_register_fault_rejects_unknown_targets_and_non_faults():
    with pytest.raises(ValueError, match="tool, llm, http, context"):
        register_fault("x", target="database")
    with pytest.raises(TypeError):
        register_fault("x", target="tool")(dict)


def test_bind_faults_gives_unique_ids_and_deterministic_payloads():
    specs = [{"target": "llm", "mode": "garbage"}, {"target": "llm", "mode": "garbage"},
             {"id": "mine", "target": "tool", "mode": "empty"}]
    first = bind_faults(specs, random.Random(5))
    again = bind_faults(specs, random.Random(5))
    assert [f.id for f in first] == ["llm:garbage", "llm:garbage#2", "mine"]
    assert [f.rng.random() for f in first] == [f.rng.random() for f in again]


def test_probability_uses_the_case_rng_and_after_calls_skips_the_first_calls():
    def fired(seed: int) -> list[bool]:
        ctx = make_ctx({"target": "tool", "mode": "empty", "probability": 0.5, "after_calls": 2}, case_id="c",
                       seed=seed)
        return [decide_tool(ctx, ToolInvocation("t", {})).fault_id is not None for _ in range(40)]

    runs = fired(11)
    assert runs == fired(11)  # same seed, same schedule
    assert runs[:2] == [False, False]
    assert 8 < sum(runs[2:]) < 30
